"""The ranking layer: each rule moves the chunk it is about, and nothing else (SPEC §10)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ragls.core.documents import Document
from ragls.core.fusion import HybridRetriever
from ragls.core.ranking.layer import (
    Candidate,
    RankingLayer,
    RankingProfile,
    RankingWeights,
    conflate,
    stem_words,
)
from ragls.core.ranking.rules import FAMILIES, FRAME_PATTERNS, ROLES
from ragls.core.ranking.shape import CHANGE, MESSAGE, QUESTION, QueryShape
from ragls.service.pipelines import WORKSPACE_RANKING


def chunk(file: str, text: str = "body", symbol: str = "", kind: str = "") -> Document:
    metadata = {"file": file, "start_line": "1", "end_line": "9"}
    if symbol:
        metadata |= {"symbol": symbol, "kind": kind or "function"}
    return Document(f"{file}:{symbol or text}", text, metadata)


def ranked(weights: RankingWeights, query: str, *documents: Document, **layer: object) -> list[str]:
    """Ids in the layer's order, for candidates given best first with equal-ish scores."""
    candidates = [Candidate(d, 1.0 - 0.001 * i, i) for i, d in enumerate(documents)]
    result = RankingLayer(RankingProfile.uniform(weights), **layer).rerank(query, candidates)  # type: ignore[arg-type]
    return [c.document.id for _, c in result]


ROLES_ONLY = RankingWeights(roles=2.0)


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("tests/client/test_auth.py", "test"),
        ("src/reader_test.go", "test"),
        ("src/route/index.test.ts", "test"),
        ("Tests/ServerTrustTests.swift", "test"),
        ("src/Serilog.Tests/LoggerTests.cs", "test"),
        ("spec/models/user_spec.rb", "test"),
        ("test/fixtures/ssl/key.json", "fixture"),
        ("examples/basic/main.kt", "example"),
        ("watchOS Example/ExtensionDelegate.swift", "example"),
        ("benches/parse.rs", "benchmark"),
        ("api/v1/service.pb.go", "generated"),
        ("third_party/zlib/inflate.c", "vendored"),
        ("App.xcodeproj/project.pbxproj", "metadata"),
        ("docs/guide/intro.md", "docs"),
        ("CHANGELOG.md", "docs"),
        ("packages/docs/components/ecosystem.tsx", "docs-code"),
        ("core/koin-core/src/commonTest/kotlin/org/koin/Simple.kt", "test"),
        ("app/src/androidUnitTest/kotlin/ViewModels.kt", "test"),
        ("base/strings/string_util_unittest.cc", "test"),
        ("chrome/browser/ui/views/frame_browsertest.cc", "test"),
        ("t/01-basic.t", "test"),
        ("integration/cli.bats", "test"),
        ("apps/ssl/ssl_basic_SUITE.erl", "test"),
        ("features/post_data.feature", "test"),
        ("features/step_definitions/site_steps.rb", "test"),
        ("Source/Features/RequestCompression.swift", None),
        ("lib/jekyll/features.rb", None),
        ("AppTests/Helpers/StubServer.swift", "test"),
        ("AppUITests/LoginUITests.swift", "test"),
        ("internal/testutil/server.go", "test"),
        ("spec/support/helpers.rb", "test"),
        ("src/components/Button.stories.tsx", "example"),
        ("caddytest/integration/caddyfile_adapt/proxy.caddyfiletest", "test"),
        ("net/http/httptest/server.go", "test"),
        ("src/Snippets/Docs/Retry.cs", "example"),
        ("docs/media/cheat-sheet.pdf", "docs"),
        ("docs/latest/config.py", "docs-code"),
        ("pkg/attest/sign.go", None),
        ("src/contest/list.ts", None),
        ("Sources/LoginUI/LoginUI.swift", None),
        ("src/contests/list.ts", None),
        ("lib/attestation/verify.go", None),
        ("src/latest/handler.py", None),
        ("lib/unit/converter.rb", None),
        ("src/contest.py", None),
        ("lib/spectrum.rb", None),
        ("example_dart/lib/download.dart", "example"),
        ("example_flutter_app/windows/runner/main.cpp", "example"),
        ("src/counterexamples/search.py", None),
        ("man/bats.7.ronn", "docs"),
        ("src/core/lwt.mli", "interface"),
        ("typeshed/stdlib/os.pyi", "interface"),
        ("index.d.ts", "interface"),
        ("src/Data/Map.hs-boot", "interface"),
        ("include/uv.h", None),
        ("src/core/lwt.ml", None),
        ("deps/jemalloc/src/arena.c", "vendored"),
        ("include/spdlog/fmt/bundled/format.h", "vendored"),
        ("src/pip/_vendor/requests/api.py", "vendored"),
        ("Lib/ensurepip/_bundled/README.txt", "vendored"),
        ("src/bundler/index.ts", None),
        ("src/deps.c", None),
        ("sphinx/locale/ur/LC_MESSAGES/sphinx.po", "translation"),
        ("po/messages.pot", "translation"),
        ("src/locales/en/common.json", "translation"),
        ("lib/l10n/app_fr.arb", "translation"),
        ("src/Illuminate/Translation/MessageSelector.php", None),
        ("src/i18n/format.ts", None),
        ("jq.1.prebuilt", "docs"),
        ("docs/manual.mld", "docs"),
        ("koin-core/api/koin-core.api", "generated"),
        ("priv/static/phoenix.cjs.js", "generated"),
        ("lib/phoenix/static.ex", None),
        ("coil-core/api/coil-core.klib.api", "generated"),
        ("src/api/user.api", None),
        (".github/workflows/ci.yml", "ci"),
        (".golangci.yaml", "ci"),
        ("src/ci/runner.go", None),
    ],
)
def test_each_path_gets_its_role(path: str, role: str | None) -> None:
    found = next((r.name for r in ROLES if r.path.search(path)), None)
    assert found == role


