"""Where the test suite's wall time goes: a pytest plugin that records a timeline.

    PYTHONPATH=bench SUITE_TIMELINE=/tmp/t.json bash scripts/test -q -p suite_timeline
    .venv/bin/python bench/suite_timeline.py /tmp/t.json

The plugin records each test's start, end and main-thread CPU, each call
run in a thread pool (the background tests' and the fault matrix cells'
pools of tests/background.py and tests/dri/fault_matrix_pool.py: submitted,
started, ended), the machine's busy cores every 2 s, and the CPU of the test
process and of the children it waited for. The summary says when the main
thread's own tests ended and when each pool's last call did (which of them
is the critical path), the main thread's wall and CPU per module, and the
machine's load. Measurement only: the tests run as they would without it.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

__all__ = ["pytest_runtest_protocol", "pytest_unconfigure", "summary"]

T0 = time.monotonic()
EVENTS: dict[str, Any] = {"tests": [], "pool": [], "cpu": []}
_SUBMIT = ThreadPoolExecutor.submit


def _now() -> float:
    return round(time.monotonic() - T0, 2)


def _submit(self: ThreadPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
    name = getattr(fn, "func", fn)  # a functools.partial names its function
    record = {
        "pool": getattr(self, "_thread_name_prefix", ""),
        "label": getattr(name, "__qualname__", repr(name))[:80],
        "args": " ".join(str(a)[-50:] for a in (*args, *getattr(fn, "args", ()))[:3]),
        "submitted": _now(),
    }
    EVENTS["pool"].append(record)

    def call() -> Any:
        record["start"] = _now()
        try:
            return fn(*args, **kwargs)
        finally:
            record["end"] = _now()

    return _SUBMIT(self, call)


def _busy() -> tuple[int, int]:
    with open("/proc/stat") as stat:
        ticks = [int(v) for v in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]
    return sum(ticks) - idle, sum(ticks)


def _sample() -> None:
    before = _busy()
    while True:
        time.sleep(2)
        now = _busy()
        cores = os.cpu_count() or 1
        EVENTS["cpu"].append([_now(), round(cores * (now[0] - before[0]) / max(1, now[1] - before[1]), 2)])
        EVENTS["cpu"][-1].append(round(os.getloadavg()[0], 1))
        before = now


if "pytest" in sys.modules:  # loaded as a plugin (-p suite_timeline)
    import pytest

    ThreadPoolExecutor.submit = _submit  # type: ignore[method-assign]
    threading.Thread(target=_sample, daemon=True, name="suite-timeline").start()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        record = {"id": item.nodeid, "start": _now()}
        cpu = time.thread_time()
        yield
        record.update(end=_now(), cpu=round(time.thread_time() - cpu, 2))
        EVENTS["tests"].append(record)

    def pytest_unconfigure(config: pytest.Config) -> None:
        times = os.times()
        EVENTS["final"] = {
            "wall": _now(),
            "process_cpu": round(times.user + times.system, 1),
            "children_cpu": round(times.children_user + times.children_system, 1),
        }
        Path(os.environ.get("SUITE_TIMELINE", "suite-timeline.json")).write_text(json.dumps(EVENTS))


def summary(events: dict[str, Any]) -> str:
    """The critical path, the main thread per module, and the load, as text."""
    final = events["final"]
    lines = [
        f"wall {final['wall']:.0f} s; CPU {final['process_cpu'] + final['children_cpu']:.0f} s "
        f"(test process {final['process_cpu']:.0f}, children waited for {final['children_cpu']:.0f})"
    ]
    ends: dict[str, float] = collections.defaultdict(float)
    for p in events["pool"]:
        if "end" in p and p["pool"] in ("background-test", "fault-cell"):
            ends[p["pool"]] = max(ends[p["pool"]], p["end"])
    # The matrix's tests come after every test the main thread runs itself (tests/dri/conftest.py).
    matrix = [t["start"] for t in events["tests"] if "test_fault_matrix[" in t["id"]]
    lines.append(
        f"main thread's own tests ended at {min(matrix, default=final['wall']):.0f} s; "
        + ", ".join(f"pool {k} ended at {v:.0f} s" for k, v in sorted(ends.items()))
    )
    modules: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0])
    for t in events["tests"]:
        m = modules[t["id"].split("::")[0]]
        m[0] += t["end"] - t["start"]
        m[1] += t["cpu"]
    lines.append("main thread per module (wall s, its CPU s):")
    for name, (wall, cpu) in sorted(modules.items(), key=lambda kv: -kv[1][0])[:25]:
        lines.append(f"  {wall:6.1f} {cpu:6.1f}  {name}")
    cpu = events["cpu"]
    if cpu:
        lines.append(
            f"machine: {sum(c[1] for c in cpu) / len(cpu):.2f} cores busy on average, "
            f"load average {sum(c[2] for c in cpu) / len(cpu):.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(json.loads(Path(sys.argv[1]).read_text())))
