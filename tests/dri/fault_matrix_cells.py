"""How each fault of the matrix (``fault_matrix.py``) is set up and run.

Every runner takes a fresh :class:`Workspace`, the command's name and the
template workspace (a data folder holding one clean run of the analogy
corpus in SQLite, made once) and returns the :class:`Outcome` of the command
under the fault, with what the store held before and after in ``notes``.
Stored rows are counted per SQLite table, or per Neo4j node and relationship,
without the project's code, so any version of it can be measured.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from fault_matrix import (
    ANALOGY,
    AUTH_PASSWORD,
    COMMANDS,
    DEMO,
    REFUSED_PORT,
    SECRET,
    Outcome,
    Workspace,
    dri,
    full_disk,
    read_only,
    start,
)
from neo4j_server import extra_port, neo4j_script
from prefect_template import copy_into
from processes import alive, command_line, descendants, in_session, parent, pool_workers, wait_for

#: The Neo4j started with authentication on for the wrong-credentials cells.
AUTH_PORT = extra_port("auth", setting="DRI_TEST_NEO4J_AUTH_PORT")
#: The first Neo4j instance stopped and restarted mid-run (never the suite's
#: own); cells run side by side take the next ports (``Workspace.restart_port``).
RESTART_PORT = extra_port("matrix-restart", setting="DRI_TEST_MATRIX_RESTART_PORT")


def neo4j(command: str, port: int, **env: str) -> subprocess.CompletedProcess[str]:
    done = neo4j_script(command, port, **env)
    if command != "status" and done.returncode != 0:
        raise RuntimeError(f"scripts/neo4j {command} on {port}: {done.stderr.strip()[-300:]}")
    return done


@contextlib.contextmanager
def auth_server() -> Iterator[str]:
    """A fresh Neo4j with authentication on (password :data:`AUTH_PASSWORD`)."""
    neo4j("wipe", AUTH_PORT)
    neo4j("start", AUTH_PORT, NEO4J_AUTH_PASSWORD=AUTH_PASSWORD)
    try:
        yield f"bolt://127.0.0.1:{AUTH_PORT}"
    finally:
        neo4j("wipe", AUTH_PORT)


def sqlite_counts(path: Path) -> dict[str, int]:
    """Rows per table of the SQLite file at ``path`` (read-only, no journal)."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in sorted(tables)}


def sqlite_duplicates(path: Path) -> int:
    """Rows that repeat another row of their table exactly, over all tables."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return sum(
            db.execute(
                f'SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT * FROM "{t}")) FROM "{t}"'
            ).fetchone()[0]
            for t in tables
        )


def neo4j_counts(uri: str, patience: float = 30.0) -> dict[str, int]:
    """Node, relationship and document counts; a server just restarted may
    refuse Bolt for a moment after it said it was up, so refusals are retried
    for ``patience`` seconds."""
    import neo4j as driver
    from neo4j.exceptions import ServiceUnavailable

    deadline = time.monotonic() + patience
    while True:
        try:
            with driver.GraphDatabase.driver(uri, auth=None) as d:
                nodes = d.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"]
                rels = d.execute_query("MATCH ()-[r]->() RETURN count(r) AS n").records[0]["n"]
                docs = d.execute_query("MATCH (n:Document) RETURN count(n) AS n").records[0]["n"]
            return {"nodes": nodes, "relationships": rels, "documents": docs}
        except ServiceUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def template_store(folder: Path, pythonpath: str | None) -> Workspace:
    """One clean run of the analogy corpus in SQLite, to copy into cells, and
    a migrated Prefect database in its Prefect home (``Workspace.prefect_db``)."""
    ws = Workspace(folder, pythonpath).prepare()
    done = dri(ws, COMMANDS["run-inline"](ws))
    if done.code != 0:
        raise RuntimeError(f"the template run failed: {done.stderr[-500:]}")
    copy_into(ws.prefect)  # the session's migrated database (tests/prefect_template.py)
    return ws


def _copy_store(ws: Workspace, template: Workspace) -> dict[str, int]:
    """The template's store (with its write-ahead log) in ``ws``; its row counts."""
    for path in template.data.glob(template.store_file.name + "*"):
        shutil.copy(path, ws.data / path.name)
    counts = sqlite_counts(ws.store_file)
    if not counts.get("documents"):
        raise RuntimeError(f"the template store was not copied: {counts}")
    return counts


def _writes_new(ws: Workspace, command: str) -> list[str]:
    """The command's arguments, a run on the plagiarism corpus (not in the template)."""
    argv = COMMANDS[command](ws)
    return [str(ws.plagiarism) if a == str(ws.corpus) else a for a in argv]


