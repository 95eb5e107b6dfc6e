"""The command line: Typer commands only. Each parses, loads config, calls one function, renders.
May import every other layer (runner, store, output, config); nothing imports it."""
