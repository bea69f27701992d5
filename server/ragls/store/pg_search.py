"""BM25 in PostgreSQL over a published generation's postings (SPEC §3 in SQL, docs/storage.md).

For an index too large for one machine's memory, a publisher can add search tables to the
generation it writes (``ragls index --store ... --database-search``); a client then ranks in the
database instead of loading the generation. Three tables, each row owned by its generation
(deleted with it):

* ``ragls_search_stats``: N (documents) and the average document length;
* ``ragls_search_documents``: one row per document: id, length (SPEC §3's ``dl``, the number of
  terms after stop words), content and metadata, returned for the top hits only;
* ``ragls_search_terms``: one row per stemmed term: the documents holding it, the term's
  frequency in each and each one's length, as three parallel ``integer[]`` (a posting list per
  row, so a publish writes one row per term rather than one per posting, and a query reads one
  row per query term and, for the top k only, their documents).

The documents and their terms come from the snapshot's document parts, analysed with the
function the BM25 stream indexes with (:func:`ragls.core.analyzer.term_counts`); the query is
analysed by the client exactly as the stream analyses it (synonyms included), and the SQL below
is SPEC §3's formula: idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5)) and each term's
idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)), summed over the distinct query
terms; ties broken by id. What differs from the stream in memory is the arithmetic's order
and width (the stream multiplies in 32-bit floats), so scores agree to about 1e-6 relative and
rankings agree up to such near-ties (the parity test fixes this on a real corpus).

PostgreSQL text cannot hold NUL characters: a document's NULs are stored as U+FFFD.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragls.core.analyzer import term_counts
from ragls.core.bm25 import BM25Parameters
from ragls.store.interface import DOCUMENT_IDS, DOCUMENT_METADATA, DOCUMENT_TEXTS

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS ragls_search_stats (
        generation_id bigint PRIMARY KEY REFERENCES ragls_generations (id) ON DELETE CASCADE,
        documents integer NOT NULL,
        average_length double precision NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS ragls_search_documents (
        generation_id bigint NOT NULL REFERENCES ragls_generations (id) ON DELETE CASCADE,
        doc integer NOT NULL,
        chunk_id text NOT NULL,
        length double precision NOT NULL,
        content text NOT NULL,
        metadata jsonb NOT NULL,
        PRIMARY KEY (generation_id, doc))""",
    """CREATE TABLE IF NOT EXISTS ragls_search_terms (
        generation_id bigint NOT NULL REFERENCES ragls_generations (id) ON DELETE CASCADE,
        term text NOT NULL,
        docs integer[] NOT NULL,
        frequencies integer[] NOT NULL,
        lengths integer[] NOT NULL,
        PRIMARY KEY (generation_id, term))""",
)

_PARAMETERS = BM25Parameters()  # SPEC §3: k1 = 1.2, b = 0.75

# %(generation)s, %(terms)s (distinct analysed query terms), %(k)s; k1 and b are bound too.
# Documents are numbered in id order, so "ties broken by id" is ORDER BY doc; each posting
# carries its document's length, so scoring reads the query terms' rows and nothing else, and
# the documents table is read for the top k only. query_terms is MATERIALIZED: inlined, the
# planner evaluated cardinality(t.docs) once per posting, de-TOASTing the whole posting list each
# time (1.2 s instead of 30 ms for a query holding "self" and "def" in the standard library).
QUERY = """
WITH stats AS (
    SELECT documents::double precision AS n, average_length
    FROM ragls_search_stats WHERE generation_id = %(generation)s),
query_terms AS MATERIALIZED (
    SELECT t.docs, t.frequencies, t.lengths,
           ln(1.0 + (s.n - cardinality(t.docs) + 0.5) / (cardinality(t.docs) + 0.5)) AS idf
    FROM ragls_search_terms t, stats s
    WHERE t.generation_id = %(generation)s AND t.term = ANY(%(terms)s)),
scored AS (
    SELECT p.doc,
           sum(q.idf * p.tf * (%(k1)s + 1.0)
               / (p.tf + %(k1)s * (1.0 - %(b)s + %(b)s * p.dl / s.average_length))) AS score
    FROM query_terms q,
         unnest(q.docs, q.frequencies::double precision[], q.lengths::double precision[])
             AS p(doc, tf, dl),
         stats s
    GROUP BY p.doc
    ORDER BY score DESC, p.doc
    LIMIT %(k)s)
SELECT d.chunk_id, s.score, d.content, d.metadata
FROM scored s
JOIN ragls_search_documents d ON d.generation_id = %(generation)s AND d.doc = s.doc
ORDER BY s.score DESC, s.doc
"""


