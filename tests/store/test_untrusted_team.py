"""A team index is data to check, not to trust (docs/security.md, the trust model): whoever
can write its tables can make a consumer's start index the files instead, with a warning in
its status, never crash it or make it take gigabytes. Through the CLI as a process (address
space limited), against a real, throwaway PostgreSQL."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.store.test_team_index import IDENTITY, clone_of, project, team  # noqa: F401
from tests.store.test_untrusted import ragls

pytestmark = pytest.mark.slow
psycopg = pytest.importorskip("psycopg", reason="the ragls[postgres] extra is not installed")
BOMB = b"(\xff\xff\xff\x7f"  # five bytes that made marshal allocate a tuple of 2**31 items
TEAM_DAMAGES = {
    "a manifest that is a JSON string": ("'\"manifest\"'::jsonb", "the manifest is a JSON str"),
    "a manifest whose parts are a list": (
        "jsonb_set(manifest, '{parts}', '[]'::jsonb)",
        "the manifest's parts are a JSON list",
    ),
    "a part declared a terabyte": (
        "jsonb_set(manifest, '{parts,documents.text,bytes}', '1099511627776'::jsonb)",
        "documents.text has",
    ),
    "a five-byte header": ("manifest", "documents.text cannot be decoded"),
}


@pytest.mark.parametrize("damage", sorted(TEAM_DAMAGES))
def test_a_hostile_team_index_costs_a_rebuild_with_a_warning(
    team: str,  # noqa: F811
    tmp_path: Path,
    damage: str,
) -> None:
    ci = project(tmp_path / "ci" / "shop")
    assert ragls("index", str(ci), "--store", team, cache=tmp_path / "ci-cache").returncode == 0
    expression, reason = TEAM_DAMAGES[damage]
    with psycopg.connect(team) as connection:
        connection.execute(
            f"UPDATE ragls_generations SET manifest = {expression} WHERE repository = %s",
            (IDENTITY,),
        )
        if damage == "a five-byte header":
            connection.execute(
                """UPDATE ragls_parts SET data = %s WHERE name = 'documents.text' AND
                   generation_id IN (SELECT id FROM ragls_generations WHERE repository = %s)""",
                (BOMB, IDENTITY),
            )
            entry = {"bytes": len(BOMB), "sha256": hashlib.sha256(BOMB).hexdigest()}
            connection.execute(
                """UPDATE ragls_generations SET manifest = jsonb_set(manifest,
                   '{parts,documents.text}', manifest->'parts'->'documents.text' || %s::jsonb)
                   WHERE repository = %s""",
                (json.dumps(entry), IDENTITY),
            )
    laptop = clone_of(ci, tmp_path / "laptop" / "shop")
    result = ragls("index", str(laptop), cache=tmp_path / "cache", RAGLS_STORE=team)
    assert result.returncode == 0, result.stderr
    note = result.stderr[result.stderr.index("cache: note") :]
    assert reason in note and "built from the files" in note
    found = ragls(
        "search", str(laptop), "charge card", "-k", "1", cache=tmp_path / "cache", RAGLS_STORE=team
    )
    assert found.returncode == 0, found.stderr
    assert "shop/payment.py:1" in found.stdout
