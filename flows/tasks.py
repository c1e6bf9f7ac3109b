"""The steps of a corpus run as plain functions.

Each step is an ordinary function, testable without Prefect; :mod:`flows.corpus`
wraps them as Prefect tasks. Steps pass paths and document ids, never graphs:
a worker (thread, process or Dask worker) opens its own store connection and
reads the graphs it needs, so nothing big crosses a process boundary.

* :func:`dri.corpora.discover.discover_documents` lists the documents of a
  corpus folder and :func:`dri.corpora.discover.corpus_manifest` reads its pairs.
* :func:`extract_and_store` builds and stores one ROS graph. It is cached by
  ``graph_id`` (hash of the bytes plus the extractor version): a document
  whose graph is already stored is not parsed again.
* :func:`plan_pairs` chooses the comparisons (manifest, target, all pairs).
* :func:`map_and_store` maps and scores one pair and stores the result,
  unless the store already holds it for this run.
* :func:`write_summary` writes the run summary as JSON.
"""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing.util
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx

from dri import atomic
from dri.corpora.discover import corpus_manifest, discover, find_target
from dri.corpora.text import is_document, near_miss
from dri.errors import Failure, ProjectError, one_line, os_reason
from dri.extract import DocumentError, build_graphs, read_document
from dri.extract.document import content_ids
from dri.extract.reader import DEFAULT_MAX_BYTES
from dri.files import FileRefused, read_limited
from dri.flows.search import prune_pairs
from dri.flows.stage2 import cannot_reach
from dri.graphs import relation_nodes, restrict_to_sections
from dri.literal import storable
from dri.mapping.abstract_sentences import abstract_sentence_vectors
from dri.mapping.content import content_vector, graph_text, sentence_vectors
from dri.metrics import compare
from dri.settings import data_dir
from dri.store import ComparisonRecord, Store, StoreError, StoreUnavailable, open_store

__all__ = [
    "MODES",
    "RUN_MODES",
    "STORE_BROKEN_HINT",
    "STORE_DOWN_HINT",
    "Extracted",
    "PairResult",
    "Plan",
    "PlannedPair",
    "RunSummary",
    "discover_documents",
    "extract_and_store",
    "extract_batch",
    "kept_summary",
    "map_and_store",
    "map_batch",
    "plan_pairs",
    "plan_run",
    "save_summary",
    "store_mapped",
    "store_problem",
    "tiled_pairs",
    "worker_store",
    "write_summary",
]

MODES = ("manifest", "target", "all-pairs")
#: ``auto``: the corpus's manifest if it has one, else all pairs (for corpora that just arrived).
RUN_MODES = ("auto", *MODES)


# -- per-worker resources ------------------------------------------------------

_local = threading.local()


#: What to do when the store stops answering, in one line.
STORE_DOWN_HINT = StoreUnavailable.advice
#: What to do when the store answers but cannot be used (a bad file, URI or password; a full or read-only folder).
STORE_BROKEN_HINT = (
    "the store cannot be used: fix what the error names, then run the same command again; "
    "what was stored is kept and not redone"
)


def store_problem() -> StoreError | None:
    """``None`` if this process's store answers, else the error saying why not
    (one line; its ``advice`` says what to do, if it knows).

    Opening a Neo4j store that does not answer takes the retry window once;
    a store this process already gave up on answers at once."""
    try:
        store = worker_store()
        return None if store.available() else StoreUnavailable(store.location, "not answering")
    except StoreError as err:
        return err


def worker_store() -> Store:
    """This thread's own store connection, opened on first use.

    SQLite connections must not cross threads and nothing can cross
    processes, so every worker thread keeps one. The key includes the
    settings that choose the store, so a test that changes them gets a new one.
    """
    key = (os.getpid(), os.environ.get("DRI_DATA_DIR"), os.environ.get("NEO4J_URI"))
    if getattr(_local, "key", None) != key:
        _local.store, _local.key = open_store(), key
        with _opened_lock:
            _opened.append((os.getpid(), _local.store))
    store: Store = _local.store
    return store


