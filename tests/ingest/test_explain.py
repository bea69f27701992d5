"""Why a path is not ingested: the first rule that refuses it, named as git check-ignore -v."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.errors import InvalidArgumentError
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.explain import explain_path
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits
from tests.ingest.trees import make_tree


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path,
        {
            ".gitignore": "# logs\n*.log\n",
            "docs/.tnsignore": "drafts/\n",
            "docs/drafts/plan.md": "# Plan\n",
            "src/app.py": "def main():\n    return 1\n",
            "build/out.py": "x = 1\n",
            "node_modules/dep/index.js": "module.exports = 1\n",
            ".env.local": "TOKEN=1",
            "run.log": "noise",
            "blob.bin": b"\x00\x01\x02",
            "blob.dat": b"\x00\x01\x02",
            "big.txt": "x" * 300,
            "generated/g.py": "x = 1\n",
        },
    )


@pytest.mark.parametrize(
    ("path", "reason", "detail"),
    [
        ("run.log", "ignored", ".gitignore:2: *.log"),
        ("docs/drafts/plan.md", "ignored", "docs/.tnsignore:1: drafts/ (at docs/drafts)"),
        ("build/out.py", "default-skip", "(at build)"),
        ("node_modules/dep/index.js", "default-skip", "(at node_modules)"),
        (".env.local", "secret", "secret file name"),
        ("blob.bin", "binary", "a binary file extension"),
        ("blob.dat", "binary", "binary content"),
        ("big.txt", "too-large", "max_file_bytes cap of 100"),
        ("generated/g.py", "excluded", "(at generated)"),
        ("missing.py", "missing", "no such file"),
        ("../elsewhere.py", "excluded", "outside"),
    ],
)
def test_the_refusing_rule_is_named(root: Path, path: str, reason: str, detail: str) -> None:
    config = KnowledgeSourceConfig(root, exclude=("generated/",))
    found = explain_path(FileIngestionService(Limits(max_file_bytes=100)), config, path)
    assert (found.admitted, found.reason) == (False, reason), found
    assert detail in found.detail


def test_an_admitted_file_says_its_format(root: Path) -> None:
    found = explain_path(FileIngestionService(), KnowledgeSourceConfig(root), root / "src/app.py")
    assert (found.path, found.admitted, found.format) == ("src/app.py", True, "code")
    assert found.chunking == "chunked by symbols: python grammar"


def test_code_without_a_grammar_says_it_is_chunked_as_line_windows(root: Path) -> None:
    service, config = FileIngestionService(), KnowledgeSourceConfig(root)
    (root / "src" / "report.pl").write_text("print 1;\n")
    found = explain_path(service, config, root / "src/report.pl")
    assert found.chunking == "chunked as line windows: no grammar for perl"
    readme = root / "docs" / "guide.md"
    readme.write_text("# Guide\n")
    assert explain_path(service, config, readme).chunking == ""


def test_a_path_the_system_cannot_take_is_refused_by_name(root: Path) -> None:
    ingestion = FileIngestionService(Limits.defaults())
    config = KnowledgeSourceConfig(root)
    with pytest.raises(InvalidArgumentError, match="NUL character"):
        explain_path(ingestion, config, "src/a\x00b.py")
    too_long = explain_path(ingestion, config, "src/" + "x" * 300 + ".py")
    assert (too_long.admitted, too_long.reason) == (False, "missing")
    assert "too long" in too_long.detail
