"""extract/parse_ahead.py: documents parsed in a forked child, or by the caller when it gives none.

Each case runs in a fresh interpreter: the suite's own process has background
threads (tests/background.py), beside which no child is forked.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest
from processes import alive

from dri.extract.parse_ahead import IDLE_THREADS

#: Each test waits on an interpreter of its own (tests/background.py).
pytestmark = pytest.mark.background

PRELUDE = """
import json, os, sys, threading, time
from dri.extract import build_graphs, document_from_text
from dri.extract import parse_ahead as module
from dri.graphs.ros import to_json
documents = [
    document_from_text("The sun attracts the planets. The planets revolve around the sun.", "solar"),
    document_from_text("The nucleus attracts the electrons.", "atom"),
]
"""


def _run(body: str) -> dict:
    script = PRELUDE + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_childs_graphs_are_the_graphs_parsed_here():
    found = _run("""
        with module.parse_ahead(documents) as ahead:
            started = ahead.started
            graphs = ahead.graphs()
        here = list(build_graphs(documents))
        print(json.dumps({
            "started": started,
            "same": [to_json(a) == to_json(b) for a, b in zip(graphs, here, strict=True)],
            "nodes": [g.number_of_nodes() for g in graphs],
        }))
    """)
    assert found["started"] is True
    assert found["same"] == [True, True] and min(found["nodes"]) > 0


def test_a_child_that_fails_gives_none_and_is_reaped():
    found = _run("""
        def broken(documents):
            raise MemoryError("the parse ran out")
        module.build_graphs = broken  # the child inherits the patch
        ahead = module.parse_ahead(documents)
        started = ahead.started
        graphs = ahead.graphs()
        try:
            os.waitpid(-1, os.WNOHANG)
            children = "left"
        except ChildProcessError:
            children = "none"
        print(json.dumps({"started": started, "graphs": graphs, "children": children}))
    """)
    assert found == {"started": True, "graphs": None, "children": "none"}


def test_no_child_beside_a_thread_at_work():
    found = _run("""
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="busy")
        worker.start()
        with module.parse_ahead(documents) as ahead:
            result = {"started": ahead.started, "graphs": ahead.graphs()}
        stop.set()
        worker.join()
        print(json.dumps(result))
    """)
    assert found == {"started": False, "graphs": None}


def test_no_child_when_the_system_has_no_process_to_give():
    found = _run("""
        def refused():
            raise BlockingIOError(11, "Resource temporarily unavailable")
        os.fork = refused
        open_before = len(os.listdir("/proc/self/fd"))
        with module.parse_ahead(documents) as ahead:
            result = {"started": ahead.started, "graphs": ahead.graphs()}
        result["fds_left"] = len(os.listdir("/proc/self/fd")) - open_before
        print(json.dumps(result))
    """)
    assert found == {"started": False, "graphs": None, "fds_left": 0}


def test_a_child_reaped_by_the_system_is_parsed_again_here():
    found = _run("""
        import signal
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps every child at once
        with module.parse_ahead(documents) as ahead:
            started = ahead.started
            graphs = ahead.graphs()
        print(json.dumps({"started": started, "graphs": graphs}))
    """)
    # Its exit status is unknown, so its graphs are not trusted: the caller parses.
    assert found == {"started": True, "graphs": None}


def test_the_child_ends_with_a_parent_killed_outright():
    # A caller's subprocess.run(timeout=...) kills the command alone, with SIGKILL.
    script = PRELUDE + textwrap.dedent("""
        import signal
        def slow(documents):
            time.sleep(60)
            return []
        module.build_graphs = slow
        ahead = module.parse_ahead(documents)
        print(ahead._pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert parent.wait(timeout=60) == -9
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_ctrl_c_at_the_fork_is_not_lost():
    # A KeyboardInterrupt raised in a fork callback is printed as "Exception
    # ignored" and dropped: the command went on to its end.
    found = _run("""
        import signal
        # As a terminal starts a command: a suite run in the background (``&``) ignores Ctrl-C.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        def slow(documents):
            time.sleep(60)
            return []
        module.build_graphs = slow
        os.register_at_fork(after_in_parent=lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.2)))
        try:
            module.parse_ahead(documents)
            result = "not interrupted"
        except KeyboardInterrupt:
            result = "interrupted"
        time.sleep(0.2)
        try:
            os.waitpid(-1, os.WNOHANG)
            left = "a child left"
        except ChildProcessError:
            left = "no child left"
        print(json.dumps({"result": result, "left": left}))
    """)
    assert found == {"result": "interrupted", "left": "no child left"}


def test_closing_stops_a_child_still_parsing():
    found = _run("""
        def slow(documents):
            time.sleep(60)
            return []
        module.build_graphs = slow
        ahead = module.parse_ahead(documents)
        pid = ahead._pid
        began = time.monotonic()
        ahead.close()
        print(json.dumps({
            "seconds": time.monotonic() - began,
            "alive": os.path.exists(f"/proc/{pid}"),
            "graphs": ahead.graphs(),
        }))
    """)
    assert found["seconds"] < 10 and found["alive"] is False and found["graphs"] is None


def test_a_child_is_forked_beside_the_command_log_server():
    found = _run("""
        from dri.quiet_logs import quiet_logs
        logs = quiet_logs(verbose=False)
        names = sorted(t.name for t in threading.enumerate() if t is not threading.main_thread())
        with module.parse_ahead(documents) as ahead:
            result = {"threads": names, "started": ahead.started, "graphs": len(ahead.graphs() or [])}
        logs.close()
        print(json.dumps(result))
    """)
    assert found["threads"] and set(found["threads"]) <= IDLE_THREADS
    assert found["started"] is True and found["graphs"] == 2