def close_worker_stores() -> None:
    """Close the stores :func:`worker_store` opened in this process, as it exits.

    A SQLite store left open at exit kept everything written since in its
    ``-wal`` file, and a copy of ``dri.sqlite`` alone (a backup) held none of
    it; the last connection to close folds the WAL into the file. Stores a
    forked process inherited are its parent's, and are left alone."""
    with _opened_lock:
        mine = [store for pid, store in _opened if pid == os.getpid()]
        _opened[:] = [(pid, store) for pid, store in _opened if pid != os.getpid()]
    for store in mine:
        try:
            store.close()
        except Exception as err:  # at exit: nothing left to tell but the log
            logging.getLogger(__name__).debug("could not close %s: %s", store.location, one_line(err))


_opened: list[tuple[int, Store]] = []
_opened_lock = threading.Lock()
# Run at interpreter exit, and in a pool's worker processes too (which end
# without atexit's handlers).
multiprocessing.util.Finalize(None, close_worker_stores, exitpriority=10)


#: Sentences per ``nlp.pipe`` batch when a task parses its documents: the
#: extractor's own default, measured in ``bench/bench_extract.py``.
PARSE_BATCH = 64

_GRAPH_CACHE_SIZE = 256
#: Documents per block of :func:`tiled_pairs`: two blocks give at most 196
#: pairs, about one batch, touching 28 documents.
PAIR_TILE = 14
_GraphKey = tuple[int, str, tuple[str, ...] | None, str]
_graph_cache: OrderedDict[_GraphKey, nx.DiGraph] = OrderedDict()
_graph_lock = threading.Lock()


def _graph(store: Store, doc_id: str, sections: tuple[str, ...] | None, run_id: str) -> nx.DiGraph:
    """A stored graph, optionally restricted to ``sections``, with a small LRU
    cache: in an all-pairs run every graph is needed n-1 times. The run id is
    part of the key because a later run may have stored a newer graph of the
    same document (a new extractor version gives a new default run id)."""
    key = (id(store), doc_id, sections, run_id)
    with _graph_lock:
        if key in _graph_cache:
            _graph_cache.move_to_end(key)
            return _graph_cache[key]
    g = store.get_graph(doc_id)
    if g is None:
        raise LookupError(f"no stored graph for document {doc_id}")
    if sections:
        g = restrict_to_sections(g, sections)
    with _graph_lock:
        _graph_cache[key] = g
        while len(_graph_cache) > _GRAPH_CACHE_SIZE:
            _graph_cache.popitem(last=False)
    return g


# -- discovering ---------------------------------------------------------------


def discover_documents(corpus_dir: str, allow_outside_links: bool = False) -> tuple[list[str], list[str]]:
    """The documents of ``corpus_dir`` and one line per file refused
    (:func:`dri.corpora.discover.discover`)."""
    return discover(corpus_dir, allow_outside_links=allow_outside_links)


# -- extracting ----------------------------------------------------------------


@dataclass(frozen=True)
class Extracted:
    """One document of the run: its ids and whether it had to be parsed."""

    path: str
    doc_id: str
    graph_id: str
    parsed: bool
    seconds_parse: float = 0.0
    seconds_store: float = 0.0
    pid: int = field(default_factory=os.getpid)  # the worker process that did it


def _read_ids(path: str, inside: Path | None = None) -> tuple[str, str]:
    try:
        data = read_limited(path, DEFAULT_MAX_BYTES, inside=inside)
    except FileRefused as err:
        raise DocumentError(path, err.reason) from None
    return content_ids(data)


def _reuse(
    path: str, corpus: str, meta: dict[str, Any] | None, inside: Path | None = None
) -> Extracted | None:
    """The document as already stored (enrolled in ``corpus`` if it was not),
    or ``None`` if its bytes with this extractor version were never parsed."""
    doc_id, graph_id = _read_ids(path, inside)
    store = worker_store()
    started = time.perf_counter()
    if not store.has_graph(graph_id):
        return None
    name = str((meta or {}).get("name") or storable(Path(path).name))
    if not store.is_member(corpus, name, doc_id):
        # Parsed before (for another corpus, or under another name): enrol
        # it under this name in this corpus too, from the stored graph.
        store.put_document(corpus, store.get_graph(doc_id), meta={"name": name, **(meta or {})})
    return Extracted(path, doc_id, graph_id, parsed=False, seconds_store=time.perf_counter() - started)


