"""The scoring of eval/symbols/references.py (reference precision against an oracle)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "eval" / "symbols" / "references.py"


@pytest.fixture(scope="module")
def evaluation() -> ModuleType:
    spec = importlib.util.spec_from_file_location("symbol_references_eval", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def test_a_hit_is_the_same_file_and_line_and_the_definition_counts_in_neither(
    evaluation: ModuleType,
) -> None:
    definition = ("a.py", 3)
    ours = [("a.py", 3), ("a.py", 10), ("a.py", 10), ("b.py", 7), ("c.py", 1)]
    theirs = [("a.py", 3), ("a.py", 10), ("b.py", 8), ("d.py", 2)]
    result = evaluation.compare(definition, ours, theirs)
    score = result.score
    assert (score.ours, score.theirs, score.hits) == (3, 3, 1)  # two uses on a line count once
    assert result.false_positives == [("b.py", 7), ("c.py", 1)]  # a line apart is a miss
    assert result.false_negatives == [("b.py", 8), ("d.py", 2)]
    assert score.precision == pytest.approx(1 / 3) and score.recall == pytest.approx(1 / 3)


def test_files_the_oracle_does_not_read_are_counted_apart(evaluation: ModuleType) -> None:
    result = evaluation.compare(
        ("a.py", 0), [("a.py", 5), ("web/app.js", 5)], [("a.py", 5)], {"a.py"}
    )
    assert (result.score.ours, result.score.hits, result.score.other_language) == (1, 1, 1)
    assert result.score.precision == 1.0


def test_scores_pool_references_and_average_symbols(evaluation: ModuleType) -> None:
    total = evaluation.Score()
    popular = [("x.py", line) for line in range(1, 10)]
    total.add(evaluation.compare(("x.py", 0), popular, popular[:1]).score)  # 1 of 9 right
    total.add(evaluation.compare(("y.py", 0), [("y.py", 4)], [("y.py", 4)]).score)  # 1 of 1
    total.add(evaluation.compare(("z.py", 0), [], [("z.py", 2)]).score)  # nothing answered
    assert (total.symbols, total.ours, total.theirs, total.hits) == (3, 10, 3, 2)
    assert total.precision == pytest.approx(2 / 10)
    assert total.mean_precision == pytest.approx((1 / 9 + 1) / 2)  # symbols ragls answered
    assert total.recall == pytest.approx(2 / 3)
    assert evaluation.Score().precision == 1.0 and evaluation.Score().recall == 1.0


def test_sampling_is_deterministic_and_leaves_out_syntax_called_and_short_names(
    evaluation: ModuleType,
) -> None:
    symbol = evaluation.Symbol
    candidates = [symbol(f"name_{i}", "function", "m.py", i, 4) for i in range(50)] + [
        symbol("__init__", "method", "m.py", 60, 8),
        symbol("constructor", "method", "m.ts", 1, 2),
        symbol("f", "function", "m.py", 61, 4),
        symbol("RATE", "constant", "m.py", 62, 0),
    ]
    first = evaluation.sample_symbols(candidates, 10, 28)
    assert first == evaluation.sample_symbols(list(reversed(candidates)), 10, 28)
    assert len(first) == 10 and all(each.name.startswith("name_") for each in first)
    assert len(evaluation.sample_symbols(candidates, 500, 28)) == 50


def test_receiver_rules_of_the_what_if(evaluation: ModuleType) -> None:
    method = evaluation.Symbol("send", "method", "c.py", 9, 8, "Client")
    function = evaluation.Symbol("send", "function", "f.py", 1, 4, "")
    assert evaluation.receiver("    return send(x)", 11) == ""
    assert evaluation.receiver("    self.send(x)", 9) == "self"
    assert evaluation.receiver("    this?.send(x)", 10) == "this"
    assert evaluation.receiver("    f(x).send(x)", 9) == "?"
    assert not evaluation.receiver_keeps(method, "", "", False)  # a method is never bare
    assert not evaluation.receiver_keeps(method, "self", "Other", True)  # Other's own send
    assert evaluation.receiver_keeps(method, "self", "Client", True)
    assert evaluation.receiver_keeps(method, "self", "Sub", False)  # inherited, maybe ours
    assert evaluation.receiver_keeps(method, "client", "Other", True)
    assert not evaluation.receiver_keeps(function, "self", "Other", False)
    assert evaluation.receiver_keeps(function, "", "", False)
