"""Persistence: one Store over SQLite (the default file) or PostgreSQL, the numbered migrations,
the run index, read-side queries, the source library's, memory's, eval's and batches' tables.
Imports only `errors` and itself; never the graph, the runner, output or the CLI."""
