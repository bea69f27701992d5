"""Policy tables of format detection: extensions, file names and interpreters. Data only."""

from __future__ import annotations

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".bash": "bash",
    ".c": "c",
    ".cc": "cpp",
    ".cjs": "javascript",
    ".clj": "clojure",
    ".cpp": "cpp",
    ".cs": "csharp",
    ".css": "css",
    ".cxx": "cpp",
    ".dart": "dart",
    ".el": "elisp",
    ".erl": "erlang",
    ".ex": "elixir",
    ".exs": "elixir",
    ".fs": "fsharp",
    ".go": "go",
    ".gradle": "groovy",
    ".groovy": "groovy",
    ".h": "c",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hs": "haskell",
    ".java": "java",
    ".jl": "julia",
    ".js": "javascript",
    ".jsx": "javascript",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".less": "less",
    ".lua": "lua",
    ".m": "objc",
    ".mjs": "javascript",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".nim": "nim",
    ".php": "php",
    ".pl": "perl",
    ".pm": "perl",
    ".proto": "protobuf",
    ".ps1": "powershell",
    ".py": "python",
    ".pyi": "python",
    ".r": "r",
    ".rb": "ruby",
    ".rs": "rust",
    ".scala": "scala",
    ".scss": "scss",
    ".sh": "bash",
    ".sql": "sql",
    ".swift": "swift",
    ".tf": "hcl",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".vim": "vim",
    ".vue": "vue",
    ".zig": "zig",
    ".zsh": "bash",
}

LANGUAGE_BY_FILENAME: dict[str, str] = {
    "cmakelists.txt": "cmake",
    "dockerfile": "dockerfile",
    "gemfile": "ruby",
    "justfile": "just",
    "makefile": "make",
    "rakefile": "ruby",
}

LANGUAGE_BY_INTERPRETER: dict[str, str] = {
    "bash": "bash",
    "dash": "bash",
    "ksh": "bash",
    "node": "javascript",
    "perl": "perl",
    "php": "php",
    "python": "python",
    "ruby": "ruby",
    "sh": "bash",
    "zsh": "bash",
}

MARKUP_EXTENSIONS: dict[str, str] = {
    ".htm": "html",
    ".html": "html",
    ".ipynb": "notebook",
    ".markdown": "markdown",
    ".md": "markdown",
    ".mdx": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".xhtml": "html",
}

DATA_EXTENSIONS: dict[str, str] = {
    ".cfg": "ini",
    ".conf": "ini",
    ".csv": "csv",
    ".ini": "ini",
    ".json": "json",
    ".jsonc": "json",
    ".tsv": "csv",
    ".toml": "toml",
    ".xml": "xml",
    ".yaml": "yaml",
    ".yml": "yaml",
}

BINARY_EXTENSIONS: frozenset[str] = frozenset(
    """
    .7z .a .avi .bin .bmp .bz2 .class .dll .dmg .doc .docx .dylib .eot .exe .flac .gif .gz .ico
    .jar .jpeg .jpg .lockb .mkv .mov .mp3 .mp4 .npy .npz .o .obj .ogg .otf .pickle .pkl .png .ppt
    .pptx .psd .pyc .pyd .pyo .so .sqlite .svgz .tar .tgz .tif .tiff .ttf .wasm .wav .webm .webp
    .whl .woff .woff2 .xls .xlsx .xz .zip .zst
    """.split()
)
