"""What the user sees and keeps: the renderer (the only printer), views, artifacts, exports, diffs
and the numbers derived from a run's state. Imports `writing`, `errors`, itself and the `graph`'s
pure rules (graph/rules.py: what the graph decided; never LangGraph)."""
