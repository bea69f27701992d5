"""RagService.structure(): definitions, references, outlines and the repository map of an
indexed multi-language tree, with source lines and clear errors (issue 28)."""

from __future__ import annotations

import pytest

from ragls import RagService
from ragls.errors import InvalidArgumentError
from ragls.service.structure import SymbolStructure
from tests.ingest.trees import make_tree

CORPUS = {
    "src/billing.py": (
        "from src.tax import tax_rate\n\n\n"
        "class Invoice:\n"
        '    """An invoice with lines."""\n\n'
        "    def total(self):\n"
        "        return sum(self.lines) * tax_rate('FR')\n\n\n"
        "def make_invoice():\n"
        "    return Invoice()\n"
    ),
    "src/tax.py": 'def tax_rate(country):\n    """The VAT rate of a country."""\n    return 0.2\n',
    "svc/main.go": (
        "package main\n\n// ParseLedger reads a ledger line.\n"
        "func ParseLedger(s string) int { return 0 }\n\n"
        'func main() {\n\tParseLedger("x")\n}\n'
    ),
    "web/app.ts": (
        "/** Renders the invoice total. */\n"
        "export function renderTotal(total: number): string {\n"
        "  return formatMoney(total);\n}\n\n"
        "export function formatMoney(value: number): string {\n"
        "  return value.toFixed(2);\n}\n"
    ),
    "tests/test_billing.py": (
        "from src.billing import make_invoice\n\n\n"
        "def test_total():\n    assert make_invoice().total() >= 0\n"
    ),
    ".env": "SECRET=tax_rate\n",
    ".github/scripts/release.py": "def publish_release():\n    pass\n",
}


@pytest.fixture(scope="module")
def structure(tmp_path_factory: pytest.TempPathFactory) -> SymbolStructure:
    root = make_tree(tmp_path_factory.mktemp("corpus"), CORPUS)
    service = RagService(pipeline="workspace")
    service.index_directory(root)
    return service.structure()


def test_definitions_carry_their_signature_and_doc_lines(structure: SymbolStructure) -> None:
    found, total = structure.definitions("tax_rate")
    assert total == 1
    assert (found[0].path, found[0].signature) == ("src/tax.py", "def tax_rate(country):")
    assert found[0].doc == ('"""The VAT rate of a country."""',)
    go, _ = structure.definitions("ParseLedger")
    assert go[0].doc == ("// ParseLedger reads a ledger line.",)
    ts, _ = structure.definitions("renderTotal")
    assert ts[0].doc == ("/** Renders the invoice total. */",)


def test_fuzzy_and_glob_definitions(structure: SymbolStructure) -> None:
    fuzzy, _ = structure.definitions("rendtot", match="fuzzy")
    assert [each.name for each in fuzzy] == ["renderTotal"]
    glob, _ = structure.definitions("*money", match="glob")
    assert [each.name for each in glob] == ["formatMoney"]


def test_references_by_name_are_grouped_with_the_enclosing_definition(
    structure: SymbolStructure,
) -> None:
    answer = structure.references("tax_rate")
    assert [group.path for group in answer.files] == ["src/billing.py"]
    use = answer.files[0].references[0]
    assert (use.enclosing, use.line, use.text) == (
        "Invoice.total",
        7,
        "return sum(self.lines) * tax_rate('FR')",
    )
    assert [each.path for each in answer.definitions] == ["src/tax.py"]


def test_references_at_a_position_use_the_name_there(structure: SymbolStructure) -> None:
    answer = structure.references_at("src/tax.py", 0, 6)  # inside "tax_rate" of its def
    assert answer.name == "tax_rate" and answer.total == 1


@pytest.mark.parametrize(
    ("path", "line", "character", "message"),
    [
        ("src/tax.py", 1, 0, "no definition or reference there"),
        ("../outside.py", 0, 0, "may not leave"),
        ("/elsewhere/x.py", 0, 0, "outside the indexed root"),
        ("src/nope.py", 0, 0, "holds no symbols"),
        ("src/tax.py", -1, 0, "0 or more"),
    ],
)
def test_a_bad_position_is_a_clear_error(
    structure: SymbolStructure, path: str, line: int, character: int, message: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        structure.references_at(path, line, character)


def test_an_absolute_path_below_the_root_is_accepted(structure: SymbolStructure) -> None:
    assert structure.root is not None
    assert structure.name_at(str(structure.root / "src" / "tax.py"), 0, 4) == "tax_rate"
    hidden = structure.root / ".github" / "scripts" / "release.py"
    assert structure.name_at(str(hidden), 0, 4) == "publish_release"
    assert structure.relative(str(structure.root)) == ""


def test_an_outline_of_a_file_and_a_folder(structure: SymbolStructure) -> None:
    single = structure.outline("src/billing.py")
    assert [f.path for f in single.files] == ["src/billing.py"]
    invoice = single.files[0].entries[0]
    assert invoice.definition.signature == "class Invoice:"
    assert [child.definition.name for child in invoice.children] == ["total"]
    folder = structure.outline("src")
    assert [f.path for f in folder.files] == ["src/billing.py", "src/tax.py"]
    with pytest.raises(InvalidArgumentError, match="no indexed file"):
        structure.outline("docs")


def test_the_repo_map_puts_the_most_used_definition_first(structure: SymbolStructure) -> None:
    answer = structure.repo_map(4_000)
    assert answer.text.splitlines()[0] in {"src/tax.py:", "src/billing.py:"}
    assert "def tax_rate(country):" in answer.text
    assert answer.total_files == 6


def test_the_repo_map_follows_a_query_and_stays_within_its_budget(
    structure: SymbolStructure,
) -> None:
    answer = structure.repo_map(4_000, query="ledger")
    assert answer.files[0].path == "svc/main.go"
    small = structure.repo_map(200)
    assert 0 < len(small.text) <= 200
    with pytest.raises(InvalidArgumentError, match="max_chars"):
        structure.repo_map(10)


def test_nothing_indexed_is_an_error() -> None:
    with pytest.raises(InvalidArgumentError, match="nothing is indexed"):
        RagService().structure().definitions("x")
