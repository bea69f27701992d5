"""Persistence: one session's link to its generation store, the snapshot a service's index
becomes, which store a session uses, and what a shared store keys a checkout by."""
