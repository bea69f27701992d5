"""Models that ship inside packages from a registry, loaded from the installed files alone.

A layer beside ``core``: ``core`` defines what a stream needs of a model (e.g.
:class:`ragls.core.semantic.Embedder`) and stays free of third-party packages; this layer
holds the implementations, whose packages are optional extras (``ragls[semantic]``).
"""
