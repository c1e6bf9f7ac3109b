"""The fault matrix of the ``dri`` command: every command that uses the store
(and the two that do not), under every fault a user meets, run as the real
command in a subprocess.

A :class:`Workspace` holds one cell's data folder, Prefect home and corpora;
:data:`FAULTS` sets a fault up (environment, files, mounts) and
:data:`COMMANDS` gives each command's arguments. :func:`run_cell` runs one
cell and returns what it printed; the test module checks it. Run as a script
(``python tests/dri/fault_matrix.py [--pythonpath DIR] [CELL...]``) it prints
one line per cell: exit status, seconds, stderr lines and the first and last
of them, e.g. to compare two versions of the code.

Cells that cannot apply are in :data:`NOT_APPLICABLE` with the reason.
Read-only and full folders need ``mount`` (a read-only bind mount, a small
tmpfs) when running as root, who ignores permission bits; without mount
rights a read-only folder is ``chmod 555`` (enough for a user other than
root) and a full disk is a file-size limit (``RLIMIT_FSIZE``, as ``ulimit
-f``), under which a write fails with ``EFBIG`` instead of ``ENOSPC``.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corpora" / "demo"
SECRET = "Hunter2-Matrix-Pw"
#: A port where nothing listens: 500 above the suite's Neo4j port, beyond every
#: extra instance's (tests/neo4j_server.py), so no other checkout's server is there.
REFUSED_PORT = int(
    os.environ.get("DRI_TEST_REFUSED_PORT") or int(os.environ.get("DRI_TEST_NEO4J_PORT", "7697")) + 500
)
AUTH_PASSWORD = "Matrix-Auth-Pw-7"
#: Seconds a command may take in a cell that must fail fast.
FAST_SECONDS = 30.0

ANALOGY = ("solar-system.txt", "rutherford-atom.txt", "heart-pump.txt")
PLAGIARISM = ("orig_taska.txt", "taska_cut.txt", "taska_light.txt", "taska_heavy.txt", "taska_non.txt")


@dataclass
class Workspace:
    """One cell's folders: ``data`` (``DRI_DATA_DIR``), ``prefect`` (its
    ``PREFECT_HOME``), a three-document analogy corpus and a one-task
    plagiarism corpus."""

    root: Path
    pythonpath: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    #: The environment the commands start from, as it was when the workspace
    #: was made: cells run in threads beside tests that change ``os.environ``.
    inherited: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    #: The Neo4j instance a neo4j-restart cell stops and starts (its own).
    restart_port: int = 0
    #: A Prefect database already migrated (``template_store``), copied into
    #: ``prefect`` by :meth:`prepare`: a run's temporary Prefect server then
    #: starts on it without migrating a new one (3.9 CPU seconds instead of 6.2).
    prefect_db: Path | None = None
    #: The API of a Prefect server shared by many cells (``ON_SHARED_PREFECT``),
    #: and its Prefect home, which the cell's checks search as well.
    prefect_api: str | None = None
    shared_prefect_home: Path | None = None

    def sibling(self, name: str) -> Workspace:
        """A fresh workspace in ``root/name``, with this one's settings."""
        return Workspace(self.root / name, self.pythonpath, inherited=self.inherited).prepare()

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def prefect(self) -> Path:
        return self.root / "prefect-home"

    @property
    def corpus(self) -> Path:
        return self.root / "analogy"

    @property
    def plagiarism(self) -> Path:
        return self.root / "plagiarism"

    @property
    def store_file(self) -> Path:
        return self.data / "dri.sqlite"

    def prepare(self) -> Workspace:
        self.data.mkdir(parents=True, exist_ok=True)
        self.prefect.mkdir(exist_ok=True)
        if self.prefect_db is not None and not (self.prefect / self.prefect_db.name).exists():
            shutil.copy(self.prefect_db, self.prefect / self.prefect_db.name)
        self.corpus.mkdir(exist_ok=True)
        for name in ANALOGY:
            shutil.copy(DEMO / "analogy" / name, self.corpus / name)
        self.plagiarism.mkdir(exist_ok=True)
        for name in PLAGIARISM:
            shutil.copy(DEMO / "plagiarism" / name, self.plagiarism / name)
        rows = (DEMO / "plagiarism" / "file_information.csv").read_text().splitlines()
        kept = [rows[0]] + [r for r in rows[1:] if r.split(",")[0] in PLAGIARISM]
        (self.plagiarism / "file_information.csv").write_text("\n".join(kept) + "\n")
        return self

    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in self.inherited.items() if not k.startswith(("NEO4J_", "PREFECT_", "DRI_"))}
        env.update(
            DRI_DATA_DIR=str(self.data),
            # WordNet stays where the checkout keeps it, whatever the data folder.
            DRI_NLTK_DATA=self.inherited.get("DRI_NLTK_DATA") or str(ROOT / "data" / "nltk_data"),
            PREFECT_HOME=str(self.prefect),
            PREFECT_SERVER_ANALYTICS_ENABLED="false",
            DO_NOT_TRACK="1",
            # The suite's allowance for Prefect's temporary server on a busy machine (scripts/test).
            PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=self.inherited.get(
                "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180"
            ),
        )
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath
        if self.prefect_api:
            env["PREFECT_API_URL"] = self.prefect_api
        return {**env, **self.env}


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def errors(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]

    def brief(self) -> str:
        lines = self.errors
        first = lines[0] if lines else ""
        last = lines[-1] if lines else ""
        shown = f"{first[:150]!r}" + (f" ... {last[:150]!r}" if len(lines) > 1 else "")
        return f"exit {self.code}, {self.seconds:.0f} s, {len(lines)} stderr line(s): {shown}"


