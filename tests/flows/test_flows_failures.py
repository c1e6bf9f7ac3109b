"""What a flow's loggers keep off the console (``flows/failures.py``)."""

from __future__ import annotations

import logging

from dri.flows import runners
from dri.flows.failures import STOPPING_RUNNERS


def test_the_stopping_runners_loggers_are_the_ones_filtered():
    # Prefect names a runner's logger after its class: a renamed class would slip past the filter.
    names = {
        cls.__name__.lower().replace("taskrunner", "")
        for cls in (
            runners._stopping_process_pool_class(),
            runners._stopping_dask_class(),
        )
    }
    assert names == set(STOPPING_RUNNERS)


def test_a_stopping_pools_warning_after_a_signal_goes_to_the_log_file_only(monkeypatch, caplog):
    # Under load, Ctrl-C's line came with Prefect's "Timed out waiting for process-pool
    # message forwarding to stop." on the console.
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("prefect.task_runner.stoppingprocesspool")
    logger.warning("before any signal")
    monkeypatch.setattr(runners, "_signalled", 2)
    logger.warning("Timed out waiting for process-pool message forwarding to stop.")
    said = [(r.name, r.getMessage()) for r in caplog.records]
    assert said == [
        ("prefect.task_runner.stoppingprocesspool", "before any signal"),
        (
            "dri.flows.interrupt",
            "prefect.task_runner.stoppingprocesspool: Timed out waiting for process-pool message forwarding to stop.",
        ),
    ]
