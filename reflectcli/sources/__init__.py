"""Grounding: the source library (files, folders, URLs read into searchable chunks) that runs
will cite. Imports `store`, `writing` and `errors`; never the graph, the runner or the CLI."""
