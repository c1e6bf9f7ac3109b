"""The shared path of every evaluation: corpus flow, store, baselines, rows, report.

A kind's loader (one module each in this package) turns its input into an
:class:`Evaluation` (its pairs, their groups, how the report reads them);
:func:`evaluate` then runs the corpus flow
(:func:`dri.flows.pipeline.run_corpus`), which extracts and stores every
document's ROS graph and maps and stores every pair (skipping what the store
already holds for the run, so a repeated evaluation stores nothing twice);
records each document's group in its corpus meta (``level``, ``language``:
:attr:`Evaluation.group_key`), so the same numbers can be queried from Neo4j
(``docs/cypher.md``); reads the structure scores back from the store by
``run_id``; adds the text baselines of :mod:`dri.metrics.baselines`; and saves
the rows with ``Store.save_evaluation``. :func:`run_evaluation` adds the report
folder (:mod:`dri.metrics.report`).

A document that cannot be read fails only its own pairs: the row carries a
one-line ``error`` and the batch carries on.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypedDict, TypeVar

import numpy as np

from dri.corpora.discover import corpus_format, corpus_manifest
from dri.corpora.manifest import ManifestPair
from dri.corpora.text import CorpusError, first_of, read_text
from dri.errors import Failure, one_line
from dri.evaluate import kinds
from dri.extract import read_document
from dri.extract.document import content_ids
from dri.extract.reader import DEFAULT_MAX_BYTES, refuse_too_long
from dri.files import FileRefused, name_that_fits, read_limited
from dri.flows.pipeline import run_corpus
from dri.flows.tasks import NO_PLAN, NO_SECTIONS, RunSummary
from dri.literal import printable
from dri.metrics.baselines import BASELINE_NAMES, Baselines
from dri.metrics.report import write_report
from dri.metrics.results import STRUCTURE_SCORES, EvaluationResult, ReportFiles
from dri.metrics.scores import COUNT_NAMES, MAPPING_SECONDS
from dri.settings import data_dir
from dri.store import ComparisonRecord, Store, StoreError, open_store

__all__ = [
    "Evaluation",
    "Progress",
    "RunOptions",
    "default_report_dir",
    "doc_ids",
    "evaluate",
    "headline_order",
    "require_pairs",
    "resolved_path",
    "run_evaluation",
]

log = logging.getLogger(__name__)


class _Corpus(Protocol):
    root: Path

    @property
    def pairs(self) -> Sequence[Any]: ...


CorpusT = TypeVar("CorpusT", bound=_Corpus)

#: ``progress(done, total, row)`` after each row.
Progress = Callable[[int, int, dict[str, Any]], None]

#: A mapped pair as a report shows it: (kind, source lemma, target lemma, generic space).
MappedPair = tuple[str, str, str, str | None]

#: The score each similarity evaluation (:attr:`EvaluationKind.similarity`)
#: shows first: the combined similarity (content and
#: structure, :func:`dri.metrics.scores.combine`) where, fitted on the other
#: similarity sets, it beat the sentence encoder alone on this kind's set
#: (plagiarism: Clough & Stevenson; translation: WMT23), else the encoder's
#: content similarity (judgements: STS-B; docs/validity.md, "The sentence
#: encoder and the headline"); a ranking is a query-by-example, so it ranks by
#: how much of the query (the source) a candidate covers (CSFCube;
#: docs/validity.md, "Paper search by the query's coverage"). Analogy search
#: and multiple-choice analogies keep the structure-led Analogy Similarity first.
SIMILARITY_HEADLINES = {
    "plagiarism": "combined",
    "translation": "combined",
    "judgements": "content",
    "ranking": "coverage",
}

#: Manifest extras that are not a document's group meta (they name the document).
_NOT_META = frozenset({"name", "path"})


@dataclass
class Evaluation:
    """What one evaluation compares and how its report reads the scores.

    ``runs`` are the corpus flow's parameter sets, one flow run each;
    ``sections``, if given, are the sections the runs compare.
    ``group_key`` is the corpus meta key under which each target's group is
    recorded (``source_group``, if set, is recorded for the sources).
    ``report`` holds the :class:`EvaluationResult` options of the kind
    (``levels``, ``negative``, ``rank``, ``group_labels``); ``meta`` adds
    lines to the report's meta. ``mappings`` keeps each row's stored
    comparison as ``row["_record"]``, its scores without its mapping pairs and
    inferences: a search reads those for its top hits alone
    (:func:`evaluate.analogy.analogy_search`), not for every candidate.
    ``names`` gives the user's name of a document the evaluation compares
    under another path (a judgement file's document, copied under its
    content's hash), by that path: the rows' errors name the user's file,
    and the rows carry it as ``_source_name`` and ``_target_name``.
    """

    kind: str
    root: Path
    pairs: list[ManifestPair]
    groups: list[str]
    problems: list[str] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=lambda: [{"mode": "manifest"}])
    sections: tuple[str, ...] | None = None
    group_key: str | None = None
    source_group: str | None = None
    report: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    mappings: bool = False
    names: dict[str, str] = field(default_factory=dict)


class RunOptions(TypedDict, total=False):
    """The keyword options of :func:`evaluate` and every ``evaluate_<kind>``."""

    baselines: bool
    progress: Progress | None
    profile: str | None


def headline_order(kind: str) -> tuple[str, ...]:
    """The structure scores of a ``kind`` of evaluation, its headline first."""
    if not kinds.kind(kind).similarity:
        return STRUCTURE_SCORES
    headline = SIMILARITY_HEADLINES[kind]
    return (headline, *(s for s in STRUCTURE_SCORES if s != headline))


def require_pairs(corpus: CorpusT, what: str) -> CorpusT:
    """``corpus`` if it has pairs to compare, else :class:`CorpusError` naming its
    folder and the first of the loader's ``problems`` (it said no more, though
    the loader had found why: "roundtrip/spa/bees.txt: no original …"); a
    translation corpus's ``unread`` files come first (a round trip that is a FIFO)."""
    if not corpus.pairs:
        problems = [*(getattr(corpus, "unread", None) or ()), *(getattr(corpus, "problems", None) or ())]
        raise CorpusError(corpus.root, f"no {what} pairs to compare{first_of(problems)}")
    return corpus