def test_a_test_file_ranks_below_the_source_it_tests() -> None:
    test, source = chunk("tests/test_parser.py"), chunk("src/parser.py")
    assert ranked(ROLES_ONLY, "how is a header parsed", test, source)[0] == source.id
    assert ranked(RankingWeights(), "how is a header parsed", test, source)[0] == test.id


def test_a_query_that_asks_for_tests_gets_them() -> None:
    test, source = chunk("tests/test_parser.py"), chunk("src/parser.py")
    assert ranked(ROLES_ONLY, "which tests cover the parser", test, source)[0] == test.id


def test_a_role_the_query_asks_for_keeps_the_share_of_its_scaling_it_is_given() -> None:
    test, source = chunk("tests/test_runner.py"), chunk("src/runner.py")
    # The test chunk comes first, 0.45^2 below the source: no role is asked.
    weights = replace(ROLES_ONLY, asked_roles=0.5)
    assert ranked(weights, "how are the runners started", test, source)[0] == source.id
    # Asked for with asked_roles 0 it is not scaled at all, with 1 fully, with 0.5 by 0.45.
    unscaled = [test, source]
    assert ranked(ROLES_ONLY, "how are tests started", *unscaled)[0] == test.id
    assert (
        ranked(replace(ROLES_ONLY, asked_roles=1.0), "how are tests started", *unscaled)[0]
        == source.id
    )
    plan = RankingLayer(RankingProfile.uniform(weights)).plan(QueryShape.of("tests started"))
    assert plan.role_factors[[role.name for role in ROLES].index("test")] == pytest.approx(0.45)
    # "docs" is not ambiguous: a query asking for docs gets them unscaled.
    guide, code = chunk("docs/guide.md"), chunk("src/runner.py")
    assert ranked(weights, "how are runners started", guide, code)[0] == code.id
    assert ranked(weights, "docs on how runners are started", guide, code)[0] == guide.id


def test_a_kind_may_leave_a_role_unscaled() -> None:
    declaration, code = chunk("index.d.ts"), chunk("index.js")
    assert ranked(ROLES_ONLY, "retry options", declaration, code)[0] == code.id
    spared = replace(ROLES_ONLY, unscaled_roles=frozenset({"interface"}))
    assert ranked(spared, "retry options", declaration, code)[0] == declaration.id


