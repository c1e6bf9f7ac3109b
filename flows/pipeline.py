"""The corpus run as a pipeline of plain steps, on whatever runner it is given.

:func:`run_pipeline` is the body of the corpus flow: discover the documents,
extract and store their graphs in batches, plan the pairs, map and store
them in batches, write the summary. Each step is a plain function of
:mod:`flows.tasks` that takes and returns paths and ids; the
:class:`~flows.execution.Runner` decides where it runs (here, or as a
Prefect task on a pool or a Dask cluster). Nothing here imports Prefect.

Work is submitted in batches of documents and of pairs. A Prefect task costs
about 0.1 s of orchestration on a process pool (measured in
``bench/bench_flows.py``), ten times the mapping of a pair of short texts,
so one task per pair would spend most of the run orchestrating.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import heapq
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from dri.corpora.discover import discover, has_manifest
from dri.errors import Failure, one_line
from dri.extract import EXTRACTOR_VERSION
from dri.extract.document import content_ids
from dri.extract.reader import DEFAULT_MAX_BYTES
from dri.files import FileRefused, read_limited
from dri.flows import replaced
from dri.flows import tasks as steps
from dri.flows.corpus_settings import CorpusSettings
from dri.flows.execution import InProcess, ProcessPool, RunLogger, Runner
from dri.flows.failures import ReportedFailure
from dri.flows.progress import Reporter
from dri.flows.stage2 import POOL_MIN, warm_worker
from dri.literal import storable
from dri.mapping.profiles import get_profile
from dri.metrics.scores import SCORES_VERSION
from dri.quiet_logs import FAILURE
from dri.settings import INLINE_MAX_PAIRS, INLINE_MAX_PARSE, setting
from dri.store import StoreError

__all__ = [
    "PartialFailure",
    "Run",
    "RunState",
    "default_run_id",
    "end_state",
    "run_corpus",
    "run_inline",
    "run_pipeline",
    "small_job",
]

# At least this many batches per worker, so a slow batch does not leave the
# other workers idle at the end; at most this many items per batch, so the
# progress bar and the logs still move. A batch of 20 documents or 200 pairs
# is a second or two of work against ~0.1 s of orchestration per task.
T = TypeVar("T")

_BATCHES_PER_WORKER = 4
_MAX_DOCUMENTS_PER_BATCH = 20
_MAX_PAIRS_PER_BATCH = 200
# Pairs per worker in each wave of a search's stage 2 after the first k: the
# k-th best AS is brought up to date between waves.
_PAIRS_PER_WAVE = 8
# A search's own pool: batches in flight per worker, and the smallest batch. Each
# batch is a share of the pairs left (guided scheduling): big ones first, as each
# batch's write costs I/O (the pairs' index pages), small ones at the end, so
# neither worker idles while the other maps a last batch of 30 stories (a second or more).
_POOL_IN_FLIGHT = 2
_POOL_BATCH = 2
# Best pairs kept for the run summary.
_TOP = 10
#: The heap of the best pairs a run mapped: ``(analogy similarity, source id, target id, scores)``.
TopPairs = list[tuple[float, str, str, dict[str, float]]]


#: Bytes of a default run id before its digest: the stores index the id, with two
#: document ids after it, in a key of at most about 8 KB.
_RUN_ID_NAME_BYTES = 1000


def default_run_id(corpus: str, mode: str, target: str | None, params: dict[str, Any]) -> str:
    """``<corpus>-<mode>[-<target>]-<hash>``; the hash covers everything that
    changes the results, so equal inputs give the same id. The mapping
    profile counts by its fields, not its name, and the extractor's and the
    scores' versions count too: a profile whose fields change, or a release
    whose scores are defined otherwise, gives a new result set, and the
    comparisons stored under the old ones are not read back as its results."""
    fields: dict[str, Any] = {"corpus": corpus, "mode": mode, "target": target, "params": params}
    profile = (params.get("mapping") or {}).get("profile")
    if profile is not None:
        fields["profile"] = asdict(get_profile(profile))
    versions = {"extractor": EXTRACTOR_VERSION, "scores": SCORES_VERSION}
    key = json.dumps({**fields, **versions}, sort_keys=True, default=str)
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    named = "-".join([storable(corpus), mode] + ([storable(Path(target).stem)] if target else []))
    # Cut to fit an index key with the ids a comparison adds (the digest keeps it one
    # run's): a long corpus name and target name made one of 7,519 characters, which
    # Neo4j refused for every pair ("Property value is too large to index").
    named = named.encode("utf-8")[:_RUN_ID_NAME_BYTES].decode("utf-8", "ignore")
    return f"{named}-{digest}"


def _batches(items: Sequence[T], batch_size: int | None, workers: int, largest: int) -> list[list[T]]:
    if not items:
        return []
    size = batch_size or max(1, min(largest, math.ceil(len(items) / (workers * _BATCHES_PER_WORKER))))
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


@dataclass
class Run:
    """One corpus run under way: what it was asked, where its steps run, and
    what it has done so far (the summary, seconds per step, worker pids)."""

    settings: CorpusSettings
    runner: Runner
    summary: steps.RunSummary
    workers: int
    seconds: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            ("parse", "store_graphs", "load_graphs", "map", "store_results"), 0.0
        )
    )
    pids: set[int] = field(default_factory=set)
    #: A search's own pool of processes, started early (:func:`start_own_pool`).
    pool: ProcessPool | None = None

    @classmethod
    def start(cls, settings: CorpusSettings, runner: Runner) -> Run:
        root = settings.root
        mode = settings.mode
        if mode == "auto":
            mode = "manifest" if has_manifest(root) else ("target" if settings.target else "all-pairs")
        params: dict[str, Any] = {
            "sections": sorted(settings.sections) if settings.sections else None,
            "mapping": {"profile": get_profile(settings.profile).name},
        }
        corpus = settings.corpus_name
        # A --run-id typed in bytes that are not UTF-8 is kept as its escape, like a corpus name.
        run_id = storable(settings.run_id or default_run_id(corpus, mode, settings.target, params))
        summary = steps.RunSummary(run_id=run_id, corpus=corpus, corpus_dir=root, mode=mode, params=params)
        return cls(settings, runner, summary, runner.workers())

    @property
    def logger(self) -> RunLogger:
        return self.runner.logger

    def failed(self, failures: list[Failure]) -> None:
        """Add ``failures`` to the summary and log each, as they arrive (the
        record itself rides along in the log record, :data:`dri.quiet_logs.FAILURE`)."""
        self.summary.failures.extend(failures)
        for failure in failures:
            self.logger.log(self.runner.failure_level, "%s", failure, extra={FAILURE: failure})

    def stopped(self, down: StoreError, what: str) -> None:
        """The store stopped the run: one failure of the whole run."""
        self.summary.failures.append(Failure(down.where, "store", f"{down.reason}; {what}", scope="run"))


def extract_stage(run: Run, paths: list[str]) -> dict[str, str]:
    """Steps 2-3 in parallel batches; ``{path: doc_id}`` of the stored documents."""
    summary, seconds = run.summary, run.seconds
    documents: dict[str, str] = {}
    progress = Reporter("parse", len(paths), run.logger)
    batches = _batches(paths, run.settings.batch_size, run.workers, _MAX_DOCUMENTS_PER_BATCH)
    futures = [
        run.runner.submit(
            steps.extract_batch, b, summary.corpus, summary.corpus_dir, run.settings.allow_outside_links
        )
        for b in batches
    ]
    for future in run.runner.as_completed(futures):
        try:
            done, failures = future.result()
        except Exception as err:  # a whole batch lost, e.g. a worker died
            reason = f"extraction batch failed: {one_line(err)}"
            done, failures = [], [Failure(summary.corpus_dir, "extract", reason, scope="batch")]
        run.failed(failures)
        for item in done:
            documents[item.path] = item.doc_id
            summary.parsed += item.parsed
            summary.reused += not item.parsed
            seconds["parse"] += item.seconds_parse
            seconds["store_graphs"] += item.seconds_store
            run.pids.add(item.pid)
        progress.advance(len(done), len(failures))
    return documents


def map_stage(run: Run, plan: steps.Plan, top: TopPairs | None = None) -> None:
    """Steps 5-6 in parallel batches.

    Batches are submitted in waves of a few per worker, so that a run of
    hundreds of thousands of pairs holds the results of one wave at a time,
    not of the whole run; ``top`` (a heap) keeps the :data:`_TOP` best pairs
    mapped, for the summary.
    """
    names = {p.source_id: p.source for p in plan.pairs} | {p.target_id: p.target for p in plan.pairs}
    progress = Reporter("map", len(plan.pairs), run.logger)
    ids = list(dict.fromkeys((p.source_id, p.target_id) for p in plan.pairs))
    # A search's candidates, in a run in this process (small_job), go to a pool.
    with _own_pool(run, len(ids) if run.summary.mode == "target" else 0) as own:
        if own:
            batches = (
                _guided(ids, run.workers)
                if run.settings.batch_size is None
                else _batches(ids, run.settings.batch_size, run.workers, _MAX_PAIRS_PER_BATCH)
            )
            _map_streamed(run, batches, names, progress, top)
            return
        batches = _batches(ids, run.settings.batch_size, run.workers, _MAX_PAIRS_PER_BATCH)
        wave = max(2, run.workers * _BATCHES_PER_WORKER)
        for start in range(0, len(batches), wave):
            _map_wave(run, batches[start : start + wave], names, progress, top)


def map_in_order(run: Run, plan: steps.Plan, top: TopPairs, k: int) -> None:
    """Steps 5-6 of one target's search: the pairs in stage-1 order, in waves,
    each batch sent with the ``k``-th best AS mapped so far, below which a
    pair's bound keeps it from being mapped (:mod:`flows.stage2`): the top
    ``k`` is the one mapping every pair gives. Many pairs in a run in this
    process go to a pool of processes (both cores)."""
    pairs = sorted(plan.pairs, key=lambda p: plan.ranks.get((p.source_id, p.target_id), len(plan.ranks)))
    names = {p.source_id: p.source for p in pairs} | {p.target_id: p.target for p in pairs}
    progress = Reporter("map", len(pairs), run.logger)
    ids = [(p.source_id, p.target_id) for p in pairs]
    best: list[float] = []  # a min-heap of the k best AS so far
    with _own_pool(run, len(ids)):
        # The first k at once (the threshold needs them), then waves of a few pairs per worker.
        start, size = 0, max(k, run.workers)
        while start < len(ids):
            wave = ids[start : start + size]
            width = max(1, -(-len(wave) // run.workers))
            batches = [wave[i : i + width] for i in range(0, len(wave), width)]
            threshold = best[0] if len(best) >= k else None
            _map_wave(run, batches, names, progress, top, threshold, best, k)
            start, size = start + len(wave), run.workers * _PAIRS_PER_WAVE


def _wants_pool(run: Run, pairs: int) -> bool:
    runner = run.runner
    own = isinstance(runner, InProcess) and not isinstance(runner, ProcessPool)
    return own and pairs > POOL_MIN and run.workers > 1


def start_own_pool(run: Run, documents: int) -> None:
    """Start the pool a search in this process will map its candidates on
    (:func:`_own_pool`) now, at the start of the run, when its documents make
    enough candidates: the workers import the mapper and load WordNet
    (:func:`flows.stage2.warm_worker`, about 0.5 s of CPU each) while this
    process finds the candidates, instead of after it."""
    settings = run.settings
    if run.summary.mode != "target" or not settings.target or run.pool is not None:
        return
    candidates = settings.search()["candidates"]
    if _wants_pool(run, min(documents - 1, candidates or documents)):
        run.pool = ProcessPool(run.workers, initializer=warm_worker).start()


def close_own_pool(run: Run, wait: bool = True) -> None:
    if run.pool is not None:
        run.pool.close(wait=wait)
        run.pool = None


@contextlib.contextmanager
def _own_pool(run: Run, pairs: int) -> Iterator[bool]:
    """Many pairs of a run in this process mapped on a pool of processes (both
    cores), the run's own if it started one (:func:`start_own_pool`); whether
    they are. On Ctrl-C or an error the pool does not wait for what is in flight."""
    runner = run.runner
    pool = None
    if _wants_pool(run, pairs):
        pool = run.pool or ProcessPool(run.workers, initializer=warm_worker)
        run.pool = None
        run.runner = pool
    finished = False
    try:
        yield pool is not None
        finished = True
    finally:
        run.runner = runner
        if pool is not None:
            pool.close(wait=finished)


def _guided(items: Sequence[T], workers: int) -> list[list[T]]:
    """``items`` in batches of a quarter of what is left per worker, from
    :data:`_MAX_PAIRS_PER_BATCH` down to :data:`_POOL_BATCH`.

    >>> [len(b) for b in _guided(list(range(40)), 2)]
    [5, 5, 4, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2]
    """
    batches, start = [], 0
    while start < len(items):
        left = len(items) - start
        size = min(left, _MAX_PAIRS_PER_BATCH, max(_POOL_BATCH, -(-left // (4 * workers))))
        batches.append(list(items[start : start + size]))
        start += size
    return batches


def _map_streamed(
    run: Run,
    batches: list[list[tuple[str, str]]],
    names: dict[str, str],
    progress: Reporter,
    top: TopPairs | None,
) -> None:
    """The batches on a pool, a few in flight per worker, the next sent as one
    returns (no wave waits for its slowest batch)."""
    summary = run.summary
    queue = iter(batches)
    pending: set[concurrent.futures.Future[Any]] = set()
    while True:
        for batch in itertools.islice(queue, run.workers * _POOL_IN_FLIGHT - len(pending)):
            # The workers map on while this process, otherwise idle, writes their results.
            args = (batch, summary.run_id, summary.params, None, False)
            pending.add(run.runner.submit(steps.map_batch, *args))
        if not pending:
            return
        done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
        for future in done:
            _take_batch(run, future, names, progress, top, store=True)


def _map_wave(
    run: Run,
    batches: list[list[tuple[str, str]]],
    names: dict[str, str],
    progress: Reporter,
    top: TopPairs | None,
    threshold: float | None = None,
    best: list[float] | None = None,
    k: int = 0,
) -> None:
    summary = run.summary
    extra = (threshold,) if threshold is not None else ()
    futures = [run.runner.submit(steps.map_batch, b, summary.run_id, summary.params, *extra) for b in batches]
    for future in run.runner.as_completed(futures):
        _take_batch(run, future, names, progress, top, best, k)


def _take_batch(
    run: Run,
    future: Any,
    names: dict[str, str],
    progress: Reporter,
    top: TopPairs | None,
    best: list[float] | None = None,
    k: int = 0,
    store: bool = False,
) -> None:
    """Count and keep one mapped batch's results (its failures logged); with
    ``store``, write the records they carry first (:func:`flows.tasks.store_mapped`)."""
    summary, seconds = run.summary, run.seconds
    try:
        results = future.result()
        if store:
            results = steps.store_mapped(results)
    except Exception as err:  # a whole batch lost
        reason = f"mapping batch failed: {one_line(err)}"
        run.failed([Failure(summary.corpus_dir, "map", reason, scope="batch")])
        return
    failed = 0
    for r in results:
        if r.error:
            failed += 1
            source, target = names.get(r.source_id, r.source_id), names.get(r.target_id, r.target_id)
            run.failed([Failure(source, "map", r.error, target=target, scope="pair")])
        elif r.skipped:
            summary.already_stored += 1
        elif r.pruned:
            summary.stage1["pruned"] = summary.stage1.get("pruned", 0) + 1
        else:
            summary.mapped += 1
            if best is not None:
                value = r.scores["analogy_similarity"]
                (heapq.heappush if len(best) < k else heapq.heappushpop)(best, value)
            if top is not None:
                item = (r.scores["analogy_similarity"], r.source_id, r.target_id, r.scores)
                (heapq.heappush if len(top) < _TOP else heapq.heappushpop)(top, item)
        seconds["load_graphs"] += r.seconds_load
        seconds["map"] += r.seconds_map
        seconds["store_results"] += r.seconds_store
        run.pids.add(r.pid)
    progress.advance(len(results) - failed, failed)


def _best(
    run_id: str,
    planned: dict[tuple[str, str], steps.PlannedPair],
    k: int = 10,
    streamed: TopPairs | None = None,
) -> list[dict[str, Any]]:
    """The ``k`` planned pairs with the highest analogy similarity in the
    result set, whether mapped by this run or an earlier one. ``streamed``,
    the heap of a run that mapped every pair itself, saves reading them all back."""
    if not planned:
        return []
    if streamed is not None:
        ranked = [(a, b, scores) for _, a, b, scores in sorted(streamed, key=lambda x: (-x[0], x[1], x[2]))]
    else:
        rows = [
            r
            for r in steps.worker_store().comparisons(run_id=run_id)
            if (r.source_id, r.target_id) in planned
        ]
        rows.sort(key=lambda r: (-r.scores["analogy_similarity"], r.source_id, r.target_id))
        ranked = [(r.source_id, r.target_id, r.scores) for r in rows]
    best = []
    for a, b, scores in ranked[:k]:
        p = planned[(a, b)]
        best.append({"source": p.source, "target": p.target, "group": p.group, **scores})
    return best


def _sections_problem(run: Run, documents: dict[str, str]) -> Failure | None:
    """The run's failure if it compares sections that none of ``documents`` has (:func:`steps.sections_problem`)."""
    sections = run.settings.sections
    if not sections or not documents:
        return None
    found: Failure | None = run.runner.call(
        steps.sections_problem, list(documents.values()), list(sections), str(run.summary.corpus_dir)
    )
    return found


