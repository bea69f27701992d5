"""The symbol index: match tiers, ranking, per-file replacement, compact references."""

from __future__ import annotations

import pickle
import random

import pytest

from ragls.core.symbols import (
    EXACT,
    FUZZY,
    PREFIX,
    SUB_TOKEN,
    SUBSTRING,
    Definition,
    FileSymbols,
    Reference,
    SymbolIndex,
    SymbolMatch,
    match_tier,
)


def definition(name: str, kind: str = "function", line: int = 0) -> Definition:
    return Definition(name, kind, "", line, 4, line + 1, 0)


def symbols(*names: str, references: tuple[str, ...] = ()) -> FileSymbols:
    return FileSymbols.of(
        [definition(name, line=i) for i, name in enumerate(names)],
        [Reference(name, "call", 9, 2, 2 + len(name), -1) for name in references],
    )


@pytest.mark.parametrize(
    ("name", "tier"),
    [
        ("Render", EXACT),
        ("render_page", PREFIX),
        ("pre_render", SUB_TOKEN),
        ("preRender", SUB_TOKEN),
        ("HTMLRenderer", SUB_TOKEN),
        ("prerender", SUBSTRING),
        ("rxeynder", FUZZY),
        ("redner", None),
    ],
)
def test_match_tiers(name: str, tier: int | None) -> None:
    assert match_tier("render", name) == tier


@pytest.mark.parametrize(
    ("name", "tier"),
    [
        ("ReconcileLedger", EXACT),
        ("reconcile_ledger", EXACT),
        ("reconcile-ledger", EXACT),
        ("reconcileLedgerEntries", PREFIX),
        ("pre_reconcile_ledger", SUB_TOKEN),
        ("autoreconcileledger", SUBSTRING),
    ],
)
def test_names_match_whatever_their_separators(name: str, tier: int) -> None:
    assert match_tier("reconcileledger", name) == tier


@pytest.mark.parametrize("query", ["reconcile_ledger", "reconcile ledger", "ReconcileLedger"])
def test_a_query_finds_a_name_in_every_style(query: str) -> None:
    index = SymbolIndex()
    index.replace(
        [
            ("ledger.py", symbols("reconcile_ledger")),
            ("ledger.go", symbols("ReconcileLedger")),
            ("ledger.ts", symbols("reconcileLedger")),
            ("other.py", symbols("reconcile", "ledger")),
        ]
    )
    found = index.search(query, 10)
    assert {m.path for m in found[:3]} == {"ledger.py", "ledger.go", "ledger.ts"}
    assert {m.tier for m in found[:3]} == {EXACT}
    assert all(m.path != "other.py" for m in found)


def test_results_are_ranked_by_tier_then_definitions_then_non_tests() -> None:
    index = SymbolIndex()
    index.replace(
        [
            ("tests/test_page.py", symbols("render")),
            ("src/page.py", symbols("rxeynder", "pre_render", "render_page", "render")),
            ("src/use.py", symbols(references=("render",))),
        ]
    )
    found = [(m.path, m.name, m.definition is not None) for m in index.search("render", 10)]
    assert found == [
        ("src/page.py", "render", True),
        ("tests/test_page.py", "render", True),
        ("src/use.py", "render", False),
        ("src/page.py", "render_page", True),
        ("src/page.py", "pre_render", True),
        ("src/page.py", "rxeynder", True),
    ]


def test_replacing_a_file_replaces_its_symbols_and_counts() -> None:
    index = SymbolIndex()
    index.replace([("a.py", symbols("alpha", "beta", references=("gamma",)))])
    assert (index.definition_count, index.reference_count) == (2, 1)
    index.replace([("a.py", symbols("alpha_two"))])
    assert [m.name for m in index.search("alpha", 5)] == ["alpha_two"]
    assert index.search("beta", 5) == []
    assert (index.definition_count, index.reference_count) == (1, 0)
    index.replace([("a.py", None)])
    assert (index.definition_count, index.reference_count, len(index)) == (0, 0, 0)


def test_names_used_many_times_are_counted_per_file_and_forgotten_with_their_files() -> None:
    index = SymbolIndex()
    index.replace(
        [
            ("src/a.py", symbols("run", "run", references=("run", "run", "run", "stop"))),
            ("tests/test_a.py", symbols(references=("run", "stop"))),
        ]
    )
    with index.locked() as view:
        assert dict(view.definition_files["run"]) == {"src/a.py": 2}
        assert dict(view.reference_files["run"]) == {"src/a.py": 3, "tests/test_a.py": 1}
    index.replace([("src/a.py", symbols(references=("stop",)))])
    with index.locked() as view:
        assert "run" not in view.definition_files
        assert dict(view.reference_files["run"]) == {"tests/test_a.py": 1}
        assert dict(view.reference_files["stop"]) == {"src/a.py": 1, "tests/test_a.py": 1}
    assert [(m.path, m.name) for m in index.search("run", 10)] == [("tests/test_a.py", "run")]
    assert (index.definition_count, index.reference_count) == (0, 3)


def name_maps(index: SymbolIndex) -> tuple[dict[str, dict[str, int]], ...]:
    with index.locked() as view:
        return (
            {name: dict(files) for name, files in view.definition_files.items()},
            {name: dict(files) for name, files in view.reference_files.items()},
        )


