"""Choose the workspace pipeline's weights by measurement (docs/retrieval.md has the results).

    python bench/tune_retrieval.py REPO.git [REPO.git ...] --grid fields|fusion|final

Each repository's window is indexed once (``ragls.evaluation.run.prepare_corpus``); every
candidate pipeline is then a retriever over the same stores, scored on the same queries. Prints
one Markdown row per candidate: MRR@10 per repository, their mean and their minimum, best mean
first. Not part of ``make bench`` (it needs git histories, which the caller fetches).
"""

from __future__ import annotations

import argparse
import itertools
import runpy
import sys
from dataclasses import replace
from pathlib import Path

from ragls.core.code_stream import FieldWeights
from ragls.evaluation.run import Corpus, EvalSettings, prepare_corpus, score_pipeline
from ragls.service.pipelines import PIPELINES, WORKSPACE, Pipeline


def field_grid(
    symbols: list[float], paths: list[float], bs: list[float], k1s: list[float]
) -> list[Pipeline]:
    """The code stream alone, over field weights and BM25 parameters."""
    candidates = []
    for symbol, path, b, k1 in itertools.product(symbols, paths, bs, k1s):
        fields = FieldWeights(body=1.0, symbol=symbol, path=path, k1=k1, b=b)
        name = f"code s={symbol} p={path} b={b} k1={k1}"
        candidates.append(Pipeline(name, name, code=1.0, fields=fields))
    return candidates


def fusion_grid(fields: FieldWeights) -> list[Pipeline]:
    """The three streams fused, over stream weights (code's fields fixed)."""
    candidates = []
    for code, bm25, tfidf in itertools.product(
        (1.0,), (0.0, 0.1, 0.2, 0.3, 0.45, 0.6), (0.0, 0.1, 0.2, 0.3, 0.4)
    ):
        name = f"fused code={code} bm25={bm25} tfidf={tfidf}"
        candidates.append(
            Pipeline(name, name, bm25=bm25, tfidf=tfidf, code=code, fields=fields)
            if bm25 or tfidf
            else Pipeline(name, name, code=code, fields=fields)
        )
    return candidates


def final_grid() -> list[Pipeline]:
    return [
        PIPELINES[name]
        for name in ("seed", "bm25", "tfidf", "code-split", "fused", "code", "workspace")
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repositories", nargs="+", type=Path)
    parser.add_argument("--grid", choices=("fields", "fusion", "final"), default="final")
    parser.add_argument(
        "--variants", type=Path, help="a Python file defining VARIANTS: dict[str, Pipeline]"
    )
    parser.add_argument("--window", type=int, default=400)
    parser.add_argument("--max-queries", type=int, default=300)
    numbers = lambda text: [float(x) for x in text.split(",")]  # noqa: E731
    parser.add_argument("--symbols", type=numbers, default=[0.5, 1.0, 2.0, 3.0])
    parser.add_argument("--paths", type=numbers, default=[0.5, 1.0, 2.0, 3.0])
    parser.add_argument("--bs", type=numbers, default=[0.5, 0.75, 0.9])
    parser.add_argument("--k1s", type=numbers, default=[0.9, 1.2, 1.6])
    parser.add_argument("--symbol", type=float, default=WORKSPACE.fields.symbol)
    parser.add_argument("--path", type=float, default=WORKSPACE.fields.path)
    parser.add_argument("--b", type=float, default=WORKSPACE.fields.b)
    parser.add_argument("--k1", type=float, default=WORKSPACE.fields.k1)
    args = parser.parse_args()
    settings = EvalSettings(window=args.window, max_queries=args.max_queries, resamples=200)
    corpora: list[Corpus] = []
    for repository in args.repositories:
        corpora.append(
            prepare_corpus(repository, settings, lambda line: print(line, file=sys.stderr))
        )
    fields = FieldWeights(symbol=args.symbol, path=args.path, b=args.b, k1=args.k1)
    if args.variants is not None:
        variants = runpy.run_path(str(args.variants))["VARIANTS"]
        candidates = [replace(p, name=name) for name, p in variants.items()]
    elif args.grid == "fields":
        candidates = field_grid(args.symbols, args.paths, args.bs, args.k1s)
    elif args.grid == "fusion":
        candidates = fusion_grid(fields)
    else:
        candidates = final_grid()
    rows = []
    for pipeline in candidates:
        scores = [
            score_pipeline(c.service, pipeline, c.queries, settings).summary["mrr@10"].mean
            for c in corpora
        ]
        rows.append((sum(scores) / len(scores), min(scores), pipeline.name, scores))
        print(f"{pipeline.name}: mean {rows[-1][0]:.4f}", file=sys.stderr)
    names = [Path(c.repository).parent.name.split("+")[-1] for c in corpora]
    print("| candidate | " + " | ".join(names) + " | mean | min |")
    print("|---|" + "---|" * (len(names) + 2))
    for mean, low, name, scores in sorted(rows, key=lambda row: -row[0]):
        cells = " | ".join(f"{score:.3f}" for score in scores)
        print(f"| {name} | {cells} | {mean:.3f} | {low:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
