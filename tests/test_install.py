"""The documented installation: a wheel built from the checkout holds the whole package and its
``ragls`` command, and that command, installed on its own, indexes and answers (README, Install)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(tmp_path: Path) -> Path:
    # Built from a copy of what the wheel is made of, so the checkout gets no build/ or egg-info.
    source = tmp_path / "source"
    shutil.copytree(
        ROOT / "server",
        source / "server",
        ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"),
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("ragls-*.whl")
    return wheel


def test_the_wheel_installs_a_working_ragls_command(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    modules = {n for n in names if n.startswith("ragls/") and n.endswith(".py")}
    expected = {
        str(p.relative_to(ROOT / "server")) for p in (ROOT / "server" / "ragls").rglob("*.py")
    }
    assert modules == expected, "every module of the package, and nothing else"
    assert "ragls/py.typed" in names
    assert not any(n.startswith("tests/") for n in names)
    entry_points = zipfile.ZipFile(wheel).read("ragls-0.1.0.dist-info/entry_points.txt").decode()
    assert "ragls = ragls.cli:main" in entry_points

    # Installed alone into a folder of its own (its dependencies come from this environment).
    target = tmp_path / "installed"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    env = {**os.environ, "PYTHONPATH": str(target), "RAGLS_CACHE_DIR": str(tmp_path / "cache")}
    where = subprocess.run(
        [sys.executable, "-c", "import ragls; print(ragls.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip().startswith(str(target)), "the installed copy, not the checkout"
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "auth.py").write_text(
        "def login(user, password):\n    return verify(password)\n"
    )
    command = target / "bin" / "ragls"
    version = subprocess.run([command, "--version"], env=env, capture_output=True, text=True)
    assert version.returncode == 0 and "0.1.0" in version.stdout
    answer = subprocess.run(
        [command, "search", str(project), "verify the password", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stderr
    results = json.loads(answer.stdout)["results"]
    assert results[0]["metadata"]["file"] == "src/auth.py"
