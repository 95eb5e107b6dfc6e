"""Evaluation: suites of tasks written with the user's settings, then judged by a separate model
(pairwise in both orders, and an absolute rubric) and reported. Imports `runner` and the layers
below it; only the CLI imports this."""