#: Where long documents' work is announced (extract/build.py's progress log).
progress_log = logging.getLogger("dri.progress")
#: A document's characters from which its encoding is announced on the progress log
#: (about 5 s of the encoder; a 78,000-character text took 10 s without a line).
ENCODING_PROGRESS_CHARS = 40_000


def _put(
    path: str, corpus: str, meta: dict[str, Any] | None, graph: nx.DiGraph, seconds_parse: float
) -> Extracted:
    t = time.perf_counter()
    characters = len(graph_text(graph))
    if characters >= ENCODING_PROGRESS_CHARS:
        progress_log.info(
            "%s: %s characters parsed; the sentence encoder reads them", path, f"{characters:,}"
        )
    # The encoder reads each document once; its vectors are stored with it.
    content_vector(graph)
    sentence_vectors(graph)
    abstract_sentence_vectors(graph)
    seconds_parse += time.perf_counter() - t
    t = time.perf_counter()
    worker_store().put_document(corpus, graph, meta=dict(meta or {}))
    return Extracted(
        path,
        graph.graph["doc_id"],
        graph.graph.get("graph_id", ""),
        parsed=True,
        seconds_parse=seconds_parse,
        seconds_store=time.perf_counter() - t,
    )


def extract_and_store(
    path: str, corpus: str, meta: dict[str, Any] | None = None, inside: Path | None = None
) -> Extracted:
    """Build the ROS graph of ``path`` and store it under ``corpus``.

    Skips the parse when the store already has the graph for these bytes and
    this extractor version; the file is still read, because hashing its bytes
    is what tells an unchanged document from an edited one. Raises
    :class:`extract.DocumentError` (one line) for bad input; with ``inside``,
    also for a file that is not in that folder as opened.
    """
    known = _reuse(path, corpus, meta, inside)
    if known is not None:
        return known
    t = time.perf_counter()
    graph = next(build_graphs([read_document(path, inside=inside)]))
    return _put(path, corpus, meta, graph, time.perf_counter() - t)


def extract_batch(
    paths: Sequence[str], corpus: str, corpus_dir: str | Path, allow_outside_links: bool = False
) -> tuple[list[Extracted], list[Failure]]:
    """:func:`extract_and_store` over several documents: ``(stored, failures)``,
    one :class:`~dri.errors.Failure` per failed document; a bad document
    does not stop the others.

    The documents that need parsing go through one ``nlp.pipe`` stream
    (:func:`extract.build_graphs`, batches of :data:`PARSE_BATCH` sentences)
    rather than one pipeline call each. In-process parallelism
    (``n_process``) is left at 1: the batches already run in parallel workers.

    Unless ``allow_outside_links``, a file that leads out of ``corpus_dir`` when
    it is read fails, as discovery refuses a link out of it: one that became
    such a link after the folder was listed would have been read.
    """
    root = Path(corpus_dir).resolve()
    inside = None if allow_outside_links else root
    done: list[Extracted] = []
    failures: list[Failure] = []
    pending: list[tuple[str, dict[str, Any], Any]] = []
    for path in paths:
        # A name that is not UTF-8 is kept as its escape (dri.literal.storable): the stores take it.
        meta = {
            "name": storable(_relative(path, root)),
            "path": storable(str(path)),
            "corpus_dir": storable(str(root)),
        }
        try:
            known = _reuse(path, corpus, meta, inside)
            if known is not None:
                done.append(known)
            else:
                pending.append((path, meta, read_document(path, inside=inside)))
        except Exception as err:
            failures.append(Failure.of(path, "extract", one_line(err)))
    finished = 0
    try:
        t = time.perf_counter()
        for (path, meta, _), graph in zip(
            pending, build_graphs([d for _, _, d in pending], batch_size=PARSE_BATCH)
        ):
            finished += 1
            try:
                done.append(_put(path, corpus, meta, graph, time.perf_counter() - t))
            except Exception as err:
                failures.append(Failure.of(path, "store", one_line(err)))
            t = time.perf_counter()
    except Exception:
        # The shared stream broke on some document: the rest one by one, so only that one fails.
        for path, meta, _ in pending[finished:]:
            try:
                done.append(extract_and_store(path, corpus, meta, inside))
            except Exception as err:
                failures.append(Failure.of(path, "extract", one_line(err)))
    return done, failures


