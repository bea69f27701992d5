"""Settings: the schema every client's copy is generated from, the generated copies, and the
parsed workspace options."""
