"""Grounding: the source library (files, folders, URLs read into searchable chunks) that runs
will cite. Imports `store`, `writing`, `errors` and `pool` (searches and
fetches at once); never the graph, the runner or the CLI."""
