"""The repository map's ranking: files linked by the names they use, ranked with personalised
PageRank, and their definitions ranked by the rank that flows to them (issue 28, after aider's
repository map).

The graph: file A uses a name that file B defines -> an edge A -> B carrying that name. Its
weight is ``sqrt(uses)`` (ten uses are not ten times one), divided by how many files define the
name (an ambiguous name spreads its weight), times a factor for the name: x10 for a long,
specific identifier (``snake_case``/``camelCase`` of 8+ characters), x0.1 for a private one
(``_name``), a short one (4 characters or fewer: ``str``, ``type``, ``get``, ``join``, which
name-based linking would tie to every builtin of the same name) or one defined in more than five
files (``run``, ``close``), or a plain lower-case word defined only as a member (``replace``,
``update``, ``match``: ``text.replace(...)`` names the builtin far more often than the method a
class of the repository defines): links through them are mostly noise. A file's uses of its own
names are not edges: they say nothing about what else matters (and a file calling its own
helpers would rank itself).

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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ragls.core.symbols import SymbolIndex

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE = 1e-5  # L1 change of ranks summing to 1: well below what reorders a map
MAX_SCORED_PAIRS = 20_000  # more (file, name) pairs than any map within its budget shows
SPECIFIC_NAME = re.compile(r"^(?=.{8,}$)(?:[a-z0-9]+_[a-z0-9_]+|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*)$")
SPECIFIC_FACTOR = 10.0
VAGUE_FACTOR = 0.1
MANY_DEFINERS = 5
SHORT_NAME = 4
PLAIN_WORD = re.compile(r"^[a-z]+$")

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class FileGraph:
    """Files (``paths``, indexed by position) and the edges between them, one per (user,
    definer, name): ``source``, ``target``, ``weight``, ``name`` (an index into ``names``).
    Derived once, for the rankings: ``share`` (an edge's part of its source's out-weight), the
    edges merged per (source, target) for PageRank (``link_*``), and the (target, name) pairs
    the flow is summed into (``pair_*``, ``pair_of_edge``)."""

    paths: tuple[str, ...]
    names: tuple[str, ...]
    source: IntArray
    target: IntArray
    weight: FloatArray
    name: IntArray
    defined: tuple[tuple[str, ...], ...]  # each file's distinct defined names
    share: FloatArray = field(init=False)
    link_source: IntArray = field(init=False)
    link_target: IntArray = field(init=False)
    link_weight: FloatArray = field(init=False)
    pair_target: IntArray = field(init=False)
    pair_name: IntArray = field(init=False)
    pair_of_edge: IntArray = field(init=False)
    uniform: list[RankedFiles] = field(default_factory=list, compare=False)  # rank()'s, once

    def __post_init__(self) -> None:
        size, names = len(self.paths), max(len(self.names), 1)
        out_weight = np.bincount(self.source, weights=self.weight, minlength=size)
        derived: dict[str, npt.NDArray[Any]] = {
            "share": self.weight / out_weight[self.source] if len(self.source) else self.weight
        }
        links, link_of_edge = np.unique(self.source * size + self.target, return_inverse=True)
        derived["link_source"], derived["link_target"] = np.divmod(links, max(size, 1))
        derived["link_weight"] = np.bincount(link_of_edge, weights=self.weight)
        pairs, pair_of_edge = np.unique(self.target * names + self.name, return_inverse=True)
        derived["pair_target"], derived["pair_name"] = np.divmod(pairs, names)
        derived["pair_of_edge"] = pair_of_edge
        for key, value in derived.items():
            object.__setattr__(self, key, value)  # frozen: set once, here

    @property
    def position(self) -> dict[str, int]:
        return {path: index for index, path in enumerate(self.paths)}


def name_factor(name: str, definers: int, *, member_only: bool = False) -> float:
    """How much a link through ``name`` says (see the module doc); ``member_only``: every
    definition of the name is inside a class or other container."""
    factor = 1.0
    if SPECIFIC_NAME.match(name):
        factor *= SPECIFIC_FACTOR
    if name.startswith("_") or len(name) <= SHORT_NAME:
        factor *= VAGUE_FACTOR
    if member_only and PLAIN_WORD.match(name):
        factor *= VAGUE_FACTOR
    if definers > MANY_DEFINERS:
        factor *= VAGUE_FACTOR
    return factor


def build_graph(index: SymbolIndex) -> FileGraph:
    """The graph of the index as it is now (see the module doc). The Python loop runs once per
    (file, name it uses); the edges to each definer are numpy arrays, repeated per use."""
    users: list[int] = []
    definer_arrays: list[IntArray] = []
    weights: list[float] = []
    name_ids: list[int] = []
    names: dict[str, int] = {}
    definers_of: dict[str, IntArray] = {}
    with index.locked() as view:
        paths = tuple(view.files)
        position = {path: number for number, path in enumerate(paths)}
        defined = tuple(
            tuple(dict.fromkeys(symbols.definition_names)) for symbols in view.files.values()
        )
        top_level = [
            {
                name
                for name, container in zip(
                    symbols.definition_names, symbols.definition_containers, strict=True
                )
                if not container
            }
            for symbols in view.files.values()
        ]
        for path, symbols in view.files.items():
            if not symbols.reference_names:
                continue
            user = position[path]
            for name, uses in Counter(symbols.reference_names).items():
                definers = definers_of.get(name)
                if definers is None:
                    holders = view.definition_files.get(name, ())
                    definers = definers_of[name] = np.fromiter(
                        (position[holder] for holder in holders), np.int64, len(holders)
                    )
                if not len(definers):
                    continue
                member_only = not any(name in top_level[d] for d in definers.tolist())
                factor = name_factor(name, len(definers), member_only=member_only)
                users.append(user)
                definer_arrays.append(definers)
                weights.append(math.sqrt(uses) * factor / len(definers))
                name_ids.append(names.setdefault(name, len(names)))
    counts = np.fromiter((len(each) for each in definer_arrays), np.int64, len(definer_arrays))
    source = np.repeat(np.asarray(users, dtype=np.int64), counts)
    target = np.concatenate(definer_arrays) if definer_arrays else np.zeros(0, np.int64)
    weight = np.repeat(np.asarray(weights, dtype=np.float64), counts)
    name_id = np.repeat(np.asarray(name_ids, dtype=np.int64), counts)
    other = source != target  # a file's uses of its own names are not edges
    return FileGraph(
        paths, tuple(names), source[other], target[other], weight[other], name_id[other], defined
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
    lifted = _weights(graph, boost)
    if restart is None and lifted is None and graph.uniform:
        return graph.uniform[0]
    ranks = pagerank(size, graph.link_source, graph.link_target, graph.link_weight, restart)
    scores: dict[tuple[str, str], float] = {}
    if len(graph.source):
        flow = np.bincount(graph.pair_of_edge, weights=ranks[graph.source] * graph.share)
        best = np.argsort(-flow)[:MAX_SCORED_PAIRS]  # only these can reach a map
        for target, name, value in zip(
            graph.pair_target[best].tolist(),
            graph.pair_name[best].tolist(),
            flow[best].tolist(),
            strict=True,
        ):
            scores[(graph.paths[target], graph.names[name])] = value
    if lifted is not None:
        for number in np.flatnonzero(lifted).tolist():
            path = graph.paths[number]
            defined = graph.defined[number]
            for name in defined:
                pair = (path, name)
                scores[pair] = scores.get(pair, 0.0) + float(lifted[number]) / len(defined)
    ranked = RankedFiles(dict(zip(graph.paths, ranks.tolist(), strict=True)), scores)
    if restart is None and lifted is None:
        graph.uniform.append(ranked)  # the graph is never changed: neither is its ranking
    return ranked
