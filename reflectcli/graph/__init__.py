"""The reflection loop as a LangGraph graph: state, nodes, the pure controller and rules, gates,
the factory. Imports `models`, `writing`, `sources`, `config`, `retry` (a retry the budget
refuses), `pool` (calls at once) and `errors`; never the output, the runner or the CLI (output
reads the graph's pure rules in rules.py, not the other way round)."""
