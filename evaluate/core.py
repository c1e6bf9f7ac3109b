"""The paper's evaluations end to end: plagiarism levels, round-trip translation, analogy search.

Hurley, Abgaz, Ali and O'Donoghue (EGPAI 2016) evaluate Dr Inventor's
structure-based similarity three ways, each reproduced here:

* :func:`evaluate_plagiarism` -- each answer of a Clough & Stevenson corpus
  against its task's original; the scores should fall from ``cut`` through
  ``light`` and ``heavy`` to ``non`` ("Plagiarism Corpus", Figure 8);
* :func:`evaluate_translation` -- each original against its round trips; the
  scores should fall for the weaker languages ("Machine Translation
  Evaluation", Figure 7);
* :func:`analogy_search` -- a target against every other document, ranked
  by Analogy Similarity, top k with their mappings ("Finding and Evaluating
  a Computer Graphics Analogy"), optionally on some sections only.

Two more kinds check the scores against human judgement
(docs/validity.md): :func:`evaluate_judgements` -- text pairs with a human
score, Pearson, Spearman and Kendall with 95% bootstrap intervals and a
scatter plot per score; :func:`evaluate_ranking` -- queries with pools of
candidates judged for graded relevance, NDCG%20, NDCG@10 and MAP per query
and their means with 95% intervals (:mod:`dri.metrics.ranking`);
:func:`evaluate_choice` -- multiple-choice analogy items, accuracy with a
95% interval, ties counted wrong, and how often each option type is picked. Their texts are written as documents of a corpus
folder (:func:`dri.corpora.judgements.write_documents`) and go the same way.

Each is a thin call of one shared path. A kind's loader turns the corpus
folder into an :class:`Evaluation` (its pairs, their groups, how the report
reads them); :func:`evaluate` then runs the corpus flow
(:func:`dri.flows.corpus.run_corpus`), which extracts and stores every
document's ROS graph and maps and stores every pair (skipping what the store
already holds for the run, so a repeated evaluation stores nothing twice);
records each document's group in its corpus meta (``level``, ``language``:
:attr:`Evaluation.group_key`), so the same numbers can be queried from Neo4j
(``docs/cypher.md``); reads the structure scores back from the store by
``run_id``; adds the text baselines of :mod:`dri.metrics.baselines`; and saves
the rows with ``Store.save_evaluation``. :func:`run_evaluation` adds the report
folder (:mod:`dri.metrics.report`). A new kind is a loader returning an
:class:`Evaluation` and a call of :func:`run_evaluation`.

A document that cannot be read fails only its own pairs: the row carries a
one-line ``error`` and the batch carries on.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

from dri.corpora.analogy import load_analogy
from dri.corpora.judgements import load_choice, load_judgements, load_ranking, write_documents
from dri.corpora.manifest import ManifestPair
from dri.corpora.plagiarism import LEVEL_ORDER, LEVELS, load_plagiarism
from dri.corpora.ratings import load_ratings
from dri.corpora.text import CorpusError, read_text
from dri.corpora.translate import LANGUAGES
from dri.corpora.translation import load_translation
from dri.errors import one_line
from dri.extract import read_document
from dri.extract.document import content_ids
from dri.flows.corpus import run_corpus
from dri.flows.tasks import RunSummary
from dri.graphs import restrict_to_sections
from dri.mapping.inference import CandidateInference
from dri.metrics import compare
from dri.metrics.baselines import BASELINE_NAMES, EMBEDDING, Baselines
from dri.metrics.pages import render
from dri.metrics.ranking import RankingResult, plot_ranking, rank_pools, ranking_section
from dri.metrics.report import write_report
from dri.metrics.results import STRUCTURE_SCORES, EvaluationResult, Hit, ReportFiles, SearchResult
from dri.metrics.scores import COUNT_NAMES, MAPPING_SECONDS
from dri.metrics.stats import rating_stats
from dri.metrics.validity import choice_section, judgement_section, plot_scatter
from dri.settings import DEFAULT_CANDIDATES, data_dir
from dri.store import ComparisonRecord, Store, open_store

__all__ = [
    "Evaluation",
    "Progress",
    "RunOptions",
    "analogy_evaluation",
    "analogy_search",
    "choice_evaluation",
    "default_report_dir",
    "evaluate",
    "evaluate_choice",
    "evaluate_judgements",
    "evaluate_plagiarism",
    "evaluate_ranking",
    "evaluate_translation",
    "format_search",
    "headline_order",
    "judgements_evaluation",
    "plagiarism_evaluation",
    "ranking_evaluation",
    "run_evaluation",
    "translation_evaluation",
]

log = logging.getLogger(__name__)

#: ``progress(done, total, row)`` after each row.
Progress = Callable[[int, int, dict[str, Any]], None]

#: A mapped pair as a report shows it: (kind, source lemma, target lemma, generic space).
MappedPair = tuple[str, str, str, str | None]

#: The evaluation kinds that judge similarity rather than analogy: their
#: reports show the combined similarity (content and structure,
#: :func:`dri.metrics.scores.combine`) first; analogy search and multiple-choice
#: analogies keep the structure-led Analogy Similarity first.
SIMILARITY_KINDS = frozenset({"plagiarism", "translation", "judgements", "ranking"})
#: The headline score of a similarity evaluation.
SIMILARITY_HEADLINE = "combined"

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
    lines to the report's meta. ``mappings`` reads the mapping pairs of each
    comparison back as ``row["_mapping"]`` and its candidate inferences as
    ``row["_inferences"]``.
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


class RunOptions(TypedDict, total=False):
    """The keyword options of :func:`evaluate` and every ``evaluate_<kind>``."""

    baselines: bool
    embeddings: bool
    progress: Progress | None
    profile: str | None


def headline_order(kind: str) -> tuple[str, ...]:
    """The structure scores of a ``kind`` of evaluation, its headline first."""
    if kind not in SIMILARITY_KINDS:
        return STRUCTURE_SCORES
    return (SIMILARITY_HEADLINE, *(s for s in STRUCTURE_SCORES if s != SIMILARITY_HEADLINE))


def default_report_dir(kind: str, corpus_dir: str | Path) -> Path:
    """``<data_dir>/reports/<kind>-<corpus folder name>``."""
    return data_dir() / "reports" / f"{kind}-{Path(corpus_dir).resolve().name}"


# -- the kinds -----------------------------------------------------------------


def plagiarism_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every answer of a Clough & Stevenson corpus against its original, by level."""
    corpus = load_plagiarism(corpus_dir)
    if not corpus.pairs:
        raise CorpusError(corpus.root, "no answer/original pairs to compare")
    return Evaluation(
        "plagiarism",
        corpus.root,
        corpus.manifest(),
        groups=list(LEVEL_ORDER),
        problems=list(corpus.problems),
        group_key="level",
        source_group="orig",
        report={"levels": LEVELS, "negative": "non"},
    )


