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

Each runner goes through the corpus flow (:func:`flows.corpus.run_corpus`)
and the store: the flow extracts and stores every document's ROS graph and
maps and stores every pair of the corpus's manifest (scores and mapping
pairs with Lin similarity and generic space), skipping what the store
already holds for the run, so a repeated evaluation stores nothing twice.
The runner then records each document's group in the corpus -- ``level``
for plagiarism (``orig`` for the originals), ``language`` for the round trips
-- so the same numbers can be queried from Neo4j (``docs/cypher.md``), and
reads the structure scores back from the store by ``run_id``. The text
baselines of :mod:`metrics.baselines` are computed on the same texts and
added to the rows, which are also saved with ``Store.save_evaluation``; the
evaluation writes a report folder (:mod:`metrics.report`).

A document that cannot be read fails only its own pairs: the row carries a
one-line ``error`` and the batch carries on. :func:`score_pairs` and
:class:`PairScorer` remain for scoring pairs directly, without the flow or
the store.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dri.corpora.analogy import load_analogy
from dri.corpora.manifest import ManifestPair
from dri.corpora.plagiarism import LEVEL_ORDER, LEVELS, load_plagiarism
from dri.corpora.text import CorpusError, read_text
from dri.corpora.translate import LANGUAGES
from dri.corpora.translation import load_translation
from dri.metrics.report import STRUCTURE_SCORES, EvaluationResult, ReportFiles, write_report
from dri.settings import DEFAULT_CANDIDATES

__all__ = [
    "GROUP_KEYS",
    "Hit",
    "PairScorer",
    "SearchResult",
    "analogy_search",
    "default_report_dir",
    "evaluate_plagiarism",
    "evaluate_translation",
    "flow_rows",
    "format_search",
    "score_pairs",
]

log = logging.getLogger(__name__)

Progress = Callable[[int, int, dict[str, Any]], None]


def default_report_dir(kind: str, corpus_dir: str | Path) -> Path:
    """``<data_dir>/reports/<kind>-<corpus folder name>``."""
    from dri.settings import data_dir

    return data_dir() / "reports" / f"{kind}-{Path(corpus_dir).resolve().name}"


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if hasattr(err, "path") else f"{type(err).__name__}: {text}"


