"""Whether a critic's review can be believed: its overall score against its own dimensions, and
(for a tiny critic, which writes junk that still parses) whether its feedback is prose."""

from __future__ import annotations

from collections.abc import Mapping

from reflectcli.writing.critique import not_a_critique, prose_share
from reflectcli.writing.rubric import DIMENSIONS

MAX_GAP = 2.0  # an overall this far from the dimensions' mean, or farther, is not believed
TINY_PROSE = 0.5  # a tiny critic's feedback: at least this share of its tokens are words


def gap(score: float, dims: Mapping[str, float]) -> float:
    """How far the overall score stands above the dimensions' mean (below: negative), rounded
    so that a gap of exactly MAX_GAP is compared as such."""
    mean = sum(dims[d] for d in DIMENSIONS) / len(DIMENSIONS)
    return round(score - mean, 6)


def consistent(score: float, dims: Mapping[str, float]) -> float:
    """The critic's overall, unless it is MAX_GAP or more from its own dimensions (then their
    mean)."""
    if abs(gap(score, dims)) >= MAX_GAP:
        return round(score - gap(score, dims), 1)
    return score


def implausible(score: float, dims: Mapping[str, float], feedback: str, tiny: bool) -> str | None:
    """Why a review is invalid, for a tiny critic (None when it may stand; any review from a
    capable critic may): an overall MAX_GAP or more above the dimensions' mean, or feedback
    that is not a critique or not prose."""
    if not tiny:
        return None
    if (above := gap(score, dims)) >= MAX_GAP:
        return (f"the overall score {score:g} is {above:g} above the mean of the four dimensions; "
                "score the article overall as the dimensions say")  # fmt: skip
    if why := not_a_critique(feedback, min_words=4):
        return f"feedback: {why}"
    if prose_share(feedback) < TINY_PROSE:
        return "feedback: it is not prose; say in two plain sentences what is weak in the article"
    return None