def translation_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every original of a translation corpus against its round trips, by language."""
    corpus = load_translation(corpus_dir)
    if not corpus.pairs:
        raise CorpusError(corpus.root, "no original/round-trip pairs to compare")
    known = [lang for lang in LANGUAGES if lang in corpus.languages]
    return Evaluation(
        "translation",
        corpus.root,
        corpus.manifest(),
        groups=known + sorted(set(corpus.languages) - set(LANGUAGES)),
        problems=list(corpus.problems),
        group_key="language",
        report={"rank": True, "group_labels": dict(LANGUAGES.items())},
        meta={"originals": len(corpus.originals)},
    )


def analogy_evaluation(
    corpus_dir: str | Path,
    targets: Sequence[str] | None = None,
    sections: Sequence[str] | None = None,
    k: int = 5,
    candidates: int = DEFAULT_CANDIDATES,
    exhaustive: bool = False,
) -> Evaluation:
    """Every other document against each target (``targets`` override ``targets.txt``);
    with two-stage search (:mod:`flows.search`), only the ``candidates`` closest
    by content are structure-mapped, unless ``exhaustive``."""
    corpus = load_analogy(
        corpus_dir,
        targets=list(targets) if targets else None,
        sections=list(sections) if sections is not None else None,
    )
    sections_param = sorted(corpus.sections) if corpus.sections else None
    # The corpus's own targets are one manifest run; targets given here are
    # not in targets.txt, so each is a run of the flow's target mode.
    search = {"candidates": candidates, "exhaustive": exhaustive}
    runs = (
        [{"mode": "target", "target": str(t), "sections": sections_param, **search} for t in corpus.targets]
        if targets
        else [{"mode": "manifest", "sections": sections_param, **search}]
    )
    return Evaluation(
        "analogy",
        corpus.root,
        corpus.manifest(),
        groups=[t.name for t in corpus.targets],
        problems=list(corpus.problems),
        runs=runs,
        sections=corpus.sections,
        meta={
            "targets": len(corpus.targets),
            "k": k,
            "sections": ", ".join(corpus.sections) if corpus.sections else "whole documents",
        },
        mappings=True,
    )


# -- the shared path -------------------------------------------------------------


def _resolved(path: str | Path) -> str:
    return str(Path(path).resolve())


def _doc_ids(paths: Iterable[Path]) -> dict[str, str]:
    """``{resolved path: doc_id}`` for the readable paths (the store's content hash)."""
    ids = {}
    for path in dict.fromkeys(_resolved(p) for p in paths):
        try:
            ids[path] = content_ids(Path(path).read_bytes())[0]
        except OSError:
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
        target_id = ids.get(_resolved(pair.target))
        if target_id:
            wanted.setdefault(target_id, {}).update({**extra, key: pair.group})
        source_id = ids.get(_resolved(pair.source))
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


def _pair_error(pair: ManifestPair, failures: Sequence[str], run_ids: Sequence[str]) -> str:
    """The flow's one-line reason for a pair it did not store."""
    ends = (_resolved(pair.source), _resolved(pair.target))
    own = [f for f in failures if f.startswith(ends)]
    mentioned = [f for f in failures if any(e in f for e in ends)]
    found = own or mentioned
    if found:
        return "; ".join(dict.fromkeys(" ".join(f.split()) for f in found))
    return f"{pair.source} -> {pair.target}: not compared by the corpus flow (run {', '.join(run_ids)})"


def _plain_text(path: Path) -> str:
    """The plain text of ``path`` for the baselines (PDFs through the extractor)."""
    if path.suffix.lower() == ".pdf":
        return "\n".join(s.text for s in read_document(path).sentences)
    return read_text(path)


def _fit_baselines(
    pairs: Sequence[ManifestPair], embeddings: bool, text: Callable[[Path], str]
) -> Baselines | None:
    """The baselines, TF-IDF fitted on the readable texts of ``pairs``."""
    texts = []
    for path in dict.fromkeys(p for pair in pairs for p in (pair.source, pair.target)):
        try:
            texts.append(text(Path(path)))
        except Exception:
            continue  # the row of its pair carries the error
    return Baselines(texts, embeddings=embeddings) if texts else None


def _row(
    index: int,
    pair: ManifestPair,
    record: ComparisonRecord | None,
    flow_error: str,
    baselines: dict[str, float] | str | None,
    mappings: bool,
) -> dict[str, Any]:
    """One report row: ids, structure scores, the mapping's time, baselines, error.

    ``baselines`` is the pair's baseline scores, or the one-line reason they
    could not be computed, or None when the evaluation has none.
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
            row["_mapping"] = [
                (p.get("kind", ""), p.get("source_lemma", ""), p.get("target_lemma", ""), p.get("generic"))
                for p in record.pairs
            ]
            row["_inferences"] = [CandidateInference.from_dict(x) for x in record.inferences]
    if isinstance(baselines, str):
        errors.append(baselines)
    elif baselines is not None:
        row.update(baselines)
    row["error"] = "; ".join(dict.fromkeys(errors))
    return row


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

    Per-row timings are left out: the evaluation's id is a hash of its
    content, so the same results saved again are stored once.
    """
    try:
        store = open_store()
    except Exception as err:
        log.warning("store not available, results not stored: %s", one_line(err))
        return None
    try:
        store.save_evaluation(
            kind,
            str(corpus),
            [{k: v for k, v in r.items() if not k.startswith("_") and k != MAPPING_SECONDS} for r in rows],
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
    embeddings: bool = False,
    progress: Progress | None = None,
    profile: str | None = None,
) -> EvaluationResult:
    """The rows of ``evaluation`` through the corpus flow and the store, saved.

    Runs the corpus flow once per parameter set of ``evaluation.runs``, which
    stores the graphs and the comparisons; records the documents' groups;
    reads each pair's structure scores back by ``run_id``; adds the text
    baselines (TF-IDF fitted on the texts of the pairs; ``embeddings`` adds
    the sentence-embedding cosine). A pair the flow could not compare gets
    NaN scores and the flow's one-line reason as ``error``. The rows are
    saved with ``Store.save_evaluation``; the result's meta names the runs,
    the corpus and the store. ``profile`` names the mapping profile of every
    run (:mod:`mapping.profiles`; None: the default).
    """
    started = time.perf_counter()
    pairs = evaluation.pairs
    runs = [{**params, "profile": profile} for params in evaluation.runs] if profile else evaluation.runs
    summaries = _run_flows(evaluation.root, runs)
    flow_seconds = time.perf_counter() - started
    run_ids = list(dict.fromkeys(s.run_id for s in summaries))
    failures = [f for s in summaries for f in s.failures]
    corpus = summaries[0].corpus
    ids = _doc_ids(p for pair in pairs for p in (pair.source, pair.target))
    with open_store() as store:
        grouped = _record_groups(store, corpus, evaluation, ids)
        stored = {
            (r.source_id, r.target_id): r
            for run_id in run_ids
            for r in store.comparisons(run_id=run_id, pairs=evaluation.mappings)
        }
        where = f"{store.backend} ({store.location})"
    text = functools.cache(_plain_text)  # each text is read once per evaluation
    fitted = _fit_baselines(pairs, embeddings, text) if baselines else None
    # Pairs that stage 1 of the two-stage search did not choose are not rows.
    pruned = any(s.stage1.get("kept", 0) < s.stage1.get("planned", 0) for s in summaries)
    not_candidates = 0
    chosen: list[tuple[int, ManifestPair, ComparisonRecord | None]] = []
    for i, pair in enumerate(pairs, start=1):
        record = stored.get((ids.get(_resolved(pair.source), ""), ids.get(_resolved(pair.target), "")))
        if record is None and pruned and _not_candidate(pair, ids, failures):
            not_candidates += 1
            continue
        chosen.append((i, pair, record))
    baseline_started = time.perf_counter()
    scored = _baseline_scores(fitted, [pair for _, pair, _ in chosen], text)
    baseline_seconds = time.perf_counter() - baseline_started
    rows = []
    for (i, pair, record), baseline in zip(chosen, scored):
        flow_error = _pair_error(pair, failures, run_ids) if record is None else ""
        rows.append(_row(i, pair, record, flow_error, baseline, evaluation.mappings))
        if progress:
            progress(i, len(pairs), rows[-1])
    present = {k for r in rows for k in r}
    result = EvaluationResult(
        evaluation.kind,
        rows,
        groups=evaluation.groups,
        structure_scores=headline_order(evaluation.kind),
        baseline_scores=tuple(n for n in (*BASELINE_NAMES, EMBEDDING) if n in present),
        problems=list(evaluation.problems),
        meta={
            "corpus": str(evaluation.root.resolve()),
            "pairs": len(pairs),
            **evaluation.meta,
            "run_id": ", ".join(run_ids),
            "store_corpus": corpus,
            "store": where,
            "flow_seconds": round(flow_seconds, 1),
            "flow_mapped": sum(s.mapped for s in summaries),
            "flow_already_stored": sum(s.already_stored for s in summaries),
            "groups_recorded": grouped,
            "not_candidates": not_candidates,
            "stage1_seconds": round(sum(s.stage1.get("seconds", 0.0) for s in summaries), 3),
            "mapping_seconds": round(
                math.fsum(r[MAPPING_SECONDS] for r in rows if r[MAPPING_SECONDS] >= 0), 3
            ),
            "baseline_seconds": round(baseline_seconds, 3),
        },
        **evaluation.report,
    )
    saved = _save(evaluation.kind, evaluation.root, rows)
    if saved:
        result.meta["stored_in"] = saved
    result.meta["wall_seconds"] = round(time.perf_counter() - started, 1)
    return result


def _not_candidate(pair: ManifestPair, ids: dict[str, str], failures: Sequence[str]) -> bool:
    """A pair the flow neither stored nor failed: stage 1 left it out."""
    ends = (_resolved(pair.source), _resolved(pair.target))
    if not all(ids.get(e) for e in ends):
        return False
    return not any(e in f for f in failures for e in ends)


def run_evaluation(
    evaluation: Evaluation,
    report_dir: str | Path | Literal[False] | None = None,
    *,
    baselines: bool = True,
    embeddings: bool = False,
    progress: Progress | None = None,
    profile: str | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """:func:`evaluate`, then the report folder in ``report_dir`` (default
    :func:`default_report_dir`; ``False`` for none)."""
    result = evaluate(
        evaluation, baselines=baselines, embeddings=embeddings, progress=progress, profile=profile
    )
    if report_dir is False:
        return result, None
    return result, write_report(result, report_dir or default_report_dir(result.kind, evaluation.root))


# -- validity: human judgements and multiple-choice analogies ------------------------


def _documents_dir(kind: str, path: Path) -> Path:
    """Where a judgement file's texts become documents: named by the file and its content."""
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:10]
    return data_dir() / "validity-corpora" / f"{kind}-{path.stem}-{digest}"


def judgements_evaluation(path: str | Path) -> Evaluation:
    """The rated pairs of a CSV (``a,b,score``; :func:`dri.corpora.judgements.load_judgements`).

    The texts are written once each as documents (with the pairs as a
    ``manifest.csv``) so the corpus flow compares them like any corpus; each
    row carries the human score as ``human``.
    """
    data = load_judgements(path)
    folder = _documents_dir("judgements", data.path)
    pairs = write_documents(
        [(j.a, j.b, "pairs", {**j.extra, "human": repr(j.score), "line": str(j.line)}) for j in data.pairs],
        folder,
    )
    return Evaluation(
        "judgements",
        folder,
        pairs,
        groups=["pairs"],
        problems=list(data.problems),
        meta={"file": str(data.path.resolve()), "rated pairs": len(pairs)},
    )


def choice_evaluation(path: str | Path) -> Evaluation:
    """Every (query, option) pair of a multiple-choice JSONL (:func:`dri.corpora.judgements.load_choice`).

    Each row carries ``item``, ``option``, ``answer`` and ``type``; the group
    is the option's type when the items carry types, else ``answer``/``other``.
    """
    data = load_choice(path)
    folder = _documents_dir("choice", data.path)
    rows = []
    for item in data.items:
        for k, option in enumerate(item.options):
            kind = item.types[k] if item.types else ("answer" if k == item.answer else "other")
            extra = {"item": item.id, "option": str(k), "answer": str(item.answer), "type": kind}
            if item.group:
                extra["item_group"] = item.group
            rows.append((item.query, option, kind, extra))
    pairs = write_documents(rows, folder)
    groups = sorted({r[2] for r in rows}, key=lambda g: (g not in ("target", "answer"), g))
    return Evaluation(
        "choice",
        folder,
        pairs,
        groups=groups,
        problems=list(data.problems),
        meta={"file": str(data.path.resolve()), "items": len(data.items), "options": len(pairs)},
    )


def _grade(relevance: float) -> str:
    return f"{relevance:g}"


def ranking_evaluation(path: str | Path) -> Evaluation:
    """Every (query, candidate) pair of a ranking CSV (:func:`dri.corpora.judgements.load_ranking`).

    Each row carries ``query`` (the query's key: with ``/facet`` when the file
    has facets) and ``relevance``; the group is the relevance grade, so the
    shared report shows each score per grade, with Spearman's rho against
    whole-number grades and the ROC AUC of the relevant grades against the
    lowest.
    """
    data = load_ranking(path)
    folder = _documents_dir("ranking", data.path)
    pairs = write_documents(
        [
            (
                p.a,
                p.b,
                _grade(p.score),
                {**p.extra, "query": p.query, "relevance": repr(p.score), "line": str(p.line)},
            )
            for p in data.pairs
        ],
        folder,
    )
    grades = sorted({p.score for p in data.pairs}, reverse=True)
    whole = all(g == int(g) for g in grades)
    return Evaluation(
        "ranking",
        folder,
        pairs,
        groups=[_grade(g) for g in grades],
        problems=list(data.problems),
        report={
            "levels": {_grade(g): int(g) for g in grades} if whole and len(grades) > 1 else None,
            "negative": _grade(grades[-1]) if len(grades) > 1 else None,
        },
        meta={"file": str(data.path.resolve()), "queries": len(data.queries), "candidates": len(pairs)},
    )


def _validity_report(
    result: EvaluationResult, source: Path, report_dir: str | Path | Literal[False] | None
) -> tuple[EvaluationResult, ReportFiles | None]:
    """The shared report folder plus the validity section, its plots and ``validity.json``."""
    if result.kind == "judgements":
        section, stats = judgement_section(result.rows, result.scores, "human")
        sections = [section]
    elif result.kind == "ranking":
        ranking = rank_pools(result.rows, result.structure_scores, result.baseline_scores)
        result.validity = ranking
        sections, stats = ranking_section(ranking), ranking.to_dict()
    else:
        section, stats = choice_section(result.rows, result.scores)
        sections = [section]
    result.meta["validity"] = stats
    if report_dir is False:
        return result, None
    out = Path(report_dir or default_report_dir(result.kind, source.with_suffix("")))
    out.mkdir(parents=True, exist_ok=True)
    if result.kind == "judgements":
        title = f"{source.name}: scores against the human score"
        for name, scores in (
            ("scatter.png", result.structure_scores),
            ("scatter_baselines.png", result.baseline_scores),
        ):
            if plot_scatter(result.rows, scores, "human", out / name, title):
                sections[0].images.append(name)
    if isinstance(result.validity, RankingResult) and plot_ranking(
        result.validity, out / "ranking.png", f"{source.name}: ranking quality per score"
    ):
        sections[0].images.append("ranking.png")
    (out / "validity.json").write_text(json.dumps(stats, indent=1, default=str), encoding="utf-8")
    return result, write_report(result, out, sections=sections)


def evaluate_judgements(
    path: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every structure score and baseline against human scores of text pairs.

    Pearson, Spearman and Kendall tau-b with 95% bootstrap intervals
    (:func:`dri.metrics.validity.judgement_section`), a scatter plot per score,
    and the usual report files. Raises :class:`CorpusError` if the file has no
    usable row.
    """
    evaluation = judgements_evaluation(path)
    result = evaluate(evaluation, **options)
    return _validity_report(result, Path(path), report_dir)


def evaluate_ranking(
    path: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """How well every structure score and baseline ranks each query's pool.

    Per query and as means over the queries with 95% bootstrap intervals:
    NDCG%20, NDCG@10 and MAP, ties ranked worst-first
    (:func:`dri.metrics.ranking.rank_pools`; ``result.validity`` holds the
    :class:`~dri.metrics.ranking.RankingResult`), a plot of both, and the
    usual report files. Raises :class:`CorpusError` if the file has no query
    with two usable candidates.
    """
    evaluation = ranking_evaluation(path)
    result = evaluate(evaluation, **options)
    return _validity_report(result, Path(path), report_dir)


def evaluate_choice(
    path: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Multiple-choice accuracy of every structure score and baseline.

    Accuracy with a 95% bootstrap interval, ties for the top counted wrong and
    reported, and how often each option type is picked
    (:func:`dri.metrics.validity.choice_section`).
    """
    evaluation = choice_evaluation(path)
    result = evaluate(evaluation, **options)
    return _validity_report(result, Path(path), report_dir)


def evaluate_plagiarism(
    corpus_dir: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every answer of a Clough & Stevenson corpus against its original
    (:func:`plagiarism_evaluation`, :func:`run_evaluation`). Raises
    :class:`CorpusError` if the corpus cannot be read at all."""
    return run_evaluation(plagiarism_evaluation(corpus_dir), report_dir, **options)


def evaluate_translation(
    corpus_dir: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every original of a translation corpus against each of its round trips
    (:func:`translation_evaluation`, :func:`run_evaluation`)."""
    return run_evaluation(translation_evaluation(corpus_dir), report_dir, **options)


# -- analogy search -------------------------------------------------------------


def analogy_search(
    corpus_dir: str | Path,
    target: str | Sequence[str] | None = None,
    k: int = 5,
    *,
    sections: Sequence[str] | None = None,
    report_dir: str | Path | Literal[False] | None = None,
    baselines: bool = True,
    progress: Progress | None = None,
    candidates: int = DEFAULT_CANDIDATES,
    exhaustive: bool = False,
    profile: str | None = None,
) -> tuple[list[SearchResult], ReportFiles | None]:
    """Rank the other documents of ``corpus_dir`` against each target by Analogy Similarity.

    ``target`` (one name or several) overrides ``targets.txt``; ``sections``
    overrides ``sections.txt``. Two-stage search: only the ``candidates``
    documents closest to a target by content are structure-mapped, unless
    ``exhaustive``. Returns the top ``k`` per target and writes a
    report (scores of all comparisons, the top k with their mappings, the
    expert ratings if any were imported).
    """
    targets = [target] if isinstance(target, str) else (list(target) if target else None)
    evaluation = analogy_evaluation(corpus_dir, targets, sections, k, candidates, exhaustive)
    result = evaluate(evaluation, baselines=baselines, progress=progress, profile=profile)
    results = []
    for tgt in dict.fromkeys(pair.target for pair in evaluation.pairs):
        mine = [r for r in result.rows if r["target"] == str(tgt)]
        ok = sorted(
            (r for r in mine if not math.isnan(r.get("analogy_similarity", math.nan))),
            key=lambda r: (-r["analogy_similarity"], -r.get("semantic", 0.0), r["source"]),
        )
        for rank, r in enumerate(ok, start=1):
            r["rank"] = rank
        hits = [
            Hit(
                r["rank"],
                Path(r["source"]),
                {s: r[s] for s in STRUCTURE_SCORES},
                r.get("_mapping") or [],
                inferences=r.get("_inferences") or [],
            )
            for r in ok[:k]
        ]
        results.append(SearchResult(tgt, hits, len(mine), evaluation.sections))
    if report_dir is False:
        return results, None
    _add_comparisons(results, profile)
    ratings = _stored_ratings()
    files = write_report(
        result,
        report_dir or default_report_dir("analogy", evaluation.root),
        ratings=rating_stats(ratings) if ratings else None,
        search=results,
    )
    return results, files


def _add_comparisons(results: Sequence[SearchResult], profile: str | None) -> None:
    """Give each hit its two stored graphs and their full comparison, for the report's
    pictures. The store keeps the mapped pairs and the inferences but neither the
    graphs' layout nor which pairs were loose, so the top hits are mapped again
    from the stored graphs: k mappings per target."""
    ids = _doc_ids(p for res in results for p in (res.target, *(h.source for h in res.hits)))
    with open_store() as store:
        graphs: dict[str, Any] = {}

        def graph(path: Path, sections: tuple[str, ...] | None) -> Any:
            doc_id = ids.get(_resolved(path))
            if doc_id and doc_id not in graphs:
                graphs[doc_id] = store.get_graph(doc_id)
            g = graphs.get(doc_id) if doc_id else None
            return restrict_to_sections(g, sections) if g is not None and sections else g

        for res in results:
            target = graph(res.target, res.sections)
            for hit in res.hits:
                source = graph(hit.source, res.sections)
                if source is None or target is None:
                    continue
                try:
                    hit.comparison = compare(source, target, profile=profile)
                except Exception as err:  # the report shows the stored mapping instead
                    log.warning(
                        "%s -> %s: not mapped again for the report: %s", hit.source, res.target, one_line(err)
                    )
                    continue
                hit.graphs = (source, target)


def _stored_ratings() -> list[dict[str, Any]]:
    try:
        return load_ratings()
    except CorpusError:
        return []


def format_search(results: Sequence[SearchResult]) -> str:
    """Markdown: per target, the ranked sources and their strongest mapped pairs."""
    return render("search.md", search=list(results))