def test_the_workspace_profile_scales_interfaces_for_questions_not_changes() -> None:
    interface, implementation = chunk("src/core/lwt.mli"), chunk("src/core/lwt.ml")
    question = WORKSPACE_RANKING.for_kind(QUESTION)
    assert ranked(question, "how is bind run", interface, implementation)[0] == implementation.id
    change = WORKSPACE_RANKING.for_kind(CHANGE)
    assert ranked(change, "fix bind", interface, implementation)[0] == interface.id


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("How are doc comments on a field split into short and long help?", "docs/help.md"),
        ("How are samples appended to the head block?", "examples/append.go"),
        ("Which snippet completions does the server offer?", "snippets/std.zig"),
        ("What interface does the transport implement?", "lib/transport.d.ts"),
        ("Where is the variable declared?", "lib/vars.pyi"),
        ("How are the modules bundled for the browser?", "third_party/loader.js"),
    ],
)
def test_words_that_say_what_code_does_do_not_ask_for_a_role(query: str, path: str) -> None:
    """Words the question sets showed in questions that wanted source, never the role (a
    metric's samples, a Go interface, a bundler): the role stays scaled."""
    other, source = chunk(path), chunk("src/core.c")
    assert ranked(replace(ROLES_ONLY, asked_roles=0.5), query, other, source)[0] == source.id


def test_a_docs_sites_code_is_scaled_for_questions_not_for_changes() -> None:
    site, code = chunk("docs/conf.py", "extensions = ['autodoc']"), chunk("app/config.py")
    question = WORKSPACE_RANKING.for_kind(QUESTION)
    assert ranked(question, "how is the config loaded", site, code)[0] == code.id
    change = WORKSPACE_RANKING.for_kind(CHANGE)
    assert ranked(change, "fix config loading", site, code)[0] == site.id


def test_ci_settings_rank_below_the_code_unless_the_query_asks_for_ci() -> None:
    workflow = chunk(".github/workflows/release.yml", "go build ./cmd/server")
    code = chunk("cmd/server/main.go", "func main() { build() }")
    assert ranked(ROLES_ONLY, "how is the server built", workflow, code)[0] == code.id
    assert ranked(ROLES_ONLY, "how does the ci build the server", workflow, code)[0] == (
        workflow.id
    )


def test_translation_catalogs_rank_below_the_code_that_says_their_messages() -> None:
    catalog = chunk("sphinx/locale/fr/LC_MESSAGES/sphinx.po", 'msgid "unknown builder"')
    code = chunk("sphinx/registry.py", "raise SphinxError('unknown builder')")
    assert ranked(ROLES_ONLY, "unknown builder error", catalog, code)[0] == code.id
    assert ranked(ROLES_ONLY, "the French translation of unknown builder", catalog, code)[0] == (
        catalog.id
    )


def family_counts(**chunks: int) -> np.ndarray:
    counts = np.zeros(len(FAMILIES) + 1, np.int64)
    for name, count in chunks.items():
        counts[FAMILIES.index(name)] = count
    return counts


def test_a_minority_language_ranks_below_the_corpus_language_unless_asked() -> None:
    """A Go server with a TypeScript web UI (10% of its chunks): for a question, the UI's
    chunk comes after the server's, unless the question says what asks for the UI or names
    its file."""
    page = chunk("web/ui/src/pages/AgentPage.tsx", "agent page")
    server = chunk("tsdb/agent/db.go", "agent db")
    weights = RankingWeights(minority=0.8)
    counts = family_counts(go=900, javascript=100)
    query = "how does agent mode truncate the write-ahead log"
    assert ranked(weights, query, page, server, family_counts=lambda: counts)[0] == server.id
    assert ranked(RankingWeights(), query, page, server, family_counts=lambda: counts)[0] == page.id
    assert ranked(weights, query, page, server)[0] == page.id  # no counts: the rule is off
    for asked in ("how does the agent page in the web UI load", "where is AgentPage.tsx"):
        assert ranked(weights, asked, page, server, family_counts=lambda: counts)[0] == page.id
    # At 15% of the chunks or more, a language is no minority.
    even = family_counts(go=800, javascript=200)
    assert ranked(weights, query, page, server, family_counts=lambda: even)[0] == page.id


def test_a_name_holding_a_role_word_does_not_ask_for_the_role() -> None:
    test, source = chunk("tests/plugin_spec.lua"), chunk("lua/plugin.lua")
    assert ranked(ROLES_ONLY, "Spec:normalize", test, source)[0] == source.id