def _timed(run: Run, name: str, started: float) -> None:
    run.seconds[name] = time.perf_counter() - started


def _map_planned(run: Run, documents: dict[str, str]) -> StoreError | None:
    """Steps 4-6: plan the pairs, map and store them, keep the best for the
    summary; the store's error if it stopped answering meanwhile."""
    summary, settings = run.summary, run.settings
    t = time.perf_counter()
    plan = run.runner.call(
        steps.plan_run,
        summary.mode,
        documents,
        summary.corpus_dir,
        settings.target,
        summary.corpus,
        settings.search(),
    )
    run.failed(plan.problems)
    summary.pairs = len(plan.pairs)
    summary.stage1 = plan.stage1
    _timed(run, "plan", t)
    t = time.perf_counter()
    top: TopPairs = []
    if summary.mode == "target" and settings.top and plan.ranks:
        map_in_order(run, plan, top, settings.top)
    else:
        map_stage(run, plan, top)
    _timed(run, "map_wall", t)
    pruned = summary.stage1.get("pruned", 0)
    down = steps.store_problem() if summary.mapped + summary.already_stored + pruned < summary.pairs else None
    if down:
        run.stopped(down, "some pairs not stored")
    else:
        planned = {(p.source_id, p.target_id): p for p in plan.pairs}
        streamed = top if summary.mapped + pruned == summary.pairs else None
        summary.top = _best(summary.run_id, planned, _TOP, streamed)
    return down


