"""``ragls eval``: retrieval measured on a repository's history or on a question set."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ragls.cli.common import (
    positive,
)
from ragls.cli.progress import IndexProgressDisplay
from ragls.service.pipelines import PIPELINES, WORKSPACE


def command_eval(args: argparse.Namespace) -> int:
    from ragls.evaluation.run import EvalSettings, evaluate_repository, format_table
    from ragls.service.pipelines import pipeline_named

    names = args.pipeline or ["seed", WORKSPACE.name]
    pipelines = [pipeline_named(name) for name in dict.fromkeys(names)]
    if args.questions:
        return _eval_questions(args, pipelines)
    settings = EvalSettings(
        rev=args.rev,
        base=args.base,
        window=args.window,
        max_queries=args.max_queries,
        max_files=args.max_files,
        resamples=args.resamples,
        seed=args.seed,
    )
    report = evaluate_repository(
        Path(args.path),
        pipelines,
        settings,
        lambda line: print(line, file=sys.stderr),
        index_progress=IndexProgressDisplay(sys.stderr),
    )
    print(format_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_json(), indent=1) + "\n", "utf-8")
    return 0


def _eval_questions(args: argparse.Namespace, pipelines: list[Any]) -> int:
    from ragls.evaluation.questions import format_question_table, load_questions
    from ragls.evaluation.run import EvalSettings, evaluate_question_folder

    questions = load_questions(Path(args.questions))
    settings = EvalSettings(resamples=args.resamples, seed=args.seed)
    report = evaluate_question_folder(
        Path(args.path),
        questions,
        pipelines,
        settings,
        lambda line: print(line, file=sys.stderr),
        index_progress=IndexProgressDisplay(sys.stderr),
    )
    print(format_question_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.as_json(), indent=1) + "\n", "utf-8")
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="measure retrieval on a git repository's history",
        description="Each qualifying commit of the window (not a merge, bot, release, format, "
        "typo or dependency commit; modifying 1-4 source files that all exist at the base, none "
        "added or deleted) is a query, subject and body without issue references and "
        "trailers; its answers are the source files it modified. The corpus is the tree at "
        "the base commit, read with git (the work tree is never touched). Prints MRR@10, "
        "Recall@1/5/10 and nDCG@10 per pipeline with bootstrap 95%% intervals.",
    )
    evaluate.add_argument(
        "path",
        help="a git repository (a working copy or a bare one); with --questions, a folder "
        "holding the questions' checkout",
    )
    evaluate.add_argument(
        "--questions",
        metavar="FILE",
        help="score a question set instead of the history: JSON lines of {id, query, "
        "category (symbol|behaviour|architecture), answers: [{file, startLine?, endLine?}], "
        "language?}; prints file-level nDCG@10 per category and language, chunk nDCG@10, "
        "MRR@10 and Recall@10 (docs/retrieval.md)",
    )
    evaluate.add_argument(
        "--pipeline",
        action="append",
        choices=sorted(PIPELINES),
        help="a pipeline to measure (repeatable; default: seed and workspace; the first is "
        "the baseline of the paired differences)",
    )
    evaluate.add_argument("--rev", default="HEAD", help="the newest commit of the window")
    evaluate.add_argument(
        "--base", help="the corpus commit (default: the parent of the window's oldest commit)"
    )
    evaluate.add_argument(
        "--window", type=positive, default=400, help="non-merge commits read (default 400)"
    )
    evaluate.add_argument(
        "--max-queries", type=positive, default=300, help="queries kept, newest first"
    )
    evaluate.add_argument(
        "--max-files", type=positive, default=4, help="most source files a query commit changes"
    )
    evaluate.add_argument("--resamples", type=positive, default=1000, help="bootstrap resamples")
    evaluate.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    evaluate.add_argument("--json", metavar="FILE", help="also write the full report as JSON")
    evaluate.set_defaults(run=command_eval)
