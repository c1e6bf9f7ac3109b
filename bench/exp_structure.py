"""Experiment (issue 27, analogy headlines): variants of the `sme` mapping's evaluation, AS only.

Loads the same samples, graphs and vectors as ``bench_validity.py`` (its caches), maps
every distinct pair once per variant in this process (variants are patches applied
here, never switches in the library), and prints accuracy (ties wrong) per choice set
and C&S rho / AUC. ``--dump DIR`` keeps each variant's AS per pair for reading items.

    .venv/bin/python bench/exp_structure.py --variants before,x --limit 300
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import pickle
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_validity as bv
from validity_sets import load_set

from dri.corpora.plagiarism import LEVELS
from dri.mapping.content import CONTENT_VECTOR
from dri.mapping.mapper import map_graphs
from dri.mapping.profiles import get_profile
from dri.mapping.wordnet import wordnet
from dri.metrics.validity import choice_accuracy, plagiarism_stats

VARIANTS: dict[str, Callable[[], object]] = {}


def variant(name: str):
    def deco(fn):
        VARIANTS[name] = fn
        return fn

    return deco


@variant("before")
@contextmanager
def _before():
    yield get_profile("sme")


@contextmanager
def _patched(obj, name, value):
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def _evaluation_with(concept_local: Callable[[float, float], float], loose_local=None):
    """structural_evaluation with a structural concept pair's local score
    ``cw x concept_local(lin, ctx)`` (before: lin x ctx); loose pairs ``loose_local`` (default the same)."""
    from dri.graphs.ros import RELATION
    from dri.mapping import evaluation as ev

    original = ev.structural_evaluation

    def structural_evaluation(s, t, order, rel_lin, con_lin, profile, evidence_out=None):
        if order is None or not hasattr(con_lin, "__self__"):
            return original(s, t, order, rel_lin, con_lin, profile, evidence_out)
        search = con_lin.__self__
        ctx = search.concept_context

        via = {}
        if _VIA_RELATIONS[0] and search.context is not None:
            for kind, i, k in order:
                if kind == RELATION and s.order[i] == 1:
                    f = search.context[i][k]
                    for a in (s.subj[i], s.obj[i]):
                        if a >= 0:
                            via[a] = max(via.get(a, 0.0), f)

        def mixed_lin(a, b, uses):
            lin = search.con_lin(a, b)
            c = ctx[a][b] if ctx is not None else 1.0
            if uses.get(a) and a in via:
                c = via[a]
            if uses.get(a):
                return concept_local(lin, c)
            return (loose_local or concept_local)(lin, c)

        # the relation part as before; the concepts through mixed_lin: recompute with uses
        rels = {a: b for kind, a, b in order if kind == RELATION}
        uses = {}
        for i in rels:
            if s.order[i] == 1:
                a, o = s.subj[i], s.obj[i]
                if a >= 0:
                    uses[a] = uses.get(a, 0) + 1
                if o >= 0 and o != a:
                    uses[o] = uses.get(o, 0) + 1
        return original(s, t, order, rel_lin, lambda a, b: mixed_lin(a, b, uses), profile, evidence_out)

    return structural_evaluation


def _variant_concept_local(fn, loose_fn=None):
    @contextmanager
    def ctx():
        from dri.mapping import mapper

        with _patched(mapper, "structural_evaluation", _evaluation_with(fn, loose_fn)):
            yield get_profile("sme")

    return ctx


VARIANTS["con_ctx"] = _variant_concept_local(lambda lin, c: c, lambda lin, c: lin * c)
VARIANTS["con_sqrtlin"] = _variant_concept_local(lambda lin, c: lin**0.5 * c, lambda lin, c: lin * c)
VARIANTS["con_ctx_all"] = _variant_concept_local(lambda lin, c: c)


def _rel_ctx(self, i, k):
    if self.context is None:
        return self.rel_lin(i, k)
    return self.context[i][k]


def _rel_sqrt(self, i, k):
    if self.context is None:
        return self.rel_lin(i, k)
    return self.rel_lin(i, k) ** 0.5 * self.context[i][k]


def _variant_rel(fn, concept_fn=None):
    @contextmanager
    def ctx():
        from dri.mapping import mapper
        from dri.mapping.search import Search

        with ExitStack() as stack:
            stack.enter_context(_patched(Search, "rel_evidence", fn))
            if concept_fn is not None:
                stack.enter_context(_patched(mapper, "structural_evaluation", _evaluation_with(concept_fn)))
            yield get_profile("sme")

    return ctx


VARIANTS["rel_ctx"] = _variant_rel(_rel_ctx)
VARIANTS["rel_ctx+con_ctx_all"] = _variant_rel(_rel_ctx, lambda lin, c: c)
VARIANTS["rel_sqrt+con_ctx_all"] = _variant_rel(_rel_sqrt, lambda lin, c: c)


_VIA_RELATIONS = [False]


@contextmanager
def _via_relations():
    _VIA_RELATIONS[0] = True
    try:
        with _variant_concept_local(lambda lin, c: c)() as prof:
            yield prof
    finally:
        _VIA_RELATIONS[0] = False


VARIANTS["con_via_rel"] = _via_relations


_GRAPHS: dict = {}
_PROFILE: list = []


def as_of(mapping) -> float:
    size = len(mapping.pairs)
    whole = mapping.source_evaluation + mapping.target_evaluation - mapping.evaluation
    return min(1.0, max(0.0, mapping.evaluation / whole)) if whole > 0 and size else 0.0


_FALLBACK: list[float] = [0.0]


def _score(job):
    ka, kb = job
    try:
        value = as_of(map_graphs(_GRAPHS[ka], _GRAPHS[kb], profile=_PROFILE[0]))
        if value == 0.0 and _FALLBACK[0] > 0.0:
            below = _PROFILE[0].but(relation_floor=0.0, concept_floor=0.0)
            value = _FALLBACK[0] * as_of(map_graphs(_GRAPHS[ka], _GRAPHS[kb], profile=below))
        return job, value
    except Exception as err:
        print("error", type(err).__name__, err, file=sys.stderr)
        return job, math.nan


def summarise(sets, scores) -> dict[str, str]:
    out = {}
    for name, data in sets.items():
        if data.kind == "choice":
            per_item = [[scores[(bv.key(i.query), bv.key(o))] for o in i.options] for i in data.items]
            res = choice_accuracy(
                per_item, [i.answer for i in data.items], [i.types or [] for i in data.items], n_boot=1000
            )
            out[name] = f"{res.accuracy.format()} sum {res.correct} ties {res.ties} picks {res.picks}"
        else:
            vals = [scores[(bv.key(a), bv.key(b))] for a, b in data.pairs]
            st = plagiarism_stats(vals, data.levels, LEVELS, "non", n_boot=1000)
            out[name] = f"rho {st['spearman'].format()} auc {st['auc'].format()}"
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--sets", default="storyanalogy,analobench-s1,analobench-s10,clough-stevenson")
    p.add_argument("--limit", type=int, default=300)
    p.add_argument("--variants", default="before")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--dump", type=Path, default=Path("/tmp/a3/dump"))
    args = p.parse_args()
    started = time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    sets = {n: bv.sample(load_set(n), args.limit) for n in args.sets.split(",")}
    texts = {bv.key(t): t for d in sets.values() for pr in bv.set_pairs(d) for t in pr}
    graphs, _ = bv.graphs_for(texts, log)
    vectors, _ = bv.encoder_vectors(texts, log, 1)
    for k, v in vectors.items():
        graphs[k].graph[CONTENT_VECTOR] = v.tolist()
    bv.sentence_rows(graphs, log, 1)
    _GRAPHS.update(graphs)
    jobs = list(dict.fromkeys((bv.key(a), bv.key(b)) for d in sets.values() for a, b in bv.set_pairs(d)))
    jobs.sort(key=lambda j: -(len(graphs[j[0]]) * len(graphs[j[1]])))
    wordnet()
    args.dump.mkdir(parents=True, exist_ok=True)
    for name in args.variants.split(";"):
        t = time.perf_counter()
        base, _, fb = name.partition("@fb")
        base, _, changes = base.partition("|")
        _FALLBACK[0] = float(fb) if fb else 0.0
        with ExitStack() as stack:
            if base in VARIANTS:
                _PROFILE[:] = [stack.enter_context(VARIANTS[base]())]
                if changes:
                    _PROFILE[0] = bv.parse_profile("sme:" + changes.replace("+", ","))
            else:  # a profile spec, "sme:field=value,..." ("+" for "," on the command line)
                _PROFILE[:] = [bv.parse_profile(base.replace("+", ","))]
            scores = {}
            if args.workers > 1:
                with mp.get_context("fork").Pool(args.workers) as pool:
                    scores = dict(pool.imap_unordered(_score, jobs, chunksize=8))
            else:
                scores = dict(map(_score, jobs))
        with open(args.dump / f"{name.replace('/', '_')}.pkl", "wb") as fh:
            pickle.dump(scores, fh)
        summary = summarise(sets, scores)
        log(f"variant {name}: {time.perf_counter() - t:.0f} s")
        for set_name, line in summary.items():
            print(f"{name:24s} {set_name:18s} {line}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
