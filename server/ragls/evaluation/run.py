"""``ragls eval``: how well each pipeline finds the files real commits changed.

One run: the qualifying commits of a history window become queries
(:mod:`ragls.evaluation.history`), the base tree is exported with ``git archive`` into a
temporary folder and indexed once by a workspace-pipeline service (which keeps every stream),
then every pipeline asked for is a retriever over those same stores
(:meth:`RagService.retriever_for`), so they differ in ranking only. Each query is searched for
100 chunks (the fused order does not depend on top_k, SPEC §5), turned into files, and scored
(:mod:`ragls.evaluation.metrics`). The first pipeline named is the baseline of the paired
differences.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragls.core.validation import MAX_TOP_K
from ragls.errors import InvalidArgumentError
from ragls.evaluation.history import (
    Query,
    default_base,
    export_tree,
    qualifying_queries,
    recent_commits,
    resolve,
)
from ragls.evaluation.metrics import (
    METRICS,
    Estimate,
    paired_difference,
    query_metrics,
    ranked_files,
    summarize,
)
from ragls.evaluation.questions import (
    SEARCH_DEPTH,
    Question,
    QuestionReport,
    Search,
    evaluate_questions,
)
from ragls.service.pipelines import PIPELINES, WORKSPACE, Pipeline
from ragls.service.rag_service import RagService
from ragls.service.status import IndexProgress, IndexStatus


@dataclass(frozen=True, slots=True)
class EvalSettings:
    rev: str = "HEAD"
    base: str | None = None
    window: int = 400
    max_queries: int = 300
    max_files: int = 4
    resamples: int = 1000
    seed: int = 0


@dataclass
class PipelineScores:
    pipeline: Pipeline
    summary: dict[str, Estimate]
    per_query: list[dict[str, float]]
    ranks: list[list[str]]
    versus_baseline: Estimate | None = None
    seconds: float = 0.0


@dataclass
class EvalReport:
    repository: str
    rev: str
    base: str
    commits_seen: int
    queries: list[Query]
    status: IndexStatus
    index_seconds: float
    scores: list[PipelineScores] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "repository": self.repository,
            "rev": self.rev,
            "base": self.base,
            "commitsSeen": self.commits_seen,
            "queryCount": len(self.queries),
            "corpus": {
                "fileCount": self.status.file_count,
                "chunkCount": self.status.chunk_count,
                "indexSeconds": round(self.index_seconds, 3),
            },
            "pipelines": {
                scores.pipeline.name: {
                    "description": scores.pipeline.description,
                    **{metric: scores.summary[metric].as_json() for metric in METRICS},
                    "mrr@10VersusBaseline": None
                    if scores.versus_baseline is None
                    else scores.versus_baseline.as_json(),
                    "searchSeconds": round(scores.seconds, 3),
                }
                for scores in self.scores
            },
            "queries": [
                {
                    "commit": query.commit,
                    "subject": query.subject,
                    "query": query.text,
                    "answers": list(query.answers),
                    "results": {
                        scores.pipeline.name: {
                            "files": scores.ranks[position],
                            **scores.per_query[position],
                        }
                        for scores in self.scores
                    },
                }
                for position, query in enumerate(self.queries)
            ],
        }


Progress = Callable[[str], None]
IndexProgressCallback = Callable[[IndexProgress], None]


@dataclass
class Corpus:
    """A base tree indexed by a workspace service, and the queries of its window."""

    repository: str
    rev: str
    base: str
    commits_seen: int
    service: RagService
    status: IndexStatus
    index_seconds: float
    queries: list[Query]


def serving(pipelines: Sequence[Pipeline] | None) -> RagService:
    """A workspace service that keeps the streams of ``pipelines`` (None: of every preset
    without a semantic stream, whose embeddings only a pipeline that asks for them pays)."""
    if pipelines is None:
        pipelines = [pipeline for pipeline in PIPELINES.values() if pipeline.semantic == 0]
    return RagService(pipeline=WORKSPACE, also_serve=list(pipelines), partial_commits=None)


def prepare_corpus(
    repository: Path,
    settings: EvalSettings = EvalSettings(),
    progress: Progress | None = None,
    pipelines: Sequence[Pipeline] | None = None,
    index_progress: IndexProgressCallback | None = None,
) -> Corpus:
    """Read the window, index the base tree (exported to a temporary folder, removed once
    indexed: the stores keep the text; embeddings, if ``pipelines`` need them, are waited
    for) and select the queries. ``index_progress`` hears the index run's progress (files
    done and total)."""
    say = progress or (lambda message: None)
    rev = resolve(repository, settings.rev)
    if not rev:
        raise InvalidArgumentError(f"rev {settings.rev!r} is not a commit of {repository}")
    commits = recent_commits(repository, rev, settings.window)
    base_name = settings.base if settings.base is not None else default_base(commits)
    base = resolve(repository, base_name)
    if not base:
        raise InvalidArgumentError(f"base {base_name!r} is not a commit of {repository}")
    say(f"{len(commits)} commits in the window; corpus: the tree of {base[:12]}")
    with tempfile.TemporaryDirectory(prefix="ragls-eval-") as folder:
        tree = Path(folder) / "tree"
        tree.mkdir()
        export_tree(repository, base, tree)
        service = serving(pipelines)
        started = time.perf_counter()
        status = service.index_directory(tree, index_progress)
        service.wait_for_embeddings()
        index_seconds = time.perf_counter() - started
    say(f"indexed {status.file_count} files, {status.chunk_count} chunks in {index_seconds:.1f}s")
    queries = qualifying_queries(
        repository,
        commits,
        set(service.indexed_files()),
        max_files=settings.max_files,
        limit=settings.max_queries,
    )
    if not queries:
        raise InvalidArgumentError(
            f"no commit of the {len(commits)} in the window qualifies as a query "
            "(see `ragls eval --help`); try a larger --window"
        )
    say(f"{len(queries)} queries")
    return Corpus(str(repository), rev, base, len(commits), service, status, index_seconds, queries)


def evaluate_repository(
    repository: Path,
    pipelines: Sequence[Pipeline],
    settings: EvalSettings = EvalSettings(),
    progress: Progress | None = None,
    *,
    index_progress: IndexProgressCallback | None = None,
) -> EvalReport:
    """Run the evaluation of the module docstring on the git repository at ``repository``."""
    if not pipelines:
        raise InvalidArgumentError("eval needs at least one pipeline")
    corpus = prepare_corpus(repository, settings, progress, pipelines, index_progress)
    report = EvalReport(
        corpus.repository,
        corpus.rev,
        corpus.base,
        corpus.commits_seen,
        corpus.queries,
        corpus.status,
        corpus.index_seconds,
    )
    for pipeline in pipelines:
        report.scores.append(score_pipeline(corpus.service, pipeline, corpus.queries, settings))
        if progress is not None:
            progress(f"{pipeline.name}: MRR@10 {report.scores[-1].summary['mrr@10'].mean:.3f}")
    baseline = report.scores[0]
    for scores in report.scores[1:]:
        scores.versus_baseline = paired_difference(
            [q["mrr@10"] for q in scores.per_query],
            [q["mrr@10"] for q in baseline.per_query],
            resamples=settings.resamples,
            seed=settings.seed,
        )
    return report


def score_pipeline(
    service: RagService, pipeline: Pipeline, queries: Sequence[Query], settings: EvalSettings
) -> PipelineScores:
    """Search every query with ``pipeline`` over the service's stores and score the files."""
    retriever = service.retriever_for(pipeline)
    per_query: list[dict[str, float]] = []
    ranks: list[list[str]] = []
    started = time.perf_counter()
    for query in queries:
        files = ranked_files(retriever.retrieve(query.text, MAX_TOP_K))
        ranks.append(files[:10])
        per_query.append(query_metrics(files, query.answers))
    seconds = time.perf_counter() - started
    summary = summarize(per_query, resamples=settings.resamples, seed=settings.seed)
    return PipelineScores(pipeline, summary, per_query, ranks, seconds=seconds)


