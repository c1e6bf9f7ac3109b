"""Every structure score against every baseline on the public validity sets.

Runs the sets of ``../shared/validity/`` (StoryAnalogy multiple choice,
AnaloBench T1 S1/S10/S30, STS-B dev, WMT23 zh-en MQM, CSFCube fold 1 paper
search; see each folder's ``SOURCE.md`` and ``bench/validity_sets.py``) and the Clough & Stevenson
plagiarism corpus, and writes one table -- each structure score of
:func:`dri.metrics.scores.compare` and each text baseline, against each set's
metric with a 95% bootstrap interval (:mod:`dri.metrics.validity`) -- into
``docs/validity.md``, after the tables already there (a run with the same
commit, profile, label and sets replaces its own earlier table).

    .venv/bin/python bench/bench_validity.py                       # all sets, default profile
    .venv/bin/python bench/bench_validity.py --profile paper --label before
    .venv/bin/python bench/bench_validity.py --sets storyanalogy,stsb --limit 200 --no-docs

How it stays fast: every distinct text is parsed once, all sets in one
``nlp.pipe`` stream, and its ROS graph cached by content (the text, the
extractor version and a hash of the extractor's source files) in
``data/cache/validity/``; each distinct pair is mapped once, in a pool of
``--workers`` processes forked after WordNet is loaded, which also compute the
pairwise baselines. ``--rule`` maps with
:func:`dri.mapping.wordnet.similarity_functions` of that WordNet rule;
``--work-limit N`` gives the mapper's restarts N feasibility checks a pair.
``--limit N`` takes a deterministic sample (seeded shuffle)
of N items or pairs per set (for CSFCube whole queries, until N pairs), and
the table says so; parameters are never chosen per set.

Metrics: accuracy for the choice sets (ties for the top count as wrong and are
listed); Pearson's r for STS-B; Kendall's tau-b for WMT23 (global, all rows);
Spearman's rho with the level (cut 3 ... non 0) and ROC AUC (plagiarised
against ``non``) for Clough & Stevenson; NDCG%20 and MAP (and NDCG@10) over the
queries for CSFCube, ties ranked worst-first (:mod:`dri.metrics.ranking`,
shown x 100 as CSFCube reports them). Baselines: ``tfidf_pair`` is TF-IDF
fitted on the two texts alone, as in the sets' SOURCE.md; ``tfidf_corpus`` is
fitted on all distinct texts of the set; the others are those of
:mod:`dri.metrics.baselines` (the first text is the source, the second the
answer: the query, the reference, the original).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import multiprocessing as mp
import pickle
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from validity_sets import SETS, ValiditySet, load_set

from dri.corpora.plagiarism import LEVELS
from dri.extract import EXTRACTOR_VERSION, build_graphs, document_from_text
from dri.mapping.content import (
    CONTENT_VECTOR,
    SENTENCE_VECTORS,
    content_vector,
    graph_text,
    pack_rows,
    sentence_runs,
    vector_similarity,
)
from dri.mapping.encoder import MODEL_SHA256, sentence_encoder
from dri.mapping.mapper import Mapping
from dri.mapping.profiles import Profile, get_profile
from dri.mapping.wordnet import RULES, similarity_functions, wordnet
from dri.metrics import baselines as bl
from dri.metrics.ranking import percent, rank_pools
from dri.metrics.scores import SCORE_NAMES, compare
from dri.metrics.validity import Estimate, choice_accuracy, correlations, plagiarism_stats
from dri.settings import PROJECT_ROOT, cache_dir

BASELINES = ("tfidf_pair", "tfidf_corpus", "ngram3_containment", "lcs_words", "chrf", "fuzz_token", "encoder")
DOC = PROJECT_ROOT / "docs" / "validity.md"
RUNS_MARK = "<!-- validity runs: bench/bench_validity.py appends below -->"
COLUMNS = (
    ("clough-stevenson", "spearman", "C&S rho"),
    ("clough-stevenson", "auc", "C&S AUC"),
    ("storyanalogy", "accuracy", "StoryAnalogy acc"),
    ("analobench-s1", "accuracy", "AnaloBench S1"),
    ("analobench-s10", "accuracy", "S10"),
    ("analobench-s30", "accuracy", "S30"),
    ("stsb", "pearson", "STS-B r"),
    ("wmt23", "kendall", "WMT23 tau-b"),
    ("csfcube", "ndcg_pct20", "CSFCube NDCG%20 (x100)"),
    ("csfcube", "map", "CSFCube MAP (x100)"),
)
#: Metrics shown x 100 with one decimal, as their data sets report them.
PERCENT_METRICS = frozenset({"ndcg_pct20", "ndcg_10", "map"})
LABELS = {
    "analogy_similarity": "AS",
    "combined": "combined (structure + content)",
    "tfidf_pair": "TF-IDF (pair fit)",
    "tfidf_corpus": "TF-IDF (set fit)",
    "ngram3_containment": "3-gram containment",
    "lcs_words": "LCS words",
    "chrf": "chrF",
    "fuzz_token": "rapidfuzz token sort",
    "encoder": "sentence encoder (MiniLM)",
}


def key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def code_hash() -> str:
    """What the graphs depend on besides the text: extractor version and source."""
    h = hashlib.sha1(EXTRACTOR_VERSION.encode())
    for folder in ("extract", "graphs"):
        for path in sorted((PROJECT_ROOT / folder).glob("*.py")):
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _cached(
    path: Path, texts: dict[str, str], log, verb: str, fill: Callable[[list[str]], Iterable[Any]]
) -> tuple[dict[str, Any], float]:
    """One value per text from the pickle at ``path``; the texts it lacks get
    ``fill(keys)``'s values, and the pickle is written again (atomically)."""
    cached: dict[str, Any] = {}
    if path.is_file():
        with path.open("rb") as fh:
            cached = pickle.load(fh)
    todo = [k for k in texts if k not in cached]
    started = time.perf_counter()
    if todo:
        log(f"{verb} {len(todo)} texts ({len(texts) - len(todo)} cached)")
        for k, value in zip(todo, fill(todo)):
            cached[k] = value
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as fh:
            pickle.dump(cached, fh, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
    return {k: cached[k] for k in texts}, time.perf_counter() - started


def graphs_for(texts: dict[str, str], log, path: Path | None = None) -> tuple[dict[str, Any], float]:
    """ROS graph of every text, from the content cache or parsed in one stream."""

    def parse(todo: list[str]) -> Iterable[Any]:
        return build_graphs((document_from_text(texts[k], name=k[:12]) for k in todo), batch_size=256)

    path = path or cache_dir() / "validity" / f"graphs-{code_hash()}.pkl"
    return _cached(path, texts, log, "parsing", parse)


def _encode(text: str) -> np.ndarray:
    return sentence_encoder().encode_document(text)


def _encode_sentences(text: str) -> str:
    return pack_rows(sentence_encoder().encode(sentence_runs(text)))


def sentence_rows(graphs: dict[str, Any], log, workers: int) -> float:
    """Put the content similarity's sentence vectors (:data:`SENTENCE_VECTORS`)
    into every graph, from the cache (``data/cache/validity/sentences-<model
    sha256>.pkl``, keyed by the graph's text) or encoded in a pool; the seconds taken."""
    texts = {k: graph_text(g) for k, g in graphs.items()}
    by_text = {key(t): t for t in texts.values() if t.strip()}

    def encode(todo: list[str]) -> Iterator[str]:
        with mp.get_context("fork").Pool(workers) as pool:
            yield from pool.imap(_encode_sentences, [by_text[k] for k in todo], chunksize=16)

    path = cache_dir() / "validity" / f"sentences-{MODEL_SHA256[:12]}.pkl"
    rows, seconds = _cached(path, by_text, log, "encoding the sentences of", encode)
    for k, g in graphs.items():
        if texts[k].strip():
            g.graph[SENTENCE_VECTORS] = rows[key(texts[k])]
    return seconds


def encoder_vectors(texts: dict[str, str], log, workers: int) -> tuple[dict[str, np.ndarray], float]:
    """The sentence encoder's document vector of every text, from the cache
    (``data/cache/validity/encoder-<model sha256>.pkl``) or encoded in a pool."""

    def encode(todo: list[str]) -> Iterator[np.ndarray]:
        with mp.get_context("fork").Pool(workers) as pool:
            yield from pool.imap(_encode, [texts[k] for k in todo], chunksize=16)

    path = cache_dir() / "validity" / f"encoder-{MODEL_SHA256[:12]}.pkl"
    return _cached(path, texts, log, "encoding", encode)


def parse_profile(spec: str) -> Profile:
    """``NAME`` or ``NAME:field=value,...``: a registered profile, or a variant of one."""
    name, _, changes = spec.partition(":")
    profile = get_profile(name)
    if not changes:
        return profile
    kw: dict[str, object] = {}
    for part in changes.split(","):
        field, _, value = part.partition("=")
        current = getattr(profile, field)
        if isinstance(current, bool):
            kw[field] = value.lower() in ("1", "true", "yes")
        elif isinstance(current, str):
            kw[field] = value
        else:
            kw[field] = type(current)(value)
    return profile.but(name=spec, **kw)


#: The set kinds whose first text is a query compared against candidates: scored
#: by the query's share (:func:`query_share`) when normalising by task.
QUERY_KINDS = ("choice", "ranking")


def query_share(mapping: Mapping, profile: Profile) -> float:
    """Query by example, the variant of the AS that divides by the source (the query)
    alone: E(M) / E(query) under a weighted profile, |M| / |V(query)| x semantic under
    the paper's -- the query's share that maps, a containment. It ranks worse than the
    symmetric AS on every choice and ranking set (docs/mapping.md), so the library
    does not offer it; this benchmark keeps it for ``--normalisation task``."""
    size = len(mapping.pairs)
    if profile.score == "weighted":
        own = mapping.source_evaluation
        return min(1.0, max(0.0, mapping.evaluation / own)) if own > 0 and size else 0.0
    semantic = sum(p.lin for p in mapping.pairs) / size if size else 0.0
    nodes = mapping.source_size
    return min(1.0, size / nodes) * semantic if nodes > 0 else 0.0


# -- worker side: the globals are set before the pool forks ------------------------
_GRAPHS: dict[str, Any] = {}
_TEXTS: dict[str, str] = {}
_KW: dict[str, Any] = {}
_QUERY_SETS: set[str] = set()  # the sets scored by the query's share


def _score_pair(job: tuple[str, str, str]) -> tuple[tuple[str, str, str], dict[str, float], str]:
    set_name, ka, kb = job
    out: dict[str, float] = {}
    error = ""
    try:
        comparison = compare(_GRAPHS[ka], _GRAPHS[kb], **_KW)
        scores = comparison.scores
        if set_name in _QUERY_SETS:
            profile = get_profile(_KW.get("profile"))
            scores = replace(scores, analogy_similarity=query_share(comparison.mapping, profile))
        for name in SCORE_NAMES:
            out[name] = float(getattr(scores, name))
    except Exception as err:  # one bad pair must not stop the benchmark
        error = " ".join(f"{type(err).__name__}: {err}".split())
        out.update(dict.fromkeys(SCORE_NAMES, math.nan))
    a, b = _TEXTS[ka], _TEXTS[kb]
    out["encoder"] = vector_similarity(content_vector(_GRAPHS[ka]), content_vector(_GRAPHS[kb]))
    for name, fn in (
        ("tfidf_pair", bl.tfidf_cosine),
        ("ngram3_containment", bl.ngram_containment),
        ("lcs_words", bl.lcs_words),
        ("chrf", bl.chrf),
        ("fuzz_token", bl.fuzz_token),
    ):
        try:
            out[name] = fn(a, b)
        except Exception as err:  # a baseline that cannot score a pair leaves a NaN, not a crash
            out[name] = math.nan
            error = error or " ".join(f"{name}: {type(err).__name__}: {err}".split())
    return job, out, error


def set_pairs(data: ValiditySet) -> list[tuple[str, str]]:
    if data.kind == "choice":
        return [(item.query, o) for item in data.items for o in item.options]
    return list(data.pairs)


def sample(data: ValiditySet, limit: int | None) -> ValiditySet:
    """A deterministic sample of ``limit`` items or pairs (seeded shuffle, then file order);
    of a ranking set, whole queries in seeded order until ``limit`` pairs."""
    n = len(data.items) if data.kind == "choice" else len(data.pairs)
    if not limit or limit >= n:
        return data
    keep = sorted(random.Random(0).sample(range(n), limit))
    if data.kind == "ranking":
        queries = list(dict.fromkeys(data.queries))
        random.Random(0).shuffle(queries)
        chosen: set[str] = set()
        for query in queries:
            if chosen and sum(q in chosen for q in data.queries) >= limit:
                break
            chosen.add(query)
        keep = [i for i, q in enumerate(data.queries) if q in chosen]
        data.queries = [data.queries[i] for i in keep]
        limit = len(keep)
    if data.kind == "choice":
        data.items = [data.items[i] for i in keep]
    else:
        data.pairs = [data.pairs[i] for i in keep]
        data.human = [data.human[i] for i in keep] if data.human else []
        data.levels = [data.levels[i] for i in keep] if data.levels else []
    data.note = ", ".join(x for x in (data.note, f"sample of {limit} of {n}") if x)
    return data


def corpus_tfidf(data: ValiditySet) -> list[float]:
    """TF-IDF cosine with IDF fitted on every distinct text of the set, vectorised."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    pairs = set_pairs(data)
    texts = list(dict.fromkeys(t for p in pairs for t in p))
    index = {t: i for i, t in enumerate(texts)}
    matrix = TfidfVectorizer(lowercase=True).fit_transform(texts)
    a = matrix[[index[x] for x, _ in pairs]]
    b = matrix[[index[y] for _, y in pairs]]
    return np.clip(np.asarray(a.multiply(b).sum(axis=1)).ravel(), 0.0, 1.0).tolist()


def evaluate(data: ValiditySet, values: dict[str, list[float]], n_boot: int) -> dict[str, dict[str, Any]]:
    """Per score: the set's statistics (Estimates, and choice details)."""
    out: dict[str, dict[str, Any]] = {}
    for score, vals in values.items():
        if data.kind == "choice":
            per_item, at = [], 0
            for item in data.items:
                per_item.append(vals[at : at + len(item.options)])
                at += len(item.options)
            res = choice_accuracy(
                per_item, [i.answer for i in data.items], [i.types or [] for i in data.items], n_boot=n_boot
            )
            out[score] = {"accuracy": res.accuracy, "ties": res.ties, "picks": res.picks}
        elif data.kind == "judgements":
            out[score] = correlations(vals, data.human, n_boot=n_boot)
        elif data.kind == "ranking":
            rows = [{"query": q, "relevance": h, score: v} for q, h, v in zip(data.queries, data.human, vals)]
            ranked = rank_pools(rows, [score], n_boot=n_boot).scores[score]
            out[score] = {m: ranked.estimate(m) for m in PERCENT_METRICS}
        else:
            out[score] = plagiarism_stats(vals, data.levels, LEVELS, "non", n_boot=n_boot)
    return out


#: The folders and files whose changes change the scores.
SCORING_CODE = ("extract", "graphs", "mapping", "metrics/scores.py", "metrics/baselines.py")


def commit_label() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True).stdout.strip()

    # The last commit that changed what the scores depend on, not the benchmark's own.
    head = git("log", "-1", "--format=%h", "--", *SCORING_CODE) or "unknown"
    dirty = git("status", "--porcelain", "--", *SCORING_CODE)
    return head + ("+changes" if dirty else "")