def _inline(argv: list[str]) -> list[str]:
    """The same command, a ``dri run`` in one process (``--runner inline``).

    For the runs whose store, not whose runner, a cell checks: the undisturbed
    reference, and the rerun after the fault (what the fault left in the store
    is what the rerun must finish). Every runner stores the same
    (tests/flows/test_flows_corpus.py), and an inline run costs a tenth of a
    pool's or a cluster's CPU (no Prefect server, no worker imports).
    """
    if argv[0] != "run":
        return argv
    kept: list[str] = []
    options = iter(argv)
    for a in options:
        if a in ("--runner", "--workers"):
            next(options)
        else:
            kept.append(a)
    return [*kept, "--runner", "inline"]


def uri_password(ws: Workspace, command: str, template: Workspace) -> Outcome:
    ws.env["NEO4J_URI"] = f"neo4j:{SECRET}@127.0.0.1:{REFUSED_PORT}"
    return dri(ws, COMMANDS[command](ws))


def refused(ws: Workspace, command: str, template: Workspace) -> Outcome:
    ws.env.update(NEO4J_URI=f"bolt://127.0.0.1:{REFUSED_PORT}", NEO4J_USER="neo4j", NEO4J_PASSWORD=SECRET)
    return dri(ws, COMMANDS[command](ws))


def wrong_credentials(ws: Workspace, command: str, template: Workspace) -> Outcome:
    # The server is started by the caller (auth_server), once for all commands.
    ws.env.update(NEO4J_URI=f"bolt://127.0.0.1:{AUTH_PORT}", NEO4J_USER="neo4j", NEO4J_PASSWORD=SECRET)
    return dri(ws, COMMANDS[command](ws))


def corrupt_sqlite(ws: Workspace, command: str, template: Workspace) -> Outcome:
    ws.store_file.write_bytes(b"this is not a database, " * 400)
    return dri(ws, COMMANDS[command](ws))


def read_only_data(ws: Workspace, command: str, template: Workspace) -> Outcome:
    before = _copy_store(ws, template)
    with read_only(ws.data) as how:
        outcome = dri(ws, _writes_new(ws, command))
    outcome.notes.update(before=before, after=sqlite_counts(ws.store_file), how=how)
    return outcome


def full_disk_cell(ws: Workspace, command: str, template: Workspace) -> Outcome:
    before = _copy_store(ws, template)
    with full_disk(ws.data) as limit:
        outcome = dri(ws, _writes_new(ws, command), limit_bytes=limit)
        after = sqlite_counts(ws.store_file)
        with contextlib.closing(sqlite3.connect(f"file:{ws.store_file}?mode=ro", uri=True)) as db:
            check = db.execute("PRAGMA integrity_check").fetchone()[0]
    outcome.notes.update(
        before=before, after=after, integrity=check, how="tmpfs" if limit is None else f"RLIMIT_FSIZE {limit}"
    )
    return outcome


def concurrent(ws: Workspace, command: str, template: Workspace) -> Outcome:
    argv = COMMANDS[command](ws)
    started = time.monotonic()
    runs = [start(ws, argv) for _ in range(2)]
    results = [r.communicate(timeout=900) for r in runs]
    first = Outcome(argv, runs[0].returncode, results[0][0], results[0][1], time.monotonic() - started)
    first.notes.update(
        others=[Outcome(argv, r.returncode, o, e, first.seconds) for r, (o, e) in zip(runs[1:], results[1:])],
        after=sqlite_counts(ws.store_file),
        clean=sqlite_counts(template.store_file),
        duplicates=sqlite_duplicates(ws.store_file),
    )
    return first


def worker_killed(ws: Workspace, command: str, template: Workspace) -> Outcome:
    argv = [*_writes_new(ws, command), "--batch-size", "1"]
    started = time.monotonic()
    run = start(ws, argv)
    killed: list[int] = []
    try:
        # A worker that has started working: the first document of the run is stored.
        def working() -> bool:
            if run.poll() is not None or not ws.store_file.exists():
                return run.poll() is not None
            try:
                stored = sqlite_counts(ws.store_file).get("documents", 0)
            except sqlite3.Error:
                return False
            return stored > 0 and bool(pool_workers(run.pid))

        wait_for(working, 600)
        workers = sorted(pool_workers(run.pid))
        if run.poll() is None and workers:
            os.kill(workers[-1], signal.SIGKILL)
            killed.append(workers[-1])
        out, err = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    outcome = Outcome(argv, run.returncode, out, err, time.monotonic() - started)
    again = dri(ws, _inline(argv))
    clean = ws.sibling("clean")
    reference = dri(clean, _inline([a.replace(str(ws.plagiarism), str(clean.plagiarism)) for a in argv]))
    outcome.notes.update(
        killed=killed,
        rerun=again,
        after=sqlite_counts(ws.store_file),
        clean=sqlite_counts(clean.store_file) if reference.code == 0 else {"failed": reference.brief()},
    )
    return outcome