def _relative(path: str | Path, root: Path) -> str:
    # abspath, not resolve(): a link names the document, and a link loop must not raise here.
    try:
        return Path(os.path.abspath(path)).relative_to(root).as_posix()
    except ValueError:
        return str(path)


# -- planning ------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedPair:
    source_id: str
    target_id: str
    source: str  # path, for messages and the summary
    target: str
    group: str = ""


@dataclass
class Plan:
    pairs: list[PlannedPair]
    problems: list[Failure] = field(default_factory=list)
    stage1: dict[str, Any] = field(default_factory=dict)  # what stage 1 of the search pruned
    #: Each kept pair's place in its target's stage-1 ranking (target and manifest modes).
    ranks: dict[tuple[str, str], int] = field(default_factory=dict)


def prune_plan(
    plan: Plan,
    mode: str,
    corpus: str | None,
    *,
    candidates: int | None = None,
    top_per_document: int | None = None,
) -> Plan:
    """Stage 1 of the two-stage search over a plan (:func:`flows.search.prune_pairs`):
    ``candidates`` per target in target and manifest modes, ``top_per_document``
    in all-pairs mode. A plan that needs no pruning is returned unchanged."""
    if mode == "all-pairs":
        candidates = None
    else:
        top_per_document = None
    if not plan.pairs or (candidates is None and top_per_document is None):
        return plan
    ranks: dict[tuple[str, str], int] = {}
    kept, facts = prune_pairs(
        worker_store(),
        plan.pairs,
        candidates=candidates,
        top_per_document=top_per_document,
        corpus=corpus,
        ranks=ranks,
    )
    return Plan(pairs=kept, problems=plan.problems, stage1=facts, ranks=ranks)


#: How the failure of :func:`sections_problem` begins (``dri evaluate`` turns it into a usage error).
NO_SECTIONS = "no document has a sentence in the section(s)"
#: How a run's failure to plan its pairs (a bad manifest, an unknown target) begins.
NO_PLAN = "cannot plan pairs: "


def sections_problem(doc_ids: Sequence[str], sections: Sequence[str], corpus_dir: str) -> Failure | None:
    """A failure of the whole run when none of the stored documents ``doc_ids``
    has a relation in ``sections``, naming the sections they have; else None.

    Section names are open-ended (a PDF's headings are whatever its authors
    wrote), so an unknown name cannot be refused up front; but restricted to a
    section no document has, every graph is empty and every pair scores 0,
    which looked like a result. Looks no further than the first document that
    has one. A store that does not answer is left to the mapping to report.
    """
    wanted = {s.lower() for s in sections}
    seen: set[str] = set()
    try:
        store = worker_store()
        for doc_id in doc_ids:
            graph = store.get_graph(doc_id)
            if graph is None:
                continue
            names = {
                s.lower() for rel in relation_nodes(graph) for s in graph.nodes[rel].get("sections") or ()
            }
            if names & wanted:
                return None
            seen |= names
    except Exception:
        return None
    have = (
        ", ".join(sorted(seen)[:12]) + (", …" if len(seen) > 12 else "")
        if seen
        else "none (no headings found)"
    )
    reason = (
        f"{NO_SECTIONS} {', '.join(sorted(wanted))}, so every pair would score 0; "
        f"the sections the documents have: {have}"
    )
    return Failure(corpus_dir, "plan", reason, scope="run")


