"""Batches: many tasks written by worker processes, on one machine (`batch run`) or through a
PostgreSQL job queue (`batch submit` + `worker`). Imports `runner`, `output`, `store`,
`config`, `retry` (the one retry policy), `jsonl`, `tasklines` (a task file's lines) and `errors`."""