def run_pipeline(settings: CorpusSettings, runner: Runner) -> steps.RunSummary:
    """Run the corpus of ``settings`` on ``runner``; the run's summary.

    A store that does not answer stops the run early: at the start (after
    the store's retry window, once), or after a stage whose failures came
    from it; the summary is written all the same, with ``advice`` saying
    what to do.
    """
    started = time.perf_counter()
    run = Run.start(settings, runner)
    summary = run.summary
    run.logger.info(
        "run %s of %s (%s) on %d workers", summary.run_id, settings.root, summary.mode, run.workers
    )

    t = time.perf_counter()
    paths, refused = runner.call(steps.discover_documents, settings.root, settings.allow_outside_links)
    summary.failures.extend(Failure.from_line(line, "discover") for line in refused)
    _timed(run, "discover", t)
    summary.documents = len(paths)
    finished = False
    try:
        _extract_and_map(run, paths, started)
        finished = True
    finally:
        close_own_pool(run, wait=finished)
    return summary


def _extract_and_map(run: Run, paths: list[str], started: float) -> None:
    """Steps 2-7 of :func:`run_pipeline`."""
    summary, settings = run.summary, run.settings

    documents: dict[str, str] = {}
    down = steps.store_problem()
    if down:
        run.stopped(down, "nothing done")
    else:
        start_own_pool(run, len(paths))
        t = time.perf_counter()
        before = replaced.members(summary.corpus)
        documents = extract_stage(run, paths)
        replaced.drop_replaced(summary.corpus, summary.run_id, before)
        replaced.drop_departed(summary.corpus, settings.root, summary.run_id, paths)
        _timed(run, "extract_wall", t)
        down = steps.store_problem() if len(documents) < len(paths) else None
        if down:
            run.stopped(down, f"{len(paths) - len(documents)} document(s) not stored, no pairs mapped")
    problem = _sections_problem(run, documents) if not down else None
    if problem:
        run.failed([problem])  # no pair mapped: every one would score 0
    elif not down:
        down = _map_planned(run, documents)
    if down:
        summary.advice = down.advice or steps.STORE_BROKEN_HINT
        # Said once, by whoever shows the summary (the CLI, the run's artifact).
        run.logger.info("%s", summary.advice)
    _finish(run, started)


