"""Talking to models: the client protocol, the embedded and remote clients, structured output,
fallbacks, the call journal and the fake for tests. Imports only `writing`, `errors` and itself."""
