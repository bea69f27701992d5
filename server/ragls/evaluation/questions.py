"""``ragls eval --questions``: how well each pipeline answers developers' questions.

A question set is JSON lines, one question each::

    {"id": "httpx-001", "query": "how does the client decide to follow a redirect?",
     "category": "behaviour", "language": "python",
     "answers": [{"file": "httpx/_client.py", "startLine": 470, "endLine": 512}]}

``category`` is ``symbol`` (look up a named thing), ``behaviour`` (find the code that does
something) or ``architecture`` (understand a design or a module boundary); an answer without
lines is a whole file. Every question is searched once per pipeline for 100 chunks (the fused
order does not depend on top_k, SPEC §5) and scored twice:

* file level, on the first 10 distinct files: nDCG@10 (binary gains, ideal = every answer file
  first), MRR@10, Recall@10;
* chunk level, on the first 10 chunks: a chunk is a hit when it overlaps an answer's span (any
  chunk of the file for a whole-file answer) that no earlier chunk already covered, so a large
  answer split into many chunks counts once; nDCG@10 against min(answers, 10).

Means come with percentile bootstrap intervals over questions, per category and per language,
and each pipeline after the first with the paired difference of nDCG@10 against the first.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragls.core.documents import SearchResult
from ragls.errors import InvalidArgumentError
from ragls.evaluation.metrics import DEPTH, Estimate, bootstrap, paired_difference, ranked_files

CATEGORIES = ("symbol", "behaviour", "architecture")
QUESTION_METRICS = ("ndcg@10", "mrr@10", "recall@10", "chunk-ndcg@10")
SEARCH_DEPTH = 100

Search = Callable[[str], list[SearchResult]]


@dataclass(frozen=True, slots=True)
class Answer:
    file: str
    start_line: int | None = None
    end_line: int | None = None

    def covers(self, file: str, start: int, end: int) -> bool:
        if file != self.file:
            return False
        if self.start_line is None or self.end_line is None:
            return True
        return start <= self.end_line and end >= self.start_line


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    query: str
    category: str
    answers: tuple[Answer, ...]
    language: str = ""
    repository: str = ""


def load_questions(path: Path) -> list[Question]:
    """The questions of a JSON-lines file; an error naming the line and the field otherwise."""
    questions: list[Question] = []
    seen: set[str] = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InvalidArgumentError(f"{path}: cannot be read: {error.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        question = _question(line, f"{path}:{number}")
        if question.id in seen:
            raise InvalidArgumentError(f"{path}:{number}: id {question.id!r} is repeated")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise InvalidArgumentError(f"{path}: holds no question")
    return questions


def _question(line: str, where: str) -> Question:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as error:
        raise InvalidArgumentError(f"{where}: not JSON ({error.msg})") from None
    if not isinstance(raw, dict):
        raise InvalidArgumentError(f"{where}: a question must be a JSON object")
    for name in ("id", "query", "category"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise InvalidArgumentError(f"{where}: {name} must be a non-empty string")
    if raw["category"] not in CATEGORIES:
        raise InvalidArgumentError(f"{where}: category must be one of {', '.join(CATEGORIES)}")
    answers = raw.get("answers")
    if not isinstance(answers, list) or not answers:
        raise InvalidArgumentError(f"{where}: answers must be a non-empty list")
    return Question(
        raw["id"],
        raw["query"],
        raw["category"],
        tuple(_answer(item, f"{where}: answers[{i}]") for i, item in enumerate(answers)),
        str(raw.get("language") or ""),
        str(raw.get("repo") or ""),
    )


def _answer(raw: object, where: str) -> Answer:
    if not isinstance(raw, dict) or not isinstance(raw.get("file"), str) or not raw["file"]:
        raise InvalidArgumentError(f"{where}: file must be a non-empty string")
    start, end = raw.get("startLine"), raw.get("endLine")
    if start is None and end is None:
        return Answer(raw["file"])
    if not isinstance(start, int) or not isinstance(end, int) or not 1 <= start <= end:
        raise InvalidArgumentError(f"{where}: startLine and endLine must be 1 <= start <= end")
    return Answer(raw["file"], start, end)


def question_metrics(results: Sequence[SearchResult], question: Question) -> dict[str, float]:
    """Every metric of :data:`QUESTION_METRICS` for one question's ranked chunks."""
    relevant = {answer.file for answer in question.answers}
    files = ranked_files(results)[:DEPTH]
    hits = [file in relevant for file in files]
    first = next((rank for rank, hit in enumerate(hits, 1) if hit), None)
    return {
        "ndcg@10": _ndcg(hits, len(relevant)),
        "mrr@10": 0.0 if first is None else 1.0 / first,
        "recall@10": sum(hits) / len(relevant),
        "chunk-ndcg@10": _ndcg(
            _chunk_hits(results[:DEPTH], question.answers), len(question.answers)
        ),
    }


def _chunk_hits(results: Sequence[SearchResult], answers: Sequence[Answer]) -> list[bool]:
    covered: set[int] = set()
    hits: list[bool] = []
    for result in results:
        metadata = result.metadata
        file = metadata.get("file", "")
        start = int(metadata.get("start_line", "0") or 0)
        end = int(metadata.get("end_line", "0") or 0)
        new = {
            index
            for index, answer in enumerate(answers)
            if index not in covered and answer.covers(file, start, end)
        }
        covered |= new
        hits.append(bool(new))
    return hits


def _ndcg(hits: Sequence[bool], relevant: int) -> float:
    dcg = sum(1.0 / math.log2(rank + 1) for rank, hit in enumerate(hits, 1) if hit)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(relevant, DEPTH) + 1))
    return dcg / ideal if ideal else 0.0


