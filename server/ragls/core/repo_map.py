"""The repository map's ranking: files linked by the names they use, ranked with personalised
PageRank, and their definitions ranked by the rank that flows to them (issue 28, after aider's
repository map).

The graph: file A uses a name that file B defines -> an edge A -> B carrying that name. Its
weight is ``sqrt(uses)`` (ten uses are not ten times one), divided by how many files define the
name (an ambiguous name spreads its weight), times a factor for the name: x10 for a long,
specific identifier (``snake_case``/``camelCase`` of 8+ characters), x0.1 for a private one
(``_name``) or one defined in more than five files (``get``, ``run``: name-based links through
them are mostly noise). A file's uses of its own names are not edges: they say nothing about
what else matters (and a file calling its own helpers would rank itself).

PageRank (damping 0.85) is a small power iteration over these edges with numpy; the restart
vector is uniform, or the personalisation given (files a query's search hits are in, the files
a user has open). Each definition then scores the rank that flows to it along the edges
carrying its name: ``rank(A) * weight(A -> B, name) / out_weight(A)`` summed over every A, so
the definitions many central files use come first. Files in ``boost`` (the files a query's
search hits are in) also give their own definitions a share of their weight (``boost(B) /
definitions of B``, the weights summing to 1): the file a query points at shows its definitions
even when nothing else uses them. Focus files (open in an editor) are not boosted: what they use
is what the map should add to what the reader already sees.

The graph is built once per version of the index and kept (weakly, by index) until the index
changes: building it reads every file's references, a ranking reads only arrays.
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragls.core.symbols import SymbolIndex

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE = 1e-9
SPECIFIC_NAME = re.compile(r"^(?=.{8,}$)(?:[a-z0-9]+_[a-z0-9_]+|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*)$")
SPECIFIC_FACTOR = 10.0
VAGUE_FACTOR = 0.1
MANY_DEFINERS = 5

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class FileGraph:
    """Files (``paths``, indexed by position) and the edges between them, one per (user,
    definer, name): ``source``, ``target``, ``weight``, ``name`` (an index into ``names``)."""

    paths: tuple[str, ...]
    names: tuple[str, ...]
    source: IntArray
    target: IntArray
    weight: FloatArray
    name: IntArray
    defined: tuple[tuple[str, ...], ...]  # each file's distinct defined names

    @property
    def position(self) -> dict[str, int]:
        return {path: index for index, path in enumerate(self.paths)}


def name_factor(name: str, definers: int) -> float:
    factor = 1.0
    if SPECIFIC_NAME.match(name):
        factor *= SPECIFIC_FACTOR
    if name.startswith("_"):
        factor *= VAGUE_FACTOR
    if definers > MANY_DEFINERS:
        factor *= VAGUE_FACTOR
    return factor


def build_graph(index: SymbolIndex) -> FileGraph:
    """The graph of the index as it is now (see the module doc)."""
    sources: list[int] = []
    targets: list[int] = []
    weights: list[float] = []
    name_ids: list[int] = []
    names: dict[str, int] = {}
    with index.locked() as view:
        paths = tuple(view.files)
        defined = tuple(
            tuple(dict.fromkeys(d.name for d in symbols.definitions))
            for symbols in view.files.values()
        )
        position = {path: number for number, path in enumerate(paths)}
        for path, symbols in view.files.items():
            if not symbols.reference_names:
                continue
            user = position[path]
            for name, uses in Counter(symbols.reference_names).items():
                definers = view.definition_files.get(name)
                if not definers:
                    continue
                weight = math.sqrt(uses) * name_factor(name, len(definers)) / len(definers)
                name_id = names.setdefault(name, len(names))
                for definer in definers:
                    if definer != path:
                        sources.append(user)
                        targets.append(position[definer])
                        weights.append(weight)
                        name_ids.append(name_id)
    return FileGraph(
        paths,
        tuple(names),
        np.asarray(sources, dtype=np.int64),
        np.asarray(targets, dtype=np.int64),
        np.asarray(weights, dtype=np.float64),
        np.asarray(name_ids, dtype=np.int64),
        defined,
    )


_graphs: weakref.WeakKeyDictionary[SymbolIndex, tuple[int, FileGraph]] = weakref.WeakKeyDictionary()
_graphs_lock = threading.Lock()


def graph_of(index: SymbolIndex) -> FileGraph:
    """The index's graph, built again only when the index has changed since the last one."""
    version = index.version
    with _graphs_lock:
        cached = _graphs.get(index)
    if cached is not None and cached[0] == version:
        return cached[1]
    graph = build_graph(index)
    with _graphs_lock:
        _graphs[index] = (version, graph)
    return graph


