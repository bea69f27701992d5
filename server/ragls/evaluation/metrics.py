"""Ranking metrics over files, and bootstrap confidence intervals (``ragls eval``).

A search answers chunks; a query's answers are files. :func:`ranked_files` turns the chunks into
files in order of first appearance, and every metric is computed on the first :data:`DEPTH`
files: reciprocal rank of the first right file (MRR@10 when averaged), Recall@1/5/10 (the share
of the right files among the first k) and nDCG@10 with binary gains (ideal: every right file
first). Confidence intervals are percentile bootstraps over queries (seeded, so a run repeats).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragls.core.documents import SearchResult

DEPTH = 10
METRICS = ("mrr@10", "recall@1", "recall@5", "recall@10", "ndcg@10")


def ranked_files(results: Iterable[SearchResult]) -> list[str]:
    """The distinct ``file`` values of ``results``, first appearance first."""
    files: dict[str, None] = {}
    for result in results:
        file = result.metadata.get("file")
        if file is not None:
            files.setdefault(file)
    return list(files)


def query_metrics(files: Sequence[str], answers: Iterable[str]) -> dict[str, float]:
    """Every metric of :data:`METRICS` for one query."""
    relevant = set(answers)
    top = list(files[:DEPTH])
    hits = [file in relevant for file in top]
    first = next((rank for rank, hit in enumerate(hits, 1) if hit), None)
    dcg = sum(1.0 / math.log2(rank + 1) for rank, hit in enumerate(hits, 1) if hit)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), DEPTH) + 1))
    return {
        "mrr@10": 0.0 if first is None else 1.0 / first,
        "recall@1": sum(hits[:1]) / len(relevant),
        "recall@5": sum(hits[:5]) / len(relevant),
        "recall@10": sum(hits) / len(relevant),
        "ndcg@10": dcg / ideal if ideal else 0.0,
    }


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over queries and its bootstrap interval."""

    mean: float
    low: float
    high: float

    def as_json(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def bootstrap(
    values: Sequence[float], *, resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> Estimate:
    """The mean of ``values`` with a percentile bootstrap interval."""
    data = np.asarray(values, dtype=np.float64)
    if len(data) == 0:
        return Estimate(0.0, 0.0, 0.0)
    generator = np.random.default_rng(seed)
    picks = generator.integers(0, len(data), size=(resamples, len(data)))
    means = data[picks].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return Estimate(float(data.mean()), float(low), float(high))


def summarize(
    per_query: Sequence[Mapping[str, float]], *, resamples: int = 1000, seed: int = 0
) -> dict[str, Estimate]:
    """Each metric's mean and interval over the queries."""
    return {
        metric: bootstrap([q[metric] for q in per_query], resamples=resamples, seed=seed)
        for metric in METRICS
    }


def paired_difference(
    values: Sequence[float], baseline: Sequence[float], *, resamples: int = 1000, seed: int = 0
) -> Estimate:
    """The mean per-query difference ``values - baseline`` with a bootstrap interval (paired:
    the same resampled queries for both), the test of whether one pipeline beats another."""
    differences = [a - b for a, b in zip(values, baseline, strict=True)]
    return bootstrap(differences, resamples=resamples, seed=seed)
