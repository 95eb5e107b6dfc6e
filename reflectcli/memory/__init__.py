"""Reflection memory: lessons learned from past runs' critiques, merged, decayed, superseded and
recalled into new runs. Imports `store`, `writing` and `errors`; never the graph, runner or CLI."""
