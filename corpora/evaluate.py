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

Each pair gets the structure scores of ``metrics.compare`` and the text
baselines of :mod:`metrics.baselines` on the same texts, and the evaluation
writes a report folder (:mod:`metrics.report`). A document that cannot be
read fails only its own pairs: the row carries a one-line ``error`` and the
batch carries on.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from corpora.analogy import load_analogy
from corpora.manifest import ManifestPair
from corpora.plagiarism import LEVEL_ORDER, LEVELS, load_plagiarism
from corpora.text import CorpusError, read_text
from corpora.translate import LANGUAGES
from corpora.translation import load_translation
from metrics.report import STRUCTURE_SCORES, EvaluationResult, ReportFiles, write_report

__all__ = [
    "PairScorer",
    "Hit",
    "SearchResult",
    "score_pairs",
    "evaluate_plagiarism",
    "evaluate_translation",
    "analogy_search",
    "default_report_dir",
    "format_search",
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
            from extract import graph_from_path

            try:
                g = graph_from_path(path)
                if self.sections:
                    from graphs import restrict_to_sections

                    g = restrict_to_sections(g, self.sections)
                self._graphs[path] = g
            except Exception as err:  # noqa: BLE001 -- a bad document fails only its own pairs
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
            from extract import build_graphs, read_document
        except ImportError:
            return  # graph() builds them one by one
        docs, paths_ok = [], []
        for p in todo:
            try:
                docs.append(read_document(p))
                paths_ok.append(p)
            except Exception as err:  # noqa: BLE001
                self._graphs[p] = err
        for p, g in zip(paths_ok, build_graphs(docs)):
            if self.sections:
                from graphs import restrict_to_sections

                g = restrict_to_sections(g, self.sections)
            self._graphs[p] = g

    def text(self, path: Path) -> str:
        """The plain text of ``path`` for the baselines (PDFs through the extractor)."""
        path = Path(path)
        if path not in self._texts:
            if path.suffix.lower() == ".pdf":
                from extract import read_document

                self._texts[path] = "\n".join(s.text for s in read_document(path).sentences)
            else:
                self._texts[path] = read_text(path)
        return self._texts[path]

    def score(self, pair: ManifestPair, index: int = 0) -> dict[str, Any]:
        """One row of the report: ids, structure scores, baselines, time, error."""
        from metrics import compare

        row: dict[str, Any] = {"pair": index, "group": pair.group, "source": str(pair.source),
                               "target": str(pair.target), **pair.extra}
        started = time.perf_counter()
        errors = []
        try:
            comparison = compare(self.graph(pair.source), self.graph(pair.target))
            scores = comparison.scores
            for name in (*STRUCTURE_SCORES, "mapped_concepts", "mapped_relations"):
                row[name] = getattr(scores, name, math.nan)
            row["_comparison"] = comparison
        except Exception as err:  # noqa: BLE001
            errors.append(_one_line(err))
            for name in STRUCTURE_SCORES:
                row[name] = math.nan
        if self.baselines is not None:
            try:
                row.update(self.baselines.score(self.text(pair.source), self.text(pair.target)))
            except Exception as err:  # noqa: BLE001
                errors.append(_one_line(err))
        row["seconds"] = time.perf_counter() - started
        row["error"] = "; ".join(dict.fromkeys(errors))
        return row


def _fit_baselines(pairs: Sequence[ManifestPair], embeddings: bool, scorer: PairScorer) -> Any:
    from metrics.baselines import Baselines

    texts = []
    for path in dict.fromkeys(p for pair in pairs for p in (pair.source, pair.target)):
        try:
            texts.append(scorer.text(path))
        except Exception:  # noqa: BLE001 -- the pair's row will carry the error
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


def _store_results(kind: str, corpus: Path, rows: list[dict[str, Any]]) -> str | None:
    """Save graphs and scores in the configured store when it offers a way to; else ``None``."""
    try:
        from store import open_store
    except ImportError:
        return None
    try:
        store = open_store()
    except Exception as err:  # noqa: BLE001 -- the report does not depend on the store
        log.warning("store not available, results not stored: %s", _one_line(err))
        return None
    saver = getattr(store, "save_evaluation", None)
    if saver is None:
        return None
    try:
        saver(kind, str(corpus), [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows])
        return type(store).__name__
    except Exception as err:  # noqa: BLE001
        log.warning("could not store the results: %s", _one_line(err))
        return None


def _finish(result: EvaluationResult, report_dir: str | Path | None | bool, corpus_dir: Path,
            started: float, ratings: Any = None) -> tuple[EvaluationResult, ReportFiles | None]:
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
    report_dir: str | Path | None | bool = None,
    *,
    baselines: bool = True,
    embeddings: bool = False,
    progress: Progress | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every answer of a Clough & Stevenson corpus against its original.

    Writes the report to ``report_dir`` (default :func:`default_report_dir`;
    ``False`` for none). Raises :class:`CorpusError` if the corpus cannot be
    read at all.
    """
    started = time.perf_counter()
    corpus = load_plagiarism(corpus_dir)
    if not corpus.pairs:
        raise CorpusError(corpus.root, "no answer/original pairs to compare")
    pairs = corpus.manifest()
    rows = score_pairs(pairs, baselines=baselines, embeddings=embeddings, progress=progress)
    result = EvaluationResult(
        "plagiarism", rows, groups=list(LEVEL_ORDER), levels=LEVELS, negative="non",
        baseline_scores=_baseline_names(rows), problems=list(corpus.problems),
        meta={"corpus": str(corpus.root.resolve()), "pairs": len(pairs)},
    )
    return _finish(result, report_dir, corpus.root, started)


def evaluate_translation(
    corpus_dir: str | Path,
    report_dir: str | Path | None | bool = None,
    *,
    baselines: bool = True,
    embeddings: bool = False,
    progress: Progress | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every original of a translation corpus against each of its round trips."""
    started = time.perf_counter()
    corpus = load_translation(corpus_dir)
    if not corpus.pairs:
        raise CorpusError(corpus.root, "no original/round-trip pairs to compare")
    pairs = corpus.manifest()
    rows = score_pairs(pairs, baselines=baselines, embeddings=embeddings, progress=progress)
    result = EvaluationResult(
        "translation", rows, groups=[lang for lang in LANGUAGES if lang in corpus.languages] + sorted(
            set(corpus.languages) - set(LANGUAGES)),
        rank=True, baseline_scores=_baseline_names(rows), problems=list(corpus.problems),
        meta={"corpus": str(corpus.root.resolve()), "pairs": len(pairs), "originals": len(corpus.originals)},
        group_labels={k: v for k, v in LANGUAGES.items()},
    )
    return _finish(result, report_dir, corpus.root, started)


def _baseline_names(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    from metrics.baselines import BASELINE_NAMES, EMBEDDING

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
        out.append((getattr(p, "kind", ""), getattr(p, "source_lemma", str(getattr(p, "source", ""))),
                    getattr(p, "target_lemma", str(getattr(p, "target", ""))), getattr(p, "generic", None)))
    return out


def analogy_search(
    corpus_dir: str | Path,
    target: str | Sequence[str] | None = None,
    k: int = 5,
    *,
    sections: Sequence[str] | None = None,
    report_dir: str | Path | None | bool = None,
    baselines: bool = True,
    progress: Progress | None = None,
) -> tuple[list[SearchResult], ReportFiles | None]:
    """Rank every other document of ``corpus_dir`` against each target by Analogy Similarity.

    ``target`` (one name or several) overrides ``targets.txt``; ``sections``
    overrides ``sections.txt``. Returns the top ``k`` per target and writes a
    report (scores of all comparisons, the top k with their mappings).
    """
    started = time.perf_counter()
    targets = [target] if isinstance(target, str) else (list(target) if target else None)
    corpus = load_analogy(corpus_dir, targets=targets, sections=sections)
    scorer = PairScorer(sections=corpus.sections)
    pairs = corpus.manifest()
    rows = score_pairs(pairs, baselines=baselines, progress=progress, scorer=scorer)
    results = []
    for tgt in corpus.targets:
        mine = [r for r in rows if r["target"] == str(tgt)]
        ok = sorted((r for r in mine if not math.isnan(r.get("analogy_similarity", math.nan))),
                    key=lambda r: (-r["analogy_similarity"], -r.get("semantic", 0.0), r["source"]))
        for rank, r in enumerate(ok, start=1):
            r["rank"] = rank
        hits = [Hit(r["rank"], Path(r["source"]), {s: r[s] for s in STRUCTURE_SCORES},
                    _mapping_pairs(r.get("_comparison"))) for r in ok[:k]]
        results.append(SearchResult(tgt, hits, len(mine), corpus.sections))
    result = EvaluationResult(
        "analogy", rows, groups=[t.name for t in corpus.targets], baseline_scores=_baseline_names(rows),
        meta={"corpus": str(corpus.root.resolve()), "targets": len(corpus.targets), "k": k,
              "sections": ", ".join(corpus.sections) if corpus.sections else "whole documents"},
    )
    result.meta["wall_seconds"] = round(time.perf_counter() - started, 1)
    files = None
    if report_dir is not False:
        from metrics.stats import rating_stats

        ratings = _stored_ratings()
        files = write_report(result, report_dir or default_report_dir("analogy", corpus.root),
                             ratings=rating_stats(ratings) if ratings else None,
                             extra_markdown=format_search(results))
    return results, files


def _stored_ratings() -> list[dict[str, Any]]:
    try:
        from corpora.ratings import load_ratings

        return load_ratings()
    except (ImportError, CorpusError):
        return []


def format_search(results: Sequence[SearchResult], mapped: int = 8) -> str:
    """Markdown: per target, the ranked sources and their strongest mapped pairs."""
    lines = []
    for res in results:
        where = f", sections {', '.join(res.sections)}" if res.sections else ""
        lines += [f"## Target {res.target.name}", "",
                  f"{res.compared} comparisons{where}; top {len(res.hits)} by Analogy Similarity.", "",
                  "| rank | source | AS | semantic | Jaccard | conceptual | relational |",
                  "|---|---|---|---|---|---|---|"]
        for h in res.hits:
            s = h.scores
            lines.append(f"| {h.rank} | {h.source.name} | {s['analogy_similarity']:.3f} | {s['semantic']:.3f} "
                         f"| {s['jaccard']:.3f} | {s['conceptual']:.3f} | {s['relational']:.3f} |")
        lines.append("")
        for h in res.hits:
            if h.mapping:
                shown = ", ".join(f"{a} ↔ {b}" + (f" ({g})" if g else "") for _, a, b, g in h.mapping[:mapped])
                more = f" … (+{len(h.mapping) - mapped})" if len(h.mapping) > mapped else ""
                lines.append(f"- {h.source.name}: {shown}{more}")
        lines.append("")
    return "\n".join(lines)

