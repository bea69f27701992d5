"""The ranking layer's rules, as data (SPEC §10; docs/retrieval.md "The ranking layer").

A file's *role* comes from its path: tests, fixtures and snapshots, examples, benchmarks,
generated and vendored code, interfaces (type stubs, declarations), migrations, translation
catalogs, and documentation (prose formats and ``docs/`` folders); a file whose path gives no
role is generated when its first lines say so (:data:`GENERATED_MARKER`). Each role but ``source``
scales a chunk's fused score by its weight, less when the query asks for that role with one of
its words (a query saying "docs" gets docs; one saying "test" gets tests, less surely in a
question: :attr:`Role.ambiguous`). Patterns are regular expressions over the POSIX path
(directory names case-insensitive), per role, checked in the order below (the first role that
matches wins); they cover the conventions of the languages ragls chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    weight: float  # multiplies the fused score of a chunk of such a file
    path: re.Pattern[str]
    asked_by: frozenset[str]  # query words (lower case, unstemmed) that ask for the role
    # Whether those words also name what source code does (a test framework runs tests, a
    # helper builds mocks, a plugin manager reads specs): asking for the role is then only
    # likely, and a question keeps some of its scaling (the layer's ``asked_roles``).
    ambiguous: bool = False


def _dirs(*names: str) -> str:
    return r"(?i:(?:^|/)(?:" + "|".join(names) + r")/)"


_TEST_WORDS = frozenset(
    "test tests testing tested unittest unittests pytest spec specs assert asserts assertion "
    "mock mocks fixture fixtures snapshot snapshots e2e".split()
)

# What asks for documentation and for the code beside it (a docs site's own code). Not "doc":
# "doc comments" are the code's.
_DOCS_WORDS = frozenset("docs documentation documented readme guide tutorial manual".split())

ROLES: tuple[Role, ...] = (
    Role(
        "generated",
        0.35,
        re.compile(
            r"(?i:(?:\.pb\.go|_pb2\.pyi?|\.pb\.(?:h|cc)|\.generated\.[a-z]+|\.g\.dart"
            r"|\.freezed\.dart|\.min\.(?:js|css)|\.designer\.cs|_generated\.[a-z]+|\.gen\.[a-z]+)$)"
            # Kotlin's binary-compatibility dumps: every public signature, written by a tool
            r"|(?:^|/)(?P<module>[^/]+)/api/(?P=module)(?:\.klib)?\.api$"
            r"|"
            + _dirs("generated", "__generated__", "gen", "docsets?", "\\.docc")
            # Phoenix's (Elixir's) compiled static assets: the bundled JavaScript of assets/
            + r"|(?:^|/)priv/static/"
        ),
        frozenset(("generated", "codegen")),
    ),
    Role(
        "vendored",
        0.35,
        re.compile(
            _dirs(
                "third_party",
                "third-party",
                "thirdparty",
                "external",
                "extern",
                "gtest",
                "gmock",
                # C projects' copies of their dependencies (redis's deps/jemalloc, deps/lua)
                "deps",
                # copies kept beside the code: spdlog's fmt/bundled, pip's _vendor
                "_?bundled",
                "_vendor",
                "vendored",
            )
        ),
        # Not "bundled" (what a bundler does to the project's own modules) nor "third".
        frozenset(("vendored", "vendor")),
    ),
    Role(
        "fixture",
        0.4,
        re.compile(
            _dirs(
                "fixtures?",
                "__fixtures__",
                "__snapshots__",
                "snapshots?",
                "testdata",
                "test_data",
                "test-data",
                "mocks?",
                "__mocks__",
                "stubs",
                "golden",
            )
            + r"|\.snap$"
        ),
        _TEST_WORDS,
        ambiguous=True,
    ),
    Role(
        "test",
        0.45,
        re.compile(
            _dirs(
                "tests?",
                "__tests__",
                "testing",
                "specs?",
                "e2e",
                "integration[-_]tests?",
                "[a-z0-9_.-]*\\.tests?",
                "[a-z0-9_.-]*[-_]tests?",
                "runtime-tests",
                "unittests?",
                # test support code: Go's internal/testutil, test_helpers/, test-support/
                "test[-_]?(?:utils?|helpers?|support|kit|env)",
                # Go's test packages named for what they test (httptest, fstest, caddytest,
                # smoketest); not latest/, contest/, attest/, protest/, detest/
                "(?!(?:la|con|at|pro|de)tests?/)[a-z0-9]+tests?",
            )
            # Gradle and Kotlin Multiplatform source sets: commonTest, jvmTest, androidUnitTest.
            + r"|(?:^|/)[a-z][A-Za-z0-9]*Tests?/"
            # Xcode's test targets: AppTests/, AppUITests/
            + r"|(?:^|/)[A-Z][A-Za-z0-9]*Tests/"
            + r"|(?:^|/)(?:test_[^/]*|conftest\.py)$"
            # foo_test.go, foo.spec.ts, and C++'s foo_unittest.cc / foo_browsertest.cc
            + r"|(?i:(?:^|/|[_.-])(?:unit|browser|integration)?(?:tests?|spec|specs)\.[a-z0-9]+)$"
            # Perl's t/*.t, Bats scripts, Erlang's Common Test suites, Gherkin scenarios
            # (Cucumber, Behat, SpecFlow, behave) and Cucumber's step definitions
            + r"|\.(?:t|bats|feature)$|_SUITE\.erl$|(?:^|/)step_definitions/"
            + r"|(?:[a-z0-9]|UI)(?:Tests?|Spec|Specs|IT)"
            r"\.(?:java|kt|kts|swift|php|cs|scala|groovy|hs|m|mm|dart|cpp|cc)$"
        ),
        _TEST_WORDS,
        ambiguous=True,
    ),
    Role(
        "example",
        0.6,
        re.compile(
            _dirs(
                "[^/]*(?<![a-z])examples?(?![a-z])[^/]*",
                "samples?",
                "demos?",
                "playground",
                "sandbox",
                "cookbook",
                "snippets?",  # documentation's code snippets (.NET's src/Snippets, docs/snippets)
            )
            # Storybook's stories: a component shown with example props
            + r"|\.stories\.[a-z]+$"
        ),
        # Not "sample" nor "snippet": a metric's samples, an editor's completion snippets.
        frozenset("example examples demo demos playground stories".split()),
    ),
    Role(
        "benchmark",
        0.6,
        re.compile(_dirs("bench", "benches", "benchmarks?", "perf") + r"|_bench(?:mark)?\.[a-z]+$"),
        frozenset("bench benchmark benchmarks benches performance perf".split()),
    ),
    Role(
        # An interface beside its implementation: OCaml's .mli, Python's and Ruby's type stubs,
        # TypeScript's declarations, Haskell's boot files. Their long doc comments say in prose
        # what the implementation does, and outrank it for "how is X done" (lwt's .mli above
        # every .ml). Not C and C++ headers: in a header-only library they are the code.
        "interface",
        0.8,
        re.compile(r"(?i:\.(?:mli|pyi|rbi|d\.[cm]?ts|hs-boot)$)"),
        # Not "interface", "signature" nor "declared": in 32 questions of the question sets
        # that said one of them, none wanted a stub or a declaration file.
        frozenset("declaration declarations typings stub stubs".split()),
    ),
    Role(
        "migration",
        0.7,
        re.compile(_dirs("migrations?", "migrate", "alembic")),
        frozenset("migration migrations migrate".split()),
    ),
    Role(
        "metadata",
        0.35,
        re.compile(
            r"(?i:\.(?:pbxproj|xcworkspacedata|xcscheme|plist|sln|lock|sum)$)"
            r"|(?:^|/)(?:package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock)$"
        ),
        frozenset(("lockfile", "dependency", "dependencies", "xcode")),
    ),
    Role(
        # Translation catalogs: gettext's .po and .pot (each message of the code copied once per
        # language: sphinx's 70 catalogs matched its questions' words), XLIFF, Flutter's .arb,
        # Apple's .strings, and the data files of a locales/ or i18n/ folder.
        "translation",
        0.35,
        re.compile(
            r"(?i:\.(?:po|pot|xlf|xliff|arb|strings)$)"
            r"|(?i:(?:^|/)(?:locales?|i18n|l10n|translations?|lang)/(?:[^/]+/)*[^/]*"
            r"\.(?:json|ya?ml|properties|toml)$)"
        ),
        frozenset(
            "translation translations translate translated locale locales localization "
            "localisation localized i18n l10n gettext".split()
        ),
        ambiguous=True,
    ),
    Role(
        # Continuous integration: workflows, issue templates, linters' settings.
        "ci",
        0.5,
        re.compile(
            r"(?:^|/)\.(?:github|gitlab|circleci|buildkite|azure-pipelines)/"
            r"|(?:^|/)(?:\.travis|\.gitlab-ci|\.golangci|\.pre-commit-config|appveyor"
            r"|azure-pipelines|codecov)\.ya?ml$|(?:^|/)Jenkinsfile$"
        ),
        frozenset("ci workflow workflows github travis jenkins circleci appveyor".split()),
    ),
    Role(
        "docs",
        0.6,
        re.compile(
            # Prose anywhere; in a docs folder also its data and templates, but not its code (a
            # docs site's components and scripts are code that a change touches like any other).
            r"(?i:\.(?:md|mdx|markdown|ronn|rst|rdoc|txt|adoc|asciidoc|textile|html?|org|texi|pod|mld"
            # man pages, and their sources and prebuilt copies (jq.1.prebuilt, bats.1.ronn)
            r"|[1-9](?:\.(?:in|prebuilt|md|ronn))?"
            r"|pdf|docx|odt|epub|rtf)$)"
            r"|(?i:(?:^|/)(?:docs?|documentation|man|manual|completions?)/(?:[^/]+/)*[^/]*"
            r"\.(?:json|ya?ml|xml|svg|css|fish|zsh|bash|ps1|in)$)"
            r"|(?i:(?:^|/)(?:changelog|changes|history|news|authors|contributing|license|notice)"
            r"(?:\.[a-z]+)?$)"
        ),
        _DOCS_WORDS | {"changelog"},
    ),
    Role(
        # Code in a documentation folder: the docs site's build scripts, its Sphinx conf.py,
        # the snippets its pages include, a vendored search widget. In the question sets' first
        # five places 30 times, never an answer. A change touches it as any code
        # (``unscaled_roles``).
        "docs-code",
        0.6,
        re.compile(r"(?i:(?:^|/)(?:docs?|documentation)/)"),
        _DOCS_WORDS,
    ),
)
SOURCE = "source"

# A query phrased as a change ("fix the redirect loop", "feat(router): ...") or pasted at length
# (a whole issue or commit message) is about code and its tests alike: roles weigh less there.
CHANGE_VERBS = frozenset(
    """fix fixes fixed fixing add adds added adding remove removes removed support supports
    update updates updated refactor refactored allow allows make makes use uses improve improves
    handle handles ensure ensures avoid avoids prevent prevents rename renames renamed move moves
    replace replaces implement implements drop drops deprecate deprecates introduce introduces
    expose exposes enable enables disable disables correct corrects clean cleanup simplify
    simplifies optimize optimise speed reduce reduces change changes changed set sets
    loosen tighten preserve keep stop include exclude skip respect accept reject raise throw
    emit migrate upgrade bump release document cover revert restore reuse split merge
    feat chore perf""".split()
)
CONVENTIONAL_COMMIT = re.compile(
    r"^(?:feat|fix|chore|docs|refactor|perf|test|tests|build|ci|style|revert|deps)"
    r"(?:\([^)]*\))?!?:\s"
)
# "printer: simplify ...", "_rg: add ...", "core/search: ...": a lower-case component named
# before a change, as commit subjects do; not a log line's level ("error: file not found").
SCOPE_PREFIX = re.compile(r"^([a-z_][\w./-]*)(?:\([^)]*\))?!?:\s+")
# A file is also *generated* when its first lines say so in a comment, whatever its path: Go's
# convention ("// Code generated by stringer; DO NOT EDIT.", which mocks, protobuf and most Go
# generators follow), "@generated" (Buck, Relay, Cargo), C#'s "<auto-generated>", the banners
# of Bison, re2c, protoc and Thrift, "this file is (automatically) generated", "generated by"
# and "generated ... do not edit" in any language; not "this autogenerated file", which is what
# sphinx-quickstart writes into the conf.py a project then edits by hand. Only the first
# GENERATED_LINES lines of a file's first chunk are read, and only those that begin as a
# comment, so a generator's own source, which prints such a line from its code, is not taken
# for its output. A path's role wins.
GENERATED_MARKER = re.compile(
    r"(?i:code generated\b.*\bdo not edit"
    r"|@generated\b"
    r"|<auto-?generated"
    r"|\bgenerated by (?:the protocol buffer compiler|re2c|flex|swig|cython)"
    r"|\bautogenerated by thrift"
    r"|\bbison parser, made by gnu bison"
    r"|\b(?:file|code|source)\b.{0,40}\b(?:is|was|has been) (?:automatically |auto-?)?generated\b"
    r"|\b(?:automatically|auto-?) ?generated (?:by|from|with|using)\b"
    r"|\bgenerated\b.{0,80}\bdo not (?:edit|modify)"
    r"|\bdo not (?:edit|modify)\b.{0,80}\bgenerated\b)"
)
GENERATED_LINES = 10
# What a comment line begins with, in the languages ragls chunks.
COMMENT_LEADERS = ("//", "#", "/*", "*", "--", ";", "<!--", "(*", "{-", "%", '"""', "'''")

