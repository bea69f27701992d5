"""What content-level secret detection looks for (SPEC §8; docs/security.md). Data only.

Each :class:`Rule` names a pattern whose group ``group`` is masked, the plain substrings
(``hints``) without which the pattern cannot match (checked in C first: most files hold none),
and the check a match must pass before it is masked:

* ``none``: the format is unmistakable (a provider prefix and length: AWS, GitHub, GitLab, Slack,
  Stripe, Google, OpenAI, Anthropic, npm, PyPI, SendGrid, Docker Hub, DigitalOcean, PEM blocks,
  JWTs, Azure account keys);
* ``random``: the value must look random (:data:`MIN_ENTROPY_BITS` per character, letters and
  digits mixed, no placeholder word) — prefixes that ordinary words can carry;
* ``named``: as ``random``, and the name it is assigned to must end in one of
  :data:`SECRET_NAME_ENDING`'s words. In a configuration file (:data:`CONFIG_SUFFIXES`: ``.env``,
  YAML, INI, TOML, properties), where values are not quoted and often not random, the value only
  has to be a literal that is not a placeholder, a reference or a boolean;
* ``literal``: the value must not be a placeholder, a reference or a boolean; ``url`` also
  refuses a password equal to its user name (``postgres:postgres@``, a documented default):
  passwords inside URLs name themselves by their position.

Rules with ``config_only`` run on configuration files only (YAML's unquoted ``password: value``
would otherwise match every ``password: str`` annotation of Python). Measured on real code
before being adopted (docs/security.md); the planted corpus of tests/ingest/secret_corpus.py
holds an example of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# Part of every file's fingerprint: bump it when a rule changes, so files are re-chunked.
RULES_VERSION = 3

Check = Literal["none", "random", "named", "literal", "url"]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    group: int
    hints: tuple[str, ...]  # empty: the pattern starts with a literal, its own scan is as fast
    check: Check = "none"
    config_only: bool = False


# A token must not start inside a longer identifier; the check is a lookbehind placed after the
# pattern's literal prefix, never before it: a leading lookbehind stops the regex engine from
# jumping to the prefix and makes a scan about 35 times slower.
_SECRET_WORD = (
    r"(?:token|secret|password|passwd|pwd|pass|api_?key|apikey|secret_?key|private_?key"
    r"|secret_?key_?base|access_?key|auth_?key|signing_?key|encryption_?key|master_?key|client_?secret"
    r"|credentials?|auth)"
)

# Order matters where formats nest: Anthropic's sk-ant- before OpenAI's sk-, the PEM block first.
RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        # A block is at most 16 KiB (an 8,192-bit RSA key is about 6.5 KiB): a BEGIN line with no
        # END (a string constant, a truncated paste) masks that line and the base64 lines after
        # it, never the rest of the file.
        re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]{0,16384}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            r"|[^\n]*(?:\n[ \t]*[A-Za-z0-9+/=:\\\"',-]{16,}[ \t]*(?=\n|\Z)){0,400})"
        ),
        0,
        ("PRIVATE KEY",),
    ),
    Rule(
        "aws-access-key",
        re.compile(r"(A(?<![0-9A-Za-z]A)(?:KIA|SIA|BIA|CCA)[0-9A-Z]{16})(?![0-9A-Za-z])"),
        1,
        (),
    ),
    Rule(
        "aws-secret-key",
        re.compile(
            r"(?i)aws_?secret(?:_?access)?_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})"
            r"(?![A-Za-z0-9/+=])"
        ),
        1,
        ("ecret", "ECRET"),
    ),
    # A secret key with no name, on the line of the key id it pairs with (prose, a Markdown
    # table, a CSV of credentials): the id is masked by then, so its marker is what is seen.
    # Not 40 lower-case hex digits (a commit's SHA-1 beside a key id), which no secret key is.
    Rule(
        "aws-secret-key",
        re.compile(
            r"\u2039redacted:aws-access-key\u203a[^\n]{0,200}?(?<![A-Za-z0-9/+=])"
            r"(?![0-9a-f]{40}(?![A-Za-z0-9/+=]))([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
        ("redacted:aws-access-key",),
        "random",
    ),
    Rule(
        "aws-secret-key",
        re.compile(
            r"(?<![A-Za-z0-9/+=])(?![0-9a-f]{40}(?![A-Za-z0-9/+=]))([A-Za-z0-9/+]{40})"
            r"(?![A-Za-z0-9/+=])[^\n]{0,200}?\u2039redacted:aws-access-key\u203a"
        ),
        1,
        ("redacted:aws-access-key",),
        "random",
    ),
    Rule(
        "github-token",
        re.compile(r"(gh(?<![0-9A-Za-z]gh)[pousr]_[A-Za-z0-9]{36,255})(?![0-9A-Za-z])"),
        1,
        (),
    ),
    Rule(
        "github-token",
        re.compile(r"(github_pat_(?<![0-9A-Za-z]github_pat_)[A-Za-z0-9_]{60,255})"),
        1,
        (),
    ),
    Rule(
        "gitlab-token",
        re.compile(
            r"(gl(?<![0-9A-Za-z_-]gl)(?:pat|dt|rt|ptt|ft|soat|cbt|oas|imt|agent)-[A-Za-z0-9_-]{20,255})"
        ),
        1,
        (),
    ),
    Rule(
        "slack-token",
        re.compile(r"(xox(?<![0-9A-Za-z]xox)[abposr]-[A-Za-z0-9-]{10,250})"),
        1,
        (),
    ),
    Rule(
        "slack-webhook",
        re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9/_-]{20,300})"),
        1,
        ("hooks.slack.com",),
    ),
    Rule(
        "stripe-key",
        re.compile(r"([sr]k_live_(?<![0-9A-Za-z].k_live_)[0-9A-Za-z]{24,99})"),
        1,
        ("_live_",),
    ),
    Rule(
        "google-api-key",
        re.compile(r"(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"),
        1,
        (),
    ),
    Rule(
        "anthropic-key",
        re.compile(r"(sk-ant-(?<![0-9A-Za-z_-]sk-ant-)[a-z0-9]{2,12}-[A-Za-z0-9_-]{32,300})"),
        1,
        (),
    ),
    Rule(
        "openai-key",
        re.compile(
            r"(sk-(?<![0-9A-Za-z_-]sk-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,300})"
            r"(?![A-Za-z0-9_-])"
        ),
        1,
        (),
        "random",
    ),
    Rule(
        "npm-token",
        re.compile(r"(npm_(?<![0-9A-Za-z_]npm_)[A-Za-z0-9]{36})(?![0-9A-Za-z])"),
        1,
        (),
        "random",
    ),
    Rule(
        "pypi-token",
        re.compile(r"(pypi-AgE[A-Za-z0-9_-]{50,300})"),
        1,
        (),
    ),
    Rule(
        "sendgrid-key",
        re.compile(r"(SG\.(?<![0-9A-Za-z]SG\.)[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})"),
        1,
        (),
    ),
    Rule(
        "twilio-key",
        re.compile(r"(SK(?<![0-9A-Za-z]SK)[0-9a-f]{32})(?![0-9A-Za-z])"),
        1,
        (),
        "random",
    ),
    Rule(
        "dockerhub-token",
        re.compile(r"(dckr_pat_[A-Za-z0-9_-]{27,100})"),
        1,
        (),
    ),
    Rule(
        "digitalocean-token",
        re.compile(r"(do(?<![0-9A-Za-z]do)[opr]_v1_[a-f0-9]{64})"),
        1,
        (),
    ),
    Rule(
        "azure-storage-key",
        re.compile(r"[Aa]ccount[Kk]ey=([A-Za-z0-9+/]{40,120}={0,2})"),
        1,
        ("AccountKey=", "accountKey=", "Accountkey=", "accountkey="),
    ),
    Rule(
        "azure-sas",
        re.compile(r"sig=(?<![A-Za-z0-9_]sig=)([A-Za-z0-9%+/]{30,200}(?:%3[Dd]|=){0,2})"),
        1,
        (),
        "random",
    ),
    Rule(
        "jwt",
        re.compile(r"(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})"),
        1,
        (),
    ),
    Rule(
        "bearer-token",
        re.compile(r"[Bb]earer(?<![A-Za-z0-9_].earer)[ \t]+([A-Za-z0-9._~+/-]{20,500}=*)"),
        1,
        ("earer",),
        "random",
    ),
    Rule(
        # user:password@ in any URL (postgres://, mongodb+srv://, redis://, https://). Patterns
        # here start with a literal (``://``, ``=``, ``:``) so the scan jumps between candidates.
        "url-password",
        re.compile(r"://([^\s:/@'\"<>()]{0,100}):([^\s@/'\"<>()\[\]{}]{1,200})@[A-Za-z0-9\[]"),
        2,
        (),
        "url",
    ),
    Rule(
        # A quoted value after =, => or :; kept only if the name before it is a secret's.
        "assigned-secret",
        re.compile(r"(?:=>?|:)[ \t]*[\"']([^\"'\s]{6,200})[\"']"),
        1,
        (),
        "named",
    ),
    Rule(
        # NAME=value unquoted: .env-style lines in files of any name, shell exports, .npmrc.
        "assigned-secret",
        re.compile(
            r"=[ \t]*([^\s'\"#`$(){}\[\]<>;,|&\\=][^\s'\"#`$(){}\[\]<>;,|&\\]{5,199})"
            r"(?=[ \t]*(?:[;#\n]|\Z))"
        ),
        1,
        (),
        "named",
    ),
    Rule(
        # YAML's unquoted ``password: value`` (configuration files only).
        "assigned-secret",
        re.compile(r"(?m):[ \t]+([^\s'\"#|>&*!{\[][^\s'\"#]{3,199})[ \t]*(?:#.*)?$"),
        1,
        (),
        "named",
        config_only=True,
    ),
)

# The characters of the name a value is assigned to (before its ``=``, ``=>`` or ``:``, and the
# quotes of JSON, YAML and PHP keys): ``DB_PASSWORD``, ``spring.datasource.password``.
NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
SECRET_NAME_ENDING = re.compile(r"(?i)" + _SECRET_WORD + r"$")

# Configuration files: values are unquoted and chosen by people (``DB_PASSWORD=hunter22``).
CONFIG_SUFFIXES = (
    ".env",
    ".envrc",
    ".yaml",
    ".yml",
    ".ini",
    ".cfg",
    ".conf",
    ".properties",
    ".toml",
)

MIN_ENTROPY_BITS = 3.5
MIN_HEX_ENTROPY_BITS = 3.0  # 32 random hex digits carry about 3.4 bits a character
MIN_LITERAL_CHARS = 6
PLACEHOLDER_WORDS = (
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "your",
    "xxxx",
    "****",
    "dummy",
    "sample",
    "redacted",
    "test",
    "fake",
    "secret",
    "password",
    "passwd",
    "token",
    "insert",
    "replace",
    "todo",
    "none",
    "null",
    "undefined",
    "<",
    "...",
    "foobar",
    "pass",
    "abc123",
    "123456",
)
# Values that are references, not literals: ${VAR}, {{ var }}, %(name)s, $VAR, ENV['X'].
REFERENCE_STARTS = ("%", "$", "<", "@", "!", "&", "*")
REFERENCE_PARTS = ("${", "{{", "%(", "%s", "env(", "environ", "getenv", "process.env")
NON_SECRET_LITERALS = frozenset(("true", "false", "yes", "no", "on", "off", "required", "optional"))

# Kubernetes Secret manifests: every value under ``data:`` / ``stringData:`` is a secret.
KUBERNETES_SECRET = re.compile(r"(?m)^kind:[ \t]*Secret[ \t]*$")
KUBERNETES_DATA = re.compile(r"(?m)^([ \t]*)(?:data|stringData):[ \t]*$")
KUBERNETES_ENTRY = re.compile(r"^([ \t]+)[\"']?[A-Za-z0-9_.-]+[\"']?:[ \t]*[\"']?([^\s\"'#]+)")
