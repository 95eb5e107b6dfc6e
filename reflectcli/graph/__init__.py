"""The reflection loop as a LangGraph graph: state, nodes, the pure controller, gates, the factory.
Imports `models`, `writing`, `output` (derived numbers), `sources`, `config`, `retry` (a retry
the budget refuses) and `errors`; never the runner or the CLI."""