#: How each interrupt cell signals the run: SIGINT to its process group (what a
#: terminal sends on Ctrl-C), SIGINT to the command alone, SIGTERM to the command.
SIGNALS = {"sigint-group": signal.SIGINT, "sigint-parent": signal.SIGINT, "sigterm": signal.SIGTERM}


#: Documents of the interrupt cells' corpus: 66 pairs, one per task, last
#: long enough to be stopped while they map.
INTERRUPT_DOCUMENTS = 12


def _big_corpus(root: Path) -> Path:
    """The first :data:`INTERRUPT_DOCUMENTS` of the demo's analogy and plagiarism texts."""
    folder = root / "big"
    folder.mkdir(exist_ok=True)
    texts = [t for t in sorted(DEMO.glob("*/*.txt")) if t.parent.name in ("analogy", "plagiarism")]
    for text in [t for t in texts if t.name != "targets.txt"][:INTERRUPT_DOCUMENTS]:
        shutil.copy(text, folder / f"{text.parent.name}-{text.name}")
    return folder


_clean_counts: dict[str, dict[str, int]] = {}


def _clean_run(ws: Workspace) -> dict[str, int]:
    """The store's counts after an undisturbed run of the interrupt cells'
    corpus in a fresh workspace (once per harness: every runner stores the same)."""
    if "counts" not in _clean_counts:
        clean = Workspace(ws.root / "clean", ws.pythonpath).prepare()
        argv = ["run", str(_big_corpus(clean.root)), "--no-progress", *_ALL_PAIRS, "--runner", "inline"]
        done = dri(clean, argv)
        if done.code != 0:
            return {"failed": done.code}
        _clean_counts["counts"] = sqlite_counts(clean.store_file)
    return _clean_counts["counts"]


_ALL_PAIRS = ["--mode", "all-pairs", "--batch-size", "1"]


def _comparisons(path: Path) -> int:
    try:
        return sqlite_counts(path).get("comparisons", 0)
    except sqlite3.Error:  # not created yet, or busy
        return 0


#: How long the store is watched for writes once every process of a signalled
#: run is gone: orphaned workers of old code wrote dozens of comparisons in the
#: seconds after the signal.
QUIET_FOR = 3.0


def _pool_shape(pid: int) -> dict[str, object]:
    """What the process pool of run ``pid`` looks like while it maps: its
    workers, anything they started (nothing: a worker never starts a Prefect
    server), and the Prefect servers that are not the run's own children."""
    workers = pool_workers(pid)
    family = descendants(pid)
    servers = [p for p in family if "uvicorn" in command_line(p)]
    return {
        "workers": len(workers),
        "started_by_workers": sorted(command_line(c)[:100] for w in workers for c in descendants(w)),
        "servers": len(servers),
        "servers_elsewhere": [command_line(p)[:100] for p in servers if parent(p) != pid],
    }