def default_report_dir(kind: str, corpus_dir: str | Path) -> Path:
    """``<data_dir>/reports/<kind>-<corpus folder name>``, cut to fit a file
    name (:func:`dri.files.name_that_fits`: a corpus's own name may take all
    255 bytes)."""
    return data_dir() / "reports" / name_that_fits(f"{kind}-{Path(corpus_dir).resolve().name}")


#: The paths resolved so far by the evaluation running in this thread, while
#: :func:`_resolving_once` holds them: 100,000 rows name a few documents each
#: many times, and each resolution is a system call per folder of the path.
_resolved = threading.local()


@contextlib.contextmanager
def _resolving_once() -> Iterator[None]:
    """While the block runs, :func:`resolved_path` and :func:`_realpath` resolve
    each path once (the same answers: the evaluation moves no file)."""
    outer = getattr(_resolved, "paths", None)
    _resolved.paths = outer if outer is not None else {}
    try:
        yield
    finally:
        _resolved.paths = outer


def _once(key: tuple[str, str], resolve: Callable[[], str]) -> str:
    paths: dict[tuple[str, str], str] | None = getattr(_resolved, "paths", None)
    if paths is None:
        return resolve()
    found = paths.get(key)
    if found is None:
        found = paths[key] = resolve()
    return found


def resolved_path(path: str | Path) -> str:
    return _once(("resolve", os.fspath(path)), lambda: str(Path(path).resolve()))


def _realpath(path: str) -> str:
    return _once(("realpath", path), lambda: os.path.realpath(path))


def doc_ids(paths: Iterable[Path]) -> dict[str, str]:
    """``{resolved path: doc_id}`` for the readable paths (the store's content hash)."""
    ids = {}
    for path in dict.fromkeys(resolved_path(p) for p in paths):
        try:
            ids[path] = content_ids(read_limited(path, DEFAULT_MAX_BYTES))[0]
        except FileRefused:
            continue  # the flow names the unreadable file in its failures
    return ids


