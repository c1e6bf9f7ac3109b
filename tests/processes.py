"""Processes as the fault tests see them: descendants from /proc, command
lines, and waiting for a condition."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def descendants(pid: int) -> set[int]:
    """All living descendants of ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def pool_workers(pid: int) -> set[int]:
    """The process pools' workers among ``pid``'s descendants: each a fork of
    the forkserver (``flows.runners.worker_context``), which runs under the
    same command line as they do but is the child of a process that is not
    one of them."""
    family = descendants(pid)
    forked = {p for p in family if "multiprocessing.forkserver" in command_line(p)}
    return {p for p in forked if parent(p) in forked}


def in_session(sid: int) -> set[int]:
    """Living processes of session ``sid`` (a process started with
    ``start_new_session=True`` and everything it starts), wherever they were
    reparented to."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[3]) == sid:
                found.add(int(entry.name))
    return found


def parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


#: Capabilities that let root read any file whatever its permission bits.
_READ_ANY = "-dac_override,-dac_read_search"


def bound_by_permissions() -> list[str]:
    """A command prefix under which permission bits apply: nothing for a user,
    ``setpriv`` dropping root's rights to read anything when the tests run as root
    (files stay root's own, so ``chmod 0`` makes them unreadable)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", f"--bounding-set={_READ_ANY}", f"--inh-caps={_READ_ANY}"]


def writer_process(test_file: str, function: str, folder: Path, times: int) -> subprocess.Popen[str]:
    """``function(folder, times)`` of the test module ``test_file`` run in a
    fresh interpreter: a writer beside the test's reader. A fork of the test
    process would inherit the state of the threads the suite runs beside it
    (the background tests, the picture pool), which can fail the child."""
    module = Path(test_file)
    code = (
        f"import sys; sys.path[:0] = [{str(module.parent)!r}, {str(Path(__file__).parent)!r}]; "
        "from pathlib import Path; "
        f"import {module.stem} as m; m.{function}(Path({str(folder)!r}), {times})"
    )
    return subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)


def reads_beside(
    writer: subprocess.Popen[str], paths: Sequence[Path], whole: Callable[[Path], bool], timeout: float = 120
) -> tuple[int, dict[str, int]]:
    """Read ``paths`` over and over while ``writer`` runs (at most ``timeout``
    seconds): how many reads there were, and per path how many found it not
    ``whole``. The writer is waited for, and must have ended with status 0."""
    cut_short: dict[str, int] = {}
    reads = 0
    deadline = time.monotonic() + timeout
    while writer.poll() is None and time.monotonic() < deadline:
        for path in paths:
            reads += 1
            if not whole(path):
                cut_short[str(path)] = cut_short.get(str(path), 0) + 1
    _, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err[-2000:]
    return reads, cut_short
