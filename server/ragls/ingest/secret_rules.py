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

RULES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
        0,
    ),
    ("aws-access-key", re.compile(r"\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b"), 1),
    (
        "aws-secret-key",
        re.compile(
            r"(?i)aws_?secret(?:_?access)?_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    ("github-token", re.compile(r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})\b"), 1),
    ("github-token", re.compile(r"\b(github_pat_[A-Za-z0-9_]{60,255})\b"), 1),
    ("slack-token", re.compile(r"\b(xox[abposr]-[A-Za-z0-9-]{10,250})\b"), 1),
    ("stripe-key", re.compile(r"\b((?:sk|rk)_live_[0-9A-Za-z]{24,99})\b"), 1),
    ("google-api-key", re.compile(r"\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"), 1),
    (
        "jwt",
        re.compile(r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})"),
        1,
    ),
    (
        "assigned-secret",
        re.compile(
            r"(?i)\b[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY)\b[\"']?\s*(?::=|=|:)\s*"
            r"[\"']([^\"'\s]{16,200})[\"']"
        ),
        1,
    ),
)

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
