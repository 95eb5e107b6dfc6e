"""The length-controlled (LC) preference: how often the judge prefers the final at equal length.

A judge may prefer the longer text whatever it says; a revision usually makes the text longer.
The model (AlpacaEval 2's LC regression, its minimal form) explains each verdict the judge gave,
one per order (1 the final, 0.5 a tie, 0 the other text), by a logistic regression on the
length gap: P(final) = sigmoid(a + b x), x = tanh(d / s), d = ln(final words / other words),
s the root mean square of the tasks' d. The LC preference is sigmoid(a), the fitted preference
at equal length (x = 0).

From the pairs as written alone, a and b are one number when every final is longer than its
first draft by a similar amount (x nearly constant): the fit extrapolates to x = 0 and its prior
decides. So each task is also judged on equal-length copies of its two texts (eval/matched.py:
the same sections, cut to the shorter version's length), both orders: those verdicts sit at
x ≈ 0 and fix a, and the pairs as written then fix the length term b. The observations of one
task (two orders, as written and equal-length) are a cluster.

- Fit: maximum a posteriori under Gaussian priors (PRIOR_*: a standard normal on a, a nearly
  flat one, sd 10, on b), by Newton's method (the log posterior is concave).
- Standard error of a: the larger of the cluster-robust (sandwich, CR1 small-sample factor
  G / (G - 1), clustered by task) and the model-based one (inverse Hessian of the log
  posterior). The sandwich is right for fractional verdicts and tasks that differ; the
  model-based one keeps a floor when the fit is near-perfect (all residuals near 0). The LC
  preference's standard error is its delta-method image, p (1 - p) se(a); its 95 % interval is
  sigmoid(a ± 1.96 se(a)).
- Confounded: no number is given when the fit would extrapolate to equal length, i.e. no
  observation lies within EQUAL_BAND (5 % in words) of equal length or beyond it (every gap
  points one way: every final longer, and no equal-length pair judged), or when the design
  cannot separate a from b: the variance inflation factor of the intercept, VIF = mean(x²) /
  var(x) over the observations, exceeds VIF_LIMIT (10, the usual rule of thumb for serious
  collinearity; the gaps are nearly all alike)."""

from __future__ import annotations

import math
import statistics
from typing import Any

# the fit's Gaussian priors (precisions): a standard normal on the log-odds at equal length (95 %
# of its mass between 12 % and 88 %), a nearly flat one (sd 10) on the length slope
PRIOR_INTERCEPT, PRIOR_SLOPE = 1.0, 0.01
VIF_LIMIT = 10.0
EQUAL_BAND = math.log(1.05)  # a gap within 5 % in words is "equal length"
Z95 = 1.959964

Observation = tuple[float, float]  # (d, y): ln length ratio of the final over the other, verdict


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def _inverse(m: tuple[float, float, float]) -> tuple[float, float, float]:
    """The inverse of the symmetric 2 x 2 matrix (aa, ab, bb)."""
    aa, ab, bb = m
    det = aa * bb - ab * ab
    return bb / det, -ab / det, aa / det


def logistic_fit(xs: list[float], ys: list[float], prior_a: float = PRIOR_INTERCEPT,
                 prior_b: float = PRIOR_SLOPE) -> tuple[float, float]:  # fmt: skip
    """(intercept, slope) of P(y) = sigmoid(a + b x), maximum a posteriori under zero-mean
    Gaussian priors of precisions `prior_a`, `prior_b`, by Newton's method; y may be
    fractional (a tie is 0.5)."""
    a = b = 0.0
    for _ in range(100):
        ga, gb, haa, hab, hbb = -prior_a * a, -prior_b * b, prior_a, 0.0, prior_b
        for x, y in zip(xs, ys, strict=True):
            p = _sigmoid(a + b * x)
            w = p * (1 - p)
            ga, gb = ga + y - p, gb + (y - p) * x
            haa, hab, hbb = haa + w, hab + w * x, hbb + w * x * x
        ia, ib, ibb = _inverse((haa, hab, hbb))
        da, db = ia * ga + ib * gb, ib * ga + ibb * gb
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


def vif(xs: list[float]) -> float:
    """The variance inflation factor of the intercept: mean(x²) / var(x); 1 when no x moved."""
    if not xs or all(x == 0 for x in xs):
        return 1.0
    spread = statistics.pvariance(xs)
    return statistics.fmean(x * x for x in xs) / spread if spread > 1e-12 else math.inf


def fit(tasks: list[list[Observation]], natural: list[float]) -> dict[str, Any]:
    """The LC model over `tasks` (each a list of (d, y) observations, one cluster); `natural`:
    the tasks' length gaps as written (they set the scale s). Returns the LC preference, its
    standard error and interval, the slope, the VIF, the observation counts, and `confounded`
    (then no preference)."""
    scale = math.sqrt(statistics.fmean(d * d for d in natural)) if natural else 0.0
    clusters = [[(math.tanh(d / scale) if scale else 0.0, y) for d, y in task] for task in tasks if task]
    xs = [x for c in clusters for x, _ in c]
    ys = [y for c in clusters for _, y in c]
    inflation = vif(xs)
    ds = [d for task in tasks for d, _ in task]
    reaches = bool(ds) and min(ds) <= EQUAL_BAND and max(ds) >= -EQUAL_BAND
    out: dict[str, Any] = {"observations": len(xs), "tasks": len(clusters), "reaches_equal": reaches,
                           "vif": round(inflation, 2) if math.isfinite(inflation) else None}  # fmt: skip
    if not xs:
        return {**out, "lc": None, "confounded": False}
    if inflation > VIF_LIMIT or not reaches:
        return {**out, "lc": None, "confounded": True}
    a, b = logistic_fit(xs, ys)
    h = [PRIOR_INTERCEPT, 0.0, PRIOR_SLOPE]
    meat = [0.0, 0.0, 0.0]
    for cluster in clusters:
        ga = gb = 0.0
        for x, y in cluster:
            p = _sigmoid(a + b * x)
            w = p * (1 - p)
            h = [h[0] + w, h[1] + w * x, h[2] + w * x * x]
            ga, gb = ga + (y - p), gb + (y - p) * x
        meat = [meat[0] + ga * ga, meat[1] + ga * gb, meat[2] + gb * gb]
    ia, ib, _ = _inverse((h[0], h[1], h[2]))
    g = len(clusters)
    robust = (ia * ia * meat[0] + 2 * ia * ib * meat[1] + ib * ib * meat[2]) * (g / (g - 1) if g > 1 else 1)
    se_a = math.sqrt(max(robust, ia))
    lc = _sigmoid(a)
    return {**out, "lc": lc, "se": lc * (1 - lc) * se_a, "se_logit": se_a,
            "interval": [_sigmoid(a - Z95 * se_a), _sigmoid(a + Z95 * se_a)],
            "slope": b, "confounded": False}  # fmt: skip