LOG_LEVELS = frozenset(
    "error warning warn fatal panic info debug trace note hint caused exception critical".split()
)
LONG_QUERY_WORDS = 40
# A message (an error, a log line) is at least this many words, none a question's first word.
MESSAGE_MIN_WORDS = 4
QUESTION_WORDS = frozenset(
    """how what where why when which who whom whose does do did is are can could should would
    will was were has have explain show find list describe""".split()
)

# Extensions that make a query word a file's name ("utils.go", "setup.cfg").
FILE_EXTENSIONS = frozenset(
    """c cc cpp cs css cfg dart ex exs go h hpp hs html java jl js json jsx kt kts lua md ml mli
    php py rb rs rst scala sh sql swift toml ts tsx txt vue xml yaml yml zig""".split()
)

# Stack-trace frames, per language: each pattern's named groups ``file``, ``line`` and
# ``function`` (the function may be absent). A pasted traceback's frames are strong evidence:
# their files are named files, their functions names the query says, and the chunk holding a
# frame's line is where the trace passed (the ``trace`` kind's weights; ragls.core.frames).
FRAME_PATTERNS: tuple[re.Pattern[str], ...] = (
    # Python: File "app/models.py", line 12, in save
    re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>[\w<>]+)'),
    # JavaScript / TypeScript: at handler (src/app.ts:10:5), at src/app.ts:10:5
    re.compile(
        r"\bat (?:async )?(?P<function>[\w$.<>]+) \((?:file://)?(?P<file>[^()\s]+?):(?P<line>\d+):\d+\)"
    ),
    re.compile(r"\bat (?:file://)?(?P<file>[^()\s]+?\.[cm]?[jt]sx?):(?P<line>\d+):\d+"),
    # Java, Kotlin, Scala: at org.app.Service.save(Service.java:42)
    re.compile(
        r"\bat [\w$.]+\.(?P<function>[\w$<>]+)\((?P<file>[\w$]+\.(?:java|kt|scala|groovy))"
        r":(?P<line>\d+)\)"
    ),
    # C#: at App.Service.Save(String id) in /src/Service.cs:line 42
    re.compile(
        r"\bat [\w.`]+\.(?P<function>\w+)\([^)]*\) in (?P<file>[^\n]+?\.cs):line (?P<line>\d+)"
    ),
    # Ruby: app/models/user.rb:12:in `save'
    re.compile(
        r"(?P<file>[\w./-]+\.rb):(?P<line>\d+):in [`'](?:[\w:]+[#.])?(?P<function>[\w?!]+)'"
    ),
    # PHP: #0 src/Service.php(42): App\Service->save()
    re.compile(
        r"#\d+ (?P<file>[^\s(]+\.php)\((?P<line>\d+)\): [\w\\]+(?:->|::)(?P<function>\w+)\("
    ),
    # Elixir: (app 0.1.0) lib/app/service.ex:42: App.Service.save/1
    re.compile(r"(?P<file>[\w./-]+\.exs?):(?P<line>\d+): [\w.]+\.(?P<function>[\w?!]+)/\d+"),
    # Go, Rust, C, Zig and the rest: a path with a source extension and a line number.
    re.compile(
        r"(?P<file>/?(?:[\w.-]+/)*[\w.-]+\.(?:go|rs|c|cc|cpp|h|hpp|zig|swift|lua|hs|dart|ml|jl))"
        r":(?P<line>\d+)"
    ),
)
MAX_FRAMES = 64