@dataclass
class QuestionScores:
    """One pipeline's per-question metrics and its ranked files (for the JSON report)."""

    name: str
    per_question: list[dict[str, float]]
    files: list[list[str]]
    seconds: float = 0.0


def score_questions(name: str, search: Search, questions: Sequence[Question]) -> QuestionScores:
    per_question: list[dict[str, float]] = []
    files: list[list[str]] = []
    started = time.perf_counter()
    for question in questions:
        results = search(question.query)
        per_question.append(question_metrics(results, question))
        files.append(ranked_files(results)[:DEPTH])
    return QuestionScores(name, per_question, files, time.perf_counter() - started)


@dataclass
class QuestionReport:
    """Every pipeline's scores over the same questions, summarised by group."""

    questions: list[Question]
    scores: list[QuestionScores] = field(default_factory=list)
    resamples: int = 1000
    seed: int = 0

    def groups(self) -> dict[str, list[int]]:
        """``all``, each category and each language, as positions into the questions."""
        found: dict[str, list[int]] = {"all": list(range(len(self.questions)))}
        for position, question in enumerate(self.questions):
            found.setdefault(question.category, []).append(position)
        for position, question in enumerate(self.questions):
            if question.language:
                found.setdefault(f"lang:{question.language}", []).append(position)
        return found

    def summary(self, scores: QuestionScores, positions: Sequence[int]) -> dict[str, Estimate]:
        return {
            metric: bootstrap(
                [scores.per_question[p][metric] for p in positions],
                resamples=self.resamples,
                seed=self.seed,
            )
            for metric in QUESTION_METRICS
        }

    def versus_first(self, scores: QuestionScores, positions: Sequence[int]) -> Estimate:
        baseline = self.scores[0]
        return paired_difference(
            [scores.per_question[p]["ndcg@10"] for p in positions],
            [baseline.per_question[p]["ndcg@10"] for p in positions],
            resamples=self.resamples,
            seed=self.seed,
        )

    def as_json(self) -> dict[str, Any]:
        groups = self.groups()
        return {
            "questionCount": len(self.questions),
            "groups": {
                group: {
                    "count": len(positions),
                    "pipelines": {
                        scores.name: {
                            **{m: e.as_json() for m, e in self.summary(scores, positions).items()},
                            "ndcg@10VersusFirst": self.versus_first(scores, positions).as_json(),
                        }
                        for scores in self.scores
                    },
                }
                for group, positions in groups.items()
            },
            "questions": [
                {
                    "id": question.id,
                    "repository": question.repository,
                    "category": question.category,
                    "language": question.language,
                    "query": question.query,
                    "answers": sorted({answer.file for answer in question.answers}),
                    "results": {
                        scores.name: {"files": scores.files[p], **scores.per_question[p]}
                        for scores in self.scores
                    },
                }
                for p, question in enumerate(self.questions)
            ],
        }


def evaluate_questions(
    questions: Sequence[Question],
    searches: Iterable[tuple[str, Search]],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> QuestionReport:
    report = QuestionReport(list(questions), resamples=resamples, seed=seed)
    for name, search in searches:
        report.scores.append(score_questions(name, search, questions))
    if not report.scores:
        raise InvalidArgumentError("eval needs at least one pipeline")
    return report


def merge_reports(reports: Sequence[QuestionReport]) -> QuestionReport:
    """One report over the questions of several (same pipelines, in the same order)."""
    if not reports:
        raise InvalidArgumentError("no report to merge")
    names = [scores.name for scores in reports[0].scores]
    merged = QuestionReport([], resamples=reports[0].resamples, seed=reports[0].seed)
    merged.scores = [QuestionScores(name, [], []) for name in names]
    for report in reports:
        if [scores.name for scores in report.scores] != names:
            raise InvalidArgumentError("reports to merge must score the same pipelines")
        merged.questions.extend(report.questions)
        for into, scores in zip(merged.scores, report.scores, strict=True):
            into.per_question.extend(scores.per_question)
            into.files.extend(scores.files)
            into.seconds += scores.seconds
    return merged


def format_question_table(
    report: QuestionReport, groups: Mapping[str, Sequence[int]] | None = None
) -> str:
    """nDCG@10 (file level) per group and pipeline, then chunk nDCG, MRR and Recall overall."""
    chosen = groups if groups is not None else report.groups()
    names = [scores.name for scores in report.scores]
    lines = [
        "| group | n | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for group, positions in chosen.items():
        if not positions:
            continue
        cells = []
        for position, scores in enumerate(report.scores):
            estimate = report.summary(scores, positions)["ndcg@10"]
            cell = f"{estimate.mean:.3f}"
            if position:
                delta = report.versus_first(scores, positions)
                cell += f" ({delta.mean:+.3f})"
            cells.append(cell)
        lines.append(f"| {group} | {len(positions)} | " + " | ".join(cells) + " |")
    everything = list(range(len(report.questions)))
    lines += [
        "",
        "| pipeline | nDCG@10 [95% CI] | chunk nDCG@10 | MRR@10 | Recall@10 | s |",
        "|---|---|---|---|---|---|",
    ]
    for scores in report.scores:
        summary = report.summary(scores, everything)
        ndcg = summary["ndcg@10"]
        lines.append(
            f"| {scores.name} | {ndcg.mean:.3f} [{ndcg.low:.3f}, {ndcg.high:.3f}] | "
            f"{summary['chunk-ndcg@10'].mean:.3f} | {summary['mrr@10'].mean:.3f} | "
            f"{summary['recall@10'].mean:.3f} | {scores.seconds:.1f} |"
        )
    return "\n".join(lines)
