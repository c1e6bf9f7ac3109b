"""End to end, as docs/prefect.md runs it: a real ``prefect server start``,
``prefect deploy --all`` from prefect.yaml, a process worker, and a local Dask
cluster (``dask scheduler`` and ``dask worker`` processes).

Everything is started by :func:`background_scenario`, on loopback, with
private Prefect homes and data folders, and stopped when it is done. The
scenario runs in the background from the start of the session
(``tests/background.py``): it spends minutes waiting on servers and flow
runs, while the rest of the suite goes on. It does each step in the order
the tests below are written and keeps what each step saw (or the exception
that stopped it); each test, run at the end of the session, checks its step.
The server's port is ``DRI_TEST_PREFECT_PORT`` (default: a free port).
Waits are polls with a deadline, never fixed sleeps; the scheduler and the
worker are set to poll every second or two instead of Prefect's defaults
(5-60 s) so that the scenario takes a couple of minutes.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from flows_corpus_helpers import write_corpus

from dri.store import open_store

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROJECT = Path(__file__).resolve().parents[2]
PRIVATE = ("PREFECT_API_URL", "PREFECT_HOME", "PREFECT_PROFILE", "DRI_DATA_DIR", "DRI_INCOMING_DIR")
DEPLOYMENTS = {"nightly-corpus", "on-new-corpus", "corpus-sensor"}
PREFECT = [sys.executable, "-m", "prefect"]
DASK = [sys.executable, "-m", "dask"]
PR_SET_PDEATHSIG = 1
#: The environment as the session started: the scenario runs beside tests
#: that change this process's environment.
ENV_AT_START = dict(os.environ)
RUN_TIMEOUT = 300.0  # one flow run of the tiny corpus takes ~20-60 s on a busy 2-core machine


# -- processes -----------------------------------------------------------------


def _base_env(**extra: str) -> dict[str, str]:
    """This environment without Prefect's or dri's location settings, plus ``extra``."""
    env = {k: v for k, v in ENV_AT_START.items() if k not in PRIVATE and not k.startswith("NEO4J_")}
    env.update(PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1", **extra)
    return env


def _die_with_parent() -> None:
    # Linux: SIGTERM when the thread that started it ends (the scenario's, which
    # lives until the session's end) or the test process dies, even by SIGKILL,
    # so no server outlives the session.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _start(args: list[str], log: Path, env: dict[str, str], cwd: Path = PROJECT) -> subprocess.Popen:
    # A session of its own, so that stopping it also stops the processes it started.
    # The log stays open in the child only (this process's copy was left to the
    # garbage collector, which warned about it at the end of the suite).
    with log.open("ab") as out:
        return subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def _stop(proc: subprocess.Popen, timeout: float = 30.0) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _tail(path: Path, n: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-n:]) if path.exists() else ""


def _poll(what: str, check: Callable[[], Any], timeout: float, every: float = 0.5) -> Any:
    """``check()``'s first truthy value, or a failure naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:.0f} s")
        time.sleep(every)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the servers ---------------------------------------------------------------


