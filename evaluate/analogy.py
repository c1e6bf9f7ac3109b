"""Analogy search (EGPAI 2016, "Finding and Evaluating a Computer Graphics Analogy").

A target against every other document, ranked by Analogy Similarity, top k
with their mappings, optionally on some sections only; two-stage search
(:mod:`dri.flows.search`) maps only the candidates closest by content.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from dri.corpora.analogy import load_analogy
from dri.corpora.ratings import ratings_file, read_ratings
from dri.corpora.text import CorpusError
from dri.errors import one_line
from dri.evaluate.core import Evaluation, Progress, default_report_dir, doc_ids, evaluate, resolved_path
from dri.graphs import RELATION, restrict_to_sections
from dri.mapping import MappedPair, Mapping
from dri.mapping.content import FAR_CONTENT
from dri.mapping.inference import CandidateInference
from dri.metrics import Comparison, Scores, compare
from dri.metrics.pages import render
from dri.metrics.picture_pool import picture_pool
from dri.metrics.report import picture_jobs, write_report
from dri.metrics.results import STRUCTURE_SCORES, Hit, ReportFiles, SearchResult
from dri.metrics.stats import rating_stats
from dri.settings import DEFAULT_CANDIDATES
from dri.store import ComparisonRecord, StoreError, open_store

log = logging.getLogger(__name__)

__all__ = ["analogy_evaluation", "analogy_search", "format_search", "stored_comparison"]


def analogy_evaluation(
    corpus_dir: str | Path,
    targets: Sequence[str] | None = None,
    sections: Sequence[str] | None = None,
    k: int = 5,
    candidates: int = DEFAULT_CANDIDATES,
    exhaustive: bool = False,
    top: int | None = None,
) -> Evaluation:
    """Every other document against each target (``targets`` override ``targets.txt``);
    with two-stage search (:mod:`flows.search`), only the ``candidates`` closest
    by content are structure-mapped, unless ``exhaustive``; with ``top``, a
    given target's stage 2 skips the candidates that cannot enter its ``top``
    best (:mod:`flows.stage2`), which are then not rows."""
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
        [
            {"mode": "target", "target": str(t), "sections": sections_param, **search, "top": top}
            for t in corpus.targets
        ]
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
    far: bool = False,
) -> tuple[list[SearchResult], ReportFiles | None]:
    """Rank the other documents of ``corpus_dir`` against each target by Analogy Similarity.

    ``target`` (one name or several) overrides ``targets.txt``; ``sections``
    overrides ``sections.txt``. Two-stage search: only the ``candidates``
    documents closest to a target by content are structure-mapped, unless
    ``exhaustive``. Returns the top ``k`` per target and writes a
    report (scores of all comparisons, the top k with their mappings, the
    expert ratings if any were imported). ``far`` ranks only the sources whose
    content similarity to the target is under :data:`mapping.content.FAR_CONTENT`:
    far analogies, about other things than the target.
    """
    targets = [target] if isinstance(target, str) else (list(target) if target else None)
    # Stage 2's early stop (``top``) is left off here: it skipped nothing on
    # stories and cost more CPU than mapping them all on Prefect's pool (docs/speed.md).
    evaluation = analogy_evaluation(corpus_dir, targets, sections, k, candidates, exhaustive)
    if report_dir is False:
        result = evaluate(evaluation, baselines=baselines, progress=progress, profile=profile)
        _rank_rows(evaluation, result.rows, far)
        return _search_results(evaluation, result.rows, k, far)[0], None
    # Forked now, before the search starts any thread: the workers load matplotlib
    # while the search maps, then draw the report's pictures while the baselines are scored.
    with picture_pool() as pool:
        found: list[list[SearchResult]] = []

        def start_pictures(rows: list[dict[str, Any]]) -> None:
            results, records = _search_results(evaluation, rows, k, far)
            _add_comparisons(results, records, profile)
            if pool is not None:
                for job in picture_jobs(results).values():
                    pool.submit(job)
            found.append(results)

        result = evaluate(
            evaluation, baselines=baselines, progress=progress, profile=profile, on_compared=start_pictures
        )
        _rank_rows(evaluation, result.rows, far)
        if far:
            result.meta["ranked"] = f"far analogies only: sources with content similarity under {FAR_CONTENT}"
        (results,) = found
        for res in results:  # a pair's baselines may have failed since its hits were chosen
            res.failures = _failures(result.rows, res.target)
        ratings = _stored_ratings()
        files = write_report(
            result,
            report_dir or default_report_dir("analogy", evaluation.root),
            ratings=rating_stats(ratings) if ratings else None,
            search=results,
            pool=pool,
        )
    return results, files


def _failures(rows: Sequence[dict[str, Any]], target: Path) -> tuple[tuple[str, str], ...]:
    """``(source, error)`` of each pair of ``target`` that could not be compared."""
    return tuple(
        (str(r["source"]), str(r["error"])) for r in rows if r["target"] == str(target) and r.get("error")
    )


def _targets(evaluation: Evaluation) -> list[Path]:
    return list(dict.fromkeys(pair.target for pair in evaluation.pairs))


def _ranked(rows: Sequence[dict[str, Any]], far: bool) -> list[dict[str, Any]]:
    """The rows of one target that have an AS (and a content under the far
    threshold if ``far``), best first."""
    return sorted(
        (
            r
            for r in rows
            if not math.isnan(r.get("analogy_similarity", math.nan))
            and (not far or r.get("content", 1.0) < FAR_CONTENT)
        ),
        key=lambda r: (-r["analogy_similarity"], -r.get("semantic", 0.0), r["source"]),
    )


def _rank_rows(evaluation: Evaluation, rows: Sequence[dict[str, Any]], far: bool) -> None:
    """Each ranked row's ``rank`` for the report's table (added after the rows are stored)."""
    for tgt in _targets(evaluation):
        for rank, r in enumerate(_ranked([r for r in rows if r["target"] == str(tgt)], far), start=1):
            r["rank"] = rank


def _search_results(
    evaluation: Evaluation, rows: Sequence[dict[str, Any]], k: int, far: bool
) -> tuple[list[SearchResult], dict[int, ComparisonRecord | None]]:
    """Each target's top ``k`` hits by AS (only far sources if ``far``), and each
    hit's stored comparison record, with its mapping pairs and inferences, by ``id(hit)``."""
    mine = {tgt: [r for r in rows if r["target"] == str(tgt)] for tgt in _targets(evaluation)}
    ranked = {tgt: _ranked(of_target, far)[:k] for tgt, of_target in mine.items()}
    full = _full_records([r.get("_record") for top in ranked.values() for r in top])
    results = []
    records: dict[int, ComparisonRecord | None] = {}
    for tgt, top in ranked.items():
        hits = []
        for rank, r in enumerate(top, start=1):
            key = _key(r.get("_record"))
            record = full.get(key) if key is not None else None
            hit = Hit(
                rank,
                Path(r["source"]),
                {s: r[s] for s in STRUCTURE_SCORES},
                _mapping_rows(record),
                inferences=[CandidateInference.from_dict(x) for x in (record.inferences if record else [])],
            )
            records[id(hit)] = record
            hits.append(hit)
        results.append(
            SearchResult(
                tgt,
                hits,
                len(mine[tgt]),
                evaluation.sections,
                _failures(mine[tgt], tgt),
                tuple(evaluation.problems),
            )
        )
    return results, records


