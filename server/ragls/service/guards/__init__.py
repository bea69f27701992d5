"""Guards: which folders a daemon may index, who may reach a network front end, and reading
beneath a root without following links."""
