"""Every kind a tag query can capture has an LSP symbol kind (no definition shows as a bare
Variable by accident)."""

from __future__ import annotations

import re

from ragls.ingest.tags.extract import query_sources
from ragls.ingest.tags.languages import QUERIES
from ragls.lsp.symbols import SYMBOL_KINDS

CAPTURE = re.compile(r"@(?:definition|reference)\.([a-z_]+)")


def test_every_captured_kind_has_an_lsp_kind() -> None:
    kinds = {
        kind
        for language in QUERIES
        for source in query_sources(language)
        for kind in CAPTURE.findall(source)
    }
    assert "function" in kinds and "extension" in kinds
    assert sorted(kinds - set(SYMBOL_KINDS)) == []