def _mapping_rows(record: ComparisonRecord | None) -> list[tuple[str, str, str, str | None]]:
    """A hit's mapped pairs as (kind, source lemma, target lemma, generic space)."""
    pairs = record.pairs if record is not None else []
    return [
        (p.get("kind", ""), p.get("source_lemma", ""), p.get("target_lemma", ""), p.get("generic"))
        for p in pairs
    ]


def _key(record: ComparisonRecord | None) -> tuple[str, str, str] | None:
    return None if record is None else (record.source_id, record.target_id, record.run_id)


def _full_records(records: Sequence[ComparisonRecord | None]) -> dict[tuple[str, str, str], ComparisonRecord]:
    """The stored comparisons of ``records`` (read with their scores alone) with their
    mapping pairs and inferences, by (source, target, run): a search reads them for
    its top hits, not for all its candidates (0.4 s of CPU for 250 stories)."""
    wanted = [key for key in map(_key, records) if key is not None]
    if not wanted:
        return {}
    full: dict[tuple[str, str, str], ComparisonRecord] = {}
    try:
        with open_store() as store:
            for key in wanted:
                found = store.get_comparison(*key)
                if found is not None:
                    full[key] = found
    except StoreError as err:  # the report then shows the hits without their mappings
        log.warning("the top hits' mappings were not read from the store: %s", one_line(err))
    return full


