"""Small jobs run in the calling process, without Prefect's server or workers;
stage 1 of the two-stage search prunes the planned pairs."""

from __future__ import annotations

import os

import pytest
from flows_corpus_helpers import write_corpus

from dri.errors import SettingsError
from dri.flows.corpus import CorpusSettings, run_corpus, small_job
from dri.flows.runners import runner_config
from dri.flows.tasks import worker_store
from dri.settings import INLINE_MAX_PARSE


def test_a_small_run_is_done_here_and_stores_what_a_flow_run_stores(corpus, data_dir, monkeypatch):
    monkeypatch.delenv("DRI_TASK_RUNNER", raising=False)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert small_job(CorpusSettings(corpus_dir=str(corpus), mode="auto"))
    state, summary = run_corpus(str(corpus))
    assert state.is_completed(), state.message
    assert (summary.documents, summary.parsed, summary.pairs, summary.mapped) == (4, 4, 2, 2)
    assert summary.worker_pids == [os.getpid()]
    assert len(worker_store().comparisons(run_id=summary.run_id)) == 2
    assert summary.top[0]["source"].endswith("solar.txt")
    # A second run parses and maps nothing.
    state, again = run_corpus(str(corpus))
    assert (again.parsed, again.reused, again.mapped, again.already_stored) == (0, 4, 0, 2)


def test_dri_task_runner_inline_is_the_inline_runner_and_a_flow_refuses_it(corpus, data_dir, monkeypatch):
    # Refused before ("unknown task runner 'inline'"), though --runner inline is dri run's own.
    monkeypatch.setenv("DRI_TASK_RUNNER", "inline")
    state, summary = run_corpus(str(corpus), workers=2)  # workers alone would ask for a flow
    assert state.is_completed() and summary.worker_pids == [os.getpid()]
    with pytest.raises(
        SettingsError, match="^DRI_TASK_RUNNER=inline: task runner 'inline' runs a corpus without Prefect"
    ):
        runner_config()


def test_blank_runner_variables_are_unset_and_blanks_around_inline_are_dropped(corpus, data_dir, monkeypatch):
    # DRI_DASK_ADDRESS=" " asked for a flow on a temporary Prefect server with local
    # workers (4 s for two documents), though runner_config read it as unset.
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("DRI_DASK_ADDRESS", "  ")
    monkeypatch.setenv("DRI_TASK_RUNNER", " ")
    state, summary = run_corpus(str(corpus))
    assert state.is_completed() and summary.worker_pids == [os.getpid()]
    monkeypatch.setenv("DRI_TASK_RUNNER", " inline ")
    state, summary = run_corpus(str(corpus), workers=2)
    assert state.is_completed() and summary.worker_pids == [os.getpid()]


def test_stage_one_leaves_out_all_but_the_candidates(corpus, data_dir, monkeypatch):
    monkeypatch.delenv("DRI_TASK_RUNNER", raising=False)
    state, summary = run_corpus(str(corpus), runner="inline", mode="target", target="atom.txt", candidates=1)
    assert state.is_completed(), state.message
    assert summary.stage1["planned"] == 3 and summary.stage1["kept"] == 1 == summary.pairs
    assert summary.top[0]["source"].endswith("solar.txt")  # the analogue survives stage 1
    state, every = run_corpus(str(corpus), runner="inline", mode="target", target="atom.txt", exhaustive=True)
    assert every.pairs == 3 and every.stage1 == {}
    assert every.run_id == summary.run_id and every.already_stored == 1  # same results, not mapped twice


def test_a_big_job_is_not_small(tmp_path, data_dir):
    texts = {f"doc{i}.txt": f"The cat {i} chased the mouse {i}." for i in range(INLINE_MAX_PARSE + 1)}
    big = write_corpus(tmp_path / "big", texts, manifest=None)
    assert not small_job(CorpusSettings(corpus_dir=str(big), mode="target", target="doc0.txt"))


def _more(tmp_path):
    from flows_corpus_helpers import TEXTS

    few = {
        "a.txt": "The dog barked.",
        "b.txt": "It rained.",
        "c.txt": "The bird sang.",
        "d.txt": "Ice melts.",
    }
    return write_corpus(tmp_path / "more", {**TEXTS, **few}, manifest=None)