def _not_a_document(path: str, root: str | None) -> str | None:
    """Why a path of a manifest is no document of the corpus folder ``root``, or
    ``None`` for a document (one that failed says so in its own line): the run
    said "skipped, no graph for" a path that does not exist as much as for one
    whose text failed."""
    if not os.path.lexists(path):
        return "listed in the manifest, but there is no such file"
    if os.path.isdir(path):
        return "listed in the manifest, but a folder, not a document"
    # Its own place, not where a link leads: a link in the folder is refused by the walk, with its line.
    listed = os.path.abspath(path)
    if root is not None and not listed.startswith(os.path.realpath(root) + os.sep):
        return "listed in the manifest, but outside the corpus folder, whose documents a manifest names"
    if not is_document(path):
        return "listed in the manifest, but not a .txt or .pdf document"
    return None


def plan_run(
    mode: str,
    documents: dict[str, str],
    corpus_dir: str,
    target: str | None,
    corpus: str | None = None,
    search: dict[str, Any] | None = None,
) -> Plan:
    """:func:`plan_pairs` for a run, then stage 1 of the search (:func:`prune_plan`);
    a missing or bad manifest or an unknown target is one problem of the plan
    (a line in the summary), not an exception."""
    try:
        manifest, problems = corpus_manifest(corpus_dir) if mode == "manifest" else (None, [])
        plan = plan_pairs(mode, documents, manifest=manifest, target=target, root=corpus_dir)
    except Exception as err:
        failure = Failure(corpus_dir, "plan", f"{NO_PLAN}{one_line(err)}", scope="run")
        return Plan(pairs=[], problems=[failure])
    plan.problems[:0] = [Failure.from_line(problem, "plan") for problem in problems]
    return prune_plan(plan, mode, corpus, **(search or {}))


class UnknownTarget(ProjectError, LookupError):
    """A ``--target`` that names no document of the corpus: a user's error, said
    without the class name ("LookupError: target ..." read as a bug)."""