def dri(ws: Workspace, argv: list[str], *, timeout: float = 600, limit_bytes: int | None = None) -> Outcome:
    """``dri ARGV`` in a subprocess with the workspace's environment."""

    def limit() -> None:  # pragma: no cover - runs in the child
        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "dri.cli", *argv],
        env=ws.base_env(),
        cwd=ws.root,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        preexec_fn=limit if limit_bytes is not None else None,
    )
    return Outcome(argv, done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def start(ws: Workspace, argv: list[str]) -> subprocess.Popen[str]:
    """``dri ARGV`` started in a session of its own (for signals and process trees)."""
    return subprocess.Popen(
        [sys.executable, "-m", "dri.cli", *argv],
        env=ws.base_env(),
        cwd=ws.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


COMMANDS: dict[str, Callable[[Workspace], list[str]]] = {
    "graph": lambda ws: ["graph", str(ws.corpus / ANALOGY[0]), "--out", str(ws.data / "graphs")],
    "compare": lambda ws: ["compare", str(ws.corpus / ANALOGY[0]), str(ws.corpus / ANALOGY[1])],
    # Three documents: small enough to run in this process, without Prefect.
    "run-inline": lambda ws: ["run", str(ws.corpus), "--no-progress"],
    "run-flow": lambda ws: [
        "run",
        str(ws.corpus),
        "--no-progress",
        "--runner",
        "processes",
        "--workers",
        "2",
    ],
    # The same flow on a local Dask cluster: its own processes, started by the command.
    "run-dask": lambda ws: ["run", str(ws.corpus), "--no-progress", "--runner", "dask", "--workers", "2"],
    "evaluate": lambda ws: ["evaluate", "plagiarism", str(ws.plagiarism), "--no-baselines", "-q"],
    "store-info": lambda ws: ["store", "info"],
    "store-top": lambda ws: ["store", "top", ANALOGY[0]],
}

STORE_COMMANDS = ("run-inline", "run-flow", "evaluate", "store-info", "store-top")
RUNNERS = ("run-inline", "run-flow", "run-dask")
WRITERS = ("run-inline", "run-flow", "evaluate")

_NO_STORE = "graph and compare never open the store"
_READS_ONLY = "store info and store top only read, and a read needs no free space"
_ONE_PROCESS = "runs in one process: there is no pool worker to kill"
_NOT_A_RUN = "store info and store top take milliseconds: there is no middle of the run to stop the server in"
_ONE_RUN = "only dri run writes the same corpus from two processes; the other commands are covered by it"
_NOT_A_RUNNER = (
    "the interrupt cells cover dri run on each runner; every command's Ctrl-C is the one line of "
    "dri.cli.main (test_an_interrupt_is_one_line)"
)
_SAME_FLOW = "the store and input faults reach the same flow and tasks as on the process pool (run-flow)"
#: The interrupt faults: SIGINT to the process group (a terminal's Ctrl-C), to the command only, SIGTERM.
INTERRUPTS = ("sigint-group", "sigint-parent", "sigterm")

STORE_FAULTS = (
    "uri-password",
    "refused",
    "wrong-credentials",
    "neo4j-restart",
    "corrupt-sqlite",
    "read-only-data",
    "full-disk",
    "concurrent",
    "worker-killed",
    "not-a-file",
    "empty-corpus",
)

#: (command, fault) -> why the cell is left out.
NOT_APPLICABLE: dict[tuple[str, str], str] = {
    **{
        (c, f): _NO_STORE
        for c in ("graph", "compare")
        for f in (
            "uri-password",
            "refused",
            "wrong-credentials",
            "neo4j-restart",
            "corrupt-sqlite",
            "concurrent",
            "worker-killed",
        )
    },
    ("store-info", "full-disk"): _READS_ONLY,
    ("store-top", "full-disk"): _READS_ONLY,
    ("store-info", "neo4j-restart"): _NOT_A_RUN,
    ("store-top", "neo4j-restart"): _NOT_A_RUN,
    ("evaluate", "concurrent"): _ONE_RUN,
    ("store-info", "concurrent"): _ONE_RUN,
    ("store-top", "concurrent"): _ONE_RUN,
    ("run-inline", "worker-killed"): _ONE_PROCESS,
    ("evaluate", "worker-killed"): "a small evaluation runs in one process, like run-inline",
    ("store-info", "worker-killed"): _ONE_PROCESS,
    ("store-top", "worker-killed"): _ONE_PROCESS,
    (
        "run-flow",
        "not-a-file",
    ): "the pool's workers read each document through the same extract_batch as run-inline",
    ("evaluate", "not-a-file"): "an evaluation reads its documents through the same run as run-inline",
    **{(c, "not-a-file"): "takes no input file" for c in ("store-info", "store-top")},
    **{(c, "empty-corpus"): "takes files, not a corpus folder" for c in ("graph", "compare")},
    (
        "evaluate",
        "empty-corpus",
    ): "an evaluation's loader names what its corpus lacks (file_information.csv) first",
    **{(c, "empty-corpus"): "takes no corpus" for c in ("store-info", "store-top")},
    **{(c, f): _NOT_A_RUNNER for c in COMMANDS if c not in RUNNERS for f in INTERRUPTS},
    # A Dask cluster's own faults are its interrupts; the store faults reach the same
    # flow and tasks as on the process pool (run-flow).
    **{("run-dask", f): _SAME_FLOW for f in STORE_FAULTS},
}

FAULT_NAMES = (*STORE_FAULTS, *INTERRUPTS)

#: The cells whose flow runs use one Prefect server shared by the matrix
#: (``CellPool``) instead of starting Prefect's temporary server each: the
#: process pool under the store and input faults, whose subject is the store
#: and the pool, not the server (a temporary server is about 6 s of a
#: cell's CPU). The interrupt cells keep the run's own temporary server: that
#: it ends with the command is one of their checks.
ON_SHARED_PREFECT = frozenset(("run-flow", fault) for fault in STORE_FAULTS)


def cells() -> list[tuple[str, str]]:
    return [(c, f) for f in FAULT_NAMES for c in COMMANDS if (c, f) not in NOT_APPLICABLE]


# -- mounts ----------------------------------------------------------------------------


def can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[str]:
    """``folder`` read-only for the commands run meanwhile: a read-only bind
    mount as root (who ignores permission bits), else ``chmod 555``."""
    if can_mount() and _mount("--bind", str(folder), str(folder)):
        try:
            if not _mount("-o", "remount,bind,ro", str(folder)):
                raise RuntimeError(f"cannot remount {folder} read-only")
            yield "read-only bind mount"
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
    for p in modes:
        p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        yield "chmod 555"
    finally:
        for p, mode in modes.items():
            p.chmod(mode)


@contextlib.contextmanager
def full_disk(folder: Path, free_bytes: int = 4096) -> Iterator[int | None]:
    """``folder`` on a small tmpfs with ``free_bytes`` left (its content kept);
    yields ``None``, or, without mount rights, the file-size limit to set."""
    if can_mount():
        keep = folder.with_name(folder.name + "-kept")
        folder.rename(keep)
        folder.mkdir()
        used = sum(p.stat().st_size for p in keep.rglob("*") if p.is_file())
        size = used + free_bytes + 1_048_576
        if not _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)):
            folder.rmdir()
            keep.rename(folder)
        else:
            try:
                shutil.copytree(keep, folder, dirs_exist_ok=True)
                filler = folder / "filler"
                with contextlib.suppress(OSError), filler.open("wb") as out:
                    left = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize - free_bytes
                    out.write(b"\0" * max(0, left))
                yield None
            finally:
                subprocess.run(["umount", str(folder)], check=True)
                folder.rmdir()
                keep.rename(folder)
            return
    largest = max((p.stat().st_size for p in folder.rglob("*") if p.is_file()), default=0)
    yield largest + free_bytes


def main(argv: list[str]) -> int:
    """Print every cell (or the named ones, ``command/fault``) as one line."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--pythonpath", help="run dri from this layout (e.g. another version)")
    parser.add_argument("cells", nargs="*")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1])]
    from fault_matrix_cells import CELL_RUNNERS, auth_server, template_store

    chosen = [tuple(c.split("/", 1)) for c in args.cells] or cells()
    with contextlib.ExitStack() as stack:
        if any(f == "wrong-credentials" for _, f in chosen):
            stack.enter_context(auth_server())
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="dri-fault-matrix-"))
        template = template_store(Path(tmp) / "template", args.pythonpath)
        for command, fault in chosen:
            ws = Workspace(Path(tmp) / f"{command}-{fault}", args.pythonpath).prepare()
            try:
                outcome = CELL_RUNNERS[fault](ws, command, template)
                print(f"{command:10} {fault:17} {outcome.brief()}", flush=True)
            except Exception as err:  # a script that reports, not a test
                print(f"{command:10} {fault:17} harness failed: {type(err).__name__}: {err}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
