"""The critic's rubric: the four dimensions every review scores (0-10 each). Kept free of imports:
config, schemas and the read-only views all need it, and `history` must start fast."""

DIMENSIONS = ("accuracy", "completeness", "readability", "structure")
# A cited claim's final verdict, worst first (the claim record: sources/verify.py's docstring)
VERDICTS = ("contradicted", "unsupported", "unverified", "supported", "consistent")
