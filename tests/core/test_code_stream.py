"""The code stream: names found by their parts, definitions above callers, exact scores."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from ragls.core import code_stream, pruning
from ragls.core.bm25 import bm25_idf
from ragls.core.code_stream import (
    PATH_PREFIX,
    SYMBOL_PREFIX,
    CodeStream,
    FieldWeights,
    document_fields,
    query_terms,
)
from ragls.core.documents import Document
from ragls.core.postings import InvertedIndex
from ragls.errors import InvalidArgumentError
from ragls.service.pipelines import WORKSPACE


def chunk(doc_id: str, content: str, file: str, symbol: str = "", kind: str = "") -> Document:
    metadata = {"file": file}
    if symbol:
        metadata |= {"symbol": symbol, "kind": kind}
    return Document(doc_id, content, metadata)


def corpus() -> list[Document]:
    return [
        chunk(
            "app.py:10-14",
            "def before_request(self, f):\n    self.before_request_funcs.append(f)\n    return f",
            "src/flask/app.py",
            "Flask.before_request",
            "method",
        ),
        chunk(
            "ctx.py:1-6",
            "def push(self):\n    for func in app.before_request_funcs:\n        func()\n"
            "    app.before_request(setup)\n    app.before_request(teardown)",
            "src/flask/ctx.py",
            "RequestContext.push",
            "method",
        ),
        chunk(
            "z.py:1-2",
            "value = zebracorn_frobnicator(previousResultId)",
            "lib/z.py",
        ),
        chunk(
            "other.py:1-2",
            "def unrelated():\n    return 42",
            "lib/other.py",
            "unrelated",
            "function",
        ),
    ]


def ids(stream: CodeStream, query: str) -> list[str]:
    return [r.id for r in stream.search(query, 10)]


@pytest.fixture
def stream() -> CodeStream:
    stream = CodeStream()
    stream.replace_documents((), corpus())
    return stream


def test_a_part_of_a_snake_case_name_finds_it(stream: CodeStream) -> None:
    assert ids(stream, "frobnicator") == ["z.py:1-2"]


def test_words_find_a_camel_case_name(stream: CodeStream) -> None:
    assert ids(stream, "previous result id") == ["z.py:1-2"]


def test_the_definition_ranks_above_its_callers(stream: CodeStream) -> None:
    # The caller mentions before_request more often; the symbol field decides.
    assert ids(stream, "before_request")[:2] == ["app.py:10-14", "ctx.py:1-6"]


def test_the_path_is_searched(stream: CodeStream) -> None:
    assert ids(stream, "ctx")[0] == "ctx.py:1-6"


def test_a_field_weighted_zero_is_left_out(stream: CodeStream) -> None:
    no_path = stream.view(FieldWeights(body=1.0, symbol=1.0, path=0.0))
    assert ids(no_path, "src") == []
    assert set(ids(stream, "src")) == {"app.py:10-14", "ctx.py:1-6"}


def test_views_share_the_index(stream: CodeStream) -> None:
    view = stream.view(FieldWeights(symbol=5.0))
    stream.add(chunk("new.py:1-1", "quokka = 1", "new.py"))
    assert ids(view, "quokka") == ["new.py:1-1"]
    assert stream.remove("new.py:1-1") and ids(view, "quokka") == []


def test_replace_swaps_a_generation(stream: CodeStream) -> None:
    stream.replace_documents(["z.py:1-2"], [chunk("y.py:1-1", "wombat_counter = 0", "y.py")])
    assert ids(stream, "frobnicator") == []
    assert ids(stream, "wombat") == ["y.py:1-1"]
    assert len(stream) == 4


@pytest.mark.parametrize("bad", [{"body": -1.0}, {"b": 1.5}, {"body": 0, "symbol": 0, "path": 0}])
def test_bad_weights_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(InvalidArgumentError):
        FieldWeights(**bad)


# -- exact scores ---------------------------------------------------------------------------

NAMES = [
    f"{a}_{b}"
    for a in ("get", "set", "load", "parse", "render")
    for b in ("user", "row", "cache", "token")
]


def _random_corpus(count: int, seed: int) -> list[Document]:
    rng = random.Random(seed)
    documents = []
    for i in range(count):
        words = " ".join(rng.choices(NAMES, k=rng.randint(1, 30)))
        symbol = rng.choice(NAMES)
        documents.append(
            chunk(f"d{i:05d}", words, f"pkg{i % 7}/{rng.choice(NAMES)}.py", symbol, "function")
        )
    return documents


def reference(
    documents: list[Document], query: str, weights: FieldWeights
) -> list[tuple[str, float]]:
    fields = {d.id: document_fields(d) for d in documents}
    average = sum(length for _, length in fields.values()) / len(documents)
    scores: dict[str, float] = Counter()
    for term in query_terms(query, None):
        for prefix, weight in (
            ("", weights.body),
            (SYMBOL_PREFIX, weights.symbol),
            (PATH_PREFIX, weights.path),
        ):
            key = prefix + term
            holders = {i: counts[key] for i, (counts, _) in fields.items() if counts[key]}
            if not holders or not weight:
                continue
            idf = bm25_idf(len(documents), len(holders))
            for doc_id, tf in holders.items():
                length = fields[doc_id][1]
                norm = (
                    weights.k1 * (1 - weights.b + weights.b * length / average)
                    if not prefix
                    else weights.k1
                )
                scores[doc_id] += weight * idf * tf * (weights.k1 + 1) / (tf + norm)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:10]


def test_pruned_scores_equal_the_formula_over_every_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pruning, "CHECK_MIN_POSTINGS", 1)
    documents = _random_corpus(1_200, seed=1)
    weights = FieldWeights(body=1.0, symbol=2.0, path=0.5, k1=1.1, b=0.6)
    stream = CodeStream(weights=weights)
    stream.replace_documents((), documents)
    rng = random.Random(2)
    pruned = 0
    for _ in range(40):
        query = " ".join(rng.choices([*NAMES, "user", "cache", "pkg3"], k=rng.randint(1, 4)))
        found = [(r.id, r.score) for r in stream.search(query, 10)]
        expected = reference(documents, query, weights)
        assert [i for i, _ in found] == [i for i, _ in expected]
        assert [s for _, s in found] == pytest.approx([s for _, s in expected], rel=1e-5)
        pruned += stream.last_search.pruned
    assert pruned > 0


def test_encoding_a_batch_equals_analysing_each_document(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_stream, "SLICE_DOCUMENTS", 7)  # several slices, one vocabulary
    documents = [*_random_corpus(40, seed=9), *corpus(), Document("empty", "", {})]
    batch = code_stream.encode_documents(documents)
    starts = [0, *itertools.accumulate(batch.sizes.tolist())]
    for position, document in enumerate(documents):
        counts, length = document_fields(document)
        span = range(starts[position], starts[position + 1])
        encoded = {batch.vocabulary[batch.terms[i]]: float(batch.values[i]) for i in span}
        assert encoded == {term: float(count) for term, count in counts.items()}, document.id
        assert batch.lengths[position] == length
    assert batch.ids == [document.id for document in documents]


def test_long_terms_keep_their_weighed_postings_until_the_index_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(code_stream, "CACHE_MIN_POSTINGS", 1)  # every term kept
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "parse_header", "merge"]
    documents = [
        chunk(f"d{n:03d}", " ".join(rng.choices(words, k=8)), f"src/f{n % 17}.py")
        for n in range(300)
    ]
    stream = CodeStream()
    stream.replace_documents((), documents)
    query = "alpha parse header"
    first = [(r.id, r.score) for r in stream.search(query, 50)]
    assert len(stream.shared.weighed_terms) > 0
    weighed = 0
    original = pruning.QueryTerm.contributions

    def counting(self: pruning.QueryTerm, number: int) -> object:
        nonlocal weighed
        weighed += self.weighed is None
        return original(self, number)

    monkeypatch.setattr(pruning.QueryTerm, "contributions", counting)
    assert [(r.id, r.score) for r in stream.search(query, 50)] == first
    assert weighed == 0  # asked again on the same index: no posting weighed again
    stream.remove("d000")  # a write: the kept postings are stale
    fresh = CodeStream()
    fresh.replace_documents((), documents[1:])
    expected = [(r.id, r.score) for r in fresh.search(query, 50)]
    assert [(r.id, r.score) for r in stream.search(query, 50)] == expected


def test_a_write_looks_up_again_only_the_terms_it_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(5)
    words = ["alpha", "beta", "gamma", "delta", "parse_header", "merge"]
    documents = [
        chunk(f"d{n:03d}", " ".join(rng.choices(words, k=8)), f"src/f{n % 17}.py")
        for n in range(200)
    ] + [chunk("z000", "zebra quokka", "zoo/pen.py", "Pen.feed", "method")]
    stream = CodeStream(weights=WORKSPACE.fields)
    stream.replace_documents((), documents)
    looked_up: list[str] = []
    original = InvertedIndex.look_up_many

    def counting(self: InvertedIndex, terms: list[str]) -> object:
        looked_up.extend(terms)
        return original(self, terms)

    monkeypatch.setattr(InvertedIndex, "look_up_many", counting)
    first = [(r.id, r.score) for r in stream.search("alpha merge zebra", 20)]
    asked = len(looked_up)
    assert asked >= 3  # each word in each field, the ones without postings included
    assert [(r.id, r.score) for r in stream.search("merge zebra alpha", 20)] == first
    assert [(r.id, r.score) for r in stream.search("alpha nosuchword", 20)]
    assert looked_up[asked:] == [term for term in looked_up[asked:] if "nosuchword" in term]

    stream.remove("z000")  # changes zebra's postings (and the count), not alpha's or merge's
    del looked_up[:]
    after = [(r.id, r.score) for r in stream.search("alpha merge zebra", 20)]
    assert looked_up and all("zebra" in term for term in looked_up)
    fresh = CodeStream(weights=WORKSPACE.fields)
    fresh.replace_documents((), documents[:-1])
    assert after == [(r.id, r.score) for r in fresh.search("alpha merge zebra", 20)]

    stream.add(chunk("z001", "merge quokka", "zoo/pen.py"))  # merge's postings change
    del looked_up[:]
    after = [(r.id, r.score) for r in stream.search("alpha merge nosuchword", 20)]
    assert looked_up and all("merge" in term for term in looked_up)
    fresh.add(chunk("z001", "merge quokka", "zoo/pen.py"))
    assert after == [(r.id, r.score) for r in fresh.search("alpha merge nosuchword", 20)]

    layout = stream.shared.index.layout
    many = [chunk(f"m{n:05d}", "alpha " * (n % 5 + 1), f"big/m{n}.py") for n in range(20_000)]
    stream.replace_documents((), many)  # a bulk batch: a merge renumbers every slot
    assert stream.shared.index.layout != layout
    assert len(stream.shared.weighed_terms) == 0  # the old arrays let go at once


def test_what_a_write_keeps_scores_as_terms_looked_up_afresh() -> None:
    rng = random.Random(11)
    words = ["alpha", "beta", "gamma", "parse_header", "merge", "Token", "render"]
    symbols = ["Parser.parse", "render_page", "merge_sort", ""]

    def document(name: str) -> Document:
        symbol = rng.choice(symbols)
        content = " ".join(rng.choices(words, k=rng.randint(1, 12)))
        file = f"pkg/{rng.choice(words)}/m{rng.randint(0, 9)}.py"
        return chunk(name, content, file, symbol, "function" if symbol else "")

    held = [document(f"d{n:03d}") for n in range(120)]
    kept, afresh = CodeStream(weights=WORKSPACE.fields), CodeStream(weights=WORKSPACE.fields)
    for stream in (kept, afresh):
        stream.replace_documents((), held)
    queries = ["alpha merge", "parse header token", "render gamma beta", "merge sort"]
    for step in range(80):
        action = rng.random()
        if action < 0.3:
            name = rng.choice(held).id
            held = [document for document in held if document.id != name]
            for stream in (kept, afresh):
                stream.remove(name)
        else:  # the same id again (the count does not move), or a new one
            name = rng.choice(held).id if action < 0.6 else f"n{step:03d}"
            new = document(name)
            held = [document for document in held if document.id != name] + [new]
            for stream in (kept, afresh):
                stream.replace_documents((), [new])
        for query in rng.sample(queries, 3):
            afresh.shared.weighed_terms.clear()  # every term looked up and weighed again
            expected = [(r.id, r.score) for r in afresh.search(query, 15)]
            assert [(r.id, r.score) for r in kept.search(query, 15)] == expected, (step, query)


def _results(stream: CodeStream) -> list[list[tuple[str, float]]]:
    queries = ("before request", "zebracorn previous result", "push func", "unrelated 42")
    return [[(r.id, r.score) for r in stream.search(q, 10)] for q in queries]


def _encoded_at_the_commit() -> list[list[tuple[str, float]]]:
    """:func:`_results` of a stream that encoded the corpus when it was added."""
    fresh = CodeStream()
    fresh.replace_documents((), corpus())
    return _results(fresh)


def test_prepared_documents_are_encoded_once_and_index_as_if_encoded_at_the_commit() -> None:
    documents = corpus()
    prepared = CodeStream()
    prepared.prepare(documents[:2])
    prepared.prepare(documents[2:3])
    prepared.replace_documents((), documents)  # the prepared ones first, then one more
    encodings = prepared.shared.prepared
    assert (encodings.documents_prepared, encodings.documents_used, len(encodings)) == (3, 3, 0)
    assert _results(prepared) == _encoded_at_the_commit()


def test_prepared_documents_in_another_order_are_encoded_again() -> None:
    documents = corpus()
    stream = CodeStream()
    stream.prepare(documents[:2])
    stream.replace_documents((), [documents[1], documents[0], *documents[2:]])
    encodings = stream.shared.prepared
    assert (encodings.documents_used, len(encodings)) == (0, 2)  # not used, kept
    assert _results(stream) == _encoded_at_the_commit()
    stream.drop_prepared()
    assert len(encodings) == 0


def test_symbol_keys_are_derived_when_chunks_are_indexed_not_by_the_first_searches() -> None:
    """The ranking layer's definitions rule compares interned symbol keys; an index run
    derives the keys of the symbols it adds, a restored index leaves them to its searches."""
    import numpy as np

    stream = CodeStream()
    stream.replace_documents((), corpus())
    interner = stream.shared.interner
    symbols = [d.metadata["symbol"] for d in corpus() if d.metadata.get("kind")]
    assert interner.symbol_keys_derived() == len(set(symbols)) > 0
    restored = CodeStream()
    restored.restore_state(stream.export_state(), {d.id: d for d in corpus()})
    kept = restored.shared.interner
    assert kept.symbol_keys_derived() == 0  # a restart does not derive them
    flask = np.array([kept.number("Flask.before_request")], np.int64)
    assert kept.symbol_key_numbers(flask).tolist() == [  # a search would
        [kept.key_number("flask.before_request"), kept.key_number("before_request")]
    ]
    assert kept.symbol_keys_derived() == 1


def test_family_counts_are_the_live_chunks_of_each_language() -> None:
    """What the minority-language rule weighs: counted from the chunks' files, again after a
    write (a removed file's chunks no longer count)."""
    from ragls.core.ranking.rules import FAMILIES

    def doc(file: str, number: int) -> Document:
        return Document(f"{file}#{number}", "text", {"file": file})

    stream = CodeStream()
    stream.replace_documents(
        (),
        [doc("a.go", 1), doc("a.go", 2), doc("b.go", 1), doc("ui/app.tsx", 1), doc("README.md", 1)],
    )
    counts = stream.family_counts()
    assert counts[FAMILIES.index("go")] == 3
    assert counts[FAMILIES.index("javascript")] == 1
    assert counts[-1] == 1  # README.md: no language
    assert stream.family_counts() is counts  # kept until a write
    stream.remove("b.go#1")
    assert stream.family_counts()[FAMILIES.index("go")] == 2