@dataclass
class PairScorer:
    """Scores pairs of documents, building each document's graph once.

    ``sections`` restricts both graphs to those sections before mapping
    (:func:`graphs.restrict_to_sections`). ``baselines`` is a fitted
    :class:`metrics.baselines.Baselines` or ``None`` to skip them.
    """

    sections: tuple[str, ...] | None = None
    baselines: Any = None
    _graphs: dict[Path, Any] = field(default_factory=dict, repr=False)
    _texts: dict[Path, str] = field(default_factory=dict, repr=False)

    def graph(self, path: Path):
        """The ROS graph of ``path`` (restricted to ``sections``); raises one-line errors."""
        path = Path(path)
        if path not in self._graphs:
            from dri.extract import graph_from_path

            try:
                g = graph_from_path(path)
                if self.sections:
                    from dri.graphs import restrict_to_sections

                    g = restrict_to_sections(g, self.sections)
                self._graphs[path] = g
            except Exception as err:
                self._graphs[path] = err
        g = self._graphs[path]
        if isinstance(g, BaseException):
            raise g
        return g

    def prepare(self, paths: Iterable[Path]) -> None:
        """Build the graphs of ``paths`` in one batch (one spaCy pipe) where possible."""
        todo = [Path(p) for p in dict.fromkeys(paths) if Path(p) not in self._graphs]
        if not todo:
            return
        try:
            from dri.extract import build_graphs, read_document
        except ImportError:
            return  # graph() builds them one by one
        docs, paths_ok = [], []
        for p in todo:
            try:
                docs.append(read_document(p))
                paths_ok.append(p)
            except Exception as err:
                self._graphs[p] = err
        for p, g in zip(paths_ok, build_graphs(docs)):
            if self.sections:
                from dri.graphs import restrict_to_sections

                g = restrict_to_sections(g, self.sections)
            self._graphs[p] = g

    def text(self, path: Path) -> str:
        """The plain text of ``path`` for the baselines (PDFs through the extractor)."""
        path = Path(path)
        if path not in self._texts:
            if path.suffix.lower() == ".pdf":
                from dri.extract import read_document

                self._texts[path] = "\n".join(s.text for s in read_document(path).sentences)
            else:
                self._texts[path] = read_text(path)
        return self._texts[path]

    def score(self, pair: ManifestPair, index: int = 0) -> dict[str, Any]:
        """One row of the report: ids, structure scores, baselines, time, error."""
        from dri.metrics import compare

        row: dict[str, Any] = {
            "pair": index,
            "group": pair.group,
            "source": str(pair.source),
            "target": str(pair.target),
            **pair.extra,
        }
        started = time.perf_counter()
        errors = []
        try:
            comparison = compare(self.graph(pair.source), self.graph(pair.target))
            scores = comparison.scores
            for name in (*STRUCTURE_SCORES, "mapped_concepts", "mapped_relations"):
                row[name] = getattr(scores, name, math.nan)
            row["_comparison"] = comparison
        except Exception as err:
            errors.append(_one_line(err))
            for name in STRUCTURE_SCORES:
                row[name] = math.nan
        if self.baselines is not None:
            try:
                row.update(self.baselines.score(self.text(pair.source), self.text(pair.target)))
            except Exception as err:
                errors.append(_one_line(err))
        row["seconds"] = time.perf_counter() - started
        row["error"] = "; ".join(dict.fromkeys(errors))
        return row


def _fit_baselines(pairs: Sequence[ManifestPair], embeddings: bool, scorer: PairScorer) -> Any:
    from dri.metrics.baselines import Baselines

    texts = []
    for path in dict.fromkeys(p for pair in pairs for p in (pair.source, pair.target)):
        try:
            texts.append(scorer.text(path))
        except Exception:
            continue
    return Baselines(texts, embeddings=embeddings) if texts else None


def score_pairs(
    pairs: Sequence[ManifestPair],
    *,
    baselines: bool = True,
    embeddings: bool = False,
    sections: Sequence[str] | None = None,
    progress: Progress | None = None,
    scorer: PairScorer | None = None,
) -> list[dict[str, Any]]:
    """A report row per pair, in order. TF-IDF is fitted on the texts of ``pairs``."""
    scorer = scorer or PairScorer(sections=tuple(sections) if sections else None)
    if baselines and scorer.baselines is None:
        scorer.baselines = _fit_baselines(pairs, embeddings, scorer)
    scorer.prepare(p for pair in pairs for p in (pair.source, pair.target))
    rows = []
    for i, pair in enumerate(pairs, start=1):
        row = scorer.score(pair, i)
        rows.append(row)
        if progress:
            progress(i, len(pairs), row)
    return rows


# -- through the corpus flow and the store ---------------------------------------

#: The corpus meta key under which an evaluation records each compared
#: document's group, as ``docs/cypher.md`` queries it.
GROUP_KEYS: dict[str, str] = {"plagiarism": "level", "translation": "language"}
#: The group recorded for the source documents (the originals), if any.
_SOURCE_GROUPS: dict[str, str] = {"plagiarism": "orig"}
#: Manifest extras that are not a document's group meta (they name the document).
_NOT_META = frozenset({"name", "path"})


def _resolved(path: str | Path) -> str:
    return str(Path(path).resolve())


def _doc_ids(paths: Iterable[Path]) -> dict[str, str]:
    """``{resolved path: doc_id}`` for the readable paths (the store's content hash)."""
    from dri.extract.document import content_ids

    ids = {}
    for path in dict.fromkeys(_resolved(p) for p in paths):
        try:
            ids[path] = content_ids(Path(path).read_bytes())[0]
        except OSError:
            continue  # the flow names the unreadable file in its failures
    return ids