def _finish(run: Run, started: float) -> None:
    """Step 7: the seconds and workers of the run, and its summary written."""
    summary = run.summary
    run.seconds["wall"] = time.perf_counter() - started
    summary.seconds = {k: round(v, 4) for k, v in run.seconds.items()}
    summary.worker_pids = sorted(run.pids)
    summary.summary_path, problem = run.runner.call(steps.save_summary, summary)
    if problem and summary.failures:  # the failure before it says what went wrong
        run.logger.info("%s", problem)
    elif problem:
        summary.failures.append(problem)
    run.logger.info("%s", summary.headline())


# -- running a corpus ------------------------------------------------------------


class PartialFailure(ReportedFailure):
    """Some documents or pairs failed; ``summary`` says which and what was stored.

    The run has logged one line per failure, so Prefect's engine does not log
    this exception's traceback again (:mod:`flows.failures`)."""

    def __init__(self, message: str, summary: steps.RunSummary | None = None) -> None:
        super().__init__(message)
        self.summary = summary

    def __reduce__(self) -> tuple[type[PartialFailure], tuple[str, steps.RunSummary | None]]:
        return (PartialFailure, (self.args[0], self.summary))


def small_job(settings: CorpusSettings) -> bool:
    """Whether a run is small enough to do here, in this process: at most
    :data:`~dri.settings.INLINE_MAX_PARSE` documents to parse (not stored yet)
    and at most :data:`~dri.settings.INLINE_MAX_PAIRS` pairs to map (before
    skipping stored ones; a target's search with stage 1 counts as small, its
    stage 2 mapping on a pool of its own). Starting Prefect's temporary server and a worker
    pool costs more than such a job (``docs/search.md``). A store that
    cannot be used makes it small too: the run then says so at once, here,
    as the flow would."""
    corpus_dir = settings.corpus_dir
    paths = discover(corpus_dir, warn=False)[0]
    n = len(paths)
    mode = settings.mode
    candidates = settings.search()["candidates"]
    searching = False
    if mode == "target" or (mode == "auto" and settings.target and not has_manifest(corpus_dir)):
        pairs = min(n - 1, candidates or n)
        # A search maps its stage-1 candidates on a pool of processes of its own
        # (map_stage, map_in_order): Prefect's server and workers would cost
        # more CPU than the mapping (docs/speed.md).
        searching = bool(candidates)
    elif mode in ("manifest", "auto") and has_manifest(corpus_dir):
        pairs = n  # a manifest pairs each document with a few others
    else:
        k = settings.top_per_document
        pairs = n * k if k else n * (n - 1) // 2
    if not searching and (pairs > INLINE_MAX_PAIRS or n > INLINE_MAX_PARSE + INLINE_MAX_PAIRS):
        return False
    new = 0
    try:
        store = steps.worker_store()
        for path in paths:
            try:
                new += not store.has_graph(content_ids(read_limited(path, DEFAULT_MAX_BYTES))[1])
            except FileRefused:
                continue  # the run itself names it
            if new > INLINE_MAX_PARSE:
                return False
    except StoreError:
        return True
    return True


