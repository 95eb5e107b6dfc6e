"""Talking to models: the client protocol, the embedded and remote clients, structured output,
fallbacks, the call journal and the fake for tests. Imports only `writing`, `retry` (the one
retry policy), `errors` and itself."""