@contextlib.contextmanager
def _server(home: Path) -> Iterator[str]:
    """A real Prefect server (``prefect server start``); yields its API URL."""
    home.mkdir()
    port = int(os.environ.get("DRI_TEST_PREFECT_PORT") or _free_port())
    api = f"http://127.0.0.1:{port}/api"
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            pytest.fail(f"port {port} already has a server; set DRI_TEST_PREFECT_PORT to a free port")
    env = _base_env(
        PREFECT_HOME=str(home),
        # The scheduler looks at new deployments every second and at all of them every 5 s.
        PREFECT_SERVER_SERVICES_SCHEDULER_RECENT_DEPLOYMENTS_LOOP_SECONDS="1",
        PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS="5",
    )
    log = home / "server.log"
    command = [*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"]
    proc = _start(command, log, env)

    def healthy() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"prefect server exited with {proc.returncode}:\n{_tail(log)}")
        try:
            return httpx.get(f"{api}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        _poll(f"prefect server at {api} (log {log})", healthy, timeout=180)
        yield api
    finally:
        _stop(proc)
        # The scheduler's failures are only in the server's log: keep them visible.
        errors = [line for line in _tail(log, 400).splitlines() if "Traceback" in line or "Error" in line]
        print(f"prefect server log {log}: {len(errors)} error lines", *errors[:10], sep="\n")


@contextlib.contextmanager
def _client(api: str) -> Iterator[Any]:
    """A Prefect client of the e2e server, for this scenario only."""
    from prefect.client.orchestration import SyncPrefectClient

    # Pointed at the server directly, not through the process's settings: the
    # other tests go on meanwhile, with the session's own test server.
    with SyncPrefectClient(api) as c:
        yield c


def _deploy(api: str, client, home: Path) -> dict[str, Any]:
    """``prefect work-pool create`` and ``prefect deploy --all``, as docs/prefect.md runs them."""
    env = _base_env(PREFECT_API_URL=api, PREFECT_HOME=str(home))
    for args in (
        ["work-pool", "create", "dri-process", "--type", "process"],
        ["deploy", "--all"],
    ):
        done = subprocess.run(
            [*PREFECT, "--no-prompt", *args],
            cwd=PROJECT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"prefect {' '.join(args)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return {d.name: d for d in client.read_deployments()}


@contextlib.contextmanager
def _worker(api: str, data: Path, home: Path) -> Iterator[subprocess.Popen]:
    """``prefect worker start --pool dri-process``, storing into ``data`` (SQLite)."""
    home.mkdir()
    env = _base_env(
        PREFECT_API_URL=api,
        PREFECT_HOME=str(home),
        DRI_DATA_DIR=str(data),
        DRI_WORKERS="1",
        PREFECT_WORKER_QUERY_SECONDS="1",
    )
    log = home / "worker.log"
    proc = _start([*PREFECT, "worker", "start", "--pool", "dri-process"], log, env)
    try:
        yield proc
    finally:
        _stop(proc)
        print(f"worker log {log}:\n{_tail(log, 20)}")


@contextlib.contextmanager
def _dask_cluster(api: str, home: Path) -> Iterator[tuple[str, Path]]:
    """``dask scheduler`` and one ``dask worker`` process with their own
    DRI_DATA_DIR; yields ``(scheduler address, data folder)``."""
    from distributed import Client

    home.mkdir()
    data = home / "data"
    file = home / "scheduler.json"
    env = _base_env(PREFECT_API_URL=api, PREFECT_HOME=str(home / "prefect"), DRI_DATA_DIR=str(data))
    where = ["--scheduler-file", str(file), "--no-dashboard"]
    scheduler = _start(
        [*DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", *where], home / "scheduler.log", env
    )
    workers = None
    try:
        _poll("dask scheduler file", file.exists, timeout=120)
        workers = _start(
            [*DASK, "worker", "--nworkers", "1", "--nthreads", "1", *where], home / "worker.log", env
        )
        with Client(scheduler_file=str(file), timeout=120) as c:
            c.wait_for_workers(1, timeout=120)
            address = c.scheduler.address
        yield address, data
    finally:
        for proc in (workers, scheduler):
            if proc is not None:
                _stop(proc)


# -- flow runs -------------------------------------------------------------------


def _wait_final(client, run_id, timeout: float = RUN_TIMEOUT):
    def final():
        run = client.read_flow_run(run_id)
        return run if run.state and run.state.is_final() else None

    return _poll(f"flow run {run_id} to finish", final, timeout, every=1.0)


def _logs(client, run_id) -> list[tuple[int, str]]:
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    logs = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run_id])), limit=200)
    return [(log.level, log.message) for log in logs]


@dataclass
class Finished:
    """A flow run in its final state, with the last lines of its log."""

    run: Any
    log: str


def _finished(client, run_id) -> Finished:
    run = _wait_final(client, run_id)
    return Finished(run, "\n".join(message for _, message in _logs(client, run.id)[-30:]))