def render(
    results: dict[str, dict[str, dict[str, Any]]],
    sets: dict[str, ValiditySet],
    scores: Sequence[str],
    heading: str,
    lines_before: Sequence[str],
) -> str:
    cols = [c for c in COLUMNS if c[0] in results]
    out = [f"### {heading}", "", *lines_before, ""]
    out.append("| score | " + " | ".join(c[2] for c in cols) + " |")
    out.append("|---" * (len(cols) + 1) + "|")
    for score in scores:
        cells = []
        for set_name, metric, _ in cols:
            est = results[set_name].get(score, {}).get(metric)
            if isinstance(est, Estimate):
                cells.append(percent(est) if metric in PERCENT_METRICS else est.format())
            else:
                cells.append("")
        out.append(f"| {LABELS.get(score, score)} | " + " | ".join(cells) + " |")
    choice = [s for s in results if sets[s].kind == "choice"]
    if choice:
        out += [
            "",
            "Choice sets: ties for the top (counted wrong) per set; StoryAnalogy picks "
            "target / noun / random.",
            "",
            "| score | "
            + " | ".join(f"{s} ties" for s in choice)
            + (" | StoryAnalogy picks |" if "storyanalogy" in choice else " |"),
            "|---" * (len(choice) + 1 + ("storyanalogy" in choice)) + "|",
        ]
        for score in scores:
            cells = [str(results[s][score]["ties"]) for s in choice]
            if "storyanalogy" in choice:
                p = results["storyanalogy"][score]["picks"]
                cells.append(f"{p.get('target', 0)} / {p.get('noun', 0)} / {p.get('random', 0)}")
            out.append(f"| {LABELS.get(score, score)} | " + " | ".join(cells) + " |")
    extra = [s for s in ("stsb", "wmt23") if s in results]
    if extra:
        out += ["", "Other correlations (Spearman; Kendall for STS-B, Pearson for WMT23):", ""]
        out.append("| score | " + " | ".join(f"{s} Spearman | {s} other" for s in extra) + " |")
        out.append("|---" * (2 * len(extra) + 1) + "|")
        for score in scores:
            cells = []
            for s in extra:
                r = results[s][score]
                cells += [r["spearman"].format(), (r["kendall"] if s == "stsb" else r["pearson"]).format()]
            out.append(f"| {LABELS.get(score, score)} | " + " | ".join(cells) + " |")
    if "csfcube" in results:
        out += ["", "CSFCube NDCG@10 (x100):", "", "| score | CSFCube NDCG@10 |", "|---|---|"]
        for score in scores:
            out.append(f"| {LABELS.get(score, score)} | {percent(results['csfcube'][score]['ndcg_10'])} |")
    return "\n".join(out) + "\n"


