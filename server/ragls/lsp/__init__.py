"""The daemon: ``ragls serve``, a pygls server that adapts the service layer to JSON-RPC.

Only this layer imports pygls and lsprotocol; the watcher it starts is ragls.watch's.
"""