def _assert_completed(done: Finished) -> None:
    run = done.run
    assert run.state.is_completed(), f"{run.name}: {run.state.name} {run.state.message}\n{done.log}"


def _results(data: Path) -> dict[tuple[str, str, str], dict[str, float]]:
    store = open_store(str(data / "dri.sqlite"))
    try:
        return {
            (r.run_id, r.source_id, r.target_id): {k: v for k, v in r.scores.items() if isinstance(v, float)}
            for r in store.comparisons()
        }
    finally:
        store.close()


def _runs_with(client, deployment, **parameters) -> list:
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    runs = client.read_flow_runs(
        deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id]))
    )

    def settings(run) -> dict:
        return run.parameters.get("settings") or {}

    return [r for r in runs if all(settings(r).get(k) == v for k, v in parameters.items())]


# -- the scenario ------------------------------------------------------------------


@dataclass
class Steps:
    """What each step of the scenario saw, or the exception that stopped it."""

    seen: dict[str, Any] = field(default_factory=dict)

    def do(self, name: str, step: Callable[[], Any]) -> Any:
        try:
            self.seen[name] = step()
        except (Exception, pytest.fail.Exception) as error:  # kept for the step's test, which re-raises it
            self.seen[name] = error
        return self.seen[name]

    def __getitem__(self, name: str) -> Any:
        value = self.seen[name]
        if isinstance(value, BaseException):
            raise value
        return value


@dataclass
class Setup:
    """What the steps share: the server's client, the deployments, the worker's data."""

    api: str
    client: Any
    deployed: dict[str, Any]
    folder: Path
    corpus: Path
    worker_data: Path


STEPS = ("deploy", "schedules", "nightly", "event", "sensor", "dask", "partial")


def background_scenario(folder: Path) -> Steps:
    """docs/prefect.md's walk, step by step, in the tests' order (tests/background.py)."""
    steps = Steps()
    with contextlib.ExitStack() as stack:
        try:
            api = stack.enter_context(_server(folder / "prefect-server"))
            client = stack.enter_context(_client(api))
            deployed = _deploy(api, client, folder / "prefect-cli")
            corpus = write_corpus(folder / "corpora" / "tiny")
            on = Setup(api, client, deployed, folder, corpus, folder / "worker-data")
        except (Exception, pytest.fail.Exception) as error:  # every step needs the server and the deployments
            steps.seen.update(dict.fromkeys(STEPS, error))
            return steps
        steps.do("deploy", lambda: deployed)
        steps.do("schedules", lambda: _scheduled(on))
        try:
            stack.enter_context(_worker(api, on.worker_data, folder / "prefect-worker"))
        except (Exception, pytest.fail.Exception) as error:
            steps.seen.update(dict.fromkeys(STEPS[2:], error))
            return steps
        steps.do("nightly", lambda: _nightly(on))
        steps.do("event", lambda: _event(on))
        steps.do("sensor", lambda: _sensor(on))
        steps.do("dask", lambda: _dask(on, stack))
        steps.do("partial", lambda: _partial(on))
    return steps


def _scheduled(on: Setup) -> tuple[list, list]:
    """The scheduler's runs of nightly-corpus and of corpus-sensor."""
    nightly = _poll(
        "scheduled runs of nightly-corpus",
        lambda: [r for r in _runs_with(on.client, on.deployed["nightly-corpus"]) if r.auto_scheduled],
        timeout=60,
    )
    sensor = _poll(
        "scheduled runs of corpus-sensor",
        lambda: [r for r in _runs_with(on.client, on.deployed["corpus-sensor"]) if r.auto_scheduled],
        timeout=60,
    )
    return nightly, sensor