def _run_flows(root: Path, runs: Sequence[dict[str, Any]]) -> list[RunSummary]:
    """Run the corpus flow once per parameter set; the run summaries, in order."""
    summaries = []
    for params in runs:
        state, summary = run_corpus(str(root), **params)
        if summary is None:
            message = " ".join(str(getattr(state, "message", "") or state).split())
            raise CorpusError(root, f"the corpus flow crashed: {message}")
        for failure in summary.failures:
            if failure.scope == "run" and failure.reason.startswith(NO_SECTIONS):
                raise CorpusError(failure.path, failure.reason)  # the sections asked for are not there
            if (
                failure.scope == "run"
                and failure.reason.startswith(NO_PLAN)
                and params.get("mode") == "manifest"
            ):
                # The folder's own manifest.csv, which the flow follows, is broken: no pair can be
                # compared. (A search's target that cannot be read is its pairs' reason instead.)
                reason = failure.reason.removeprefix(NO_PLAN)
                named, _, why = reason.partition(": ")
                if why and named.startswith(str(failure.path)):
                    raise CorpusError(named, why)  # the file of the corpus it names
                raise CorpusError(failure.path, reason)
        summaries.append(summary)
    return summaries


def _record_groups(store: Store, corpus: str, evaluation: Evaluation, ids: dict[str, str]) -> int:
    """Record each compared document's group in its corpus meta; returns how
    many documents changed. Documents already carrying it are left alone, so
    a repeated evaluation writes nothing."""
    key = evaluation.group_key
    if key is None:
        return 0
    wanted: dict[str, dict[str, str]] = {}
    for pair in evaluation.pairs:
        extra = {k: v for k, v in pair.extra.items() if k not in _NOT_META and v}
        target_id = ids.get(resolved_path(pair.target))
        if target_id:
            wanted.setdefault(target_id, {}).update({**extra, key: pair.group})
        source_id = ids.get(resolved_path(pair.source))
        if source_id and evaluation.source_group:
            meta = wanted.setdefault(source_id, {})
            for k, v in {**extra, key: evaluation.source_group}.items():
                meta.setdefault(k, v)  # a document that is also a target keeps the target's group
    members = {d.doc_id: d for d in store.documents(corpus)}
    changed = 0
    for doc_id, meta in wanted.items():
        member = members.get(doc_id)
        if member is None or all(member.meta.get(k) == v for k, v in meta.items()):
            continue  # not stored (its extraction failed), or already recorded
        graph = store.get_graph(doc_id)
        if graph is not None:
            store.put_document(corpus, graph, meta={**member.meta, **meta})
            changed += 1
    return changed


def _pair_error(
    pair: ManifestPair,
    failures: Sequence[Failure],
    run_ids: Sequence[str],
    listed: tuple[Path, frozenset[tuple[str, str]]] | None = None,
    ids: dict[str, str] | None = None,
) -> str:
    """The flow's one-line reason for a pair it did not store: the failures
    of its documents, else the pair's own, else any other that names them,
    else that the corpus's ``manifest.csv``, ``listed`` as its path and its
    pairs (None: the folder has none), does not list it. ``ids`` (``{resolved
    path: doc_id}``) tell the pair's own failure under another name of the
    same texts (:func:`_failures_of`).

    A document that failed is the whole reason: the lines of the pairs the
    flow skipped for it (``source -> target: skipped, no graph for ...``, this
    pair's and the document's other pairs') add nothing to it."""
    documents, own, mentioned = _failures_of(pair, failures, ids or {})
    found = documents or own or mentioned
    if found:
        # Sorted: failures arrive as batches end, and the stored rows must not differ by it.
        return "; ".join(sorted(dict.fromkeys(" ".join(str(f).split()) for f in found)))
    # A batch lost whole (its worker killed) names no document: its reason is the pair's.
    lost = list(dict.fromkeys(" ".join(f.reason.split()) for f in failures if f.scope == "batch"))
    why = f": {lost[0]}" if lost else ""
    if len(lost) > 1:
        why += " (and other batches: see the log)"
    ends = (resolved_path(pair.source), resolved_path(pair.target))
    if not lost and listed is not None and ends not in listed[1]:
        return f"not listed in {printable(listed[0])}, the pairs the corpus flow compares"
    return f"not compared by the corpus flow (run {', '.join(run_ids)}){why}"


