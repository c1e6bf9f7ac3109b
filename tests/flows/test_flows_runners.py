"""The runners' local Dask cluster: what it lets distributed say on the console."""

from __future__ import annotations

import logging

from dri.flows.runners import local_cluster


def test_a_local_cluster_keeps_lost_worker_warnings_off_the_console(caplog, monkeypatch) -> None:
    # dri reports a lost worker itself (a batch's failure, or "interrupted");
    # the scheduler's own warning could reach the console before Ctrl-C's handler ran.
    monkeypatch.delenv("DRI_VERBOSE", raising=False)
    cluster = local_cluster(n_workers=0, processes=False, dashboard_address=None)
    try:
        scheduler = logging.getLogger("distributed.scheduler")
        with caplog.at_level(logging.WARNING, logger="distributed.scheduler"):
            scheduler.warning(
                "Removing worker 'tcp://127.0.0.1:1' caused the cluster to lose already computed tasks"
            )
            scheduler.warning("Worker tcp://127.0.0.1:2 is at 85% memory")
        said = [r.getMessage() for r in caplog.records if r.name == "distributed.scheduler"]
        assert "Worker tcp://127.0.0.1:2 is at 85% memory" in said
        assert not [m for m in said if m.startswith("Removing worker")]
    finally:
        cluster.close()