def write_doc(run_id: str, block: str) -> None:
    text = DOC.read_text(encoding="utf-8") if DOC.is_file() else "# Validity\n\n" + RUNS_MARK + "\n"
    if RUNS_MARK not in text:
        text = text.rstrip("\n") + "\n\n" + RUNS_MARK + "\n"
    start, end = f"<!-- run {run_id} -->", f"<!-- /run {run_id} -->"
    wrapped = f"{start}\n{block}{end}\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + wrapped + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + wrapped
    DOC.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    parser.add_argument(
        "--profile", default=None, help="mapping profile passed to compare() (default: its default)"
    )
    parser.add_argument(
        "--rule",
        default=None,
        choices=RULES,
        help="WordNet similarity rule for the mapper (default: its default)",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="deterministic sample of N items/pairs per set"
    )
    parser.add_argument(
        "--work-limit",
        type=int,
        default=None,
        help="feasibility checks the mapper's restarts may spend per pair (default: map_graphs' own)",
    )
    parser.add_argument(
        "--graph-cache",
        type=Path,
        default=None,
        help="use this graph cache file (e.g. an earlier extractor's; named in the heading) instead of "
        "the one of the current extractor",
    )
    parser.add_argument(
        "--normalisation",
        default="symmetric",
        choices=("task", "symmetric"),
        help="symmetric: every set the AS; task: the choice and ranking sets score the query's share "
        "(measured, not kept: docs/mapping.md)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--label", default="", help="words for the table's heading, e.g. 'before'")
    parser.add_argument("--no-docs", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    started = time.perf_counter()
    commit = commit_label()  # at the start: the code this run imports, whatever happens to the tree later

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    sets = {n: sample(load_set(n), args.limit) for n in names}
    texts = {key(t): t for data in sets.values() for p in set_pairs(data) for t in p}
    graphs, parse_seconds = graphs_for(texts, log, args.graph_cache)
    log(f"{len(texts)} texts, graphs ready in {parse_seconds:.1f} s")
    # Each text is encoded once (the graphs carry the vectors into the workers):
    # the content score and the encoder baseline are the same vectors' cosine.
    vectors, encode_seconds = encoder_vectors(texts, log, args.workers)
    for k, v in vectors.items():
        graphs[k].graph[CONTENT_VECTOR] = v.tolist()
    encode_seconds += sentence_rows(graphs, log, args.workers)
    log(f"encoder vectors ready in {encode_seconds:.1f} s")

    # Per set: its task's normalisation goes with each pair.
    jobs = list(
        dict.fromkeys((name, key(a), key(b)) for name, data in sets.items() for a, b in set_pairs(data))
    )
    # Big pairs first so the pool's last chunks are small.
    jobs.sort(key=lambda j: -(len(graphs[j[1]]) * len(graphs[j[2]])))
    _GRAPHS.update(graphs)
    _TEXTS.update(texts)
    if args.normalisation == "task":
        _QUERY_SETS.update(name for name, data in sets.items() if data.kind in QUERY_KINDS)
    if args.profile:
        _KW["profile"] = parse_profile(args.profile)
    if args.rule:
        _KW["similarity"], _KW["generic"] = similarity_functions(args.rule)
    if args.work_limit is not None:
        _KW["work_limit"] = args.work_limit
    wordnet()  # loaded once, shared by the forked workers
    t = time.perf_counter()
    results_by_pair: dict[tuple[str, str, str], dict[str, float]] = {}
    errors: list[str] = []
    with mp.get_context("fork").Pool(args.workers) as pool:
        for done, (job, out, error) in enumerate(pool.imap_unordered(_score_pair, jobs, chunksize=8), 1):
            results_by_pair[job] = out
            if error:
                errors.append(error)
            if done % 2000 == 0:
                log(f"{done}/{len(jobs)} pairs")
    map_seconds = time.perf_counter() - t
    log(f"{len(jobs)} pairs mapped and baselines scored in {map_seconds:.1f} s ({len(errors)} errors)")

    scores = [*SCORE_NAMES, *BASELINES]
    results = {}
    for name, data in sets.items():
        pairs = set_pairs(data)
        values = {
            s: [results_by_pair[(name, key(a), key(b))][s] for a, b in pairs]
            for s in scores
            if s != "tfidf_corpus"
        }
        values["tfidf_corpus"] = corpus_tfidf(data)
        results[name] = evaluate(data, {s: values[s] for s in scores}, args.boot)
        log(f"{name}: statistics done")
    wall = time.perf_counter() - started

    commit += f", graphs from {args.graph_cache.name}" if args.graph_cache else ""
    profile = (
        (args.profile or "default")
        + (f", similarity rule {args.rule}" if args.rule else "")
        + (f", work limit {args.work_limit:,}" if args.work_limit is not None else "")
        + (", query-by-example for choice and ranking" if args.normalisation == "task" else "")
    )
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    heading = f"{commit}, profile {profile}" + (f": {args.label}" if args.label else "")
    sizes = "; ".join(
        f"{n} {len(d.items) if d.kind == 'choice' else len(d.pairs)}" + (f" ({d.note})" if d.note else "")
        for n, d in sets.items()
    )
    lines = [
        f"{when}; {sizes}. Wall time {wall / 60:.1f} min on {args.workers} workers "
        f"(parsing {parse_seconds:.0f} s, {len(jobs)} distinct pairs mapped with baselines in "
        f"{map_seconds:.0f} s); {args.boot} bootstrap resamples; {len(errors)} pairs failed.",
        "",
        f"`.venv/bin/python bench/bench_validity.py{' --profile ' + args.profile if args.profile else ''}"
        f"{' --rule ' + args.rule if args.rule else ''}"
        f"{' --work-limit ' + str(args.work_limit) if args.work_limit is not None else ''}"
        f"{' --normalisation task' if args.normalisation == 'task' else ''}"
        f"{' --sets ' + args.sets if args.sets != ','.join(SETS) else ''}"
        f"{' --limit ' + str(args.limit) if args.limit else ''}`",
    ]
    block = render(results, sets, scores, heading, lines)
    print(block)
    for e in list(dict.fromkeys(errors))[:5]:
        print("error:", e, file=sys.stderr)
    if not args.no_docs:
        run_id = f"{commit} {profile} {args.label or '-'} {','.join(names)} {args.limit or 'all'}"
        write_doc(run_id.replace(" ", "|"), block)
        print(f"written to {DOC}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
