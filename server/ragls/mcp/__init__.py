"""``ragls mcp``: the workspace index for AI assistants over the Model Context Protocol (SPEC §12).

:mod:`ragls.mcp.tools` holds what each tool does, over the service layer only (no SDK: it is
tested on its own); :mod:`ragls.mcp.server` registers those tools with the official SDK's
``MCPServer`` (input schemas with bounds, structured output, tool errors) and runs it over stdio
or Streamable HTTP (:mod:`ragls.mcp.http`: loopback, bearer token). Only this layer imports
``mcp``; it stands beside the daemon and shares its workspace layer, stored index and watcher.
"""
