"""Question-set metrics (ragls eval --questions): file level and chunk level."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from ragls.core.documents import Document, SearchResult
from ragls.evaluation.questions import (
    Answer,
    Question,
    evaluate_questions,
    load_questions,
    merge_reports,
    question_metrics,
)


def hit(file: str, start: int, end: int) -> SearchResult:
    metadata = {"file": file, "start_line": str(start), "end_line": str(end)}
    return SearchResult(Document(f"{file}:{start}-{end}", "x", metadata), 1.0)


QUESTION = Question(
    "q",
    "where",
    "behaviour",
    (Answer("a.py", 10, 20), Answer("b.py")),
)


def test_file_level_counts_each_file_once_in_first_appearance_order() -> None:
    results = [hit("c.py", 1, 5), hit("a.py", 1, 5), hit("a.py", 30, 40), hit("b.py", 1, 2)]
    metrics = question_metrics(results, QUESTION)
    ideal = 1 + 1 / math.log2(3)
    assert math.isclose(metrics["ndcg@10"], (1 / math.log2(3) + 1 / math.log2(4)) / ideal)
    assert metrics["mrr@10"] == 0.5 and metrics["recall@10"] == 1.0


def test_chunk_level_needs_the_span_and_credits_an_answer_once() -> None:
    results = [hit("a.py", 1, 5), hit("a.py", 15, 25), hit("a.py", 18, 30), hit("b.py", 90, 99)]
    metrics = question_metrics(results, QUESTION)
    ideal = 1 + 1 / math.log2(3)
    # a.py 1-5 misses the span; 15-25 hits it; 18-30 hits the same answer again (no credit);
    # any chunk of b.py is a hit (a whole-file answer).
    assert math.isclose(metrics["chunk-ndcg@10"], (1 / math.log2(3) + 1 / math.log2(5)) / ideal)


def test_reports_of_several_repositories_merge_with_the_same_pipelines() -> None:
    search = lambda query: [hit("a.py", 10, 12)]  # noqa: E731
    one = evaluate_questions([QUESTION], [("p", search)], resamples=10)
    two = evaluate_questions([QUESTION], [("p", search)], resamples=10)
    merged = merge_reports([one, two])
    assert len(merged.questions) == 2
    assert merged.summary(merged.scores[0], [0, 1])["mrr@10"].mean == 1.0


QUESTION_SETS = Path(__file__).resolve().parents[2] / "eval" / "questions"


@pytest.mark.parametrize(
    "questions_file",
    sorted(QUESTION_SETS.glob("**/*.jsonl")),
    ids=lambda path: path.relative_to(QUESTION_SETS).as_posix(),
)
def test_every_kept_question_set_loads_and_pins_its_repository(questions_file: Path) -> None:
    questions = load_questions(questions_file)
    meta = json.loads(questions_file.with_suffix(".meta.json").read_text(encoding="utf-8"))
    assert len(meta["commit"]) == 40
    categories = Counter(question.category for question in questions)
    assert set(categories) == {"symbol", "behaviour", "architecture"}
    assert all(question.answers for question in questions)
