"""Chunking: normalisation, structural units (symbols, sections, paragraphs) and packing."""
