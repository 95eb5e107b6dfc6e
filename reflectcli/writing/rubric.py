"""The critic's rubric: the four dimensions every review scores (0-10 each), and what a score
measures (the checklist's: form, not the article). Kept free of imports: config, schemas and
the read-only views all need it, and `history` must start fast."""

DIMENSIONS = ("accuracy", "completeness", "readability", "structure")
# A cited claim's final verdict, worst first (the claim record: sources/verify.py's docstring)
VERDICTS = ("contradicted", "unsupported", "unverified", "supported", "consistent")

# What a review's score measures, by the review's `source` (the stored data is not changed:
# every view derives its words from here). The checklist measures form (length, examples,
# repetition, readability), never the article's truth; the fallback is a heuristic guess.
SCORED = {"checklist": "form", "fallback": "heuristic"}


def scored(source: str | None) -> str:
    """`form` (the checklist), `heuristic` (the fallback) or `critic` (a critic's judgement)."""
    return SCORED.get(source or "", "critic")


def facts_checked(source: str | None, state: dict | None) -> bool | None:
    """Whether a review checked accuracy: a critic judges it; the checklist only against the
    run's sources (without them its accuracy is the other three's mean, not a measure). None
    when unknown (a view with no state)."""
    if source != "checklist":
        return True
    return None if state is None else bool(state.get("evidence"))


def score_words(score: float | None, source: str | None, state: dict | None = None) -> str:
    """A review's score as every view says it: `6.9/10` from a critic, `form 6.9/10, facts not
    checked` from the checklist (`, claims checked against sources` when the run had them)."""
    if score is None:
        return "not reviewed"
    if scored(source) != "form":
        return f"{score:g}/10"
    checked = facts_checked(source, state)
    facts = {None: "", False: ", facts not checked", True: ", claims checked against sources"}[checked]
    return f"form {score:g}/10{facts}"


def dimension_shown(name: str, value: float, source: str | None, state: dict | None) -> float | None:
    """A dimension's score, or None when the review did not check it (the checklist's accuracy
    without sources): a view shows `not checked`, never a number."""
    return None if name == "accuracy" and facts_checked(source, state) is False else value