def _add_comparisons(
    results: Sequence[SearchResult], records: dict[int, ComparisonRecord | None], profile: str | None
) -> None:
    """Give each hit its two stored graphs and its full comparison, for the report's
    pictures. The comparison is rebuilt from what the store kept (the pairs, loose
    ones marked, their evidence, the scores, the inferences); only a comparison
    stored before loose pairs were kept is mapped again."""
    ids = doc_ids(p for res in results for p in (res.target, *(h.source for h in res.hits)))
    with open_store() as store:
        graphs: dict[str, Any] = {}

        def graph(path: Path, sections: tuple[str, ...] | None) -> Any:
            doc_id = ids.get(resolved_path(path))
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
                record = records.get(id(hit))
                comparison = stored_comparison(record, source, target) if record is not None else None
                if comparison is None:
                    try:
                        comparison = compare(source, target, profile=profile)
                    except Exception as err:  # the report shows the stored mapping instead
                        log.warning(
                            "%s -> %s: not mapped again for the report: %s",
                            hit.source,
                            res.target,
                            one_line(err),
                        )
                        continue
                hit.comparison = comparison
                hit.graphs = (source, target)


def stored_comparison(record: ComparisonRecord, source: Any, target: Any) -> Comparison | None:
    """The :class:`~metrics.Comparison` of ``source`` and ``target`` as ``record`` stored it,
    or ``None`` if it was stored before the store kept which pairs are loose."""
    if any(p.get("loose") is None for p in record.pairs):
        return None
    pairs = [MappedPair(**{name: p[name] for name in _PAIR_NAMES}) for p in record.pairs]
    scores = record.scores
    relations = (sum(1 for _, kind in g.nodes(data="type") if kind == RELATION) for g in (source, target))
    mapping = Mapping(
        pairs=pairs,
        source_size=source.number_of_nodes(),
        target_size=target.number_of_nodes(),
        seconds=record.mapping_seconds or 0.0,
        source_name=str(source.graph.get("name", "")),
        target_name=str(target.graph.get("name", "")),
        source_relations=next(relations),
        target_relations=next(relations),
        profile=str((record.params.get("mapping") or {}).get("profile") or ""),
    )
    fields = {name: scores[name] for name in _SCORE_FIELDS if name in scores}
    return Comparison(
        mapping,
        Scores(**fields, message=scores.get("message")),
        [CandidateInference.from_dict(x) for x in record.inferences],
    )


_PAIR_NAMES = tuple(MappedPair.__dataclass_fields__)
_SCORE_FIELDS = tuple(n for n in Scores.__dataclass_fields__ if n != "message")


def _stored_ratings() -> list[dict[str, Any]]:
    """The expert ratings ``dri ratings import`` kept, for the report. A store that
    cannot be read (edited by hand, junk) or rows of it that are not ratings are
    one warning each; before, the report left them out without a word."""
    path = ratings_file()
    if not path.is_file():
        return []
    try:
        rows, problems = read_ratings(path)
    except CorpusError as err:
        log.warning("%s; the report leaves the expert ratings out", err)
        return []
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        log.warning("%s%s; the report's expert ratings leave them out", problems[0], more)
    return rows


def format_search(results: Sequence[SearchResult]) -> str:
    """Markdown: per target, the ranked sources and their strongest mapped pairs."""
    return render("search.md", search=list(results))