def test_a_definition_of_a_named_symbol_ranks_above_its_uses() -> None:
    use = chunk("src/router.ts", "mergePath(a, b)", "Router.add", "method")
    definition = chunk("src/utils/url.ts", "export const mergePath", "mergePath", "function")
    weights = RankingWeights(definition=1.0)
    assert ranked(weights, "where is mergePath", use, definition)[0] == definition.id
    assert ranked(RankingWeights(), "where is mergePath", use, definition)[0] == use.id


def test_a_definition_matches_by_its_whole_name_or_its_last_component() -> None:
    """``Router.mergePath`` is defined where the query names ``mergePath`` (any case); a symbol
    that merely holds the name (``remergePath``) is not, and is when named whole."""
    weights = RankingWeights(definition=1.0)
    use = chunk("src/app.ts", "router.mergePath(a)", "main", "function")
    holder = chunk("src/net.ts", "function remergePath", "remergePath", "function")
    method = chunk("src/router.ts", "mergePath(a) {", "Router.mergePath", "method")
    assert ranked(weights, "where is MergePath", use, holder, method)[0] == method.id
    assert ranked(weights, "remergePath", use, method, holder)[0] == holder.id
    assert ranked(RankingWeights(), "where is MergePath", use, holder, method)[0] == use.id


def test_symbol_keys_are_numbered_for_the_symbols_a_search_meets_only() -> None:
    import numpy as np

    from ragls.core.ranking import columns

    interner = columns.Interner()
    numbers = [interner.number(f"Class{i}.method") for i in range(100)]
    asked = np.array([numbers[3], columns.NONE, numbers[7], numbers[3]], np.int64)
    keys = interner.symbol_key_numbers(asked).tolist()
    whole3, last = interner.key_number("class3.method"), interner.key_number("method")
    whole7 = interner.key_number("class7.method")
    assert keys == [[whole3, last], [-1, -1], [whole7, last], [whole3, last]]
    assert interner.symbol_keys_derived() == 2  # Class5.method, never met, is not derived
    assert len({whole3, last, keys[2][0], interner.key_number("class5.method")}) == 4


def test_word_pairs_of_a_pasted_message_find_the_line_that_prints_it() -> None:
    other = chunk("src/a.py", "referer check: origins that are trusted")
    message = chunk(
        "src/csrf.py", 'REASON = "Referer checking failed - %s does not match any trusted origins."'
    )
    query = "Referer checking failed does not match any trusted origins"
    assert QueryShape.of(query).kind == MESSAGE
    assert ranked(RankingWeights(phrase=1.0), query, other, message)[0] == message.id
    assert ranked(RankingWeights(), query, other, message)[0] == other.id


def test_a_quoted_string_found_verbatim_wins() -> None:
    other, quoted = (
        chunk("a.py", "cannot open the file"),
        chunk("b.py", "raise Err('cannot reopen a client')"),
    )
    query = 'why "cannot reopen a client"'
    assert ranked(RankingWeights(quoted=2.0), query, other, quoted)[0] == quoted.id


def test_a_word_almost_no_chunk_holds_brings_its_chunk_up() -> None:
    other = chunk("a.py", "token validator checks the token")
    rare = chunk("b.py", "# flibbertigibbet token validator")
    frequencies = {"flibbertigibbet": 1, "token": 40, "validator": 30}
    layer = {"document_frequency": lambda w: frequencies.get(w, 0), "document_count": lambda: 1000}
    query = "flibbertigibbet token validator"
    assert ranked(RankingWeights(rare=0.5), query, other, rare, **layer)[0] == rare.id
    assert ranked(RankingWeights(), query, other, rare, **layer)[0] == other.id


def test_a_file_answering_in_several_places_gains() -> None:
    lone = chunk("src/a.py", "one")
    first, second = chunk("src/b.py", "two"), chunk("src/b.py", "three")
    first = replace(first, id="b1")
    second = replace(second, id="b2")
    assert ranked(RankingWeights(coherence=0.5), "q", lone, first, second)[0] == "b1"
    assert ranked(RankingWeights(), "q", lone, first, second)[0] == lone.id


def test_further_chunks_of_one_file_give_diminishing_returns() -> None:
    first, second = replace(chunk("src/b.py"), id="b1"), replace(chunk("src/b.py"), id="b2")
    other = chunk("src/c.py")
    assert ranked(RankingWeights(diminishing=0.5), "q", first, second, other) == [
        "b1",
        other.id,
        "b2",
    ]


