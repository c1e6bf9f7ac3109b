"""EXPERIMENT helper (issue 27, item 4): encode every relation's own clause
(:mod:`mapping.relation_clauses`) of a validity graph cache in large batches
into the clause cache, so that ``bench_validity.py --profile
sme:relation_clause=...`` maps without encoding pair by pair.

    .venv/bin/python bench/clause_vectors_prep.py data/cache/validity/graphs-<hash>.pkl
"""

from __future__ import annotations

import pickle
import sys
import time

from dri.mapping.clause_cache import clause_cache
from dri.mapping.encoder import sentence_encoder
from dri.mapping.relation_clauses import relation_clauses
from dri.mapping.sides import Side


def main(path: str, mode: str = "span") -> None:
    with open(path, "rb") as fh:
        graphs = pickle.load(fh)
    clauses: set[str] = set()
    for g in graphs.values():
        s = Side.of(g)
        clauses.update(relation_clauses(g, s.relations, s.rel_lemma, mode))
    cache = clause_cache()
    assert cache is not None
    todo = sorted(set(clauses) - set(cache.get(sorted(clauses))))
    print(f"{len(clauses)} clauses, {len(todo)} to encode", flush=True)
    started = time.process_time()
    for first in range(0, len(todo), 2048):
        part = todo[first : first + 2048]
        cache.put(dict(zip(part, sentence_encoder().encode(part))))
        print(f"{first + len(part)} done, {time.process_time() - started:.0f} s CPU", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
