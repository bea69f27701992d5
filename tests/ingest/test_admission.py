"""Default skips, secret names, ignore-file caps, links and special files (SPEC §8)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragls.ingest.admission import Admission, SkipReason
from ragls.ingest.config import KnowledgeSourceConfig
from ragls.ingest.ingestion import FileIngestionService
from ragls.ingest.limits import Limits
from ragls.ingest.walk import Candidate
from tests.ingest.trees import make_tree


def visible(root: Path, **config: object) -> list[str]:
    discovery = FileIngestionService().discover(KnowledgeSourceConfig(root, **config))  # type: ignore[arg-type]
    return sorted(c.path for c in discovery.candidates)


def skipped(root: Path, limits: Limits | None = None) -> dict[str, SkipReason]:
    discovery = FileIngestionService(limits).discover(KnowledgeSourceConfig(root))
    return {s.path: s.reason for s in discovery.skipped}


def test_default_directories_are_pruned_case_insensitively_at_any_depth(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            "keep.py": "x",
            "node_modules/a.js": "x",
            "src/Node_Modules/b.js": "x",
            "src/deep/BUILD/c.txt": "x",
            "Dist/d.txt": "x",
            "x/.Git/config": "x",
            "x/__pycache__/m.py": "x",
            "x/.VSCode/settings.json": "x",
            "x/vendor/lib.go": "x",
            "x/outer/e.txt": "x",
        },
    )
    assert visible(tmp_path) == ["keep.py", "x/outer/e.txt"]


def test_a_git_file_and_vendor_components_are_skipped_too(tmp_path: Path) -> None:
    make_tree(tmp_path, {".git": "gitdir: elsewhere", "sub/.GIT": "x", "sub/ok.txt": "x"})
    assert visible(tmp_path) == ["sub/ok.txt"]


def test_plain_default_directories_can_be_readmitted_by_configuration(tmp_path: Path) -> None:
    make_tree(tmp_path, {"build/a.txt": "x", "dist/b.txt": "x", "node_modules/c.js": "x"})
    assert visible(tmp_path, default_skips=frozenset({"dist"})) == ["build/a.txt"]
    assert visible(tmp_path, include=("build/**",)) == ["build/a.txt"]


def test_the_nine_can_never_be_readmitted(tmp_path: Path) -> None:
    make_tree(tmp_path, {"node_modules/c.js": "x", "vendor/v.go": "x"})
    assert visible(tmp_path, include=("node_modules/**", "vendor/**")) == []
    with pytest.raises(ValueError, match="default_skips"):
        KnowledgeSourceConfig(tmp_path, default_skips=frozenset({"node_modules"}))


def test_gitignore_negation_cannot_readmit_default_directories(tmp_path: Path) -> None:
    make_tree(tmp_path, {".gitignore": "!build/\n!node_modules/\n", "build/a.txt": "x"})
    assert visible(tmp_path) == []


@pytest.mark.parametrize(
    "name",
    [
        ".env",
        ".ENV",
        ".env.local",
        ".Env.Production",
        ".git-credentials",
        ".netrc",
        ".npmrc",
        ".pypirc",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_rsa",
        "ID_RSA",
        "server.pem",
        "tls.key",
        "store.p12",
        "cert.pfx",
        "release.jks",
        "credentials.json",
        "service-account-prod.json",
        ".htpasswd",
        ".dockercfg",
        "secrets.yml",
        "secrets.yaml",
        "prod.tfstate",
        "terraform.tfvars",
        ".s3cfg",
        "kubeconfig",
    ],
)
def test_secret_names_are_never_ingested(tmp_path: Path, name: str) -> None:
    make_tree(tmp_path, {name: "SECRET=1", f"deep/er/{name}": "SECRET=1", "ok.txt": "fine"})
    assert visible(tmp_path) == ["ok.txt"]
    assert visible(tmp_path, include=(name, f"**/{name}")) == []
    reasons = skipped(tmp_path)
    assert reasons[name] is SkipReason.SECRET
    assert reasons[f"deep/er/{name}"] is SkipReason.SECRET


def test_credentials_known_by_their_folder_are_secret(tmp_path: Path) -> None:
    make_tree(tmp_path, {".docker/config.json": "{}", "app/config.json": "{}"})
    assert visible(tmp_path) == ["app/config.json"]
    assert skipped(tmp_path)[".docker/config.json"] is SkipReason.SECRET


def test_envrc_and_public_keys_are_not_secret_names(tmp_path: Path) -> None:
    make_tree(tmp_path, {".envrc": "use nix", "id_rsa.pub": "ssh-rsa AAA", ".environment": "x"})
    assert visible(tmp_path) == [".environment", ".envrc", "id_rsa.pub"]


def test_ignore_files_are_never_ingested(tmp_path: Path) -> None:
    make_tree(tmp_path, {".gitignore": "*.log\n", "a/.tnsignore": "x\n", "a/b.txt": "ok"})
    assert visible(tmp_path) == ["a/b.txt"]


def test_tnsignore_can_reinclude_what_gitignore_excludes(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {".gitignore": "*.txt\n", ".tnsignore": "!keep.txt\n", "keep.txt": "x", "drop.txt": "x"},
    )
    assert visible(tmp_path) == ["keep.txt"]


def test_nested_rules_apply_below_their_directory_only(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a/.gitignore": "*.md\n", "a/x.md": "x", "b/y.md": "y", "a/c/z.md": "z"})
    assert visible(tmp_path) == ["b/y.md"]


def test_an_oversized_ignore_file_skips_its_directory_whole(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {"big/.gitignore": "#" * (64 * 1024 + 1), "big/a.txt": "x", "ok/b.txt": "x"},
    )
    assert visible(tmp_path) == ["ok/b.txt"]
    assert skipped(tmp_path)["big"] is SkipReason.IGNORE_FILE_REFUSED


def test_an_ignore_file_with_too_many_selectors_skips_its_directory(tmp_path: Path) -> None:
    selectors = "".join(f"pattern{i}\n" for i in range(1025))
    make_tree(tmp_path, {"many/.tnsignore": selectors, "many/a.txt": "x", "b.txt": "x"})
    assert visible(tmp_path) == ["b.txt"]
    limits = Limits(max_ignore_selectors=2000)
    discovery = FileIngestionService(limits).discover(KnowledgeSourceConfig(tmp_path))
    assert sorted(c.path for c in discovery.candidates) == ["b.txt", "many/a.txt"]


def test_comments_do_not_count_as_selectors(tmp_path: Path) -> None:
    lines = "".join(f"# comment {i}\n\n" for i in range(2000)) + "*.log\n"
    make_tree(tmp_path, {".gitignore": lines, "a.log": "x", "a.txt": "x"})
    assert visible(tmp_path) == ["a.txt"]


def test_symbolic_links_are_never_followed(tmp_path: Path) -> None:
    outside = make_tree(tmp_path / "outside", {"secret.txt": "outside the root"})
    root = make_tree(tmp_path / "root", {"real/a.txt": "x"})
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linked_dir")
    os.symlink(root, root / "real" / "loop")
    os.symlink(root / "missing", root / "dangling")
    assert visible(root) == ["real/a.txt"]
    reasons = skipped(root)
    for name in ("link.txt", "linked_dir", "real/loop", "dangling"):
        assert reasons[name] is SkipReason.SYMLINK


def test_a_symlinked_ignore_file_is_not_read(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "root", {"a.txt": "x", "rules": "a.txt\n"})
    os.symlink(root / "rules", root / ".gitignore")
    assert visible(root) == ["a.txt", "rules"]


def test_fifos_are_never_opened(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.txt": "x"})
    os.mkfifo(tmp_path / "pipe")
    assert visible(tmp_path) == ["a.txt"]
    assert skipped(tmp_path)["pipe"] is SkipReason.SPECIAL


def test_depth_cap_skips_deeper_directories(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a/b/c/d.txt": "x", "a/e.txt": "x"})
    discovery = FileIngestionService(Limits(max_depth=2)).discover(KnowledgeSourceConfig(tmp_path))
    assert [c.path for c in discovery.candidates] == ["a/e.txt"]
    assert {s.path: s.reason for s in discovery.skipped}["a/b/c"] is SkipReason.TOO_DEEP


def test_include_and_exclude_globs(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/a.py": "x", "src/b.md": "x", "docs/c.md": "x", "src/gen/d.py": "x"})
    assert visible(tmp_path, include=("*.py",)) == ["src/a.py", "src/gen/d.py"]
    assert visible(tmp_path, include=("src/",), exclude=("gen/",)) == ["src/a.py", "src/b.md"]


def test_single_path_checks_agree_with_the_walk(tmp_path: Path) -> None:
    make_tree(
        tmp_path,
        {
            ".gitignore": "ignored/\n*.log\n!keep.log\n",
            "sub/.gitignore": "local.txt\n",
            "a.txt": "x",
            "keep.log": "x",
            "drop.log": "x",
            "ignored/in.txt": "x",
            "sub/local.txt": "x",
            "sub/other.txt": "x",
            "node_modules/m.js": "x",
            "sub/.env": "x",
        },
    )
    config = KnowledgeSourceConfig(tmp_path)
    service = FileIngestionService()
    walked = {c.path for c in service.discover(config).candidates}
    every_file = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    admission = Admission(config, Limits.defaults())
    checked = {
        path for path in every_file if isinstance(service.check_path(admission, path), Candidate)
    }
    assert checked == walked == {"a.txt", "keep.log", "sub/other.txt"}


def test_excluded_directories_are_pruned_not_walked(tmp_path: Path) -> None:
    make_tree(tmp_path, {"keep/a.txt": "x", "generated/deep/b.txt": "x"})
    discovery = FileIngestionService().discover(
        KnowledgeSourceConfig(tmp_path, exclude=("generated/",))
    )
    assert [c.path for c in discovery.candidates] == ["keep/a.txt"]
    assert [(s.path, s.reason) for s in discovery.skipped] == [("generated", SkipReason.EXCLUDED)]


def test_paths_with_control_characters_are_skipped_with_their_reason(tmp_path: Path) -> None:
    make_tree(tmp_path, {"new\nline.py": "x = 1\n", "tab\tdir/a.py": "y = 2\n", "ok.py": "z = 3\n"})
    assert visible(tmp_path) == ["ok.py"]
    reasons = skipped(tmp_path)
    assert reasons["new\nline.py"] is SkipReason.UNSAFE_NAME
    assert reasons["tab\tdir"] is SkipReason.UNSAFE_NAME