def pagerank(
    size: int,
    source: IntArray,
    target: IntArray,
    weight: FloatArray,
    restart: FloatArray | None = None,
    damping: float = DAMPING,
) -> FloatArray:
    """PageRank of ``size`` nodes over weighted edges, by power iteration. ``restart`` (summing
    to 1; uniform when None) is where a random surfer jumps to, and where the rank of nodes
    without out-edges goes. The ranks sum to 1."""
    if size == 0:
        return np.zeros(0)
    jump = np.full(size, 1.0 / size) if restart is None else restart
    out_weight = np.bincount(source, weights=weight, minlength=size)
    share = weight / out_weight[source] if len(source) else weight
    dangling = out_weight == 0
    rank = jump.copy()
    for _ in range(MAX_ITERATIONS):
        flowed = np.bincount(target, weights=rank[source] * share, minlength=size)
        following: FloatArray = (
            damping * (flowed + rank[dangling].sum() * jump) + (1 - damping) * jump
        )
        if np.abs(following - rank).sum() < TOLERANCE:
            return following
        rank = following
    return rank


@dataclass(frozen=True)
class RankedFiles:
    """The files' ranks, and each (file, name)'s score (the rank flowing to its definitions)."""

    file_rank: dict[str, float]
    definition_score: dict[tuple[str, str], float]


def _weights(graph: FileGraph, weights: Mapping[str, float] | None) -> FloatArray | None:
    """``weights`` over the graph's files, summing to 1 (None: none of them known)."""
    if not weights:
        return None
    position = graph.position
    found = np.zeros(len(graph.paths))
    for path, value in weights.items():
        if path in position and value > 0:
            found[position[path]] += value
    total = found.sum()
    return found / total if total > 0 else None


def rank(
    graph: FileGraph,
    personalisation: Mapping[str, float] | None = None,
    boost: Mapping[str, float] | None = None,
) -> RankedFiles:
    """Rank ``graph``'s files and the names they define. ``personalisation``: weights of the
    files the ranking should favour (unknown paths ignored; none known: uniform); ``boost``:
    files whose own definitions are lifted (see the module doc)."""
    size = len(graph.paths)
    restart = _weights(graph, personalisation)
    ranks = pagerank(size, graph.source, graph.target, graph.weight, restart)
    scores: dict[tuple[str, str], float] = {}
    lifted = _weights(graph, boost)
    if lifted is not None:
        for number in np.flatnonzero(lifted).tolist():
            path = graph.paths[number]
            defined = graph.defined[number]
            for name in defined:
                scores[(path, name)] = float(lifted[number]) / len(defined)
    if len(graph.source):
        out_weight = np.bincount(graph.source, weights=graph.weight, minlength=size)
        flow = ranks[graph.source] * graph.weight / out_weight[graph.source]
        # Sum the flow per (target, name) pair in numpy, then name the pairs.
        keys = graph.target * len(graph.names) + graph.name
        unique, inverse = np.unique(keys, return_inverse=True)
        sums = np.bincount(inverse, weights=flow)
        for key, value in zip(unique.tolist(), sums.tolist(), strict=True):
            target, name = divmod(key, len(graph.names))
            pair = (graph.paths[target], graph.names[name])
            scores[pair] = scores.get(pair, 0.0) + value
    return RankedFiles(dict(zip(graph.paths, ranks.tolist(), strict=True)), scores)
