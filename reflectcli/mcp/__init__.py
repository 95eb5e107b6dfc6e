"""The MCP server (`reflectcli mcp`): reflectcli's commands as tools an assistant calls, its runs
as resources, and a prompt; runs go on in the server's process and survive the client.

Above the runner, beside cli (which registers the command): may import `runner`, `output`,
`graph` (its pure rules), `sources`, `store`, `writing`, `config`, `errors` and `__init__` (the
version); no lower layer imports it. server.py is the only module that imports the MCP SDK."""
