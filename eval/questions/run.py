"""Run the question set over a folder of checkouts (nothing is fetched here).

    python eval/questions/run.py CHECKOUTS [--pipeline NAME ...] [--bm25s] [--split tuning|held-out|all]
                                 [--json OUT] [--only OWNER__NAME ...] [--questions DIR]

CHECKOUTS holds one folder per repository, named OWNER__NAME, holding the tree of the commit
pinned in ``OWNER__NAME.meta.json`` (``eval/questions/checkout.py`` makes them from local
clones). Each repository is indexed once (every pipeline over the same chunks); ``--bm25s``
adds bm25s 0.3 (its tokenizer, English stop words; ``make bench``'s peer) over those same
chunks as the first column, the baseline of the paired differences. ``--questions`` reads
another folder of ``OWNER__NAME.jsonl`` / ``.meta.json`` pairs (a ``split.json`` there is
optional: without one every repository counts as tuning). Prints nDCG@10 per
category and per language with the paired difference against the first pipeline, for the
tuning repositories and the held-out ones apart (``split.json``), then for all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ragls.core.documents import SearchResult
from ragls.core.knowledge_base import InMemoryKnowledgeBase
from ragls.evaluation.questions import (
    QuestionReport,
    Search,
    evaluate_questions,
    format_question_table,
    load_questions,
    merge_reports,
)
from ragls.evaluation.run import pipeline_search
from ragls.service.pipelines import PIPELINES, WORKSPACE, pipeline_named
from ragls.service.rag_service import RagService

HERE = Path(__file__).resolve().parent


def bm25s_search(documents: list[Any]) -> Search:
    import bm25s

    texts = [document.content for document in documents]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def search(query: str) -> list[SearchResult]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return []
        k = min(100, len(texts))
        found, scores = retriever.retrieve(tokens, k=k, show_progress=False)
        return [
            SearchResult(documents[int(i)], float(s))
            for i, s in zip(found[0], scores[0], strict=True)
            if s > 0
        ]

    return search


def evaluate_repository(
    folder: Path, questions_file: Path, names: list[str], with_bm25s: bool
) -> QuestionReport:
    questions = load_questions(questions_file)
    knowledge_base = InMemoryKnowledgeBase()
    service = RagService(
        pipeline=WORKSPACE,
        also_serve=[pipeline_named(name) for name in names],
        knowledge_base=knowledge_base,
    )
    status = service.index_directory(folder)
    service.wait_for_embeddings()
    print(
        f"{folder.name}: {status.file_count} files, {status.chunk_count} chunks, {len(questions)} questions",
        file=sys.stderr,
    )
    searches: list[tuple[str, Search]] = []
    if with_bm25s:
        searches.append(("bm25s", bm25s_search(knowledge_base.list())))
    searches += [(name, pipeline_search(service, pipeline_named(name))) for name in names]
    return evaluate_questions(questions, searches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", type=Path)
    parser.add_argument("--pipeline", action="append", choices=sorted(PIPELINES))
    parser.add_argument("--bm25s", action="store_true")
    parser.add_argument("--split", choices=("tuning", "held-out", "all"), default="all")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--questions", type=Path, default=HERE)
    args = parser.parse_args()
    names = list(dict.fromkeys(args.pipeline or ["seed", "workspace"]))
    questions: Path = args.questions
    split = questions / "split.json"
    held_out = set(json.loads(split.read_text())["heldOut"]) if split.is_file() else set()
    reports: dict[str, QuestionReport] = {}
    for meta_file in sorted(questions.glob("*.meta.json")):
        slug = meta_file.name.removesuffix(".meta.json")
        if args.only and slug not in args.only:
            continue
        if (
            args.split == "tuning"
            and slug in held_out
            or args.split == "held-out"
            and slug not in held_out
        ):
            continue
        folder = args.checkouts / slug
        if not folder.is_dir():
            print(f"{slug}: no checkout at {folder}; skipped", file=sys.stderr)
            continue
        reports[slug] = evaluate_repository(folder, questions / f"{slug}.jsonl", names, args.bm25s)
    if not reports:
        print("no repository evaluated", file=sys.stderr)
        return 1
    parts = {
        "tuning": [r for s, r in reports.items() if s not in held_out],
        "held-out": [r for s, r in reports.items() if s in held_out],
        "all": list(reports.values()),
    }
    output: dict[str, Any] = {}
    for part, chosen in parts.items():
        if not chosen:
            continue
        merged = merge_reports(chosen)
        print(f"\n## {part}: {len(chosen)} repositories, {len(merged.questions)} questions\n")
        print(format_question_table(merged))
        output[part] = merged.as_json()
    per_repository = {}
    for slug, report in reports.items():
        everything = list(range(len(report.questions)))
        per_repository[slug] = {
            s.name: round(report.summary(s, everything)["ndcg@10"].mean, 4) for s in report.scores
        }
    print("\n| repository | " + " | ".join(next(iter(per_repository.values()))) + " |")
    print("|---|" + "---|" * len(next(iter(per_repository.values()))))
    for slug, row in per_repository.items():
        print(
            f"| {slug}{' (held out)' if slug in held_out else ''} | "
            + " | ".join(f"{v:.3f}" for v in row.values())
            + " |"
        )
    if args.json:
        output["perRepository"] = per_repository
        args.json.write_text(json.dumps(output, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
