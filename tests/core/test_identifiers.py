from __future__ import annotations

import pytest

from ragls.core.identifiers import code_term_counts, code_terms, identifier_terms, path_terms


@pytest.mark.parametrize(
    ("identifier", "terms"),
    [
        ("zebracorn_frobnicator", ("zebracorn_frobnicator", "zebracorn", "frobnicator")),
        ("previousResultId", ("previousresultid", "previ", "result", "id")),
        ("HTTPServer", ("httpserv", "http", "serv")),  # stemmed as SPEC §2 step 3
        ("XMLHttpRequest", ("xmlhttprequest", "xml", "http", "request")),
        ("utf8Decoder", ("utf8decod", "utf", "decod")),
        ("SCREAMING_CASE", ("screaming_case", "scream", "case")),
        ("__init__", ("init",)),
        ("plain", ("plain",)),
        ("x", ()),
        ("the", ()),  # a stop word, as in SPEC §2
    ],
)
def test_identifiers_split_into_whole_and_parts(identifier: str, terms: tuple[str, ...]) -> None:
    assert identifier_terms(identifier) == terms


def test_a_query_splits_like_a_document() -> None:
    # "previous result id" and previousResultId share every part.
    assert set(code_terms("previous result id")) <= set(identifier_terms("previousResultId"))


def test_counts_add_up_over_repeated_identifiers() -> None:
    counts = code_term_counts("user_id = get_user_id(user_id)")
    assert counts["user_id"] == 2
    assert counts["us"] == 3  # "user", stemmed: twice in user_id, once in get_user_id
    assert counts["get_user_id"] == 1


def test_paths_give_directories_and_stem_without_extension() -> None:
    assert path_terms("src/http-client/RetryPolicy.ts") == (
        "src",
        "http_client",
        "http",
        "client",
        "retrypolicy",
        "retry",
        "policy",
    )