def _failures_of(
    pair: ManifestPair, failures: Sequence[Failure], ids: dict[str, str]
) -> tuple[list[Failure], list[Failure], list[Failure]]:
    """The flow's failures that concern ``pair``: its documents' (a document
    that cannot be read fails every pair of it), its own (a pair's, by its
    documents' paths or, ``ids`` given, their doc_ids: the flow names a pair by
    the first path of each text), and the others that name one of its documents.

    Another pair's failure is never this pair's, though it shares a document:
    its mapping failed, or it was skipped for its other document ("orig_taska ->
    taska_heavy: skipped, no graph for taska_heavy" was the error of every
    pair of orig_taska that a manifest.csv did not list)."""
    # Each end as resolved and as given: a document that is a link failed under
    # its own name, and its pair took every failure naming the other end instead.
    source, target = ({resolved_path(p), os.path.abspath(p)} for p in (pair.source, pair.target))
    pair_ids = tuple(ids.get(resolved_path(p), "") for p in (pair.source, pair.target))
    documents = [f for f in failures if f.scope == "document" and f.path in source | target]
    own = [
        f
        for f in failures
        if f.scope == "pair" and ((f.path in source and f.target in target) or _same_texts(f, pair_ids, ids))
    ]
    mentioned = [f for f in failures if f.scope != "pair" and any(f.mentions(e) for e in source | target)]
    return documents, own, mentioned


def _same_texts(failure: Failure, pair_ids: tuple[str, ...], ids: dict[str, str]) -> bool:
    """Whether a pair's ``failure`` names the texts of ``pair_ids`` (source, target)."""
    if not all(pair_ids):
        return False
    return tuple(ids.get(resolved_path(e), "") for e in (failure.path, failure.target)) == pair_ids


def _rows(
    evaluation: Evaluation,
    chosen: Sequence[tuple[int, ManifestPair, ComparisonRecord | None]],
    failures: Sequence[Failure],
    run_ids: Sequence[str],
    ids: dict[str, str],
) -> list[dict[str, Any]]:
    """The report rows of the ``chosen`` pairs: a stored comparison's scores, or
    the flow's reason for a pair without one (:func:`_pair_error`; ``ids``:
    ``{resolved path: doc_id}``)."""
    missed = any(record is None for _, _, record in chosen)
    listed = _listed_pairs(evaluation.root) if missed else None
    return [
        _row(
            i,
            pair,
            record,
            _pair_error(pair, failures, run_ids, listed, ids) if record is None else "",
            evaluation.mappings,
        )
        for i, pair, record in chosen
    ]


def _listed_pairs(root: Path) -> tuple[Path, frozenset[tuple[str, str]]] | None:
    """``root``'s own ``manifest.csv`` and its ``(source, target)`` pairs, resolved,
    as the flow reads them; None if the folder has none, or one it cannot read.

    A plagiarism or translation folder that also holds a ``manifest.csv`` has its
    pairs compared as that file lists them, not as the folder's layout does."""
    if corpus_format(root) != "manifest":
        return None
    try:
        listed, _ = corpus_manifest(root)
    except CorpusError:
        return None
    return root / "manifest.csv", frozenset((source, target) for source, target, _ in listed)


def _plain_text(path: Path, inside: Path) -> str:
    """The plain text of ``path`` for the baselines (PDFs through the extractor),
    read as the flow reads it: a file that leads out of the corpus folder
    ``inside`` is refused (its pair was scored on ``/etc/hostname``)."""
    if path.suffix.lower() == ".pdf":
        return "\n".join(s.text for s in read_document(path, inside=inside).sentences)
    text = read_text(path, inside=inside)
    # A text the extractor refuses as too long has no baselines either: the
    # encoder's windows over 2.6 million characters took many minutes.
    refuse_too_long(str(path), text)
    return text


