"""dri.corpora.ratings: imports running at the same time into one ratings store."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from dri.corpora.ratings import import_ratings, read_ratings

RATERS = 8
PAIRS = 400


def _import_when_all_ready(barrier: multiprocessing.synchronize.Barrier, file: Path, store: Path) -> None:
    barrier.wait()
    import_ratings(file, store)
    # Done: end without the exit hooks the fork copied from the test process. Once
    # Prefect's services have run there (the session's Prefect server, started by an
    # earlier test), their hook fails in a forked child and it exits 1.
    os._exit(0)


def test_imports_at_once_keep_every_importer_s_rows(tmp_path) -> None:
    # Each import read the store, merged its rows and wrote it back: one
    # writing between another's read and write lost the other's rows (12
    # `dri ratings import` at once kept 2100 of 3600 ratings).
    files = []
    for r in range(RATERS):
        file = tmp_path / f"rater{r}.csv"
        lines = [f"r{r},p{p},{1 + p % 5},{1 + (p + r) % 5},3" for p in range(PAIRS)]
        file.write_text("rater,pair,novelty,usefulness,challenge\n" + "\n".join(lines) + "\n")
        files.append(file)
    store = tmp_path / "store" / "ratings.csv"
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(RATERS)
    processes = [context.Process(target=_import_when_all_ready, args=(barrier, f, store)) for f in files]
    for p in processes:
        p.start()
    for p in processes:
        p.join(60)
    assert [p.exitcode for p in processes] == [0] * RATERS
    rows, problems = read_ratings(store)
    assert not problems
    assert len(rows) == RATERS * PAIRS
