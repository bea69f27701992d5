from __future__ import annotations

import math

import pytest

from ragls.core.documents import Document, SearchResult
from ragls.evaluation.metrics import (
    bootstrap,
    paired_difference,
    query_metrics,
    ranked_files,
)


def result(file: str | None, chunk: int = 0) -> SearchResult:
    metadata = {} if file is None else {"file": file}
    return SearchResult(Document(f"{file}:{chunk}", "x", metadata), 1.0)


def test_chunks_become_files_in_order_of_first_appearance() -> None:
    results = [result("a.py"), result("b.py"), result("a.py", 1), result(None), result("c.py")]
    assert ranked_files(results) == ["a.py", "b.py", "c.py"]


def test_metrics_of_one_query() -> None:
    metrics = query_metrics(["x.py", "a.py", "y.py", "b.py"], ["a.py", "b.py"])
    assert metrics["mrr@10"] == 0.5
    assert (metrics["recall@1"], metrics["recall@5"], metrics["recall@10"]) == (0.0, 1.0, 1.0)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3)
    assert metrics["ndcg@10"] == pytest.approx(dcg / ideal)


def test_an_answer_past_ten_files_scores_nothing() -> None:
    files = [f"f{i}.py" for i in range(10)] + ["right.py"]
    assert query_metrics(files, ["right.py"]) == {
        "mrr@10": 0.0,
        "recall@1": 0.0,
        "recall@5": 0.0,
        "recall@10": 0.0,
        "ndcg@10": 0.0,
    }


def test_bootstrap_interval_holds_the_mean_and_repeats_with_its_seed() -> None:
    values = [0.0, 1.0] * 50
    estimate = bootstrap(values, seed=3)
    assert estimate.low < estimate.mean == 0.5 < estimate.high
    assert bootstrap(values, seed=3) == estimate
    assert bootstrap([0.25] * 10) == bootstrap([0.25] * 10, seed=9)  # no spread, no interval


def test_a_paired_difference_is_per_query() -> None:
    better = [1.0, 0.5, 1.0, 0.5]
    baseline = [0.5, 0.25, 0.5, 0.25]
    difference = paired_difference(better, baseline)
    assert difference.mean == pytest.approx(0.375)
    assert difference.low > 0
