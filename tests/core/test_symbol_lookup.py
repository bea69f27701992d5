"""Structure queries over the symbol index: by name, at a position, outlines (name-based)."""

from __future__ import annotations

from ragls.core.symbol_lookup import definitions, files_below, name_at, outline, references
from ragls.core.symbols import Definition, FileSymbols, Reference, SymbolIndex


def index_of(files: dict[str, FileSymbols]) -> SymbolIndex:
    index = SymbolIndex()
    index.replace(files.items())
    return index


BILLING = FileSymbols.of(
    [
        Definition("Invoice", "class", "", 0, 6, 5, 0),
        Definition("total", "method", "Invoice", 2, 8, 4, 0),
        Definition("make", "function", "", 6, 4, 7, 0),
    ],
    [Reference("tax_rate", "call", 3, 15, 23, 1), Reference("Invoice", "call", 7, 11, 18, 2)],
)
TAX = FileSymbols.of([Definition("tax_rate", "function", "", 0, 4, 2, 0)], [])
TESTS = FileSymbols.of(
    [Definition("test_total", "function", "", 0, 4, 1, 0)],
    [Reference("tax_rate", "call", 1, 4, 12, 0)],
)


def test_an_exact_name_finds_its_definitions_only() -> None:
    index = index_of({"src/billing.py": BILLING, "src/tax.py": TAX})
    found, total = definitions(index, "total", "exact", 10)
    assert [(f.path, f.definition.name, f.definition.container) for f in found] == [
        ("src/billing.py", "total", "Invoice")
    ]
    assert total == 1
    assert definitions(index, "Total", "exact", 10) == ([], 0)


def test_a_glob_matches_whole_names_case_insensitively() -> None:
    index = index_of({"src/billing.py": BILLING, "src/tax.py": TAX})
    found, _ = definitions(index, "*RATE", "glob", 10)
    assert [f.definition.name for f in found] == ["tax_rate"]
    assert definitions(index, "rate", "glob", 10) == ([], 0)


def test_fuzzy_ranks_by_match_tier() -> None:
    index = index_of({"src/billing.py": BILLING, "src/tax.py": TAX})
    found, _ = definitions(index, "tx", "fuzzy", 10)
    assert [f.definition.name for f in found] == ["tax_rate"]


def test_references_are_grouped_by_file_outside_tests_first_with_the_enclosing_definition() -> None:
    index = index_of({"tests/test_billing.py": TESTS, "src/billing.py": BILLING, "src/tax.py": TAX})
    answer = references(index, "tax_rate", 10)
    assert [group.path for group in answer.files] == ["src/billing.py", "tests/test_billing.py"]
    first = answer.files[0].references[0]
    assert first.enclosing is not None and first.enclosing.name == "total"
    assert (answer.total, answer.truncated) == (2, False)


def test_references_are_cut_to_the_limit_and_say_so() -> None:
    index = index_of({"tests/test_billing.py": TESTS, "src/billing.py": BILLING})
    answer = references(index, "tax_rate", 1)
    assert sum(len(group.references) for group in answer.files) == 1
    assert (answer.total, answer.truncated) == (2, True)


def test_the_name_at_a_position_is_a_definition_or_a_reference() -> None:
    assert name_at(BILLING, 2, 8) == "total"
    assert name_at(BILLING, 2, 13) == "total"  # just after the name
    assert name_at(BILLING, 3, 20) == "tax_rate"
    assert name_at(BILLING, 3, 2) is None


def test_an_outline_nests_definitions_by_container() -> None:
    tree = outline(BILLING)
    assert [node.definition.name for node in tree] == ["Invoice", "make"]
    assert [child.definition.name for child in tree[0].children] == ["total"]


def test_files_below_a_folder() -> None:
    index = index_of({"src/billing.py": BILLING, "src/tax.py": TAX, "tests/t.py": TESTS})
    assert files_below(index, "src") == ["src/billing.py", "src/tax.py"]
    assert files_below(index, "") == ["src/billing.py", "src/tax.py", "tests/t.py"]
    assert files_below(index, "sr") == []