def _run_flows(root: Path, runs: Sequence[dict[str, Any]]) -> list[Any]:
    """Run the corpus flow once per parameter set; the run summaries, in order."""
    from dri.flows.corpus import run_corpus

    summaries = []
    for params in runs:
        state, summary = run_corpus(str(root), **params)
        if summary is None:
            message = " ".join(str(getattr(state, "message", "") or state).split())
            raise CorpusError(root, f"the corpus flow crashed: {message}")
        summaries.append(summary)
    return summaries


def _record_groups(
    store: Any, corpus: str, kind: str, pairs: Sequence[ManifestPair], ids: dict[str, str]
) -> int:
    """Record each compared document's group in its corpus meta; returns how
    many documents changed. Documents already carrying it are left alone, so
    a repeated evaluation writes nothing."""
    key = GROUP_KEYS.get(kind)
    if key is None:
        return 0
    wanted: dict[str, dict[str, str]] = {}
    for pair in pairs:
        extra = {k: v for k, v in pair.extra.items() if k not in _NOT_META and v}
        target_id = ids.get(_resolved(pair.target))
        if target_id:
            wanted.setdefault(target_id, {}).update({**extra, key: pair.group})
        source_id = ids.get(_resolved(pair.source))
        if source_id and kind in _SOURCE_GROUPS:
            meta = wanted.setdefault(source_id, {})
            for k, v in {**extra, key: _SOURCE_GROUPS[kind]}.items():
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


