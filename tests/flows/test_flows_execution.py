"""The runners' shared settings (``flows/execution.py``)."""

from __future__ import annotations

import os

import pytest

from dri.errors import SettingsError
from dri.flows.execution import local_workers


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "DRI_WORKERS must be a whole number from 1 to 256, not 'abc'"),
        ("1.5", "DRI_WORKERS must be a whole number from 1 to 256, not '1.5'"),
        # int() took both, as 10 and 3.
        ("1_0", "DRI_WORKERS must be a whole number from 1 to 256, not '1_0'"),
        ("\u0663", "DRI_WORKERS must be a whole number from 1 to 256, not '\u0663'"),
        # int() refused it with its own words; the message quoted every digit.
        ("9" * 5000, f"DRI_WORKERS must be a whole number from 1 to 256, not '{'9' * 40}…'"),
        ("0", "DRI_WORKERS must be a whole number from 1 to 256, not '0'"),
        ("-3", "DRI_WORKERS must be a whole number from 1 to 256, not '-3'"),
        # Past a C int it was multiprocessing's OverflowError (exit 70).
        (
            "99999999999999999999",
            "DRI_WORKERS must be a whole number from 1 to 256, not '99999999999999999999'",
        ),
    ],
)
def test_a_bad_worker_count_is_a_settings_error_naming_the_variable(monkeypatch, value, message):
    # dri evaluate sizes its batches by it: 'abc' was a ValueError, '0' a division by zero (exit 70).
    monkeypatch.setenv("DRI_WORKERS", value)
    with pytest.raises(SettingsError) as err:
        local_workers()
    assert str(err.value) == message


def test_the_worker_count_is_the_variable_else_the_cpus(monkeypatch):
    monkeypatch.setenv("DRI_WORKERS", "3")
    assert local_workers() == 3
    monkeypatch.setenv("DRI_WORKERS", " 2 ")  # blanks around a value dropped, as for every variable
    assert local_workers() == 2
    monkeypatch.delenv("DRI_WORKERS")
    assert local_workers() >= 1


def _die() -> None:
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def test_steps_submitted_after_a_worker_died_fail_like_those_it_held():
    # The pool raised BrokenProcessPool from submit(): `dri evaluate analogy` whose
    # search worker was killed (kill -9, the out-of-memory killer) exited 70.
    import concurrent.futures

    from dri.flows.execution import ProcessPool

    pool = ProcessPool(1, initializer=os.getpid)  # not worker_init: this test process is its parent
    try:
        held = pool.submit(_die)
        with pytest.raises(concurrent.futures.process.BrokenProcessPool):
            held.result(timeout=120)
        later = pool.submit(len, "abc")
        with pytest.raises(concurrent.futures.process.BrokenProcessPool):
            later.result(timeout=5)
    finally:
        pool.close(wait=False)


def test_pool_workers_start_with_the_parents_folder_and_environment_of_now(tmp_path, monkeypatch):
    # The workers are forks of a forkserver that outlives a pool and keeps the
    # folder and environment it was started with: a later pool's workers must
    # see the parent's current ones, as spawned workers did.
    from dri.flows.execution import ProcessPool

    first = ProcessPool(1, initializer=os.getpid)  # not worker_init: this test process is its parent
    try:
        assert first.submit(os.getenv, "DRI_TEST_POOL_VALUE").result(timeout=120) is None
    finally:
        first.close()
    monkeypatch.setenv("DRI_TEST_POOL_VALUE", "later")
    monkeypatch.chdir(tmp_path)
    pool = ProcessPool(1, initializer=os.getpid)
    try:
        assert pool.submit(os.getenv, "DRI_TEST_POOL_VALUE").result(timeout=120) == "later"
        assert pool.submit(os.getcwd).result(timeout=120) == str(tmp_path)
        # Forked with the search's modules already imported, not importing them itself.
        assert pool.submit(eval, "'dri.flows.stage2' in __import__('sys').modules").result(timeout=120)
        assert pool.submit(os.getppid).result(timeout=120) != os.getpid()
    finally:
        pool.close()


def test_a_pool_workers_start_does_not_show_the_environment(monkeypatch):
    from dri.flows.runners import WorkerStart

    monkeypatch.setenv("NEO4J_PASSWORD", "Hunter2-Start-Pw")
    assert "Hunter2-Start-Pw" not in repr(WorkerStart(os.getpid))
