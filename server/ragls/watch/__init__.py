"""The file-system change feed: a watchdog watcher per session root, shared by the daemon
(``ragls serve``) and the MCP server (``ragls mcp``). Only this layer imports watchdog; it stands
on the service layer (it feeds a session's debouncer) and under both front ends."""
