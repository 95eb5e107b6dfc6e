"""Batches: many tasks written by worker processes, on one machine (`batch run`) or through a
PostgreSQL job queue (`batch submit` + `worker`). May import runner, config and the layers below."""
