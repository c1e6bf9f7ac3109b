"""metrics/picture_pool.py: pictures drawn in forked workers are the caller's pictures."""

from __future__ import annotations

import os
import signal

import pytest

from dri.graphs import add_triple, new_graph
from dri.metrics import compare
from dri.metrics.picture_pool import PictureJob, PicturePool, draw_pictures, picture_pool


@pytest.fixture(scope="module")
def jobs():
    made = []
    for n, (a, b) in enumerate([("sun", "nucleus"), ("army", "ray")]):
        source, target = new_graph(f"s{n}", name=f"s{n}"), new_graph(f"t{n}", name=f"t{n}")
        add_triple(source, a, "attract", "planet")
        add_triple(source, "planet", "revolve_around", a)
        add_triple(target, b, "attract", "electron")
        comparison = compare(source, target)
        made.append(
            PictureJob(source, target, comparison.mapping, tuple(comparison.inferences), prefix=f"j{n}")
        )
    return made


def test_a_pool_draws_what_the_caller_draws(jobs):
    here = [job.draw().svg for job in jobs]
    with PicturePool() as pool:
        drawn = draw_pictures(jobs, pool)
    assert [p.svg for p in drawn] == here


def test_a_dead_worker_costs_time_never_a_picture(jobs):
    pool = PicturePool(workers=1)
    try:
        # The worker is forked by the pool's first task; kill it.
        workers = list(pool._executor._processes.values())  # type: ignore[union-attr]
        assert workers
        for process in workers:
            os.kill(process.pid, signal.SIGKILL)
            process.join(10)
        drawn = draw_pictures(jobs, pool)
    finally:
        pool.close()
    assert [p.svg for p in drawn] == [job.draw().svg for job in jobs]


def test_no_pool_when_none_is_wanted(jobs):
    with picture_pool(wanted=False) as pool:
        assert pool is None


def test_a_caller_with_matplotlib_loaded_draws_what_no_worker_has_started(jobs):
    jobs[0].draw()  # this process has loaded matplotlib, as dri demo has
    many = [
        PictureJob(job.source, job.target, job.mapping, job.inferences, prefix=f"{job.prefix}-{n}")
        for n in range(4)
        for job in jobs
    ]
    with picture_pool() as pool:
        assert pool is not None
        drawn = draw_pictures(many, pool)
        asked = [future for _, future in pool._asked.values()]
        # One worker starts with the first pictures; the caller takes the last ones.
        taken = [future.cancelled() for future in asked]
        assert taken[0] is False and taken[-1] is True
        # A picture the caller took is asked of the pool anew.
        assert pool.submit(many[-1]).result().svg == drawn[-1].svg
    assert [p.svg for p in drawn] == [job.draw().svg for job in many]


def test_a_picture_asked_again_is_drawn_once(jobs):
    # A search asks for its report's pictures when its hits are known; the report asks again.
    with PicturePool() as pool:
        first = pool.submit(jobs[0])
        again = PictureJob(jobs[0].source, jobs[0].target, jobs[0].mapping, jobs[0].inferences, prefix="j0")
        assert pool.submit(again) is first
        other = pool.submit(jobs[1])
        assert other is not first
        renamed = PictureJob(jobs[0].source, jobs[0].target, jobs[0].mapping, jobs[0].inferences, prefix="k0")
        assert pool.submit(renamed) is not first  # another prefix is another picture
        assert first.result().svg == jobs[0].draw().svg
