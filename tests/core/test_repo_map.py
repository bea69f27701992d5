"""The repository map's ranking: the file graph, PageRank, personalisation."""

from __future__ import annotations

import numpy as np
import pytest

from ragls.core.repo_map import build_graph, graph_of, name_factor, pagerank, rank
from ragls.core.symbols import Definition, FileSymbols, Reference, SymbolIndex


def file_of(defines: tuple[str, ...], uses: tuple[str, ...] = ()) -> FileSymbols:
    return FileSymbols.of(
        [Definition(name, "function", "", line, 4, line, 9) for line, name in enumerate(defines)],
        [Reference(name, "call", 20, 0, len(name), -1) for name in uses],
    )


def star() -> SymbolIndex:
    """Three files use ``core.py``'s ``load_config``; ``core.py`` uses nothing."""
    index = SymbolIndex()
    index.replace(
        [
            ("core.py", file_of(("load_config",))),
            ("a.py", file_of(("alpha",), ("load_config",))),
            ("b.py", file_of(("beta",), ("load_config", "alpha"))),
            ("c.py", file_of(("gamma",), ("load_config",))),
        ]
    )
    return index


def test_pagerank_of_a_cycle_is_uniform_and_sums_to_one() -> None:
    source = np.array([0, 1, 2])
    target = np.array([1, 2, 0])
    ranks = pagerank(3, source, target, np.ones(3))
    assert ranks.sum() == pytest.approx(1.0)
    assert ranks == pytest.approx([1 / 3] * 3)


def test_a_file_everyone_uses_ranks_first() -> None:
    ranked = rank(build_graph(star()))
    assert max(ranked.file_rank, key=ranked.file_rank.__getitem__) == "core.py"
    best = max(ranked.definition_score, key=ranked.definition_score.__getitem__)
    assert best == ("core.py", "load_config")


def test_personalisation_lifts_what_the_focus_file_uses() -> None:
    graph = build_graph(star())
    plain = rank(graph).definition_score[("a.py", "alpha")]
    focused = rank(graph, {"b.py": 1.0}).definition_score[("a.py", "alpha")]
    assert focused > plain


def test_the_graph_is_rebuilt_only_after_the_index_changes() -> None:
    index = star()
    first = graph_of(index)
    assert graph_of(index) is first
    index.replace([("d.py", file_of(("delta",), ("alpha",)))])
    assert "d.py" in graph_of(index).paths


@pytest.mark.parametrize(
    ("name", "definers", "member_only", "factor"),
    [
        ("load_config", 1, False, 10.0),  # long and specific
        ("render", 1, False, 1.0),
        ("get", 1, False, 0.1),  # short: a builtin's name as often as not
        ("_private", 1, False, 0.1),
        ("render", 6, False, 0.1),  # defined in many files
        ("replace", 1, True, 0.1),  # a plain word defined only as a method
        ("replaceAll", 1, True, 10.0),
    ],
)
def test_name_factors(name: str, definers: int, member_only: bool, factor: float) -> None:
    assert name_factor(name, definers, member_only=member_only) == pytest.approx(factor)
