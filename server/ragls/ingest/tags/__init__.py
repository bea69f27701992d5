"""Definitions and references from the parse the chunker made: tree-sitter tag queries (SPEC §8)."""