def test_text_rules_find_their_chunk_after_a_letter_whose_lower_case_is_longer() -> None:
    # "İ" lower-cases to two characters: the texts are searched joined, and the offsets of the
    # texts after it must still be right.
    before = chunk("src/a.py", "İstanbul İzmir " * 100)
    message = chunk("src/c.py", "Referer checking failed - does not match any trusted origins")
    after = chunk("src/b.py", "checking origins " * 20)
    query = "Referer checking failed does not match any trusted origins"
    assert ranked(RankingWeights(phrase=1.0), query, before, message, after) == [
        message.id,
        before.id,
        after.id,
    ]


def test_coherence_adds_the_two_best_other_chunks_of_the_file() -> None:
    documents = [replace(chunk("src/b.py"), id=f"b{n}") for n in range(4)]
    documents.insert(1, chunk("src/a.py"))
    candidates = [Candidate(d, 1.0 - 0.1 * i, i) for i, d in enumerate(documents)]
    weights = RankingWeights(coherence=0.5, diminishing=0.5)
    result = RankingLayer(RankingProfile.uniform(weights)).rerank("q", candidates)
    scores = {c.document.id: score for score, c in result}
    b = [1.0, 0.8, 0.7, 0.6]  # b0..b3's fused scores, best first
    assert scores["b0"] == pytest.approx((b[0] + 0.5 * (b[1] + b[2])) * 1.0)
    assert scores["b1"] == pytest.approx((b[1] + 0.5 * (b[0] + b[2])) * 0.5)
    assert scores["b2"] == pytest.approx((b[2] + 0.5 * (b[0] + b[1])) * 0.25)
    assert scores["b3"] == pytest.approx((b[3] + 0.5 * (b[0] + b[1])) * 0.125)
    assert scores["src/a.py:body"] == pytest.approx(0.9)  # alone in its file: unchanged


def test_a_file_the_query_names_comes_first_whatever_its_role() -> None:
    named, other = chunk("test_helpers.go"), chunk("context.go")
    weights = RankingWeights(roles=2.0, named_file=1.0)
    assert ranked(weights, "improved GoDoc in test_helpers.go", other, named)[0] == named.id


def test_a_file_whose_name_is_a_query_word_in_another_form_gains() -> None:
    named = chunk("core/fusion.py", "rrf")
    other = chunk("core/search.py", "streams")
    query = "how are results fused from several streams"
    assert ranked(RankingWeights(path_word=0.25), query, other, named)[0] == named.id
    assert ranked(RankingWeights(), query, other, named)[0] == other.id


@pytest.mark.parametrize(
    ("word", "path"),
    [
        ("validated", "src/Validation.java"),
        ("validate", "lib/validator.rb"),
        ("parsing", "src/parser.rs"),
        ("queries", "app/query.ts"),
        ("routing", "router/RouterGroup.go"),
    ],
)
def test_a_question_word_reaches_a_file_named_for_its_other_forms(word: str, path: str) -> None:
    assert conflate(word) in stem_words(path)


def test_a_directory_or_a_short_word_is_not_a_file_name() -> None:
    assert conflate("core") not in stem_words("core/fusion.py")
    named, other = chunk("src/api.py"), chunk("src/b.py")
    assert ranked(RankingWeights(path_word=1.0), "the api of b", other, named)[0] == other.id


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("how does the client follow redirects?", QUESTION),
        ("mergePath utility for joining route paths", MESSAGE),
        ("Spec:normalize", QUESTION),
        ("where are migrations applied", QUESTION),
        ("fix(context): skip chmod on pre-existing dirs", CHANGE),
        ("Add z.toZod helper", CHANGE),
        ("RuntimeError: Cannot reopen a client instance, once it has been closed.", MESSAGE),
        ("word " * 50, CHANGE),
    ],
)
def test_query_kinds(query: str, kind: str) -> None:
    assert QueryShape.of(query).kind == kind


def test_a_code_span_holding_one_name_is_a_name_the_query_says() -> None:
    shape = QueryShape.of("Where is the `run` helper defined, and how are flags parsed?")
    assert shape.names["run"] == 1.0
    assert shape.names["helper"] == 0.0
    assert QueryShape.of("Where is the run helper defined?").names["run"] == 0.0
    assert "for" not in QueryShape.of("what does `for` do").names  # a stop word stays out


