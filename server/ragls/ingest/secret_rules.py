"""What content-level secret detection looks for (SPEC §8; docs/security.md). Data only.

Each rule is (name, pattern, group): the text matched by ``group`` is replaced. Patterns follow
the published formats of the credentials (AWS access key ids, GitHub, Slack, Stripe and Google
API tokens, PEM private key blocks, JWTs); ``assigned-secret`` is a value of at least 16
characters assigned to a name ending in TOKEN, SECRET, PASSWORD, PASSWD, API_KEY or APIKEY, kept
only if it looks random (:data:`MIN_ENTROPY_BITS` per character, letters and digits mixed) and is
not a placeholder. Measured on real code before being adopted (docs/security.md).
"""

from __future__ import annotations

import re

# Part of every file's fingerprint: bump it when a rule changes, so files are re-chunked.
RULES_VERSION = 1

# (name, pattern, group, hints): the text of ``group`` is masked; the regex runs only on text
# holding one of the ``hints`` (plain substrings, checked in C: most files hold none of them).
RULES: tuple[tuple[str, re.Pattern[str], int, tuple[str, ...]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
        0,
        ("PRIVATE KEY",),
    ),
    (
        "aws-access-key",
        re.compile(r"(?<![0-9A-Za-z])((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})(?![0-9A-Za-z])"),
        1,
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    (
        "aws-secret-key",
        re.compile(
            r"(?i)aws_?secret(?:_?access)?_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})"
            r"(?![A-Za-z0-9/+=])"
        ),
        1,
        ("ecret", "ECRET"),
    ),
    (
        "github-token",
        re.compile(r"(?<![0-9A-Za-z])((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})(?![0-9A-Za-z])"),
        1,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    (
        "github-token",
        re.compile(r"(?<![0-9A-Za-z])(github_pat_[A-Za-z0-9_]{60,255})"),
        1,
        ("github_pat_",),
    ),
    (
        "slack-token",
        re.compile(r"(?<![0-9A-Za-z])(xox[abposr]-[A-Za-z0-9-]{10,250})"),
        1,
        ("xox",),
    ),
    (
        "stripe-key",
        re.compile(r"(?<![0-9A-Za-z])((?:sk|rk)_live_[0-9A-Za-z]{24,99})"),
        1,
        ("_live_",),
    ),
    (
        "google-api-key",
        re.compile(r"(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"),
        1,
        ("AIza",),
    ),
    (
        "jwt",
        re.compile(r"(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})"),
        1,
        ("eyJ",),
    ),
    (
        # A quoted value after = or :; secrets.py keeps it only if the name before it ends in
        # one of ASSIGNED_NAME's words (scanning for values first is 7x faster than for names).
        "assigned-secret",
        re.compile(r"(?:=|:)[ \t]*[\"']([^\"'\s]{16,200})[\"']"),
        1,
        ("=", ":"),
    ),
)

# The name a value is assigned to, just before the ``=`` or ``:`` (and its quote, in JSON/YAML).
ASSIGNED_NAME = re.compile(r"([A-Za-z0-9_]+)[\"']?[ \t]*$")
SECRET_NAME_ENDING = re.compile(r"(?i)(?:token|secret|password|passwd|api_?key)$")

# Rules whose matches must also look random (the others have unmistakable formats).
ENTROPY_CHECKED = frozenset({"assigned-secret"})
MIN_ENTROPY_BITS = 3.5
PLACEHOLDER_WORDS = (
    "example",
    "placeholder",
    "changeme",
    "your",
    "xxxx",
    "dummy",
    "sample",
    "redacted",
    "test",
    "fake",
    "secret",
    "password",
    "token",
)
