"""Compare many pipeline variants on the question set's tuning repositories at once.

    python bench/tune_questions.py CHECKOUTS VARIANTS.py [--split tuning|held-out|all] [--json OUT]

VARIANTS.py defines ``VARIANTS: dict[str, Pipeline]``. Each repository is indexed once with
every stream; each variant is a retriever over the same stores (``RagService.retriever_for``).
Prints nDCG@10 per category for each variant (bm25s on the same chunks first, as the issue's
baseline) and writes every variant's per-question scores as JSON. Held-out repositories
(eval/questions/split.json) are left out unless asked for.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval" / "questions"))

from ragls.core.knowledge_base import InMemoryKnowledgeBase  # noqa: E402
from ragls.evaluation.questions import (  # noqa: E402
    evaluate_questions,
    format_question_table,
    load_questions,
    merge_reports,
)
from ragls.evaluation.run import pipeline_search  # noqa: E402
from ragls.service.pipelines import PIPELINES, WORKSPACE  # noqa: E402
from ragls.service.rag_service import RagService  # noqa: E402
from run import bm25s_search  # noqa: E402

QUESTIONS = ROOT / "eval" / "questions"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", type=Path)
    parser.add_argument("variants", type=Path)
    parser.add_argument("--split", choices=("tuning", "held-out", "all"), default="tuning")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-bm25s", action="store_true")
    args = parser.parse_args()
    variants = runpy.run_path(str(args.variants))["VARIANTS"]
    held_out = set(json.loads((QUESTIONS / "split.json").read_text())["heldOut"])
    reports = []
    for meta in sorted(QUESTIONS.glob("*.meta.json")):
        slug = meta.name.removesuffix(".meta.json")
        out = slug in held_out
        if (args.split == "tuning" and out) or (args.split == "held-out" and not out):
            continue
        folder = args.checkouts / slug
        if not folder.is_dir():
            continue
        questions = load_questions(QUESTIONS / f"{slug}.jsonl")
        knowledge_base = InMemoryKnowledgeBase()
        service = RagService(
            pipeline=WORKSPACE, also_serve=list(PIPELINES.values()), knowledge_base=knowledge_base
        )
        service.index_directory(folder)
        searches = [] if args.no_bm25s else [("bm25s", bm25s_search(knowledge_base.list()))]
        searches += [
            (name, pipeline_search(service, pipeline)) for name, pipeline in variants.items()
        ]
        reports.append(evaluate_questions(questions, searches, resamples=200))
        print(f"{slug}: done", file=sys.stderr)
    merged = merge_reports(reports)
    groups = {g: p for g, p in merged.groups().items() if not g.startswith("lang:")}
    print(format_question_table(merged, groups))
    langs = {g: p for g, p in merged.groups().items() if g.startswith("lang:")}
    print()
    print(format_question_table(merged, langs).split("\n\n")[0])
    if args.json:
        args.json.write_text(json.dumps(merged.as_json()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
