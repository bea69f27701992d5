"""Daemon configuration parsing: valid keys apply, any invalid key refuses the whole change."""

from __future__ import annotations

import pytest

from ragls.service.settings.options import WorkspaceOptions, parse_options


def test_defaults() -> None:
    options, errors = parse_options(None)
    assert errors == []
    assert options == WorkspaceOptions()
    assert (options.index_on_startup, options.debounce_ms, options.pipeline) == (
        True,
        200,
        "workspace",
    )
    # SPEC §3: the daemon's index is complete, not a cache.
    assert (options.bm25_max_documents, options.bm25_ttl_seconds) == (None, None)


def test_every_key_is_read() -> None:
    options, errors = parse_options(
        {
            "indexOnStartup": False,
            "watch": False,
            "include": ["src/**"],
            "exclude": ["*.min.js"],
            "defaultSkips": ["build"],
            "limits": {"maxFiles": 10, "maxFileBytes": 1000},
            "bm25": {"maxDocuments": 50_000, "ttlSeconds": 7200},
            "pipeline": "seed",
            "synonyms": {"k8s": ["kubernetes"]},
            "debounceMs": 100,
            "rescanIntervalSeconds": 60,
        }
    )
    assert errors == []
    assert (options.index_on_startup, options.watch) == (False, False)
    assert (options.include, options.exclude) == (("src/**",), ("*.min.js",))
    assert options.default_skips == frozenset({"build"})
    assert (options.limits.max_files, options.limits.max_file_bytes) == (10, 1000)
    assert (options.bm25_max_documents, options.bm25_ttl_seconds) == (50_000, 7200.0)
    assert options.pipeline == "seed"
    assert options.synonyms is not None and options.synonyms.partners("k8s") == ("kubernet",)
    assert (options.debounce_ms, options.rescan_interval_seconds) == (100, 60.0)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("nope", "settings must be a JSON object"),
        ({"typo": 1}, "unknown setting 'typo'"),
        ({"indexOnStartup": "yes"}, "indexOnStartup must be true or false"),
        ({"include": "src"}, "include must be a list"),
        ({"defaultSkips": ["node_modules"]}, "defaultSkips may only name"),
        ({"limits": {"maxFiles": 0}}, "limits.maxFiles must be an integer"),
        ({"limits": {"maxFilez": 1}}, "unknown setting limits.maxFilez"),
        ({"bm25": {"ttlSeconds": -1}}, "bm25.ttlSeconds must be a positive number"),
        ({"synonyms": {"a": "b"}}, "synonyms['a'] must be a list"),
        ({"pipeline": "fastest"}, "pipeline must be one of"),
        ({"debounceMs": 1.5}, "debounceMs must be an integer"),
    ],
)
def test_an_invalid_key_names_itself_and_keeps_the_previous_options(
    raw: object, message: str
) -> None:
    previous, _ = parse_options({"debounceMs": 75})
    options, errors = parse_options(
        raw if not isinstance(raw, dict) else {"exclude": ["x/"], **raw}, previous
    )
    assert options is previous
    assert any(message in error for error in errors), errors


def test_null_restores_an_unbounded_bm25() -> None:
    capped, _ = parse_options({"bm25": {"maxDocuments": 10, "ttlSeconds": 60}})
    options, errors = parse_options({"bm25": {"maxDocuments": None, "ttlSeconds": None}}, capped)
    assert errors == []
    assert (options.bm25_max_documents, options.bm25_ttl_seconds) == (None, None)
