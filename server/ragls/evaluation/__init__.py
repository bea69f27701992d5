"""``ragls eval``: retrieval measured on a repository's own commit history (service layer)."""