def interrupted(ws: Workspace, command: str, template: Workspace, *, fault: str) -> Outcome:
    """Start an all-pairs run of the big corpus, one pair per task; once it
    has stored comparisons (and, on the process pool, both workers exist),
    signal it as ``fault`` says; then run it again to the end (inline: what
    the signal left is what is checked), and once more in a clean workspace,
    for the reference counts. ``notes["exit_seconds"]`` is the time from the
    signal to the command's end; ``notes["left"]`` every process of the run's
    session still alive after it (wherever it was reparented to);
    ``notes["written_after"]`` whether the store was written once they were gone."""
    corpus = _big_corpus(ws.root)
    argv = [str(corpus) if a == str(ws.corpus) else a for a in COMMANDS[command](ws)]
    argv += [*_ALL_PAIRS, *(["--runner", "inline"] if command == "run-inline" else [])]
    pool = command == "run-flow"
    started = time.monotonic()
    run = start(ws, argv)
    try:

        def mapping() -> bool:
            return _comparisons(ws.store_file) > 0 and (not pool or len(pool_workers(run.pid)) >= 2)

        wait_for(lambda: run.poll() is not None or mapping(), 900, 0.1)
        signalled = run.poll() is None
        family = descendants(run.pid)
        shape = _pool_shape(run.pid) if pool and signalled else {}
        sent = time.monotonic()
        if signalled and fault == "sigint-group":
            os.killpg(run.pid, signal.SIGINT)
        elif signalled:
            os.kill(run.pid, SIGNALS[fault])
        out, err = run.communicate(timeout=120)
        exit_seconds = time.monotonic() - sent
        # The temporary Prefect server and the pool's workers go with the command.
        wait_for(lambda: not any(alive(p) for p in family) and not in_session(run.pid), 30, 0.2)
        left = {p: command_line(p)[:100] for p in family | in_session(run.pid) if alive(p)}
        stored = _comparisons(ws.store_file)
        written_after = wait_for(lambda: _comparisons(ws.store_file) != stored, QUIET_FOR, 0.5)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    outcome = Outcome(argv, run.returncode, out, err, time.monotonic() - started)
    with contextlib.closing(sqlite3.connect(f"file:{ws.store_file}?mode=ro", uri=True)) as db:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    again = dri(ws, _inline(argv))
    outcome.notes.update(
        signalled=signalled,
        exit_seconds=exit_seconds,
        left=left,
        written_after=written_after,
        pool=shape,
        integrity=integrity,
        rerun=again,
        after=sqlite_counts(ws.store_file),
        clean=_clean_run(ws),
    )
    return outcome


def neo4j_restart(ws: Workspace, command: str, template: Workspace) -> Outcome:
    """Stop the server once the run has stored a document, start it again
    when the run has ended, run again; then empty the database and run once
    more, undisturbed, for the reference counts."""
    port = ws.restart_port or RESTART_PORT
    uri = f"bolt://127.0.0.1:{port}"
    neo4j("wipe", port)
    neo4j("start", port)
    ws.env.update(NEO4J_URI=uri, DRI_NEO4J_RETRY_SECONDS="5")
    argv = (
        [*_writes_new(ws, command), "--batch-size", "1"] if command != "evaluate" else COMMANDS[command](ws)
    )
    try:
        started = time.monotonic()
        run = start(ws, argv)
        try:
            wait_for(lambda: run.poll() is not None or neo4j_counts(uri)["documents"] > 0, 600, 0.1)
            stopped_mid_run = run.poll() is None
            neo4j("stop", port)
            out, err = run.communicate(timeout=600)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
        outcome = Outcome(argv, run.returncode, out, err, time.monotonic() - started)
        neo4j("start", port)
        again = dri(ws, _inline(argv))
        after = neo4j_counts(uri)
        import neo4j as driver

        with driver.GraphDatabase.driver(uri, auth=None) as d:
            d.execute_query("MATCH (n) DETACH DELETE n")
        reference = dri(ws, _inline(argv))
        outcome.notes.update(
            stopped_mid_run=stopped_mid_run,
            rerun=again,
            after=after,
            clean=neo4j_counts(uri),
            reference=reference,
        )
        return outcome
    finally:
        neo4j("wipe", port)


def not_a_file(ws: Workspace, command: str, template: Workspace) -> Outcome:
    """The first document is a link to ``/dev/zero`` (a FIFO inside the corpus for a run,
    whose links out of the corpus are refused before any read)."""
    first = ws.corpus / ANALOGY[0]
    first.unlink()
    if command.startswith("run"):
        os.mkfifo(first)
    else:
        first.symlink_to("/dev/zero")
    return dri(ws, COMMANDS[command](ws))


def empty_corpus(ws: Workspace, command: str, template: Workspace) -> Outcome:
    """The corpus holds only a Markdown file."""
    for name in ANALOGY:
        (ws.corpus / name).unlink()
    (ws.corpus / "notes.md").write_text("# Notes\n", encoding="utf-8")
    return dri(ws, COMMANDS[command](ws))


CELL_RUNNERS: dict[str, Callable[[Workspace, str, Workspace], Outcome]] = {
    "uri-password": uri_password,
    "refused": refused,
    "wrong-credentials": wrong_credentials,
    "neo4j-restart": neo4j_restart,
    "corrupt-sqlite": corrupt_sqlite,
    "read-only-data": read_only_data,
    "full-disk": full_disk_cell,
    "concurrent": concurrent,
    "worker-killed": worker_killed,
    "not-a-file": not_a_file,
    "empty-corpus": empty_corpus,
    **{fault: functools.partial(interrupted, fault=fault) for fault in SIGNALS},
}

__all__ = ["ANALOGY", "CELL_RUNNERS", "auth_server", "template_store"]
