"""Persistence: the SQLite file, its numbered migrations, the run index and read-side queries.
Imports only `errors` and itself; never the graph, the runner, output or the CLI."""