@dataclass
class RunState:
    """The end of a run made in this process, shaped like the Prefect state a flow run ends in."""

    name: str
    message: str
    data: Any

    def is_completed(self) -> bool:
        return self.name == "Completed"

    def is_failed(self) -> bool:
        return not self.is_completed()


def end_state(summary: steps.RunSummary) -> RunState:
    """``Completed``, or ``Partially failed`` with a :class:`PartialFailure`, as the flow ends."""
    if summary.failures:
        message = f"partial failure: {len(summary.failures)} problem(s); {summary.headline()}"
        return RunState("Partially failed", message, PartialFailure(message, summary))
    return RunState("Completed", summary.headline(), summary)


def run_inline(settings: CorpusSettings) -> tuple[RunState, steps.RunSummary]:
    """The run in this process (:class:`~flows.execution.InProcess`), its state shaped as a flow run's."""
    summary = run_pipeline(settings, InProcess())
    return end_state(summary), summary


def run_corpus(
    corpus_dir: str,
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    runner: str | None = None,
    say: Callable[[str], None] | None = None,
    **parameters: Any,
) -> tuple[Any, steps.RunSummary | None]:
    """Run the corpus at ``corpus_dir`` with ``parameters`` (the fields of
    :class:`~flows.corpus_settings.CorpusSettings`); ``(final state, summary)``.

    ``runner="inline"`` runs it in this process without Prefect (no server, no
    workers, no import of Prefect; the state is a :class:`RunState`); so does a
    :func:`small_job` when no runner, worker count or Dask address is given here
    or in the environment, and a run on local workers whose store cannot be
    used (it then stops at once, saying why). Otherwise the Prefect flow runs
    (:func:`flows.corpus.run_on_prefect`), which tells ``say`` (default: the
    ``dri.progress`` log) while it waits for a Dask scheduler's first worker.

    The summary is ``None`` only if the flow crashed before writing one.
    """
    if runner is None and setting("DRI_TASK_RUNNER") == "inline":
        runner = "inline"  # as --runner inline: no Prefect
    settings = CorpusSettings(corpus_dir=str(corpus_dir), **parameters)
    # A folder without documents is an error here, at once, on every runner.
    discover(settings.corpus_dir, allow_outside_links=True, warn=False)
    explicit = (
        runner
        or workers
        or (dask_address or "").strip()
        or setting("DRI_TASK_RUNNER")
        or setting("DRI_DASK_ADDRESS")
    )
    if runner == "inline" or (not explicit and small_job(settings)):
        return run_inline(settings)
    # Prefect is imported only for a run that needs it; its settings refuse some
    # URLs as it is imported, with a traceback.
    from dri.flows.runners import check_prefect_api_url

    check_prefect_api_url(os.environ.get("PREFECT_API_URL"))
    from dri.flows.corpus import run_on_prefect

    return run_on_prefect(settings, workers, dask_address, runner, say)