def plan_pairs(
    mode: str,
    documents: dict[str, str],
    *,
    manifest: Sequence[tuple[str, str, str]] | None = None,
    target: str | None = None,
    root: str | None = None,
) -> Plan:
    """The comparisons of a run.

    ``documents`` maps each successfully stored document's path to its doc_id.
    ``mode``:

    * ``manifest``: the ``(source, target, group)`` rows of ``manifest``;
    * ``target``: every other document (source) against ``target`` (a path,
      a file name or a doc_id), as in the paper's analogy search;
    * ``all-pairs``: every unordered pair once, the earlier path as source.

    Pairs whose documents failed (or are missing) are left out and named in
    ``problems``; a manifest's path that is no document of the folder
    ``root`` (no such file, a folder, outside it, not a .txt or .pdf) is a
    problem of its own, which its pairs' lines join. Documents with
    identical bytes share a doc_id and are compared once, except in a
    manifest, which says exactly what it wants.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    plan = Plan(pairs=[])
    if mode == "manifest":
        if manifest is None:
            raise ValueError("mode 'manifest' needs the manifest rows")
        named: set[str] = set()
        # A row may name the file a link in the folder leads to (--allow-outside-links):
        # the document is the link, under its own name.
        linked = {os.path.realpath(p): p for p in sorted(documents, reverse=True)}
        for source, tgt, group in manifest:
            source, tgt = (p if p in documents else linked.get(p, p) for p in (source, tgt))
            missing = [p for p in (source, tgt) if p not in documents]
            for path in missing:
                why = _not_a_document(path, root)
                if why and path not in named:  # its pairs' lines join this one
                    named.add(path)
                    plan.problems.append(Failure(path, "plan", why, scope="document"))
            if missing:
                reason = f"skipped, no graph for {', '.join(missing)}"
                plan.problems.append(Failure(source, "plan", reason, target=tgt, scope="pair"))
                continue
            plan.pairs.append(PlannedPair(documents[source], documents[tgt], source, tgt, group))
        return plan

    by_id: dict[str, str] = {}
    for path in sorted(documents):
        by_id.setdefault(documents[path], path)  # first path names a duplicated text
    if mode == "target":
        if not target:
            raise ValueError("mode 'target' needs a target document")
        target_path = find_target(target, documents)
        if target_path is None:
            hint = near_miss(Path(target).name, (Path(p).name for p in documents))
            raise UnknownTarget(f"target {target!r} is not a stored document of this corpus{hint}")
        target_id = documents[target_path]
        plan.pairs = [
            PlannedPair(doc_id, target_id, path, target_path, "target")
            for doc_id, path in by_id.items()
            if doc_id != target_id
        ]
        return plan
    items = sorted(by_id.items(), key=lambda kv: kv[1])
    plan.pairs = [
        PlannedPair(items[i][0], items[j][0], items[i][1], items[j][1], "all-pairs")
        for i, j in tiled_pairs(len(items))
    ]
    return plan


def tiled_pairs(n: int, tile: int = PAIR_TILE) -> Iterator[tuple[int, int]]:
    """Every ``(i, j)`` with ``i < j < n``, tile by tile.

    The pairs between two blocks of ``tile`` documents come together, so a
    batch of consecutive pairs needs the graphs of a few dozen documents,
    which the worker's graph cache holds, instead of sweeping the whole
    corpus as row-by-row order does (all pairs of 1,000 documents in rows
    spent a third of their time re-reading graphs).

    >>> sorted(tiled_pairs(5, tile=2)) == [(i, j) for i in range(5) for j in range(i + 1, 5)]
    True
    """
    for first in range(0, n, tile):
        for second in range(first, n, tile):
            for i in range(first, min(first + tile, n)):
                for j in range(max(second, i + 1), min(second + tile, n)):
                    yield i, j


# -- mapping -------------------------------------------------------------------


@dataclass(frozen=True)
class PairResult:
    """What happened to one pair; ``scores`` is None when skipped or failed."""

    source_id: str
    target_id: str
    scores: dict[str, float] | None = None
    skipped: bool = False
    error: str | None = None
    #: Not mapped: its bound on AS could not reach the top k (:mod:`flows.stage2`).
    pruned: bool = False
    seconds_load: float = 0.0
    seconds_map: float = 0.0
    seconds_store: float = 0.0
    pid: int = field(default_factory=os.getpid)
    #: The comparison to store, when whoever asked stores it (:func:`map_batch`'s ``store_here``).
    record: ComparisonRecord | None = None


def map_and_store(source_id: str, target_id: str, run_id: str, params: dict[str, Any]) -> PairResult:
    """Map and score one pair and store the result under ``run_id``.

    A pair already stored for ``run_id`` is skipped, which is what makes a
    repeated run store nothing twice. ``params['sections']``, if given,
    restricts both graphs to those sections first; ``params['mapping']`` is
    passed to :func:`metrics.compare` as keyword arguments.
    """
    (result,) = map_batch([(source_id, target_id)], run_id, params)
    if result.error:
        raise RuntimeError(result.error)
    return result


def map_batch(
    pairs: Iterable[tuple[str, str]],
    run_id: str,
    params: dict[str, Any],
    threshold: float | None = None,
    store_here: bool = True,
) -> list[PairResult]:
    """:func:`map_and_store` over several pairs; a failing pair is reported
    in its :class:`PairResult` and the others carry on. With ``threshold``, a
    pair whose bound on AS is below it is not mapped (``pruned``; :func:`flows.stage2.cannot_reach`).
    With ``store_here`` false each result carries its record instead, for the
    caller's :func:`store_mapped` (a pool worker then maps on while its
    parent writes).

    The batch asks the store once which pairs it already holds and writes its
    results in one transaction (a commit per pair would cost more than the
    mapping of two short texts). If that write fails, each result is written
    on its own, so one bad record does not cost the others.
    """
    pairs = list(pairs)
    store = worker_store()
    t0 = time.perf_counter()
    try:
        stored = store.stored_pairs(pairs, run_id)
    except Exception as err:
        return [PairResult(s, t, error=one_line(err)) for s, t in pairs]
    lookup = (time.perf_counter() - t0) / max(len(pairs), 1)
    sections = tuple(params["sections"]) if params.get("sections") else None
    results: list[PairResult] = []
    records: dict[int, ComparisonRecord] = {}
    for source_id, target_id in pairs:
        if (source_id, target_id) in stored:
            results.append(PairResult(source_id, target_id, skipped=True, seconds_store=lookup))
            continue
        try:
            t1 = time.perf_counter()
            source = _graph(store, source_id, sections, run_id)
            target = _graph(store, target_id, sections, run_id)
            t2 = time.perf_counter()
            if threshold is not None and cannot_reach(source, target, params.get("mapping"), threshold):
                results.append(PairResult(source_id, target_id, pruned=True, seconds_load=t2 - t1 + lookup))
                continue
            comparison = compare(source, target, **(params.get("mapping") or {}))
            t3 = time.perf_counter()
        except Exception as err:
            results.append(PairResult(source_id, target_id, error=one_line(err)))
            continue
        scores = asdict(comparison.scores)
        records[len(results)] = ComparisonRecord(
            source_id=source_id,
            target_id=target_id,
            run_id=run_id,
            params=dict(params),
            scores=scores,
            pairs=[asdict(p) for p in comparison.mapping.pairs],
            inferences=[ci.to_dict() for ci in comparison.inferences],
            mapping_seconds=t3 - t2,  # for the evaluation reports' mapping_seconds column
        )
        results.append(
            PairResult(
                source_id, target_id, scores=dict(scores), seconds_load=t2 - t1 + lookup, seconds_map=t3 - t2
            )
        )
    if not store_here:
        return [replace(r, record=records.get(i)) for i, r in enumerate(results)]
    for i, outcome in _store_batch(store, records).items():
        results[i] = replace(results[i], **outcome)
    return results


def store_mapped(results: list[PairResult]) -> list[PairResult]:
    """Store the records ``results`` carry (:func:`map_batch` with ``store`` false)
    in one transaction, as :func:`map_batch` does; the results without them."""
    records = {i: r.record for i, r in enumerate(results) if r.record is not None}
    outcomes = _store_batch(worker_store(), records) if records else {}
    return [replace(r, record=None, **outcomes.get(i, {})) for i, r in enumerate(results)]


def _store_batch(store: Any, records: dict[int, ComparisonRecord]) -> dict[int, dict[str, Any]]:
    """Write the batch's records in one transaction, or one by one if that
    fails; per record, the fields of its :class:`PairResult` to update."""
    if not records:
        return {}
    t0 = time.perf_counter()
    try:
        store.put_comparisons(list(records.values()))
    except Exception:
        outcomes: dict[int, dict[str, Any]] = {}
        for i, record in records.items():
            t1 = time.perf_counter()
            try:
                store.put_comparison(record)
                outcomes[i] = {"seconds_store": time.perf_counter() - t1}
            except Exception as err:
                outcomes[i] = {
                    "scores": None,
                    "error": one_line(err),
                    "seconds_store": time.perf_counter() - t1,
                }
        return outcomes
    share = (time.perf_counter() - t0) / len(records)
    return {i: {"seconds_store": share} for i in records}


# -- summarising ---------------------------------------------------------------


@dataclass
class RunSummary:
    """What a corpus run did; written as JSON and shown by ``dri run``."""

    run_id: str
    corpus: str
    corpus_dir: str
    mode: str
    params: dict[str, Any]
    documents: int = 0
    parsed: int = 0
    reused: int = 0
    pairs: int = 0
    mapped: int = 0
    already_stored: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    top: list[dict[str, Any]] = field(default_factory=list)
    stage1: dict[str, Any] = field(default_factory=dict)
    worker_pids: list[int] = field(default_factory=list)
    summary_path: str | None = None
    #: One line saying what to do, when the run stopped early (e.g. the store went away).
    advice: str = ""

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def state(self) -> str:
        return "completed" if self.ok else "partial failure"

    @property
    def did_nothing(self) -> bool:
        """Whether the run failed before any document was read or any pair found
        (the store could not be used, every document was refused)."""
        return bool(self.failures) and not (self.parsed or self.reused or self.mapped or self.already_stored)

    def headline(self) -> str:
        text = (
            f"run {self.run_id}: {self.documents} documents ({self.parsed} parsed, {self.reused} unchanged), "
            f"{self.pairs} pairs ({self.mapped} mapped, {self.already_stored} already stored"
            + (f", {self.stage1['pruned']} out of reach of the top" if self.stage1.get("pruned") else "")
            + ")"
        )
        return text + (f", {len(self.failures)} failed" if self.failures else "")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "failures": [f.to_dict() for f in self.failures], "state": self.state}


def save_summary(summary: RunSummary) -> tuple[str, Failure | None]:
    """``(path of the summary, None)``, or ``("", why not)`` when the data folder
    cannot take it (full, read-only): the run's summary is shown all the same."""
    try:
        return str(write_summary(summary)), None
    except OSError as err:
        reason = f"cannot write the run summary: {os_reason(err)}"
        return "", Failure(str(err.filename or "run summary"), "summary", reason, scope="run")


