"""The ragls command line, run as a real process (the README's main job)."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gitrepo import git
from tests.ingest.trees import make_tree


def ragls(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = None if cache is None else {**os.environ, "RAGLS_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "ragls", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )


def sample(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path,
        {
            "b/payments.py": "def charge_card(amount):\n    return gateway.charge(amount)\n",
            "a/README.md": "# Billing\n\nCards are charged through the gateway.\n",
            ".gitignore": "*.log\n",
            "debug.log": "noise",
            ".env": "TOKEN=1",
        },
    )


def test_files_lists_sorted_posix_paths_only(tmp_path: Path) -> None:
    result = ragls("files", str(sample(tmp_path)))
    assert result.returncode == 0
    assert result.stdout == "a/README.md\nb/payments.py\n"


def test_files_lists_what_an_index_run_ingests(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "src/app.py": "def main():\n    return 1\n",
            "locale/app.mo": b"\xde\x12\x04\x95\x00\x00\x00\x00",  # binary content
            "logo.png": b"\x89PNG\r\n\x1a\n",  # binary by name
            "broken.ipynb": '{"cells": [}',  # fails to extract
        },
    )
    listed = ragls("files", str(root))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "src/app.py\n"
    indexed = ragls("index", str(root), "--no-cache").stderr
    assert re.search(r"^files +1$", indexed, re.MULTILINE), indexed


def test_never_indexed_names_match_whole_path_components_in_any_case(tmp_path: Path) -> None:
    # As the README says under "What gets indexed".
    files = {"src/vendor/lib.go": "package lib\n", "src/Vendor/up.go": "package up\n"}
    files |= {"src/vendored/lib.go": "package lib\n", "vendor.go": "package main\n"}
    root = make_tree(tmp_path, files)
    assert ragls("files", str(root)).stdout == "src/vendored/lib.go\nvendor.go\n"


def test_search_prints_ranked_results_with_file_and_line(tmp_path: Path) -> None:
    result = ragls("search", str(sample(tmp_path)), "charge the card", "-k", "2")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith(" 1. b/payments.py:1-2  function charge_card")


def test_search_json(tmp_path: Path) -> None:
    result = ragls("search", str(sample(tmp_path)), "gateway", "--json")
    answer = json.loads(result.stdout)
    payload = answer["results"]
    assert [item["rank"] for item in payload] == list(range(1, len(payload) + 1))
    assert {item["metadata"]["file"] for item in payload} == {"a/README.md", "b/payments.py"}
    assert answer["generation"] >= 1 and answer["stale"] is False and answer["warnings"] == []


def test_context_prints_the_fence(tmp_path: Path) -> None:
    result = ragls("context", str(sample(tmp_path)), "How are cards charged?")
    assert result.stdout.startswith("<tnsai-memory>\n<evidence>\n")
    assert result.stdout.endswith(
        "<tnsai-user-message>\nHow are cards charged?\n</tnsai-user-message>\n"
    )


def test_index_prints_a_summary_on_stderr(tmp_path: Path) -> None:
    result = ragls("index", str(sample(tmp_path)))
    assert result.returncode == 0
    assert result.stdout == ""
    assert "files   " in result.stderr and "skipped: secret" in result.stderr


def test_errors_name_the_problem_and_exit_2(tmp_path: Path) -> None:
    result = ragls("search", str(tmp_path / "nope"), "q")
    assert result.returncode == 2
    assert "does not exist" in result.stderr
    result = ragls("search", str(sample(tmp_path)), "q", "-k", "0")
    assert result.returncode == 2
    assert "top_k" in result.stderr


def test_search_json_uses_the_wire_names_and_numbers(tmp_path: Path) -> None:
    result = ragls("search", str(sample(tmp_path)), "charge card", "--json", "-k", "1")
    [item] = json.loads(result.stdout)["results"]
    assert item["metadata"]["file"] == "b/payments.py"
    assert (item["metadata"]["startLine"], item["metadata"]["endLine"]) == (1, 2)
    assert "start_line" not in item["metadata"]


def test_batch_queries_index_once_and_answer_each_line(tmp_path: Path) -> None:
    root = sample(tmp_path / "tree")
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        '{"id": 1, "query": "charge card"}\n'
        "\n"
        '{"id": "two", "query": "gateway", "topK": 1}\n'
        '{"id": 3, "query": 5}\n'
        "not json\n"
        '{"id": 4, "query": "cards", "topK": 0}\n'
    )
    result = ragls("search", str(root), "--queries", str(queries))
    assert result.returncode == 1  # some lines were invalid, the others answered
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [answer["id"] for answer in answers] == [1, "two", 3, None, 4]
    assert answers[0]["results"][0]["metadata"]["file"] == "b/payments.py"
    assert answers[0]["results"][0]["metadata"]["startLine"] == 1
    assert len(answers[1]["results"]) == 1
    assert answers[2] == {"id": 3, "line": 4, "error": "query must be a string, got int"}
    assert answers[3]["line"] == 5 and answers[3]["error"].startswith("not JSON")
    assert "topK must be between 1 and 100" in answers[4]["error"]
    assert result.stderr.count("indexed ") == 1
    assert "answered 5/5 queries" in result.stderr


def test_search_needs_a_query_or_a_queries_file(tmp_path: Path) -> None:
    result = ragls("search", str(sample(tmp_path)))
    assert result.returncode == 2
    assert "QUERY or --queries" in result.stderr


def commit(repository: Path, files: dict[str, str], message: str) -> None:
    make_tree(repository, files, old=False)
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", message)


def history(tmp_path: Path) -> Path:
    repository = tmp_path / "repo"
    repository.mkdir()
    git(repository, "init", "-q")
    commit(
        repository,
        {
            "src/billing.py": "def charge_card(amount):\n    return gateway.charge(amount)\n",
            "src/shipping.py": "def label_parcel(parcel):\n    return printer.label(parcel)\n",
            "src/auth.py": "def verify_password(user, password):\n    return hash(password)\n",
            "README.md": "# Shop\n",
        },
        "Initial shop",
    )
    commit(
        repository,
        {"src/billing.py": "def charge_card(amount):\n    return gateway.charge(amount, 'eur')\n"},
        "Charge cards in euros\n\nThe gateway needs a currency (#12).\n\n"
        "Signed-off-by: Dev <dev@example.com>",
    )
    commit(
        repository,
        {
            "src/shipping.py": "def label_parcel(parcel):\n"
            "    return printer.label(parcel, big=True)\n"
        },
        "Print bigger parcel labels",
    )
    commit(repository, {"README.md": "# Shop\n\nA shop.\n"}, "Describe the shop")  # no source
    commit(
        repository,
        {"src/auth.py": "def verify_password(user, password):\n    return hash(password) \n"},
        "Fix typo in password check",  # a typo commit: skipped
    )
    commit(repository, {"src/new.py": "x = 1\n"}, "Add a new module")  # adds a file: skipped
    return repository


def test_eval_measures_pipelines_on_the_commit_history(tmp_path: Path) -> None:
    repository = history(tmp_path)
    report_path = tmp_path / "report.json"
    result = ragls(
        "eval",
        str(repository),
        "--window",
        "5",
        "--pipeline",
        "seed",
        "--pipeline",
        "workspace",
        "--json",
        str(report_path),
    )
    assert result.returncode == 0, result.stderr
    assert "| workspace |" in result.stdout and "| seed |" in result.stdout
    report = json.loads(report_path.read_text())
    assert report["queryCount"] == 2
    subjects = {query["subject"]: query["answers"] for query in report["queries"]}
    assert subjects == {
        "Print bigger parcel labels": ["src/shipping.py"],
        "Charge cards in euros": ["src/billing.py"],
    }
    workspace = report["pipelines"]["workspace"]
    assert workspace["mrr@10"]["mean"] == 1.0  # both found first
    assert workspace["mrr@10"]["low"] <= workspace["mrr@10"]["mean"] <= workspace["mrr@10"]["high"]
    assert set(workspace) >= {"recall@1", "recall@5", "recall@10", "ndcg@10"}
    # The base is the parent of the oldest commit of the window: the first commit's tree.
    assert report["base"] != report["rev"]
    # The work tree was not touched.
    assert "'eur'" in (repository / "src" / "billing.py").read_text()
    # Issue references and trailers are not part of the query.
    [euros] = [q for q in report["queries"] if q["subject"] == "Charge cards in euros"]
    assert euros["query"] == "Charge cards in euros The gateway needs a currency ."


def test_eval_of_a_folder_that_is_not_a_repository_is_an_error(tmp_path: Path) -> None:
    result = ragls("eval", str(tmp_path))
    assert result.returncode == 2
    assert "git" in result.stderr and str(tmp_path) in result.stderr


def test_explain_names_the_rule_that_refuses_a_path(tmp_path: Path) -> None:
    root = sample(tmp_path)
    (root / "report.pl").write_text("print 1;\n")
    result = ragls("explain", str(root), "b/payments.py", "report.pl", "debug.log", ".env")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "b/payments.py: would be indexed (code), chunked by symbols: python grammar",
        "report.pl: would be indexed (code), chunked as line windows: no grammar for perl",
        "debug.log: not indexed, ignored: .gitignore:1: *.log",
        ".env: not indexed, secret: a secret file name, never indexed",
    ]


def test_explain_names_the_never_indexed_directory_above_a_path(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "node_modules/dep/index.js": "module.exports = 1\n",
            "vendor/lib/a.go": "package lib\n",
            ".git/config": "[core]\n",
            "web/node_modules/dep/b.js": "x = 1\n",
            "build/out.js": "x = 1\n",
        },
    )
    paths = ["node_modules/dep/index.js", "vendor/lib/a.go", ".git/config"]
    paths += ["web/node_modules/dep/b.js", "build/out.js"]
    lines = ragls("explain", str(root), *paths).stdout.splitlines()
    assert lines == [
        "node_modules/dep/index.js: not indexed, default-skip: "
        "a default-skipped directory or name (at node_modules)",
        "vendor/lib/a.go: not indexed, default-skip: "
        "a default-skipped directory or name (at vendor)",
        ".git/config: not indexed, default-skip: a default-skipped directory or name (at .git)",
        "web/node_modules/dep/b.js: not indexed, default-skip: "
        "a default-skipped directory or name (at web/node_modules)",
        "build/out.js: not indexed, default-skip: a default-skipped directory or name (at build)",
    ]


def test_explain_and_index_agree_on_a_file_that_fails_to_extract(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path,
        {
            "broken.ipynb": '{"cells": [}',
            "ok.ipynb": '{"cells": [{"cell_type": "code", "source": ["print(1)"]}]}',
        },
    )
    explained = ragls("explain", str(root), "broken.ipynb", "ok.ipynb").stdout.splitlines()
    indexed = ragls("index", str(root), "-v", "--no-cache")
    assert "skipped extract-failed: broken.ipynb (notebook is not valid JSON" in indexed.stderr
    assert explained[0].startswith(
        "broken.ipynb: not indexed, extract-failed: notebook is not valid JSON"
    )
    assert explained[1] == "ok.ipynb: would be indexed (notebook)"


def test_methods_of_a_decorated_class_carry_the_class_name_once(tmp_path: Path) -> None:
    methods = "".join(
        f"    def lookup_{n}(self, key):\n        entry = self.entries.get(key)\n"
        f"        return entry\n\n"
        for n in range(20)
    )  # over 60 lines: the class is cut into its methods
    header = "import dataclasses\n\n\n@dataclasses.dataclass\nclass Cache:\n    entries: dict\n\n"
    source = header + methods
    root = make_tree(tmp_path, {"cache.py": source})
    result = ragls("search", str(root), "lookup entry key", "--json", "-k", "10", "--no-cache")
    found = {item["metadata"].get("symbol") for item in json.loads(result.stdout)["results"]}
    assert any(str(symbol).startswith("Cache.lookup_") for symbol in found), found
    assert not any(str(symbol).startswith("Cache.Cache") for symbol in found), found


def test_previous_chunks_are_said_to_be_kept_only_when_there_were_some(tmp_path: Path) -> None:
    good = '{"cells": [{"cell_type": "code", "source": ["print(1)"]}]}'
    root = make_tree(tmp_path / "tree", {"a.ipynb": good, "b.ipynb": '{"cells": [}'})
    cache = tmp_path / "cache"
    first = ragls("index", str(root), "-v", cache=cache).stderr
    assert "error: b.ipynb: notebook is not valid JSON" in first, first
    assert "previous chunks kept" not in first, first
    (root / "a.ipynb").write_text('{"cells": [}')
    again = ragls("index", str(root), "-v", cache=cache).stderr
    assert re.search(r"error: a\.ipynb: notebook is not valid JSON.*; previous chunks kept", again)
    assert not re.search(r"error: b\.ipynb: .*previous chunks kept", again), again


def test_a_repeated_search_starts_from_the_stored_index(tmp_path: Path) -> None:
    root, cache = sample(tmp_path / "tree"), tmp_path / "cache"
    first = ragls("search", str(root), "charge card", "--json", cache=cache)
    assert first.returncode == 0, first.stderr
    again = ragls("search", str(root), "charge card", cache=cache)
    assert "from the stored index; 0 files re-read" in again.stderr
    (root / "b" / "refunds.py").write_text("def refund_card(amount):\n    return amount\n")
    edited = ragls("search", str(root), "refund card", "--json", cache=cache)
    assert json.loads(edited.stdout)["results"][0]["metadata"]["file"] == "b/refunds.py"
    assert json.loads(edited.stdout)["generation"] > json.loads(first.stdout)["generation"]
    cold = ragls("search", str(root), "charge card", "--no-cache", cache=cache)
    assert "stored index" not in cold.stderr


def test_cache_list_and_clean(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    kept, gone = sample(tmp_path / "kept"), sample(tmp_path / "gone")
    for root in (kept, gone):
        assert ragls("index", str(root), cache=cache).returncode == 0
    listed = json.loads(ragls("cache", "list", "--json", cache=cache).stdout)
    assert {entry["root"] for entry in listed} == {str(kept.resolve()), str(gone.resolve())}
    assert all(entry["bytesOnDisk"] > 0 and entry["generation"] >= 1 for entry in listed)
    shutil.rmtree(gone)
    text = ragls("cache", "list", cache=cache).stdout
    assert f"{gone.resolve()}  (workspace gone)" in text
    cleaned = ragls("cache", "clean", cache=cache)
    assert cleaned.returncode == 0 and f"removed {gone.resolve()}" in cleaned.stdout
    listed = json.loads(ragls("cache", "list", "--json", cache=cache).stdout)
    assert [entry["root"] for entry in listed] == [str(kept.resolve())]
    assert ragls("cache", "clean", str(kept), cache=cache).returncode == 0
    assert json.loads(ragls("cache", "list", "--json", cache=cache).stdout) == []
    missing = ragls("cache", "clean", str(kept), cache=cache)
    assert missing.returncode == 2 and "no cached index" in missing.stderr


def test_odd_names_stay_one_line_and_say_why(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"new\nline.py": "x = 1\n", "ok.py": "y = 2\n"})
    assert ragls("files", str(root)).stdout == "ok.py\n"
    explained = ragls("explain", str(root), "new\nline.py").stdout
    assert (
        explained == '"new\\nline.py": not indexed, unsafe-name: a control character '
        "(newline, tab, escape) in its name\n"
    )


def test_secrets_never_reach_the_output(tmp_path: Path) -> None:
    key = "AKIA" + "Q3EGRZ7XJ2NDB5LW"
    root = make_tree(
        tmp_path,
        {
            "deploy.py": f'AWS_ACCESS_KEY_ID = "{key}"\nREGION = "eu-west-1"\n',
            "server.pem": "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n",
            "credentials.json": '{"token": "abc"}',
        },
    )
    for command in ("search", "context"):
        result = ragls(command, str(root), "aws access key region private key token")
        assert result.returncode == 0, result.stderr
        assert key not in result.stdout and "MIIEvQ" not in result.stdout
        assert "abc" not in result.stdout
    assert "redacted:aws-access-key" in ragls("context", str(root), "aws access key").stdout
    summary = ragls("index", str(root)).stderr
    assert re.search(r"^redacted: aws-access-key +1$", summary, re.MULTILINE), summary


def crowded_corpus(root: Path) -> Path:
    """Sixty modules full of token, validator, referer and origin code, and one middleware whose
    comment holds a word found nowhere else and whose constant is an error message."""
    words = (
        "token validator check origin referer trusted request session cookie middleware "
        "secret header value failed match reason reject"
    ).split()
    files: dict[str, str] = {}
    for module in range(60):
        lines = [f'"""Helpers for {words[module % 17]} handling."""', ""]
        for index in range(8):
            a, b, c = (words[(module * 7 + index * 3 + k) % 17] for k in range(3))
            lines += [
                f"def {a}_{b}_{module}_{index}(request, token):",
                f"    # validate the {c} token against the trusted {a}",
                *(f"    {b}_{k} = request.{c}.get('{a}') or token" for k in range(6)),
                f"    if not {b}_1: raise ValueError('{c} check failed')",
                "    return token",
                "",
            ]
        files[f"mod{module}.py"] = "\n".join(lines)
    body = ["class CsrfViewMiddleware:"]
    for step in range(40):
        body += [
            f"    def step_{step}(self, request, token):",
            f"        # token validator step {step}: check the referer and origin of the request",
            *(["        # flibbertigibbet token validator"] if step == 23 else []),
            f"        return self.check_token(request, token, {step})",
        ]
    body += [
        "",
        'REASON_BAD_REFERER = "Referer checking failed - %s does not match any trusted origins."',
    ]
    files["csrf.py"] = "\n".join(body) + "\n"
    return make_tree(root, files)


def ranked_ids(root: Path, query: str, cache: Path) -> list[str]:
    result = ragls("search", str(root), query, "-k", "5", "--json", cache=cache)
    assert result.returncode == 0, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)["results"]]


def test_a_word_found_nowhere_else_brings_its_chunk_first(tmp_path: Path) -> None:
    root = crowded_corpus(tmp_path / "corpus")
    found = ranked_ids(root, "flibbertigibbet token validator", tmp_path / "cache")
    assert found[0] == "csrf.py:71-74"
    code_only = ragls(
        "search",
        str(root),
        "flibbertigibbet token validator",
        "--json",
        "--pipeline",
        "code",
        cache=tmp_path / "cache",
    )
    assert json.loads(code_only.stdout)["results"][0]["id"] != "csrf.py:71-74"  # what it fixes


def test_a_pasted_error_message_finds_the_line_that_prints_it(tmp_path: Path) -> None:
    root = crowded_corpus(tmp_path / "corpus")
    query = "Referer checking failed does not match any trusted origins"
    assert "csrf.py:120-124" in ranked_ids(root, query, tmp_path / "cache")[:3]


def test_a_quoted_string_finds_the_chunk_that_says_it_verbatim(tmp_path: Path) -> None:
    """Every word of the quoted message fills the crowded corpus; one chunk, long and about
    something else, says the message: it comes first (the streams alone rank it far down)."""
    root = crowded_corpus(tmp_path / "corpus")
    lines = ["def load_settings(request, token):"]
    lines += [f"    setting_{n} = request.settings.get('value_{n}')" for n in range(30)]
    lines += ['    log("the trusted origin failed to match the session header")']
    lines += ["    return token"]
    (root / "settings.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    query = 'why do I see "the trusted origin failed to match the session header"'
    assert ranked_ids(root, query, tmp_path / "cache")[0].startswith("settings.py:")


def test_the_demo_question_finds_the_fusion_module(tmp_path: Path) -> None:
    """`make demo`'s own question, on this repository: the module that fuses the streams is
    among the five results `make demo` prints. (The repository changes with every commit, and
    the few chunks that discuss searching and streams score within a few per cent of each
    other, so the test asks for the first page, not a fixed place on it.)"""
    repository = Path(__file__).resolve().parents[1]
    query = "how are search results fused from several streams"
    result = ragls("search", str(repository), query, "--json", "--no-cache")
    assert result.returncode == 0, result.stderr
    files = [hit["metadata"]["file"] for hit in json.loads(result.stdout)["results"]]
    assert len(files) == 5, files
    assert "server/ragls/core/fusion.py" in files, files


def test_a_pasted_issue_with_a_traceback_finds_the_frames_code(tmp_path: Path) -> None:
    files = {
        f"shop/helpers{n}.py": "".join(
            f"def order_{n}_{k}(order):\n    # save the order total and the order lines\n"
            f"    return order.save(total=order.total)\n\n"
            for k in range(12)
        )
        for n in range(30)
    }
    files["shop/app/views.py"] = (
        "def checkout(request):\n    order = build(request)\n    save_order(order)\n"
    )
    files["shop/app/models.py"] = (
        "def save_order(order):\n    if order.total <= 0:\n"
        "        raise ValueError('order total must be positive')\n    order.save()\n"
    )
    root = make_tree(tmp_path / "repo", files)
    prose = (
        "When I check out an order with a coupon the order is not saved and I get an error. " * 200
    )
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/home/dev/repo/shop/app/views.py", line 3, in checkout\n    save_order(order)\n'
        '  File "/home/dev/repo/shop/app/models.py", line 3, in save_order\n'
        "    raise ValueError('order total must be positive')\n"
        "ValueError: order total must be positive\n"
    )
    query = prose + "\n" + trace + prose
    assert 20_000 < len(query) < 65_536
    found = ranked_ids(root, query, tmp_path / "cache")
    assert {"shop/app/models.py:1-4", "shop/app/views.py:1-3"} <= set(found[:2]), found


def test_a_panic_brings_the_chunk_at_its_line_first(tmp_path: Path) -> None:
    """A frame names a file and a line, and no function (Rust, Go, C): the chunk holding the
    line comes first, above the chunk whose words the message repeats."""

    def method(name: str) -> str:
        steps = "".join(f"        let step_{k} = self.start + {k};\n" for k in range(8))
        return f"    pub fn {name}(&mut self) -> usize {{\n{steps}        self.start\n    }}\n\n"

    get = (
        "    /// The byte at `index`; checks the index against len, so an index out of\n"
        "    /// bounds gives None instead of a panic.\n"
        "    pub fn get(&self, index: usize) -> Option<u8> {\n"
        "        if index >= self.len {\n            return None;\n        }\n"
        "        Some(self.data[index])\n    }\n\n"
    )
    source = (
        "pub struct Buffer {\n    data: Vec<u8>,\n    len: usize,\n    start: usize,\n}\n\n"
        "impl Buffer {\n"
        + method("new")
        + method("push")
        + get
        + method("compact")
        + method("drain")
        + method("clear")
        + "}\n"
    )
    root = make_tree(tmp_path / "repo", {"src/buffer.rs": source})
    start = source.splitlines().index("    pub fn compact(&mut self) -> usize {") + 1
    panic = (
        f"thread 'main' panicked at src/buffer.rs:{start + 3}:9:\n"
        "index out of bounds: the len is 3 but the index is 5\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
    )
    found = ranked_ids(root, panic, tmp_path / "cache")
    assert found[0] == f"src/buffer.rs:{start}-{start + 10}", found


def test_queries_up_to_64_kib_are_answered_and_longer_ones_refused(tmp_path: Path) -> None:
    root = sample(tmp_path / "repo")
    accepted = ragls("search", str(root), "charge " * 9_000, "--json", cache=tmp_path / "cache")
    assert accepted.returncode == 0, accepted.stderr
    assert json.loads(accepted.stdout)["results"][0]["id"].startswith("b/payments.py")
    refused = ragls("search", str(root), "x" * 70_000, cache=tmp_path / "cache")
    assert refused.returncode == 2 and "the maximum is 65536" in refused.stderr


def test_eval_scores_a_question_set_by_category_and_language(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "repo",
        {
            "src/payments.py": "def charge_card(amount):\n    return gateway.charge(amount)\n",
            "src/refunds.py": "def refund_order(order):\n    return ledger.credit(order)\n",
            "tests/test_payments.py": "def test_charge_card():\n    assert charge_card(1)\n",
        },
    )
    questions = tmp_path / "questions.jsonl"
    lines = [
        {
            "id": "q1",
            "query": "where is charge_card",
            "category": "symbol",
            "language": "python",
            "answers": [{"file": "src/payments.py", "startLine": 1, "endLine": 2}],
        },
        {
            "id": "q2",
            "query": "how is money given back for an order",
            "category": "behaviour",
            "language": "python",
            "answers": [{"file": "src/refunds.py"}],
        },
    ]
    questions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "report.json"
    result = ragls(
        "eval",
        str(root),
        "--questions",
        str(questions),
        "--pipeline",
        "code",
        "--pipeline",
        "workspace",
        "--json",
        str(out),
        cache=tmp_path / "cache",
    )
    assert result.returncode == 0, result.stderr
    assert "| symbol | 1 |" in result.stdout and "| lang:python | 2 |" in result.stdout
    report = json.loads(out.read_text())
    first = report["questions"][0]["results"]["workspace"]
    assert first["files"][0] == "src/payments.py" and first["ndcg@10"] == 1.0
    assert first["chunk-ndcg@10"] == 1.0
    assert set(report["groups"]["all"]["pipelines"]) == {"code", "workspace"}


def test_eval_names_the_line_and_field_of_a_bad_question(tmp_path: Path) -> None:
    root = sample(tmp_path / "repo")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        '{"id": "a", "query": "q", "category": "symbol", "answers": [{"file": "x"}]}\n'
        '{"id": "b", "query": "q", "category": "vibes", "answers": []}\n'
    )
    result = ragls("eval", str(root), "--questions", str(questions), cache=tmp_path / "cache")
    assert result.returncode == 2
    assert (
        f"{questions}:2: category must be one of symbol, behaviour, architecture" in result.stderr
    )


def test_the_semantic_pipeline_answers_by_meaning_from_the_first_search(tmp_path: Path) -> None:
    root = make_tree(
        tmp_path / "tree",
        {
            "media/images.py": "def resize_image(picture, width, height):\n"
            "    return picture.scale(width, height)\n",
            "mail/outbox.py": "def send_email(recipient, subject, body):\n"
            "    smtp.deliver(recipient, subject, body)\n",
        },
    )
    question = "how do I make a photo smaller?"
    cache = tmp_path / "cache"
    for _ in range(2):  # the first run embeds every chunk, the second loads the vectors
        found = ragls(
            "search", str(root), question, "--pipeline", "workspace-semantic", "--json", cache=cache
        )
        assert found.returncode == 0, found.stderr
        answer = json.loads(found.stdout)
        assert answer["results"][0]["metadata"]["file"] == "media/images.py"
    lexical = ragls("search", str(root), question, "--no-cache", "--json")
    assert "media/images.py" not in lexical.stdout


def files_re_read(stderr: str) -> int:
    found = re.search(r"from the stored index; (\d+) files re-read", stderr)
    assert found is not None, stderr
    return int(found.group(1))


def test_files_touched_without_a_change_are_read_once_and_not_again(tmp_path: Path) -> None:
    files = {f"pkg/mod_{i}.py": f"def helper_{i}(value):\n    return value\n" for i in range(6)}
    root, cache = make_tree(tmp_path / "tree", files), tmp_path / "cache"
    assert ragls("index", str(root), cache=cache).returncode == 0
    for path in root.rglob("*.py"):  # a new mtime, well in the past (not racy), same content
        older = path.stat().st_mtime_ns - 100 * 10**9
        os.utime(path, ns=(older, older))
    first = ragls("search", str(root), "helper value", cache=cache)
    assert files_re_read(first.stderr) == 6
    for _ in range(2):
        again = ragls("search", str(root), "helper value", cache=cache)
        assert files_re_read(again.stderr) == 0


def test_index_says_its_generation_is_stored_once_it_is(tmp_path: Path) -> None:
    root, cache = sample(tmp_path / "tree"), tmp_path / "cache"
    summary = ragls("index", str(root), cache=cache).stderr
    assert re.search(r"^cache +saved: ", summary, re.MULTILINE), summary
    assert "no generation is stored yet" not in summary, summary
    listed = json.loads(ragls("cache", "list", "--json", "--cache-dir", str(cache)).stdout)
    assert [entry["generation"] for entry in listed] == [1]


def test_another_pipeline_starts_from_the_stored_chunks(tmp_path: Path) -> None:
    root, cache = sample(tmp_path / "tree"), tmp_path / "cache"
    assert ragls("index", str(root), cache=cache).returncode == 0
    seed = ragls("search", str(root), "charge card", "--pipeline", "seed", cache=cache)
    assert files_re_read(seed.stderr) == 0
    assert " 1. b/payments.py:1-2" in seed.stdout, seed.stdout
    back = ragls("search", str(root), "charge card", cache=cache)
    assert files_re_read(back.stderr) == 0
    assert " 1. b/payments.py:1-2" in back.stdout, back.stdout


def ragls_with_progress(*args: str, seconds: str = "0") -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "RAGLS_PROGRESS_SECONDS": seconds}
    return subprocess.run(
        [sys.executable, "-m", "ragls", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )


def progress_tree(root: Path) -> Path:
    return make_tree(root, {f"pkg/mod_{i}.py": f"def helper_{i}():\n    pass\n" for i in range(8)})


def test_index_prints_plain_progress_lines_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    root = progress_tree(tmp_path / "tree")
    result = ragls_with_progress("index", str(root), "--no-cache")
    assert result.returncode == 0, result.stderr
    done = re.findall(r"^ragls: indexing (\d+)/8 files", result.stderr, re.MULTILINE)
    assert done == [str(n) for n in range(1, 9)], result.stderr
    assert re.search(r"^ragls: indexing 8/8 files, \d+ files/s, about 0s left", result.stderr, re.M)
    assert re.search(r"^ragls: indexed 8/8 files in \d+s$", result.stderr, re.MULTILINE)
    assert "\r" not in result.stderr and result.stdout == ""


def test_a_short_run_and_json_output_print_no_progress(tmp_path: Path) -> None:
    root = progress_tree(tmp_path / "tree")
    quick = ragls_with_progress("index", str(root), "--no-cache", seconds="10")
    assert "ragls: indexing" not in quick.stderr, quick.stderr
    answer = ragls_with_progress("search", str(root), "helper", "--json", "--no-cache")
    assert "ragls: indexing" not in answer.stderr, answer.stderr
    assert json.loads(answer.stdout)["results"]


def test_index_shows_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    pty = pytest.importorskip("pty")
    root = progress_tree(tmp_path / "tree")
    leader, follower = pty.openpty()
    termios = pytest.importorskip("termios")
    fcntl = pytest.importorskip("fcntl")
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    environment = {**os.environ, "RAGLS_PROGRESS_SECONDS": "0"}
    process = subprocess.Popen(
        [sys.executable, "-m", "ragls", "index", str(root), "--no-cache"],
        stdout=subprocess.PIPE,
        stderr=follower,
        env=environment,
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert process.wait(timeout=120) == 0
    assert process.stdout is not None and process.stdout.read() == b""
    text = shown.decode(errors="replace")
    assert re.search(r"\d/8 \[", text) and "file/s" in text, text  # done/total, rate
    assert "\r" in text and "ragls: indexing" not in text, text
    assert re.search(r"^files +8", text.replace("\r", "\n"), re.MULTILINE), text


def test_names_and_text_from_the_repository_cannot_drive_the_terminal(tmp_path: Path) -> None:
    """A file name or a line of code holding an escape sequence is shown escaped: a cloned
    repository could erase ragls's "skipped" line and print its own in its place."""
    root = make_tree(
        tmp_path / "repo",
        {"a.py": "def pelican():\n    return '\x1b[2J\x1b[32mall good\x1b[0m'\n"},
    )
    (root / "x\x1b[2K\r\x1b[32mall good.py").write_text("print(1)\n")
    indexed = ragls("index", str(root), "-v", cache=tmp_path / "cache")
    assert indexed.returncode == 0, indexed.stderr
    assert "unsafe-name: x\\x1b[2K\\r\\x1b[32mall good.py" in indexed.stderr
    found = ragls("search", str(root), "pelican", cache=tmp_path / "cache")
    assert "all good" in found.stdout  # the text's escapes are gone (normalised when read)
    for output in (indexed.stdout, indexed.stderr, found.stdout, found.stderr):
        assert "\x1b" not in output and "\r" not in output
