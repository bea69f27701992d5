"""The daemon: ``ragls serve``, a pygls server that adapts the service layer to JSON-RPC.

Only this layer imports pygls, lsprotocol and watchdog.
"""