@dataclass
class SearchTables:
    """A generation's search tables, built in memory before they are written."""

    documents: list[tuple[int, str, float, str, str]] = field(default_factory=list)
    terms: dict[str, tuple[array[int], array[int], array[int]]] = field(default_factory=dict)
    total_length: float = 0.0

    @property
    def average_length(self) -> float:
        return self.total_length / len(self.documents) if self.documents else 0.0


def build(objects: Mapping[str, object]) -> SearchTables:
    """The search tables of a snapshot's documents (ValueError if it holds none)."""
    ids, texts, metadata = (
        objects.get(part) for part in (DOCUMENT_IDS, DOCUMENT_TEXTS, DOCUMENT_METADATA)
    )
    if not isinstance(ids, list) or not isinstance(texts, list) or not isinstance(metadata, list):
        raise ValueError("the snapshot holds no documents to search")
    tables = SearchTables()
    rows = sorted(zip(ids, texts, metadata, strict=True), key=lambda row: row[0])
    for doc, (chunk_id, text, meta) in enumerate(rows):
        _, stemmed, length = term_counts(text)
        tables.total_length += length
        tables.documents.append(
            (doc, chunk_id, float(length), text.replace("\0", "\ufffd"), json.dumps(meta))
        )
        for term, count in stemmed.items():
            postings = tables.terms.get(term)
            if postings is None:
                postings = tables.terms[term] = (array("i"), array("i"), array("i"))
            postings[0].append(doc)
            postings[1].append(count)
            postings[2].append(length)
    return tables


def _literal(values: array[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


def write(connection: Any, generation_id: int, tables: SearchTables) -> None:
    """Write ``tables`` for ``generation_id`` (inside the publishing transaction)."""
    connection.execute(
        "INSERT INTO ragls_search_stats (generation_id, documents, average_length) "
        "VALUES (%s, %s, %s)",
        (generation_id, len(tables.documents), tables.average_length),
    )
    with connection.cursor().copy(
        "COPY ragls_search_documents (generation_id, doc, chunk_id, length, content, metadata) "
        "FROM STDIN"
    ) as copy:
        for row in tables.documents:
            copy.write_row((generation_id, *row))
    with connection.cursor().copy(
        "COPY ragls_search_terms (generation_id, term, docs, frequencies, lengths) FROM STDIN"
    ) as copy:
        for term, (docs, frequencies, lengths) in tables.terms.items():
            copy.write_row(
                (generation_id, term, _literal(docs), _literal(frequencies), _literal(lengths))
            )


def search(
    connection: Any, generation_id: int, terms: Sequence[str], top_k: int
) -> list[tuple[str, float, str, dict[str, str]]]:
    """(id, score, content, metadata) of the ``top_k`` best documents for the analysed
    ``terms``, best first."""
    if not terms:
        return []
    rows = connection.execute(
        QUERY,
        {
            "generation": generation_id,
            "terms": list(dict.fromkeys(terms)),
            "k": top_k,
            "k1": _PARAMETERS.k1,
            "b": _PARAMETERS.b,
        },
    ).fetchall()
    return [(row[0], float(row[1]), row[2], dict(row[3])) for row in rows]