def _fit_baselines(pairs: Sequence[ManifestPair], text: Callable[[Path], str]) -> Baselines | None:
    """The baselines, TF-IDF fitted on the readable texts of ``pairs``."""
    texts = []
    for path in dict.fromkeys(p for pair in pairs for p in (pair.source, pair.target)):
        try:
            texts.append(text(Path(path)))
        except Exception:
            continue  # the row of its pair carries the error
    return Baselines(texts) if texts else None


def _row(
    index: int,
    pair: ManifestPair,
    record: ComparisonRecord | None,
    flow_error: str,
    mappings: bool,
) -> dict[str, Any]:
    """One report row: ids, structure scores, the mapping's time, error (the
    baselines are added to it later, :func:`_add_baselines`).

    ``mapping_seconds`` is the time :func:`metrics.compare` took on the pair
    in the flow's worker, as stored with the comparison (NaN if the pair was
    not compared, or was stored without it).
    """
    row: dict[str, Any] = {
        "pair": index,
        "group": pair.group,
        "source": str(pair.source),
        "target": str(pair.target),
        **pair.extra,
    }
    errors = []
    if record is None:
        errors.append(flow_error)
        row.update(dict.fromkeys(STRUCTURE_SCORES, math.nan))
        row[MAPPING_SECONDS] = math.nan
    else:
        row.update({name: record.scores.get(name, math.nan) for name in (*STRUCTURE_SCORES, *COUNT_NAMES)})
        row[MAPPING_SECONDS] = math.nan if record.mapping_seconds is None else record.mapping_seconds
        if mappings:
            row["_record"] = record  # a search reads its top hits' mappings by it
    row["error"] = "; ".join(dict.fromkeys(errors))
    return row


def _add_baselines(row: dict[str, Any], baselines: dict[str, float] | str) -> None:
    """Add a pair's baseline scores to its row, or the one-line reason they could
    not be computed to the row's error; the error stays the row's last column.

    A row the flow failed keeps the flow's reason alone: a text the baselines
    cannot read is, in other words, why its document failed."""
    errors = [e for e in [row.pop("error", "")] if e]
    if isinstance(baselines, str):
        if not errors:
            errors.append(baselines)
    else:
        row.update(baselines)
    row["error"] = "; ".join(dict.fromkeys(errors))


