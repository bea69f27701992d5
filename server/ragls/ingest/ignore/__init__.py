"""Ignore rules with git's semantics, the default skips and the secret names (SPEC §8)."""