def format_table(report: EvalReport) -> str:
    """The report as a Markdown table, one row per pipeline."""
    lines = [
        f"repository {report.repository}  rev {report.rev[:12]}  base {report.base[:12]}",
        f"{len(report.queries)} queries from {report.commits_seen} commits; corpus "
        f"{report.status.file_count:,} files, {report.status.chunk_count:,} chunks",
        "",
        "| pipeline | MRR@10 [95% CI] | R@1 | R@5 | R@10 | nDCG@10 | ΔMRR vs "
        f"{report.scores[0].pipeline.name} [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    for scores in report.scores:
        summary = scores.summary
        mrr = summary["mrr@10"]
        delta = scores.versus_baseline
        lines.append(
            f"| {scores.pipeline.name} | {mrr.mean:.3f} [{mrr.low:.3f}, {mrr.high:.3f}] | "
            f"{summary['recall@1'].mean:.3f} | {summary['recall@5'].mean:.3f} | "
            f"{summary['recall@10'].mean:.3f} | {summary['ndcg@10'].mean:.3f} | "
            + ("-" if delta is None else f"{delta.mean:+.3f} [{delta.low:+.3f}, {delta.high:+.3f}]")
            + " |"
        )
    return "\n".join(lines)


def index_folder(
    folder: Path,
    progress: Progress | None = None,
    pipelines: Sequence[Pipeline] | None = None,
    index_progress: IndexProgressCallback | None = None,
) -> RagService:
    """A workspace service over ``folder`` that keeps the streams of ``pipelines`` (see
    :func:`serving`; no store), its embeddings done if any."""
    service = serving(pipelines)
    started = time.perf_counter()
    status = service.index_directory(folder, index_progress)
    service.wait_for_embeddings()
    if progress is not None:
        progress(
            f"indexed {status.file_count} files, {status.chunk_count} chunks "
            f"in {time.perf_counter() - started:.1f}s"
        )
    return service


def pipeline_search(service: RagService, pipeline: Pipeline) -> Search:
    """Searching ``pipeline`` over the service's stores, 100 chunks deep."""
    retriever = service.retriever_for(pipeline)
    return lambda query: retriever.retrieve(query, SEARCH_DEPTH)


def evaluate_question_folder(
    folder: Path,
    questions: Sequence[Question],
    pipelines: Sequence[Pipeline],
    settings: EvalSettings = EvalSettings(),
    progress: Progress | None = None,
    *,
    index_progress: IndexProgressCallback | None = None,
) -> QuestionReport:
    """Index ``folder`` (a checkout at the questions' commit) once and score every pipeline."""
    if not folder.is_dir():
        raise InvalidArgumentError(f"{folder} is not a folder")
    service = index_folder(folder, progress, pipelines, index_progress)
    return evaluate_questions(
        questions,
        [(pipeline.name, pipeline_search(service, pipeline)) for pipeline in pipelines],
        resamples=settings.resamples,
        seed=settings.seed,
    )