@pytest.mark.parametrize(
    ("query", "sure"),
    [
        ("What does `Str::slug` do with underscores?", ("str", "slug")),
        ("What does Str::slug do with underscores?", ("str", "slug")),
        ("when does conn->close free the buffer", ("conn", "close")),
        ("how is Array#map defined", ("array", "map")),
        ("what does `Head.Truncate` keep", ("head", "truncate")),
    ],
)
def test_each_part_of_a_qualified_name_is_a_name_the_query_says(
    query: str, sure: tuple[str, ...]
) -> None:
    names = QueryShape.of(query).names
    assert all(names[name] == 1.0 for name in sure)
    # Prose around them stays prose, and "issue #12" or a sentence's full stop joins nothing.
    assert names.get("underscores", 0.0) == 0.0
    assert QueryShape.of("see issue #123 about run").names["run"] == 0.0
    assert QueryShape.of("it stops. Then what").names.get("stops", 0.0) == 0.0


def test_a_qualified_name_the_query_writes_is_read_whole() -> None:
    assert QueryShape.of("Does `ModuleAnalyzer.for_module` cache?").qualified == (
        "moduleanalyzer.for_module",
    )
    assert QueryShape.of("what does Str::slug do.").qualified == ("str.slug",)
    assert QueryShape.of("the os.path.join call").qualified == ("os.path.join", "path.join")
    # Not an abbreviation, nor a file the query names.
    assert QueryShape.of("e.g. the setup in app.py").qualified == ()


def test_the_definition_a_qualified_name_names_ranks_above_a_namesake() -> None:
    """Both chunks define ``for_module``; the one the query names whole comes first, though
    the other ranks first without the rule."""
    namesake = chunk("sphinx/registry.py", "def for_module", "Registry.for_module", "method")
    named = chunk("sphinx/pycode.py", "def for_module", "ModuleAnalyzer.for_module", "method")
    query = "Does `ModuleAnalyzer.for_module` cache analyzers?"
    weights = RankingWeights(definition=0.5)
    assert ranked(weights, query, namesake, named)[0] == named.id
    assert ranked(weights, "Does `for_module` cache analyzers?", namesake, named)[0] == namesake.id


def test_code_spans_pair_up_and_what_lies_between_them_is_not_quoted() -> None:
    shape = QueryShape.of("how does it parse flags like `!`, `-N` and `--separate-stderr`?")
    assert shape.quoted == ("-n", "--separate-stderr")
    assert QueryShape.of('error "All object keys must match" here').quoted == (
        "all object keys must match",
    )


class _Stream:
    def __init__(self, name: str, documents: list[Document]) -> None:
        self.name = name
        self.documents = documents
        self.asked = 0

    def search(self, query: str, top_k: int) -> list[object]:
        from ragls.core.documents import SearchResult

        self.asked += 1
        return [SearchResult(d, 1.0) for d in self.documents[:top_k]]


def test_a_stream_for_some_kinds_is_not_asked_for_others() -> None:
    document = chunk("src/a.py")
    always, questions = _Stream("always", [document]), _Stream("questions", [document])
    retriever = HybridRetriever([(always, 1.0), (questions, 0.5, frozenset({QUESTION}))])
    retriever.retrieve("where is the parser", 5)
    retriever.retrieve("fix the parser crash", 5)
    assert (always.asked, questions.asked) == (2, 1)


def test_the_workspace_profile_steps_back_for_changes() -> None:
    test, source = chunk("tests/test_parser.py"), chunk("src/parser.py")
    layer = RankingLayer(WORKSPACE_RANKING)
    candidates = [Candidate(test, 1.0, 0), Candidate(source, 0.7, 1)]  # roles weigh less
    assert layer.rerank("fix the parser crash on empty headers", candidates)[0][1].document == test
    assert layer.rerank("how are empty headers parsed", candidates)[0][1].document == source