def _search_with_top(tmp_path, data_dir, monkeypatch):
    monkeypatch.delenv("DRI_TASK_RUNNER", raising=False)
    monkeypatch.setenv("DRI_WORKERS", "2")
    corpus = _more(tmp_path)
    state, summary = run_corpus(
        str(corpus), runner="inline", mode="target", target="atom.txt", candidates=6, top=1
    )
    assert state.is_completed(), state.message
    pruned = summary.stage1.get("pruned", 0)
    assert summary.stage1["kept"] == summary.pairs == 6 and pruned > 0
    assert summary.mapped + pruned == 6
    assert len(worker_store().comparisons(run_id=summary.run_id)) == summary.mapped
    # Every candidate mapped (the same run id: the stored ones are read back) gives the same best.
    state, every = run_corpus(str(corpus), runner="inline", mode="target", target="atom.txt", candidates=6)
    assert every.mapped == pruned and every.top[0] == summary.top[0]
    assert summary.top[0]["source"].endswith("solar.txt")
    return summary


def test_stage_two_with_top_skips_what_cannot_reach_it_and_keeps_the_same_best(
    tmp_path, data_dir, monkeypatch
):
    summary = _search_with_top(tmp_path, data_dir, monkeypatch)
    assert summary.worker_pids == [os.getpid()]


def test_stage_two_with_top_maps_on_a_pool_of_processes_when_many_are_left(tmp_path, data_dir, monkeypatch):
    from dri.flows import pipeline

    monkeypatch.setattr(pipeline, "POOL_MIN", 1)
    summary = _search_with_top(tmp_path, data_dir, monkeypatch)
    assert set(summary.worker_pids) - {os.getpid()}  # the mapping ran in the workers


def test_a_search_over_stored_documents_maps_here_on_a_pool_of_its_own(tmp_path, data_dir, monkeypatch):
    """No Prefect server for a search whose documents are stored, however many
    candidates it maps: they go to a pool of processes started by this one."""
    monkeypatch.delenv("DRI_TASK_RUNNER", raising=False)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("DRI_WORKERS", "2")
    # As a search of hundreds of candidates meets them: more pairs than a small run maps.
    monkeypatch.setattr("dri.flows.pipeline.INLINE_MAX_PAIRS", 2)
    monkeypatch.setattr("dri.flows.pipeline.POOL_MIN", 2)
    corpus = _more(tmp_path)
    search = {"mode": "target", "target": "atom.txt"}
    assert small_job(CorpusSettings(corpus_dir=str(corpus), candidates=6, **search))
    # Without stage 1 it is a corpus run like any other: 6 pairs are more than 2.
    assert not small_job(CorpusSettings(corpus_dir=str(corpus), exhaustive=True, **search))
    state, summary = run_corpus(str(corpus), candidates=6, **search)
    assert state.is_completed(), state.message
    assert summary.mapped == summary.pairs == 6
    assert len(worker_store().comparisons(run_id=summary.run_id)) == 6  # stored here, as they came
    # Parsed here, mapped by the pool's processes.
    assert os.getpid() in summary.worker_pids and len(set(summary.worker_pids) - {os.getpid()}) >= 1
    assert summary.top[0]["source"].endswith("solar.txt")


def test_a_search_starts_its_pool_with_the_run_only_when_it_will_use_it(tmp_path, data_dir, monkeypatch):
    """A search in this process starts its pool at the start of the run (the workers
    load the mapper while stage 1 runs), for more candidates than POOL_MIN only."""
    from dri.flows import pipeline
    from dri.flows.execution import InProcess

    monkeypatch.setenv("DRI_WORKERS", "2")
    monkeypatch.setattr(pipeline, "POOL_MIN", 2)
    corpus = _more(tmp_path)

    def started(**params):
        run = pipeline.Run.start(CorpusSettings(corpus_dir=str(corpus), **params), InProcess())
        pipeline.start_own_pool(run, 7)
        pool = run.pool
        pipeline.close_own_pool(run)
        return pool is not None and run.pool is None

    assert started(mode="target", target="atom.txt", candidates=6)
    assert started(mode="target", target="atom.txt", exhaustive=True)
    assert not started(mode="target", target="atom.txt", candidates=2)
    assert not started(mode="all-pairs")


def test_a_search_pool_worker_ends_at_once_and_with_status_zero(data_dir):
    """warm_worker: WordNet loaded at the start, no interpreter teardown at the end."""
    from dri.flows.execution import ProcessPool
    from dri.flows.stage2 import warm_worker

    pool = ProcessPool(1, initializer=warm_worker)
    assert pool.submit(os.getpid).result() != os.getpid()
    processes = list(pool._pool._processes.values())
    pool.close()
    assert [p.exitcode for p in processes] == [0]