def test_names_are_counted_when_a_query_needs_them_whatever_changed_before() -> None:
    index = SymbolIndex()
    index.replace([("a.py", symbols("run", references=("stop",))), ("b.py", symbols("stop"))])
    index.replace([("a.py", symbols("walk")), ("c.py", symbols("run"))])  # none counted yet
    assert (index.definition_count, index.reference_count, len(index)) == (3, 0, 3)
    assert [m.path for m in index.search("run", 5)] == ["c.py"]  # counted now
    index.replace([("c.py", None), ("b.py", symbols(references=("walk",)))])  # counted ones
    index.replace([("b.py", symbols("stop", references=("walk",)))])  # again, uncounted
    fresh = SymbolIndex()
    fresh.replace([("a.py", symbols("walk")), ("b.py", symbols("stop", references=("walk",)))])
    assert name_maps(index) == name_maps(fresh)
    assert (index.definition_count, index.reference_count) == (2, 1)
    assert [m.path for m in index.search("walk", 5)] == ["a.py", "b.py"]


def test_the_limit_keeps_the_best() -> None:
    index = SymbolIndex()
    index.replace([(f"m{i}.py", symbols(f"load_{i}")) for i in range(50)])
    index.replace([("z.py", symbols("load"))])
    found = index.search("load", 3)
    assert len(found) == 3 and found[0].name == "load"


def test_references_round_trip_through_the_packed_form() -> None:
    reference = Reference("connect", "call", 12, 8, 15, 0)
    packed = FileSymbols.of([definition("main")], [reference])
    assert list(packed.references()) == [reference]
    assert packed.reference_count == 1


def test_a_blank_query_gives_definitions_outside_tests() -> None:
    index = SymbolIndex()
    index.replace([("src/a.py", symbols("zeta")), ("tests/test_a.py", symbols("alpha"))])
    assert [m.name for m in index.search("  ", 10)] == ["zeta"]


def ranked(match: SymbolMatch) -> tuple[int, bool, bool, int, str, int]:
    """The documented order: tier, definitions first, outside tests first, shorter names, path,
    line."""
    line = match.definition.line if match.definition else match.reference.line  # type: ignore[union-attr]
    return (
        match.tier,
        match.definition is None,
        match.path.startswith("tests/"),
        len(match.name),
        match.path,
        line,
    )


def test_search_returns_exactly_the_best_matches_of_a_full_scan() -> None:
    """The search stops expanding names once ``limit`` better matches are certain; its answer
    is the full ranking's first ``limit``, whatever the mix of tiers, tests and references."""
    rng = random.Random(3)
    stems = ["render", "rend", "page", "pre", "er", "ren_der", "Render", "HTMLRender", "xr"]
    index = SymbolIndex()
    files = []
    for number in range(120):
        path = f"tests/test_{number}.py" if number % 3 == 0 else f"src/mod_{number}.py"
        names = ["".join(rng.sample(stems, rng.randint(1, 3))) for _ in range(rng.randint(1, 6))]
        uses = [rng.choice(names) for _ in range(rng.randint(0, 4))]
        held = FileSymbols.of(
            [definition(name, line=i) for i, name in enumerate(names)],
            [Reference(name, "call", 50 + i, 2, 2 + len(name), -1) for i, name in enumerate(uses)],
        )
        files.append((path, held))
    index.replace(files)
    everything = dict(files)
    for query in ["render", "ren", "pg", "HTMLRender", "er", "r", "zz"]:
        needle = query.lower()
        definitions = [
            SymbolMatch(path, d.name, tier, d, None)
            for path, held in everything.items()
            for d in held.definitions
            if (tier := match_tier(needle, d.name)) is not None
        ]
        references = [
            SymbolMatch(path, r.name, tier, None, r)
            for path, held in everything.items()
            for r in held.references()
            if (tier := match_tier(needle, r.name)) is not None
        ]
        for limit in (1, 5, 20, 200):
            expected = definitions + (references if len(definitions) < limit else [])
            expected.sort(key=ranked)
            assert index.search(query, limit) == expected[:limit], (query, limit)


def test_symbols_from_separate_messages_share_their_names() -> None:
    """A worker's FileSymbols arrive pickled, each with strings of its own; after unpickling,
    every file's copy of a name is one string (a corpus that names `get` in every file, or a
    copied tree, holds each name once)."""
    name = "".join(["resolve_", "handler"])  # built at run time: not a shared constant
    one = FileSymbols.of([Definition(name, "function", "", 1, 0, 2, 0)], [])
    two = FileSymbols.of([], [Reference(name, "call", 4, 0, 9, -1)])
    first = pickle.loads(pickle.dumps(one))
    second = pickle.loads(pickle.dumps(two))
    assert first == one and second == two
    assert first.definition_names[0] is second.reference_names[0]


def test_a_files_numbers_are_held_in_16_bits_where_they_fit_and_read_back_the_same() -> None:
    near = [Reference("near", "call", 12, 4, 8, 0), Reference("far", "type", 7, 30, 33, -1)]
    far = [*near, Reference("deep", "call", 40_000, 2, 6, 1)]  # a line past 32,767
    definitions = [definition("f", line=3), definition("g", line=30_000)]
    held = FileSymbols.of(definitions, near)
    assert held.reference_data.typecode == "h" and held.definition_data.typecode == "h"
    assert list(held.references()) == near and list(held.definitions) == definitions
    wide = FileSymbols.of(definitions, far)
    assert wide.reference_data.typecode == "i" and list(wide.references()) == far
    for kept in (held, wide):
        again = pickle.loads(pickle.dumps(kept))
        assert again == kept and list(again.references()) == list(kept.references())
    assert list(FileSymbols.of([], []).references()) == []