class _UserNames(logging.Filter):
    """Progress records of a document under its user's name, not its copy's path."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.names.get(str(arg), arg) for arg in record.args)
        return True


@contextlib.contextmanager
def _progress_by_user_names(names: dict[str, str]) -> Iterator[None]:
    """While the block runs, a long document's progress lines in this process
    (``dri.progress``: "x.txt: 120 of 600 sentences parsed") and the reader's
    warnings name the file the user gave, not its hashed copy (``Evaluation.names``)."""
    if not names:
        yield
        return
    renamer = _UserNames(names)
    loggers = [logging.getLogger(name) for name in _NAMING_LOGGERS]
    for logger in loggers:
        logger.addFilter(renamer)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(renamer)


#: The loggers whose records name a document by its path: the progress lines, and the
#: reader's warnings ("…/30499ae659cea913.txt: not valid UTF-8" named the copy).
_NAMING_LOGGERS = ("dri.progress", "dri.extract.reader", "dri.extract.pdf")


def _name_by_user(row: dict[str, Any], names: dict[str, str]) -> None:
    """Tell ``row``'s documents by the names the user gave them (``Evaluation.names``):
    in its error, and as ``_source_name`` and ``_target_name``."""
    for end in ("source", "target"):
        if row[end] in names:
            row[f"_{end}_name"] = names[row[end]]
            if row.get("error"):  # a pair's error names its own documents
                row["error"] = row["error"].replace(row[end], names[row[end]])


def _baseline_scores(
    fitted: Baselines | None, pairs: Sequence[ManifestPair], text: Callable[[Path], str]
) -> list[dict[str, float] | str | None]:
    """Each pair's baseline scores, all readable pairs in one :meth:`Baselines.score_many`;
    the one-line reason for a pair whose text cannot be read; None without baselines."""
    if fitted is None:
        return [None] * len(pairs)
    out: list[dict[str, float] | str | None] = []
    readable: list[tuple[str, str]] = []
    at: list[int] = []
    for pair in pairs:
        try:
            texts = (text(Path(pair.source)), text(Path(pair.target)))
        except Exception as err:
            out.append(one_line(err))
            continue
        at.append(len(out))
        out.append(None)
        readable.append(texts)
    try:
        scored: list[dict[str, float] | str] = list(fitted.score_many(readable))
    except Exception:  # scored one by one, so one pair cannot take the others down
        scored = []
        for source, answer in readable:
            try:
                scored.append(fitted.score(source, answer))
            except Exception as pair_err:
                scored.append(one_line(pair_err))
    for i, scores in zip(at, scored):
        out[i] = scores
    return out


def _save(kind: str, corpus: Path, rows: list[dict[str, Any]]) -> str | None:
    """Save the rows with ``Store.save_evaluation``; the store's name, or ``None``.

    Per-row timings are left out, and the corpus and the documents are named
    by their real paths: the evaluation's id is a hash of its content, so the
    same results saved again are stored once (``corpus``, ``./corpus``,
    ``/home/me/corpus`` and a link to it were four records of one evaluation).
    """
    try:
        store = open_store()
    except Exception as err:
        log.warning("store not available, results not stored: %s", one_line(err))
        return None
    try:
        store.save_evaluation(
            kind,
            os.path.realpath(corpus),
            [
                {
                    k: _realpath(v) if k in ("source", "target") and isinstance(v, str) and v else v
                    for k, v in r.items()
                    if not k.startswith("_") and k != MAPPING_SECONDS
                }
                for r in rows
            ],
        )
        return type(store).__name__
    except Exception as err:
        log.warning("could not store the results: %s", one_line(err))
        return None
    finally:
        store.close()


def evaluate(
    evaluation: Evaluation,
    *,
    baselines: bool = True,
    progress: Progress | None = None,
    profile: str | None = None,
    on_compared: Callable[[list[dict[str, Any]]], None] | None = None,
) -> EvaluationResult:
    """The rows of ``evaluation`` through the corpus flow and the store, saved.

    Runs the corpus flow once per parameter set of ``evaluation.runs``, which
    stores the graphs and the comparisons; records the documents' groups;
    reads each pair's structure scores back by ``run_id``; adds the text
    baselines (TF-IDF fitted on the texts of the pairs, and the sentence
    encoder's cosine). A pair the flow could not compare gets
    NaN scores and the flow's one-line reason as ``error``. The rows are
    saved with ``Store.save_evaluation``; the result's meta names the runs,
    the corpus and the store. ``profile`` names the mapping profile of every
    run (:mod:`mapping.profiles`; None: the default). ``on_compared`` is
    given the rows with their structure scores before the baselines are added
    to them (in place): an analogy search starts drawing its pictures then.
    """
    with _resolving_once():
        return _evaluate(evaluation, baselines, progress, profile, on_compared)


def _evaluate(
    evaluation: Evaluation,
    baselines: bool,
    progress: Progress | None,
    profile: str | None,
    on_compared: Callable[[list[dict[str, Any]]], None] | None,
) -> EvaluationResult:
    """:func:`evaluate`, its paths resolved once each."""
    started = time.perf_counter()
    pairs = evaluation.pairs
    runs = [{**params, "profile": profile} for params in evaluation.runs] if profile else evaluation.runs
    with _progress_by_user_names(evaluation.names):
        summaries = _run_flows(evaluation.root, runs)
    flow_seconds = time.perf_counter() - started
    run_ids = list(dict.fromkeys(s.run_id for s in summaries))
    failures = [f for s in summaries for f in s.failures]
    corpus = summaries[0].corpus
    ids = doc_ids(p for pair in pairs for p in (pair.source, pair.target))
    grouped, stored, where = _read_store(evaluation, corpus, ids, run_ids)
    searching = kinds.kind(evaluation.kind).console == "search"
    chosen, not_candidates = _chosen_pairs(pairs, stored, ids, summaries, failures, searching)
    rows = _rows(evaluation, chosen, failures, run_ids, ids)
    if on_compared is not None:
        on_compared(rows)
    # Fitted after the rows are handed on, so a search's pictures are drawn meanwhile.
    # Each text is read once per evaluation.
    text = functools.cache(functools.partial(_plain_text, inside=evaluation.root.resolve()))
    fitted = _fit_baselines(pairs, text) if baselines else None
    baseline_seconds = _score_baselines(chosen, rows, fitted, text, ids)
    if evaluation.names:
        for row in rows:
            _name_by_user(row, evaluation.names)
    if progress:
        for (i, _, _), row in zip(chosen, rows):
            progress(i, len(pairs), row)
    present = {k for r in rows for k in r}
    result = EvaluationResult(
        evaluation.kind,
        rows,
        groups=evaluation.groups,
        title=kinds.kind(evaluation.kind).title,
        across_groups=kinds.kind(evaluation.kind).across_groups,
        structure_scores=headline_order(evaluation.kind),
        baseline_scores=tuple(n for n in BASELINE_NAMES if n in present),
        problems=list(evaluation.problems),
        meta=_run_meta(
            evaluation,
            summaries,
            rows,
            store=where,
            groups_recorded=grouped,
            not_candidates=not_candidates,
            seconds=(flow_seconds, baseline_seconds),
        ),
        **evaluation.report,
    )
    saved = _save(evaluation.kind, evaluation.root, rows)
    if saved:
        result.meta["stored_in"] = saved
    result.meta["wall_seconds"] = round(time.perf_counter() - started, 1)
    return result


def _run_meta(
    evaluation: Evaluation,
    summaries: Sequence[RunSummary],
    rows: Sequence[dict[str, Any]],
    *,
    store: str,
    groups_recorded: int,
    not_candidates: int,
    seconds: tuple[float, float],
) -> dict[str, Any]:
    """What an evaluation's result says about its corpus, runs, store and
    times; ``seconds`` are the flows' and the baselines'."""
    flow_seconds, baseline_seconds = seconds
    return {
        "corpus": str(evaluation.root.resolve()),
        "pairs": len(evaluation.pairs),
        **evaluation.meta,
        "run_id": ", ".join(dict.fromkeys(s.run_id for s in summaries)),
        "store_corpus": summaries[0].corpus,
        "store": store,
        "flow_seconds": round(flow_seconds, 1),
        "flow_mapped": sum(s.mapped for s in summaries),
        "flow_already_stored": sum(s.already_stored for s in summaries),
        "groups_recorded": groups_recorded,
        "not_candidates": not_candidates,
        "stage1_seconds": round(sum(s.stage1.get("seconds", 0.0) for s in summaries), 3),
        "mapping_seconds": round(math.fsum(r[MAPPING_SECONDS] for r in rows if r[MAPPING_SECONDS] >= 0), 3),
        "baseline_seconds": round(baseline_seconds, 3),
    }


def _score_baselines(
    chosen: Sequence[tuple[int, ManifestPair, ComparisonRecord | None]],
    rows: Sequence[dict[str, Any]],
    fitted: Baselines | None,
    text: Callable[[Path], str],
    ids: dict[str, str],
) -> float:
    """Add the baseline scores of each chosen pair to its row (in place); the seconds taken."""
    started = time.perf_counter()
    if fitted is not None:
        ends = (resolved_path(p) for _, pair, _ in chosen for p in (pair.source, pair.target))
        _remember_stored_vectors(ids[e] for e in ends if e in ids)
    for row, baseline in zip(rows, _baseline_scores(fitted, [pair for _, pair, _ in chosen], text)):
        if baseline is not None:
            _add_baselines(row, baseline)
    return time.perf_counter() - started


def _remember_stored_vectors(doc_ids: Iterable[str]) -> None:
    """Give the encoder the document vectors stored with the graphs of ``doc_ids``,
    so that the ``encoder`` baseline does not run the model again on what the
    flow has encoded (a text whose word pieces are not its graph's is encoded)."""
    from dri.mapping.encoder import sentence_encoder

    encoder = None
    try:
        with open_store() as store:
            # The text and the vector alone (SQLite reads them without building the graphs).
            for text, vector in store.document_texts(doc_ids).values():
                if vector is None:
                    continue
                encoder = encoder or sentence_encoder()
                encoder.remember_document(text, np.asarray(vector, dtype=np.float32))
    except StoreError as err:  # the baseline then encodes the texts itself
        log.debug("stored encoder vectors not read: %s", one_line(err))


def _read_store(
    evaluation: Evaluation, corpus: str, ids: dict[str, str], run_ids: Sequence[str]
) -> tuple[int, dict[tuple[str, str], ComparisonRecord], str]:
    """Record the documents' groups; read the runs' comparisons back by
    (source id, target id); name the store. Returns the number of documents
    whose group was recorded, the comparisons and the store's name."""
    with open_store() as store:
        grouped = _record_groups(store, corpus, evaluation, ids)
        stored = {
            (r.source_id, r.target_id): r for run_id in run_ids for r in store.comparisons(run_id=run_id)
        }
        where = f"{store.backend} ({store.location})"
    return grouped, stored, where


def _chosen_pairs(
    pairs: Sequence[ManifestPair],
    stored: dict[tuple[str, str], ComparisonRecord],
    ids: dict[str, str],
    summaries: Sequence[RunSummary],
    failures: Sequence[Failure],
    searching: bool = False,
) -> tuple[list[tuple[int, ManifestPair, ComparisonRecord | None]], int]:
    """The pairs that become rows (numbered from 1, with their stored comparison
    if any), and how many stage 1 of the two-stage search did not choose
    (those are not rows, nor is a copy of a search's target: ``searching``
    leaves it out even when it was mapped, as targets named in ``targets.txt``
    have it mapped, and it ranked first with AS 1.000)."""
    pruned = any(s.stage1.get("kept", 0) < s.stage1.get("planned", 0) for s in summaries)
    not_candidates = 0
    chosen: list[tuple[int, ManifestPair, ComparisonRecord | None]] = []
    for i, pair in enumerate(pairs, start=1):
        source_id, target_id = (ids.get(resolved_path(p), "") for p in (pair.source, pair.target))
        record = stored.get((source_id, target_id))
        copy = bool(source_id) and source_id == target_id
        if copy and (searching or (record is None and _not_failed(pair, failures, ids))):
            # The target's own bytes under another name: a search compares them never
            # (dri run leaves them out too); it was a failed row, "not compared".
            continue
        if record is None and pruned and _not_candidate(pair, ids, failures):
            not_candidates += 1
            continue
        chosen.append((i, pair, record))
    return chosen, not_candidates


def _not_candidate(pair: ManifestPair, ids: dict[str, str], failures: Sequence[Failure]) -> bool:
    """A pair the flow neither stored nor failed: stage 1 left it out."""
    ends = (resolved_path(pair.source), resolved_path(pair.target))
    if not all(ids.get(e) for e in ends):
        return False
    return _not_failed(pair, failures, ids)


def _not_failed(pair: ManifestPair, failures: Sequence[Failure], ids: dict[str, str]) -> bool:
    """Whether no failure of the flow concerns ``pair`` (:func:`_failures_of`):
    another pair's failure, sharing a document with it, does not."""
    return not any(_failures_of(pair, failures, ids))


def run_evaluation(
    evaluation: Evaluation,
    report_dir: str | Path | Literal[False] | None = None,
    *,
    baselines: bool = True,
    progress: Progress | None = None,
    profile: str | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """:func:`evaluate`, then the report folder in ``report_dir`` (default
    :func:`default_report_dir`; ``False`` for none)."""
    result = evaluate(evaluation, baselines=baselines, progress=progress, profile=profile)
    if report_dir is False:
        return result, None
    return result, write_report(result, report_dir or default_report_dir(result.kind, evaluation.root))