# How surely a plain word of a query names a symbol ("the search function"), against 1.0 for an
# identifier (``mergePath``, ``save_order``, ``Spec:normalize``): the definition rule's scale.
# Measured at 0.5, 0.25 and 0 on the question set (0.811, 0.812, 0.807 nDCG@10): within noise,
# while prose words that happen to name methods (``search``, ``results``) pushed the answer of
# "how are search results fused from several streams" from 2nd to 5th. Prose is not a name.
PLAIN_WORD_NAME = 0.0
# How surely a qualified name the query writes (``ModuleAnalyzer.for_module``) names the symbol
# that is exactly it: the definition rule's match, where an identifier's is 1.0.
QUALIFIED_NAME = 3.0

# Languages by file extension (lower case), for the minority-language rule: a chunk of a file
# whose language holds less than MINORITY_SHARE of the index's chunks of languages named here
# (a Go server's web UI in TypeScript, a C library's Python build scripts) is scaled by the
# kind's ``minority`` weight, unless the query says one of the language's FAMILY_WORDS or names
# a file of it. Extensions not named here (docs, data, no extension) have no language and
# count for none. C and C++ are one (their headers share ``.h``), as are JavaScript and
# TypeScript and the component formats built with them.
_FAMILY_EXTENSIONS = {
    "c/c++": "c h cc cpp cxx c++ hpp hh hxx ipp inl",
    "javascript": "js jsx mjs cjs ts tsx mts cts vue svelte",
    "python": "py pyi pyx",
    "ruby": "rb rake",
    "go": "go",
    "rust": "rs",
    "java": "java",
    "kotlin": "kt kts",
    "scala": "scala sc",
    "swift": "swift",
    "objective-c": "m mm",
    "csharp": "cs",
    "fsharp": "fs fsx fsi",
    "php": "php",
    "lua": "lua",
    "elixir": "ex exs",
    "erlang": "erl hrl",
    "haskell": "hs lhs",
    "ocaml": "ml mli",
    "julia": "jl",
    "dart": "dart",
    "zig": "zig",
    "shell": "sh bash zsh bats ps1",
    "perl": "pl pm",
    "groovy": "groovy gradle",
    "clojure": "clj cljs cljc",
    "nim": "nim",
    "css": "css scss sass less",
}
FAMILIES: tuple[str, ...] = tuple(_FAMILY_EXTENSIONS)
LANGUAGE_FAMILIES: dict[str, int] = {
    extension: number
    for number, extensions in enumerate(_FAMILY_EXTENSIONS.values())
    for extension in extensions.split()
}
MINORITY_SHARE = 0.15
FAMILY_WORDS: dict[str, frozenset[str]] = {
    "c/c++": frozenset("c cpp header headers native".split()),
    "javascript": frozenset(
        """javascript js typescript ts tsx jsx node react vue svelte frontend browser ui web
        component components page pages dashboard""".split()
    ),
    "python": frozenset("python py script scripts".split()),
    "shell": frozenset("shell bash sh zsh script scripts powershell".split()),
    "kotlin": frozenset("kotlin kt android gradle".split()),
    "swift": frozenset("swift ios macos xcode".split()),
    "csharp": frozenset("csharp dotnet".split()),
    "go": frozenset("go golang".split()),
    "css": frozenset("css style styles stylesheet scss theme".split()),
    "groovy": frozenset("groovy gradle".split()),
    "objective-c": frozenset("objc objective ios macos".split()),
}

# A query word and a word of a file's path are the same word when they agree after one of these
# endings is taken off (the first that leaves at least PATH_WORD_ROOT letters), so a question's
# verb reaches a file named for its noun: "fused" and "fusion" are "fus", "validated",
# "validation" and "validator" are "validat", "parsing" and "parser" "pars", "queries" "query".
# SPEC §2's stemmer, which the code stream's path field uses, keeps these apart.
PATH_WORD_ENDINGS: tuple[tuple[str, str], ...] = (
    ("ations", "at"),
    ("ation", "at"),
    ("ies", "y"),
    ("ions", ""),
    ("ion", ""),
    ("ings", ""),
    ("ing", ""),
    ("ers", ""),
    ("er", ""),
    ("ors", ""),
    ("or", ""),
    ("ed", ""),
    ("es", ""),
    ("e", ""),
    ("s", ""),
)
PATH_WORD_ROOT = 3
PATH_WORD_MIN = 4  # shorter query words ("set", "get", "api") match too many paths
