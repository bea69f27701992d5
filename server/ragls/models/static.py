"""A static text embedder that runs offline: token vectors averaged, no network, no GPU.

The model is WordLlama's ``l2_supercat`` (256 dimensions, a 32,000-token Llama tokenizer), whose
weights and tokenizer ship inside the ``wordllama`` wheel on PyPI: nothing is downloaded at run
time. Only the two files are used, read with ``safetensors`` and ``tokenizers``; the package's
own loader (which may fetch other models) is never called.

A text's vector is the mean of its tokens' vectors, normalised to unit length, so a dot product
is a cosine. Code is prepared first (:func:`prepared`): identifiers are split into their words
(``HybridRetriever`` -> ``Hybrid Retriever``, ``max_query_chars`` -> ``max query chars``),
since the model was trained on prose, and a text is cut at :data:`MAX_TEXT_CHARS` characters.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.errors import ConfigurationError

MODEL_NAME = "wordllama-l2-supercat-256"
MAX_TEXT_CHARS = 4_000  # a chunk's first characters carry its subject; the rest adds cost

Vectors = npt.NDArray[np.float32]
Table = npt.NDArray[np.float16]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\W]+")


def prepared(text: str) -> str:
    """``text`` cut to :data:`MAX_TEXT_CHARS`, identifiers split into lower-case words."""
    text = text[:MAX_TEXT_CHARS]
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", text)).lower().strip()


_SHARED: StaticEmbedder | None = None
_SHARED_LOCK = threading.Lock()


def shared_embedder() -> StaticEmbedder:
    """The process's one embedder (its table is loaded once for every session). Raises
    ConfigurationError naming the extra to install when the model's packages are missing."""
    global _SHARED
    missing = []
    for name in ("wordllama", "safetensors", "tokenizers"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise ConfigurationError(
            f"the semantic stream needs {', '.join(missing)}: install ragls with its "
            "'semantic' extra (pip install 'ragls[semantic]')"
        )
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = StaticEmbedder()
        return _SHARED


class StaticEmbedder:
    """Unit vectors for texts from a table of token vectors (see the module docstring).

    Thread-safe; loading the table (16 MB) happens on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: Table | None = None
        self._tokenizer: Any = None

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def dimensions(self) -> int:
        return int(self._loaded()[0].shape[1])

    def _loaded(self) -> tuple[Table, Any]:
        with self._lock:
            if self._table is None:
                from safetensors.numpy import load
                from tokenizers import Tokenizer

                package = resources.files("wordllama")
                weights = load((package / "weights" / "l2_supercat_256.safetensors").read_bytes())
                table = next(iter(weights.values()))  # float16, as shipped: 16 MB
                config = (package / "tokenizers" / "l2_supercat_tokenizer_config.json").read_text(
                    encoding="utf-8"
                )
                tokenizer = Tokenizer.from_str(config)
                tokenizer.no_padding()
                tokenizer.no_truncation()
                self._table, self._tokenizer = table, tokenizer
            return self._table, self._tokenizer

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit row per text (a text with no tokens gets a zero row). Texts are encoded one
        at a time on the calling thread: the tokenizer's batch call would start a thread per
        core, whose heaps stay large after a big corpus, for a background job that should
        leave the machine to its user."""
        table, tokenizer = self._loaded()
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = tokenizer.encode(prepared(text), add_special_tokens=False).ids
            if ids:
                total = table[np.asarray(ids, dtype=np.intp)].sum(axis=0, dtype=np.float32)
                norm = float(np.linalg.norm(total))
                if norm > 0:
                    out[row] = total / norm
        return out