@pytest.mark.parametrize(
    ("trace", "file", "function"),
    [
        (
            'File "/srv/app/shop/models.py", line 3, in save_order',
            "/srv/app/shop/models.py",
            "save_order",
        ),
        (
            "    at handleRequest (src/server/router.ts:10:5)",
            "src/server/router.ts",
            "handlerequest",
        ),
        ("\tat org.shop.OrderService.save(OrderService.java:42)", "orderservice.java", "save"),
        ("app/models/user.rb:12:in `validate_email'", "app/models/user.rb", "validate_email"),
        ("#0 src/Pool.php(42): GuzzleHttp\\Pool->promise()", "src/pool.php", "promise"),
        ("    /home/me/app/handler.go:88 +0x1d", "/home/me/app/handler.go", None),
    ],
)
def test_a_trace_frame_names_its_file_and_function(
    trace: str, file: str, function: str | None
) -> None:
    shape = QueryShape.of("it crashed:\n" + trace)
    assert shape.kind == "trace"
    assert file in shape.files
    if function is not None:
        assert shape.names.get(function) == 1.0


@pytest.mark.parametrize(
    ("trace", "lines"),
    [
        (
            'File "/srv/app/views.py", line 3, in checkout\n  File "shop/models.py", line 40, in x',
            (("/srv/app/views.py", 3), ("shop/models.py", 40)),
        ),
        (
            "    at handle (src/router.ts:10:5)\n    at src/app.ts:7:1\n"
            "    at handle (src/router.ts:10:5)",
            (("src/router.ts", 10), ("src/app.ts", 7)),  # each frame once, in the order pasted
        ),
        ("\tat org.shop.Order.save(Order.java:42)", (("order.java", 42),)),
        ("   at Shop.Order.Save(String id) in C:\\src\\Order.cs:line 9", (("c:/src/order.cs", 9),)),
        ("app/models/user.rb:12:in `validate'", (("app/models/user.rb", 12),)),
        ("#0 src/Pool.php(42): App\\Pool->run()", (("src/pool.php", 42),)),
        ("    (shop 0.1.0) lib/shop/order.ex:18: Shop.Order.save/1", (("lib/shop/order.ex", 18),)),
        ("thread 'main' panicked at src/buffer.rs:41:9:", (("src/buffer.rs", 41),)),
    ],
)
def test_a_trace_frame_keeps_its_file_and_line(
    trace: str, lines: tuple[tuple[str, int], ...]
) -> None:
    assert QueryShape.of("it crashed:\n" + trace).frame_lines == lines


def test_every_frame_pattern_needs_a_line_number() -> None:
    # QueryShape skips the frame patterns for a query without a digit: each needs one.
    assert all("\\d" in pattern.pattern for pattern in FRAME_PATTERNS)
    assert QueryShape.of('File "app/models.py", line x, in save').kind != "trace"


def test_a_trace_brings_its_frames_code_first() -> None:
    other = chunk("shop/orders.py", "save the order", "save_all", "function")
    frame = chunk("shop/models.py", "def save_order", "save_order", "function")
    query = 'Traceback:\n  File "/home/dev/repo/shop/models.py", line 3, in save_order\nValueError'
    weights = RankingWeights(named_file=2.0)
    assert ranked(weights, query, other, frame)[0] == frame.id
    assert ranked(RankingWeights(), query, other, frame)[0] == other.id


def test_roles_are_derived_for_the_files_a_query_reads_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first query after a large index derives the roles of its candidates' files, not of
    every file numbered (the cost of the first search after a cold index)."""
    import numpy as np

    from ragls.core.ranking import columns

    derived: list[str] = []
    role_of = columns.role_of
    monkeypatch.setattr(columns, "role_of", lambda path: derived.append(path) or role_of(path))
    interner = columns.Interner()
    numbers = [interner.number(f"src/module{i}.py") for i in range(1000)]
    test_file = interner.number("tests/test_module.py")
    asked = np.array([numbers[5], test_file, columns.NONE, numbers[5]], np.int64)
    codes = interner.roles_of(asked).tolist()
    assert sorted(derived) == ["src/module5.py", "tests/test_module.py"]
    test_role = next(i for i, role in enumerate(ROLES) if role.name == "test")
    assert codes == [columns.SOURCE_CODE, test_role, columns.SOURCE_CODE, columns.SOURCE_CODE]
    interner.number("src/new.py")  # numbered after the first query: derived when asked
    assert interner.roles_of(np.array([test_file], np.int64)).tolist() == [test_role]
    assert len(derived) == 2