#: The longest summary name kept whole, in bytes: a file name takes 255, and the
#: temporary name it is written under adds ``.``, ``.json`` and ``.PID-RANDOM.tmp``.
MAX_SUMMARY_NAME_BYTES = 200


#: What a summary's file name does not take of a run id: what no file name can hold
#: (``/``, and ``:`` on some systems) and control characters (a line break made a
#: file name of two lines, which a shell or a script reading names line by line splits).
_NOT_IN_FILE_NAMES = re.compile("[/:\x00-\x1f\x7f-\x9f]")


def summary_name(run_id: str) -> str:
    """The file name (without ``.json``) of a run's summary: the run id, or, if it
    holds a character a file name cannot (``/``, ``:``) or a control character, the
    id with those as ``_`` and a hash of the id, so that runs ``a/b`` and ``a_b``
    keep a summary each.
    An id longer than a file name can be (``--run-id`` of 5,000 characters) is
    cut to :data:`MAX_SUMMARY_NAME_BYTES` before its hash: the run was mapped and
    stored, then its summary failed with "File name too long"."""
    name = _NOT_IN_FILE_NAMES.sub("_", run_id)
    encoded = name.encode("utf-8", "surrogatepass")
    if name == run_id and len(encoded) <= MAX_SUMMARY_NAME_BYTES:
        return name
    digest = hashlib.sha1(run_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    if len(encoded) > MAX_SUMMARY_NAME_BYTES:
        name = encoded[:MAX_SUMMARY_NAME_BYTES].decode("utf-8", "ignore")
    return f"{name}-{digest}"


#: The folder (under the summaries') of the summaries of runs that did nothing.
FAILED_SUMMARIES = "failed"


def write_summary(summary: RunSummary, out_dir: str | Path | None = None) -> Path:
    """Write ``summary`` to ``<out_dir>/<run_id>.json`` (default ``data_dir()/runs``),
    or, for a run that did nothing (:attr:`RunSummary.did_nothing`), to
    ``<out_dir>/failed/<run_id>.json``: a run failing at once replaced the summary
    of the corpus's last run that did something. A run id holds no ``/``
    (:func:`summary_name`), so no run's summary is that folder's."""
    if out_dir is None:
        out_dir = data_dir() / "runs"
    out_dir = Path(out_dir)
    if summary.did_nothing:
        out_dir = out_dir / FAILED_SUMMARIES
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{summary_name(summary.run_id)}.json"
    summary.summary_path = str(path)
    # Two runs of one corpus may end together: each writes the whole file.
    atomic.write_text(path, json.dumps(summary.to_dict(), indent=1, sort_keys=True, default=str))
    return path


def kept_summary(summary: RunSummary) -> Path | None:
    """The summary of the last run of ``summary``'s id that did something, kept
    beside the one ``summary`` (a run that did nothing) was written to; else None."""
    if not summary.did_nothing or not summary.summary_path:
        return None
    written = Path(summary.summary_path)
    kept = written.parent.parent / written.name
    return kept if written.parent.name == FAILED_SUMMARIES and kept.is_file() else None
