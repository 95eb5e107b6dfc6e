"""Evaluation: suites of tasks written with the user's settings, then judged by a separate model
(pairwise in both orders, and an absolute rubric) and reported. Imports `runner`, `models`,
`output`, `store`, `config`, `writing`, `jsonl` (outputs files), `tasklines` (a suite's lines)
and `errors`; only the CLI imports this."""
