"""Would the symbol graph help rank answers to questions? (issue 28, item 4)

    python eval/questions/graph_ranking.py CHECKOUTS [--split tuning|held-out|all]

Each repository of the question set is indexed with the workspace pipeline; its file graph is
the repository map's (``ragls.core.repo_map``: files linked by the names they use). The
workspace pipeline's 100 answers to each question are then rescored by
``score * (1 + w * centrality(file))`` for a few weights ``w``, two ways:

* ``central``: the file's PageRank over the whole graph (uniform restart), on a log scale
  from 0 (no rank) to 1 (the most central file): central files first, for architecture
  questions;
* ``ppr``: PageRank personalised by the files of the first ten answers (weight ``1 / rank``),
  over the best file's: what the query's matches lead to.

It prints nDCG@10 per category and language against the unchanged pipeline (the table in
docs/retrieval.md, "The symbol graph in ranking"). Nothing is fetched here.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

from ragls.core.documents import SearchResult
from ragls.core.repo_map import FileGraph, graph_of, rank
from ragls.evaluation.questions import (
    QuestionReport,
    Search,
    evaluate_questions,
    format_question_table,
    load_questions,
    merge_reports,
)
from ragls.evaluation.run import pipeline_search
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService

HERE = Path(__file__).resolve().parent
WEIGHTS = (0.1, 0.25, 0.5)


def _rescored(
    base: Search, factor: Callable[[str, list[SearchResult]], Callable[[str], float]], w: float
) -> Search:
    def search(query: str) -> list[SearchResult]:
        found = base(query)
        of = factor(query, found)
        rescored = [
            SearchResult(r.document, r.score * (1 + w * of(r.document.metadata.get("file", ""))))
            for r in found
        ]
        rescored.sort(key=lambda r: -r.score)
        return rescored

    return search


def _central(graph: FileGraph) -> Callable[[str, list[SearchResult]], Callable[[str], float]]:
    ranked = rank(graph).file_rank
    mean = sum(ranked.values()) / max(len(ranked), 1)
    top = max(ranked.values(), default=0.0)

    def of(path: str) -> float:
        if mean <= 0 or top <= 0:
            return 0.0
        return math.log1p(ranked.get(path, 0.0) / mean) / math.log1p(top / mean)

    return lambda query, found: of


def _personalised(graph: FileGraph) -> Callable[[str, list[SearchResult]], Callable[[str], float]]:
    def factor(query: str, found: list[SearchResult]) -> Callable[[str], float]:
        seeds: dict[str, float] = {}
        for number, result in enumerate(found[:10]):
            path = result.document.metadata.get("file", "")
            seeds[path] = seeds.get(path, 0.0) + 1.0 / (number + 1)
        ranked = rank(graph, personalisation=seeds).file_rank
        top = max(ranked.values(), default=0.0)
        return lambda path: ranked.get(path, 0.0) / top if top > 0 else 0.0

    return factor


def evaluate_repository(folder: Path, questions_file: Path) -> QuestionReport:
    service = RagService(pipeline=WORKSPACE)
    service.index_directory(folder)
    graph = graph_of(service.symbol_index)
    base = pipeline_search(service, WORKSPACE)
    searches: list[tuple[str, Search]] = [("workspace", base)]
    for name, factor in (("central", _central(graph)), ("ppr", _personalised(graph))):
        searches += [(f"{name}{w}", _rescored(base, factor, w)) for w in WEIGHTS]
    print(f"{folder.name}: {len(graph.paths)} files in the graph", file=sys.stderr)
    return evaluate_questions(load_questions(questions_file), searches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", type=Path)
    parser.add_argument("--split", choices=("tuning", "held-out", "all"), default="tuning")
    args = parser.parse_args()
    held_out = set(json.loads((HERE / "split.json").read_text())["heldOut"])
    reports = []
    for meta_file in sorted(HERE.glob("*.meta.json")):
        slug = meta_file.name.removesuffix(".meta.json")
        if (args.split == "tuning" and slug in held_out) or (
            args.split == "held-out" and slug not in held_out
        ):
            continue
        folder = args.checkouts / slug
        if folder.is_dir():
            reports.append(evaluate_repository(folder, HERE / f"{slug}.jsonl"))
    if not reports:
        print("no repository evaluated", file=sys.stderr)
        return 1
    print(format_question_table(merge_reports(reports)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