def _nightly(on: Setup) -> tuple[Finished, dict, list[dict], Path]:
    """One run of nightly-corpus on the tiny corpus through the process worker."""
    run = on.client.create_flow_run_from_deployment(
        on.deployed["nightly-corpus"].id,
        parameters={"settings": {"corpus_dir": str(on.corpus), "mode": "auto"}},
    )
    done = _finished(on.client, run.id)
    summaries = [json.loads(p.read_text()) for p in (on.worker_data / "runs").glob("tiny-*.json")]
    return done, _results(on.worker_data), summaries, on.corpus


def _event(on: Setup) -> tuple[subprocess.CompletedProcess, Finished, dict]:
    """``prefect event emit corpus.arrived`` by hand, and the run it starts."""
    folder = str(write_corpus(on.folder / "arrived").resolve())
    payload = json.dumps({"corpus_dir": folder})
    started = time.monotonic()
    emitted = subprocess.run(
        [
            *PREFECT,
            "event",
            "emit",
            "corpus.arrived",
            "--resource-id",
            "dri.corpus.manual",
            "--payload",
            payload,
        ],
        env=_base_env(PREFECT_API_URL=on.api),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert emitted.returncode == 0, emitted.stdout + emitted.stderr
    dep = on.deployed["on-new-corpus"]
    (run,) = _poll("on-new-corpus run", lambda: _runs_with(on.client, dep, corpus_dir=folder), timeout=60)
    done = _finished(on.client, run.id)
    _report("event", started)
    return emitted, done, _results(on.worker_data)


def _sensor(on: Setup) -> tuple[Finished, Finished]:
    """A folder dropped into the worker's incoming folder; the sensor's run and the run it announces."""
    incoming = on.worker_data / "incoming"  # the worker's default sensor root, DRI_DATA_DIR/incoming
    started = time.monotonic()
    folder = str(write_corpus(incoming / "dropped").resolve())
    sensor = on.client.create_flow_run_from_deployment(
        on.deployed["corpus-sensor"].id, parameters={"min_age_seconds": 0}
    )
    sensed = _finished(on.client, sensor.id)
    _assert_completed(sensed)
    dep = on.deployed["on-new-corpus"]
    (run,) = _poll("on-new-corpus run", lambda: _runs_with(on.client, dep, corpus_dir=folder), timeout=60)
    done = _finished(on.client, run.id)
    _report("sensor", started)
    return sensed, done


def _dask(on: Setup, stack: contextlib.ExitStack) -> tuple[Finished, dict, dict, set[int], list[dict]]:
    """nightly-corpus again, its tasks on a Dask cluster of their own."""
    from distributed import Client

    address, dask_data = stack.enter_context(_dask_cluster(on.api, on.folder / "dask"))
    run = on.client.create_flow_run_from_deployment(
        on.deployed["nightly-corpus"].id,
        parameters={"settings": {"corpus_dir": str(on.corpus), "mode": "auto"}},
        job_variables={"env": {"DRI_DASK_ADDRESS": address, "DRI_DATA_DIR": str(dask_data)}},
    )
    done = _finished(on.client, run.id)
    with Client(address, timeout=60) as c:
        dask_pids = set(c.run(os.getpid).values())
    summaries = [json.loads(p.read_text()) for p in (dask_data / "runs").glob("tiny-*.json")]
    return done, _results(on.worker_data), _results(dask_data), dask_pids, summaries


def _partial(on: Setup) -> tuple[Any, list[str]]:
    """A corpus with a dangling link and a binary file; the run and its error lines."""
    folder = write_corpus(on.folder / "broken", manifest=None)
    (folder / "gone.txt").symlink_to(folder / "nowhere.txt")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02 not text")
    run = on.client.create_flow_run_from_deployment(
        on.deployed["nightly-corpus"].id, parameters={"settings": {"corpus_dir": str(folder), "mode": "auto"}}
    )
    run = _wait_final(on.client, run.id)
    assert run.state.name == "Partially failed", run.state

    # The flow-run process ships its log lines in batches, so they can reach the
    # API after the run's final state: wait until both failures are there.
    def errors_of_run() -> list[str] | None:
        errors = [message for level, message in _logs(on.client, run.id) if level >= 40]
        named = all(any(name in m for m in errors) for name in ("gone.txt", "binary.txt"))
        return errors if named else None

    return run, _poll("the run's error lines", errors_of_run, timeout=60)


# -- 1. deploy ------------------------------------------------------------------


def test_deploy_all_registers_the_three_deployments(scenario):
    deployed = scenario["deploy"]
    assert set(deployed) == DEPLOYMENTS
    assert {d.entrypoint for d in deployed.values()} == {
        "dri.flows.corpus:corpus_flow",
        "dri.flows.sensor:corpus_sensor_flow",
    }
    assert {d.work_pool_name for d in deployed.values()} == {"dri-process"}


# -- 2. schedules ---------------------------------------------------------------


def test_scheduler_creates_the_cron_and_the_interval_runs(scenario):
    nightly, sensor = scenario["schedules"]
    dublin = ZoneInfo("Europe/Dublin")
    for run in nightly:
        local = run.expected_start_time.astimezone(dublin)
        assert (local.hour, local.minute) == (2, 0), local
    starts = sorted(r.expected_start_time for r in sensor)
    if len(starts) > 1:
        assert {(b - a).total_seconds() for a, b in itertools.pairwise(starts)} == {60.0}


# -- 3. a process worker --------------------------------------------------------


def test_process_worker_completes_a_deployment_run_into_the_store(scenario):
    nightly, results, summaries, corpus = scenario["nightly"]
    _assert_completed(nightly)
    assert nightly.run.name == "tiny-auto"
    assert len(results) == 2  # the manifest's two pairs
    assert all(0.0 <= s["analogy_similarity"] <= 1.0 for s in results.values())
    (summary,) = summaries
    assert summary["corpus_dir"] == str(corpus.resolve()) and summary["mapped"] == 2


# -- 4. corpus.arrived, by hand and from the sensor -------------------------------


def test_corpus_arrived_event_runs_on_new_corpus_on_that_folder(scenario):
    _, done, results = scenario["event"]
    _assert_completed(done)
    assert done.run.name == "arrived-auto"
    assert {k[0].split("-")[0] for k in results} >= {"arrived"}


def test_sensor_run_announces_a_new_folder_and_its_run_completes(scenario):
    sensed, done = scenario["sensor"]
    _assert_completed(sensed)
    _assert_completed(done)
    assert done.run.name == "dropped-auto"


# -- 5. Dask --------------------------------------------------------------------


def test_deployment_run_on_dask_matches_the_local_run(scenario):
    done, local, on_dask, dask_pids, summaries = scenario["dask"]
    nightly, _, _, _ = scenario["nightly"]
    _assert_completed(done)
    _assert_completed(nightly)
    tiny = {k: v for k, v in local.items() if k[0].startswith("tiny-")}
    assert on_dask.keys() == tiny.keys()
    for key, scores in tiny.items():
        assert on_dask[key] == pytest.approx(scores), key
    # The tasks ran in the Dask worker's process, not in the flow run's.
    (summary,) = summaries
    assert set(summary["worker_pids"]) <= dask_pids and summary["worker_pids"]


# -- failures -------------------------------------------------------------------


def test_partially_failed_run_logs_one_line_per_failure_and_no_traceback(scenario):
    _, errors = scenario["partial"]
    assert not [m for m in errors if "Traceback" in m or "Engine execution" in m], errors
    assert len([m for m in errors if "gone.txt" in m]) == 1, errors
    assert len([m for m in errors if "binary.txt" in m]) == 1, errors
    assert all("\n" not in m for m in errors), errors


# -- helpers -------------------------------------------------------------------


def _report(path: str, started: float) -> None:
    """The measured latency, for docs/prefect.md (run with ``-s`` to see it).

    On the process's own stdout: the scenario runs in the background, beside
    tests that put another ``sys.stdout`` in place (a closed pipe)."""
    print(
        f"\n{path} path: folder to completed run in {time.monotonic() - started:.1f} s ({datetime.now():%H:%M:%S})",
        file=sys.__stdout__,
    )
