"""Secrets inside ordinary files are masked before indexing, and counted (SPEC §8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragls.ingest.secrets import marker, redact
from ragls.service.pipelines import WORKSPACE
from ragls.service.rag_service import RagService
from tests.ingest.trees import make_tree

AWS_KEY = "AKIA" + "Q3EGRZ7XJ2NDB5LW"
GITHUB = "ghp_" + "Zk3m9QpL2xV8rT6yW1nB4cH7jD0fG5sA2eK9"
SLACK = "xoxb-" + "284736251903-9384756102938-Zq8WkP3mR7tY2vLx"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq8Zx\nx3Lm29Pqv7Rts\n"
    "-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (f'AWS_ACCESS_KEY_ID = "{AWS_KEY}"', "aws-access-key"),
        ("aws_secret_access_key = q8Zx3Lm29Pqv7RtsK1uW5yB0cE4gH6jN8pS2vX9a", "aws-secret-key"),
        (f"token = '{GITHUB}'", "github-token"),
        (f"SLACK = '{SLACK}'", "slack-token"),
        (f'auth = "{JWT}"', "jwt"),
        ('DB_PASSWORD = "q8Zx3Lm29Pqv7Rts"', "assigned-secret"),
        (PEM, "private-key"),
    ],
)
def test_each_kind_of_secret_is_masked(text: str, rule: str) -> None:
    masked, found = redact(text)
    assert found == {rule: 1}
    assert marker(rule) in masked
    assert masked.count("\n") == text.count("\n")  # line numbers stay right


@pytest.mark.parametrize(
    "text",
    [
        'API_KEY = "your-api-key-goes-here"',
        'password = "hunter2"',
        "token = os.environ['GITHUB_TOKEN']",
        'SECRET_KEY = "${SECRET_KEY_FROM_ENV}"',
        'TOKEN_URL = "https://example.org/oauth/token"',
        "def parse_token(text):\n    return text.split()\n",
        "ghp_short = 1",
    ],
)
def test_ordinary_code_is_left_alone(text: str) -> None:
    assert redact(text) == (text, {})


def test_a_masked_secret_is_never_searched_or_returned(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "deploy.py": f'AWS_ACCESS_KEY_ID = "{AWS_KEY}"\nREGION = "eu-west-1"\n',
            "keys/notes.md": f"# Keys\n\n{PEM}\n\nRotate yearly.\n",
        },
    )
    service = RagService(pipeline=WORKSPACE)
    status = service.index_directory(root)
    assert dict(status.redacted) == {"aws-access-key": 1, "private-key": 1}
    for query in (AWS_KEY, "MIIEowIBAAKCAQEAq8Zx", "region"):
        for result in service.search(query, 10):
            assert AWS_KEY not in result.content and "MIIEow" not in result.content
    prompt = service.build_context_prompt("aws access key region", 5)
    assert AWS_KEY not in prompt and "redacted:aws-access-key" in prompt
    notes = next(
        r for r in service.search("rotate yearly", 3) if r.metadata["file"] == "keys/notes.md"
    )
    assert notes.metadata["end_line"] == "8"  # the masked block kept its 4 lines
    (root / "deploy.py").write_text('REGION = "eu-west-1"\n')
    assert dict(service.index_directory(root).redacted) == {"private-key": 1}


def test_detection_can_be_turned_off_for_a_clean_folder(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"fixture.py": f'KEY = "{AWS_KEY}"\n'})
    service = RagService(pipeline=WORKSPACE)
    assert dict(service.index_directory(root).redacted) == {"aws-access-key": 1}
    status = service.index_directory(root, detect_secrets=False)  # re-chunked: a new key
    assert dict(status.redacted) == {}
    assert AWS_KEY in service.search("KEY", 1)[0].content


def test_configured_secret_names_add_to_the_built_in_ones(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {"vault.secret": "x", "config/prod/db.yml": "y", "config/dev/db.yml": "z", ".env": "w"},
    )
    service = RagService(pipeline=WORKSPACE)
    status = service.index_directory(root, secret_names=["*.SECRET", "config/prod/*.yml"])
    assert service.indexed_files() == ["config/dev/db.yml"]
    assert status.skipped["secret"] == 3  # the two configured, and .env whatever the setting


@pytest.mark.parametrize(
    "line",
    [
        "Use key id AKIAIOSFODNN7EXAMPLQ and secret {secret} for the bucket.",
        "| AKIAIOSFODNN7EXAMPLQ | {secret} |",
        "| {secret} | AKIAIOSFODNN7EXAMPLQ |",
        "AKIAIOSFODNN7EXAMPLQ,{secret},us-east-1",
    ],
)
def test_an_aws_secret_key_beside_its_key_id_is_masked(line: str) -> None:
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8vT2hK9a"
    masked, found = redact(line.format(secret=secret))
    assert secret not in masked and found == {"aws-access-key": 1, "aws-secret-key": 1}


def test_a_commit_hash_beside_a_key_id_is_not_a_secret_key() -> None:
    sha = "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a"
    masked, found = redact(f"commit {sha} rotated AKIAIOSFODNN7EXAMPLQ")
    assert sha in masked and found == {"aws-access-key": 1}