def flow_rows(
    pairs: Sequence[ManifestPair],
    corpus_dir: str | Path,
    *,
    kind: str,
    runs: Sequence[dict[str, Any]] | None = None,
    baselines: bool = True,
    embeddings: bool = False,
    progress: Progress | None = None,
    scorer: PairScorer | None = None,
    mappings: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Report rows for ``pairs`` through the corpus flow and the store.

    Runs :func:`flows.corpus.run_corpus` on ``corpus_dir`` once per dict of
    flow parameters in ``runs`` (default: one run in ``manifest`` mode), which
    stores the graphs and the comparisons; records the documents' groups
    (:data:`GROUP_KEYS`); then reads each pair's structure scores back from
    the store by ``run_id`` (with the mapping pairs as ``row["_mapping"]``
    when ``mappings``) and adds the text baselines. A pair the flow could not
    compare gets NaN scores and the flow's one-line reason as ``error``.
    Returns ``(rows, meta)``; ``meta`` names the runs, the corpus and the store.
    """
    from dri.store import open_store

    root = Path(corpus_dir).resolve()
    started = time.perf_counter()
    summaries = _run_flows(root, runs or [{"mode": "manifest"}])
    flow_seconds = time.perf_counter() - started
    run_ids = list(dict.fromkeys(s.run_id for s in summaries))
    failures = [f for s in summaries for f in s.failures]
    corpus = summaries[0].corpus
    ids = _doc_ids(p for pair in pairs for p in (pair.source, pair.target))
    with open_store() as store:
        grouped = _record_groups(store, corpus, kind, pairs, ids)
        stored = {
            (r.source_id, r.target_id): r
            for run_id in run_ids
            for r in store.comparisons(run_id=run_id, pairs=mappings)
        }
        where = f"{store.backend} ({store.location})"
    scorer = scorer or PairScorer()
    if baselines and scorer.baselines is None:
        scorer.baselines = _fit_baselines(pairs, embeddings, scorer)
    # Pairs that stage 1 of the two-stage search did not choose are not rows.
    pruned = any(s.stage1.get("kept", 0) < s.stage1.get("planned", 0) for s in summaries)
    not_candidates = 0
    rows = []
    for i, pair in enumerate(pairs, start=1):
        if pruned and _not_candidate(pair, stored, ids, failures):
            not_candidates += 1
            continue
        t = time.perf_counter()
        row: dict[str, Any] = {
            "pair": i,
            "group": pair.group,
            "source": str(pair.source),
            "target": str(pair.target),
            **pair.extra,
        }
        errors = []
        record = stored.get((ids.get(_resolved(pair.source)), ids.get(_resolved(pair.target))))
        if record is None:
            errors.append(_pair_error(pair, failures, run_ids))
            for name in STRUCTURE_SCORES:
                row[name] = math.nan
        else:
            for name in (*STRUCTURE_SCORES, "mapped_concepts", "mapped_relations"):
                row[name] = record.scores.get(name, math.nan)
            if mappings:
                row["_mapping"] = [
                    (
                        p.get("kind", ""),
                        p.get("source_lemma", ""),
                        p.get("target_lemma", ""),
                        p.get("generic"),
                    )
                    for p in record.pairs
                ]
        if scorer.baselines is not None:
            try:
                row.update(scorer.baselines.score(scorer.text(pair.source), scorer.text(pair.target)))
            except Exception as err:
                errors.append(_one_line(err))
        row["seconds"] = time.perf_counter() - t
        row["error"] = "; ".join(dict.fromkeys(errors))
        rows.append(row)
        if progress:
            progress(i, len(pairs), row)
    meta = {
        "run_id": ", ".join(run_ids),
        "store_corpus": corpus,
        "store": where,
        "flow_seconds": round(flow_seconds, 1),
        "flow_mapped": sum(s.mapped for s in summaries),
        "flow_already_stored": sum(s.already_stored for s in summaries),
        "groups_recorded": grouped,
        "not_candidates": not_candidates,
        "stage1_seconds": round(sum(s.stage1.get("seconds", 0.0) for s in summaries), 3),
    }
    return rows, meta


def _not_candidate(pair: ManifestPair, stored: dict, ids: dict[str, str], failures: Sequence[str]) -> bool:
    """A pair the flow neither stored nor failed: stage 1 left it out."""
    key = (ids.get(_resolved(pair.source)), ids.get(_resolved(pair.target)))
    if None in key or key in stored:
        return False
    ends = (_resolved(pair.source), _resolved(pair.target))
    return not any(e in f for f in failures for e in ends)


def _store_results(kind: str, corpus: Path, rows: list[dict[str, Any]]) -> str | None:
    """Save the rows with ``Store.save_evaluation``; the store's name, or ``None``.

    Per-row timings are left out: the evaluation's id is a hash of its
    content, so the same results saved again are stored once.
    """
    try:
        from dri.store import open_store
    except ImportError:
        return None
    try:
        store = open_store()
    except Exception as err:
        log.warning("store not available, results not stored: %s", _one_line(err))
        return None
    try:
        saver = getattr(store, "save_evaluation", None)
        if saver is None:
            return None
        saver(
            kind,
            str(corpus),
            [{k: v for k, v in r.items() if not k.startswith("_") and k != "seconds"} for r in rows],
        )
        return type(store).__name__
    except Exception as err:
        log.warning("could not store the results: %s", _one_line(err))
        return None
    finally:
        store.close()


def _finish(
    result: EvaluationResult,
    report_dir: str | Path | bool | None,
    corpus_dir: Path,
    started: float,
    ratings: Any = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    result.meta["wall_seconds"] = round(time.perf_counter() - started, 1)
    stored = _store_results(result.kind, corpus_dir, result.rows)
    if stored:
        result.meta["stored_in"] = stored
    if report_dir is False:
        return result, None
    files = write_report(result, report_dir or default_report_dir(result.kind, corpus_dir), ratings=ratings)
    return result, files


def evaluate_plagiarism(
    corpus_dir: str | Path,
    report_dir: str | Path | bool | None = None,
    *,
    baselines: bool = True,
    embeddings: bool = False,
    progress: Progress | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every answer of a Clough & Stevenson corpus against its original.

    Goes through the corpus flow and the store (:func:`flow_rows`). Writes the
    report to ``report_dir`` (default :func:`default_report_dir`; ``False``
    for none). Raises :class:`CorpusError` if the corpus cannot be read at all.
    """
    started = time.perf_counter()
    corpus = load_plagiarism(corpus_dir)
    if not corpus.pairs:
        raise CorpusError(corpus.root, "no answer/original pairs to compare")
    pairs = corpus.manifest()
    rows, meta = flow_rows(
        pairs, corpus.root, kind="plagiarism", baselines=baselines, embeddings=embeddings, progress=progress
    )
    result = EvaluationResult(
        "plagiarism",
        rows,
        groups=list(LEVEL_ORDER),
        levels=LEVELS,
        negative="non",
        baseline_scores=_baseline_names(rows),
        problems=list(corpus.problems),
        meta={"corpus": str(corpus.root.resolve()), "pairs": len(pairs), **meta},
    )
    return _finish(result, report_dir, corpus.root, started)


def evaluate_translation(
    corpus_dir: str | Path,
    report_dir: str | Path | bool | None = None,
    *,
    baselines: bool = True,
    embeddings: bool = False,
    progress: Progress | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every original of a translation corpus against each of its round trips,
    through the corpus flow and the store (:func:`flow_rows`)."""
    started = time.perf_counter()
    corpus = load_translation(corpus_dir)
    if not corpus.pairs:
        raise CorpusError(corpus.root, "no original/round-trip pairs to compare")
    pairs = corpus.manifest()
    rows, meta = flow_rows(
        pairs, corpus.root, kind="translation", baselines=baselines, embeddings=embeddings, progress=progress
    )
    result = EvaluationResult(
        "translation",
        rows,
        groups=[lang for lang in LANGUAGES if lang in corpus.languages]
        + sorted(set(corpus.languages) - set(LANGUAGES)),
        rank=True,
        baseline_scores=_baseline_names(rows),
        problems=list(corpus.problems),
        meta={
            "corpus": str(corpus.root.resolve()),
            "pairs": len(pairs),
            "originals": len(corpus.originals),
            **meta,
        },
        group_labels=dict(LANGUAGES.items()),
    )
    return _finish(result, report_dir, corpus.root, started)


def _baseline_names(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    from dri.metrics.baselines import BASELINE_NAMES, EMBEDDING

    present = {k for r in rows for k in r}
    return tuple(n for n in (*BASELINE_NAMES, EMBEDDING) if n in present)


# -- analogy search -------------------------------------------------------------


@dataclass
class Hit:
    """One source document found for a target, with the mapping that scored it."""

    rank: int
    source: Path
    scores: dict[str, float]
    mapping: list[tuple[str, str, str, str | None]]  # (kind, source lemma, target lemma, generic)
    error: str = ""


@dataclass
class SearchResult:
    target: Path
    hits: list[Hit]
    compared: int
    sections: tuple[str, ...] | None


def _mapping_pairs(comparison: Any) -> list[tuple[str, str, str, str | None]]:
    mapping = getattr(comparison, "mapping", None)
    pairs = getattr(mapping, "pairs", None) or []
    out = []
    for p in pairs:
        out.append(
            (
                getattr(p, "kind", ""),
                getattr(p, "source_lemma", str(getattr(p, "source", ""))),
                getattr(p, "target_lemma", str(getattr(p, "target", ""))),
                getattr(p, "generic", None),
            )
        )
    return out


def analogy_search(
    corpus_dir: str | Path,
    target: str | Sequence[str] | None = None,
    k: int = 5,
    *,
    sections: Sequence[str] | None = None,
    report_dir: str | Path | bool | None = None,
    baselines: bool = True,
    progress: Progress | None = None,
    candidates: int = DEFAULT_CANDIDATES,
    exhaustive: bool = False,
) -> tuple[list[SearchResult], ReportFiles | None]:
    """Rank the other documents of ``corpus_dir`` against each target by Analogy Similarity.

    ``target`` (one name or several) overrides ``targets.txt``; ``sections``
    overrides ``sections.txt``. Two-stage search (:mod:`flows.search`): only
    the ``candidates`` documents closest to a target by content are
    structure-mapped, unless ``exhaustive``. Returns the top ``k`` per target
    and writes a report (scores of the comparisons, the top k with their mappings).
    """
    started = time.perf_counter()
    targets = [target] if isinstance(target, str) else (list(target) if target else None)
    corpus = load_analogy(corpus_dir, targets=targets, sections=sections)
    pairs = corpus.manifest()
    sections_param = sorted(corpus.sections) if corpus.sections else None
    # The corpus's own targets are one manifest run; targets given here are
    # not in targets.txt, so each is a run of the flow's target mode.
    search = {"candidates": candidates, "exhaustive": exhaustive}
    runs = (
        [{"mode": "target", "target": str(t), "sections": sections_param, **search} for t in corpus.targets]
        if targets
        else [{"mode": "manifest", "sections": sections_param, **search}]
    )
    rows, flow_meta = flow_rows(
        pairs, corpus.root, kind="analogy", runs=runs, baselines=baselines, progress=progress, mappings=True
    )
    results = []
    for tgt in corpus.targets:
        mine = [r for r in rows if r["target"] == str(tgt)]
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
                r.get("_mapping") or _mapping_pairs(r.get("_comparison")),
            )
            for r in ok[:k]
        ]
        results.append(SearchResult(tgt, hits, len(mine), corpus.sections))
    result = EvaluationResult(
        "analogy",
        rows,
        groups=[t.name for t in corpus.targets],
        baseline_scores=_baseline_names(rows),
        meta={
            "corpus": str(corpus.root.resolve()),
            "targets": len(corpus.targets),
            "k": k,
            "sections": ", ".join(corpus.sections) if corpus.sections else "whole documents",
            **flow_meta,
        },
    )
    result.meta["wall_seconds"] = round(time.perf_counter() - started, 1)
    files = None
    if report_dir is not False:
        from dri.metrics.stats import rating_stats

        ratings = _stored_ratings()
        files = write_report(
            result,
            report_dir or default_report_dir("analogy", corpus.root),
            ratings=rating_stats(ratings) if ratings else None,
            extra_markdown=format_search(results),
        )
    return results, files


def _stored_ratings() -> list[dict[str, Any]]:
    try:
        from dri.corpora.ratings import load_ratings

        return load_ratings()
    except (ImportError, CorpusError):
        return []


def format_search(results: Sequence[SearchResult], mapped: int = 8) -> str:
    """Markdown: per target, the ranked sources and their strongest mapped pairs."""
    lines = []
    for res in results:
        where = f", sections {', '.join(res.sections)}" if res.sections else ""
        lines += [
            f"## Target {res.target.name}",
            "",
            f"{res.compared} comparisons{where}; top {len(res.hits)} by Analogy Similarity.",
            "",
            "| rank | source | AS | semantic | Jaccard | conceptual | relational |",
            "|---|---|---|---|---|---|---|",
        ]
        for h in res.hits:
            s = h.scores
            lines.append(
                f"| {h.rank} | {h.source.name} | {s['analogy_similarity']:.3f} | {s['semantic']:.3f} "
                f"| {s['jaccard']:.3f} | {s['conceptual']:.3f} | {s['relational']:.3f} |"
            )
        lines.append("")
        for h in res.hits:
            if h.mapping:
                shown = ", ".join(
                    f"{a} ↔ {b}" + (f" ({g})" if g else "") for _, a, b, g in h.mapping[:mapped]
                )
                more = f" … (+{len(h.mapping) - mapped})" if len(h.mapping) > mapped else ""
                lines.append(f"- {h.source.name}: {shown}{more}")
        lines.append("")
    return "\n".join(lines)
