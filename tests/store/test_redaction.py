"""DSN passwords masked in any text (ragls.store.redaction)."""

from __future__ import annotations

import logging
import sys

import pytest

from ragls.store.redaction import RedactingFilter, redact


@pytest.mark.parametrize(
    "text",
    [
        "store='postgresql://ci:hunter2@db.example/ragls'",
        "postgres://ci:hun@ter2/x@db.example:5432/ragls",
        "postgresql://db.example/ragls?sslmode=verify-full&password=hunter2",
        "host=db.example password=hunter2 dbname=ragls",
        "host=db.example password='hunter 2' dbname=ragls",
    ],
)
def test_every_spelling_of_a_password_is_masked(text: str) -> None:
    masked = redact(text)
    assert "hunter" not in masked and "ter2" not in masked and "***" in masked


def test_pieces_of_a_known_dsn_are_masked_wherever_they_appear() -> None:
    dsn = "postgresql://ci:hunter2%zz@db.example/ragls"
    assert redact('invalid percent-encoded token: "hunter2%zz"', dsn) == (
        'invalid percent-encoded token: "***"'
    )
    assert redact("no password here: postgresql://ci@db.example/ragls") == (
        "no password here: postgresql://ci@db.example/ragls"
    )


def test_log_records_are_masked_arguments_and_tracebacks_too() -> None:
    try:
        raise ValueError("postgresql://ci:hunter2@db/x")
    except ValueError:
        record = logging.LogRecord(
            "ragls", logging.ERROR, __file__, 1, "store %s", ("password=hunter2",), None
        )

        record.exc_info = sys.exc_info()
    assert RedactingFilter().filter(record)
    assert record.getMessage() == "store password=***"
    assert record.exc_text is not None and "hunter2" not in record.exc_text
