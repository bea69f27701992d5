from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragls.core.analyzer import (
    SynonymTable,
    analyze,
    index_terms,
    plain_term_counts,
    plain_terms,
    stem,
    term_counts,
    tokenize,
)
from ragls.core.vocab import STEM_SUFFIXES, STOP_WORDS
from ragls.errors import InvalidArgumentError

WORDS = "the Running runs parser parsing flies ties settings db auth _x x1 é café a an".split()


def test_tokenize_lowercases_splits_on_non_word_and_drops_single_characters() -> None:
    assert tokenize("Hello, World! a_b x-y 42 7 CamelCase") == [
        "hello",
        "world",
        "a_b",
        "42",
        "camelcase",
    ]


def test_non_ascii_letters_are_separators() -> None:
    assert tokenize("café naïve über") == ["caf", "na", "ve", "ber"]


def test_there_are_exactly_56_stop_words() -> None:
    assert len(STOP_WORDS) == 56
    assert {"the", "your", "why", "its", "could"} <= STOP_WORDS


def test_stop_words_are_removed_from_documents_and_queries() -> None:
    text = "the cat is on the mat with your hat"
    assert analyze(text) == ["cat", "mat", "hat"]
    assert analyze(text, query=True) == ["cat", "mat", "hat"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("puppies", "pupp"),  # ies
        ("running", "runn"),  # ing
        ("creation", "crea"),  # tion
        ("decision", "deci"),  # sion
        ("payment", "pay"),  # ment
        ("darkness", "dark"),  # ness
        ("readable", "read"),  # able
        ("famous", "fam"),  # ous
        ("helpful", "help"),  # ful
        ("homeless", "home"),  # less
        ("quickly", "quick"),  # ly
        ("jumped", "jump"),  # ed
        ("parser", "pars"),  # er
        ("boxes", "box"),  # es
        ("cats", "cat"),  # s
    ],
)
def test_each_suffix_is_stripped(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_tokens_shorter_than_four_are_not_stemmed() -> None:
    assert stem("was") == "was"
    assert stem("ies") == "ies"
    assert stem("bus") == "bus"


def test_a_suffix_is_skipped_when_it_would_leave_fewer_than_two_characters() -> None:
    # "ties": "ies" would leave "t", so the next fitting suffix, "es", is stripped.
    assert stem("ties") == "ti"
    # "sing": "ing" would leave "s"; no later suffix fits, so it stays.
    assert stem("sing") == "sing"


def test_only_one_suffix_is_stripped() -> None:
    assert stem("carelessness") == "careless"  # "ness" only, not "less" as well


def test_first_suffix_in_order_wins() -> None:
    # "ies" is tried before "es" and "s".
    assert stem("flies") == "fl"
    # "ing" is tried before "s" even though the token is plural-looking.
    assert stem("settings") == "setting"


def test_synonyms_expand_queries_in_both_directions() -> None:
    assert analyze("db", query=True) == ["db", "database"]
    assert analyze("database", query=True) == ["database", "db"]
    assert analyze("auth", query=True) == ["auth", stem("authentication"), stem("authorization")]
    # Not transitive: authentication is a partner of auth only.
    assert analyze("authentication", query=True) == [stem("authentication"), "auth"]


def test_synonyms_never_apply_to_documents() -> None:
    assert analyze("db") == ["db"]


def test_synonym_entries_match_on_stems() -> None:
    # "settings" stems to "setting", whose partner is "config".
    assert analyze("settings", query=True) == ["setting", "config"]
    assert "setting" in analyze("settings configuration", query=True)


def test_expanded_query_keeps_each_term_once() -> None:
    assert analyze("db database db", query=True) == ["db", "database"]


def test_document_analysis_keeps_repeats() -> None:
    assert analyze("cache cache") == ["cache", "cache"]


def test_custom_synonym_table_from_configuration() -> None:
    table = SynonymTable.from_mapping({"k8s": ["kubernetes"]})
    assert analyze("k8s", query=True, synonyms=table) == ["k8s", "kubernet"]
    assert analyze("db", query=True, synonyms=table) == ["db"]


@pytest.mark.parametrize(
    "bad",
    [["k8s"], {"k8s": "kubernetes"}, {"k8s": [1]}, {1: ["x"]}],
)
def test_bad_synonym_configuration_is_rejected_with_a_message(bad: object) -> None:
    with pytest.raises(InvalidArgumentError):
        SynonymTable.from_mapping(bad)  # type: ignore[arg-type]


def test_the_fifteen_suffixes_in_spec_order() -> None:
    assert list(STEM_SUFFIXES) == [
        "ies",
        "ing",
        "tion",
        "sion",
        "ment",
        "ness",
        "able",
        "ous",
        "ful",
        "less",
        "ly",
        "ed",
        "er",
        "es",
        "s",
    ]


@given(st.lists(st.sampled_from(WORDS), max_size=40).map(" ".join))
def test_term_counts_equal_counting_the_analysis(text: str) -> None:
    plain, stemmed, length = term_counts(text)
    assert plain == Counter(plain_terms(text)) == plain_term_counts(text)
    assert stemmed == Counter(index_terms(text))
    assert length == len(index_terms(text))


def test_the_stemming_regex_splits_exactly_as_the_suffix_rule() -> None:
    """Every string of up to four letters drawn from the suffixes' letters, and every suffix
    behind short prefixes: the fast path and SPEC §2's rule agree on all of them."""
    import itertools

    from ragls.core.analyzer import stem, stem_by_rule
    from ragls.core.vocab import STEM_SUFFIXES

    letters = sorted(set("".join(STEM_SUFFIXES)) | {"a", "x"})
    words = {"".join(p) for n in range(1, 5) for p in itertools.product(letters, repeat=n)}
    words |= {prefix + suffix for suffix in STEM_SUFFIXES for prefix in ("", "a", "ab", "ie", "es")}
    words |= {prefix + a + b for a in STEM_SUFFIXES for b in STEM_SUFFIXES for prefix in ("", "x")}
    assert [w for w in sorted(words) if stem(w) != stem_by_rule(w)] == []
