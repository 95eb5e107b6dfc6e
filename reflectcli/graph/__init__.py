"""The reflection loop as a LangGraph graph: state, nodes, the pure controller, gates, the factory.
Imports `models`, `writing`, `output` (derived numbers), `sources`, `config`, `errors` and
`pool` (calls at once); never the runner or the CLI."""
