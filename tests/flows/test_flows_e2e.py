"""End to end, as docs/prefect.md runs it: a real ``prefect server start``,
``prefect deploy --all`` from prefect.yaml, a process worker, and a local Dask
cluster (``dask scheduler`` and ``dask worker`` processes).

Everything is started by these tests, on loopback, with private Prefect homes
and data folders, and stopped afterwards. The server's port is
``DRI_TEST_PREFECT_PORT`` (default: a free port). Waits are polls with a
deadline, never fixed sleeps; the scheduler and the worker are set to poll
every second or two instead of Prefect's defaults (5-60 s) so that the module
takes a couple of minutes.
"""

from __future__ import annotations

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
RUN_TIMEOUT = 300.0  # one flow run of the tiny corpus takes ~20-60 s on a busy 2-core machine


# -- processes -----------------------------------------------------------------


def _base_env(**extra: str) -> dict[str, str]:
    """This environment without Prefect's or dri's location settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in PRIVATE and not k.startswith("NEO4J_")}
    env.update(PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1", **extra)
    return env


def _die_with_parent() -> None:
    # Linux: SIGTERM when the test process dies, even by SIGKILL, so no server outlives it.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _start(args: list[str], log: Path, env: dict[str, str], cwd: Path = PROJECT) -> subprocess.Popen:
    # A session of its own, so that stopping it also stops the processes it started.
    return subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log.open("ab"),
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


# -- fixtures ------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """A real Prefect server (``prefect server start``); yields its API URL."""
    home = tmp_path_factory.mktemp("prefect-server")
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
    proc = _start(
        [
            sys.executable,
            "-m",
            "prefect",
            "server",
            "start",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-ui",
        ],
        log,
        env,
    )

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


@pytest.fixture(scope="module")
def client(server):
    """A Prefect client of the e2e server, for this module only."""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: server}), get_client(sync_client=True) as c:
        yield c


@pytest.fixture(scope="module")
def deployed(server, client, tmp_path_factory) -> dict[str, Any]:
    """``prefect work-pool create`` and ``prefect deploy --all``, as docs/prefect.md runs them."""
    env = _base_env(PREFECT_API_URL=server, PREFECT_HOME=str(tmp_path_factory.mktemp("prefect-cli")))
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


@pytest.fixture(scope="module")
def worker_data(tmp_path_factory) -> Path:
    """The process worker's DRI_DATA_DIR: where its runs store graphs and results."""
    return tmp_path_factory.mktemp("worker-data")


@pytest.fixture(scope="module")
def worker(server, deployed, worker_data, tmp_path_factory) -> Iterator[subprocess.Popen]:
    """``prefect worker start --pool dri-process``, storing into ``worker_data`` (SQLite)."""
    home = tmp_path_factory.mktemp("prefect-worker")
    env = _base_env(
        PREFECT_API_URL=server,
        PREFECT_HOME=str(home),
        DRI_DATA_DIR=str(worker_data),
        DRI_WORKERS="1",
        PREFECT_WORKER_QUERY_SECONDS="1",
    )
    log = home / "worker.log"
    proc = _start([*PREFECT, "worker", "start", "--pool", "dri-process"], log, env)
    yield proc
    _stop(proc)
    print(f"worker log {log}:\n{_tail(log, 20)}")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpora") / "tiny")


def _wait_final(client, run_id, timeout: float = RUN_TIMEOUT):
    def final():
        run = client.read_flow_run(run_id)
        return run if run.state and run.state.is_final() else None

    return _poll(f"flow run {run_id} to finish", final, timeout, every=1.0)


def _logs(client, run_id) -> list[tuple[int, str]]:
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId

    logs = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run_id])), limit=200)
    return [(log.level, log.message) for log in logs]


def _assert_completed(client, run) -> None:
    detail = "\n".join(message for _, message in _logs(client, run.id)[-30:])
    assert run.state.is_completed(), f"{run.name}: {run.state.name} {run.state.message}\n{detail}"


def _results(data: Path) -> dict[tuple[str, str, str], dict[str, float]]:
    store = open_store(str(data / "dri.sqlite"))
    try:
        return {
            (r.run_id, r.source_id, r.target_id): {k: v for k, v in r.scores.items() if isinstance(v, float)}
            for r in store.comparisons()
        }
    finally:
        store.close()


@pytest.fixture(scope="module")
def nightly_run(client, deployed, worker, corpus, worker_data):
    """One run of nightly-corpus on ``corpus`` through the process worker."""
    run = client.create_flow_run_from_deployment(
        deployed["nightly-corpus"].id, parameters={"settings": {"corpus_dir": str(corpus), "mode": "auto"}}
    )
    return _wait_final(client, run.id)


def _runs_with(client, deployment, **parameters) -> list:
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    runs = client.read_flow_runs(
        deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id]))
    )

    def settings(run) -> dict:
        return run.parameters.get("settings") or {}

    return [r for r in runs if all(settings(r).get(k) == v for k, v in parameters.items())]


# -- 1. deploy ------------------------------------------------------------------


def test_deploy_all_registers_the_three_deployments(deployed):
    assert set(deployed) == DEPLOYMENTS
    assert {d.entrypoint for d in deployed.values()} == {
        "dri.flows.corpus:corpus_flow",
        "dri.flows.sensor:corpus_sensor_flow",
    }
    assert {d.work_pool_name for d in deployed.values()} == {"dri-process"}


# -- 2. schedules ---------------------------------------------------------------


def test_scheduler_creates_the_cron_and_the_interval_runs(client, deployed):
    nightly = _poll(
        "scheduled runs of nightly-corpus",
        lambda: [r for r in _runs_with(client, deployed["nightly-corpus"]) if r.auto_scheduled],
        timeout=60,
    )
    sensor = _poll(
        "scheduled runs of corpus-sensor",
        lambda: [r for r in _runs_with(client, deployed["corpus-sensor"]) if r.auto_scheduled],
        timeout=60,
    )
    dublin = ZoneInfo("Europe/Dublin")
    for run in nightly:
        local = run.expected_start_time.astimezone(dublin)
        assert (local.hour, local.minute) == (2, 0), local
    starts = sorted(r.expected_start_time for r in sensor)
    if len(starts) > 1:
        assert {(b - a).total_seconds() for a, b in itertools.pairwise(starts)} == {60.0}


# -- 3. a process worker --------------------------------------------------------


def test_process_worker_completes_a_deployment_run_into_the_store(client, nightly_run, worker_data, corpus):
    _assert_completed(client, nightly_run)
    assert nightly_run.name == "tiny-auto"
    results = _results(worker_data)
    assert len(results) == 2  # the manifest's two pairs
    assert all(0.0 <= s["analogy_similarity"] <= 1.0 for s in results.values())
    (summary,) = [json.loads(p.read_text()) for p in (worker_data / "runs").glob("tiny-*.json")]
    assert summary["corpus_dir"] == str(corpus.resolve()) and summary["mapped"] == 2


# -- 4. corpus.arrived, by hand and from the sensor -------------------------------


def test_corpus_arrived_event_runs_on_new_corpus_on_that_folder(
    server, client, deployed, worker, worker_data, tmp_path
):
    folder = str(write_corpus(tmp_path / "arrived").resolve())
    payload = json.dumps({"corpus_dir": folder})
    started = time.monotonic()
    done = subprocess.run(
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
        env=_base_env(PREFECT_API_URL=server),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    dep = deployed["on-new-corpus"]
    (run,) = _poll("on-new-corpus run", lambda: _runs_with(client, dep, corpus_dir=folder), timeout=60)
    run = _wait_final(client, run.id)
    _report("event", started)
    _assert_completed(client, run)
    assert run.name == "arrived-auto"
    assert {k[0].split("-")[0] for k in _results(worker_data)} >= {"arrived"}


def test_sensor_run_announces_a_new_folder_and_its_run_completes(client, deployed, worker, worker_data):
    incoming = worker_data / "incoming"  # the worker's default sensor root, DRI_DATA_DIR/incoming
    started = time.monotonic()
    folder = str(write_corpus(incoming / "dropped").resolve())
    sensor = client.create_flow_run_from_deployment(
        deployed["corpus-sensor"].id, parameters={"min_age_seconds": 0}
    )
    sensor = _wait_final(client, sensor.id)
    _assert_completed(client, sensor)
    dep = deployed["on-new-corpus"]
    (run,) = _poll("on-new-corpus run", lambda: _runs_with(client, dep, corpus_dir=folder), timeout=60)
    run = _wait_final(client, run.id)
    _report("sensor", started)
    _assert_completed(client, run)
    assert run.name == "dropped-auto"


# -- 5. Dask --------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask_cluster(server, tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """``dask scheduler`` and one ``dask worker`` process with their own
    DRI_DATA_DIR; yields ``(scheduler address, data folder)``."""
    from distributed import Client

    home = tmp_path_factory.mktemp("dask")
    data = home / "data"
    file = home / "scheduler.json"
    env = _base_env(PREFECT_API_URL=server, PREFECT_HOME=str(home / "prefect"), DRI_DATA_DIR=str(data))
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


def test_deployment_run_on_dask_matches_the_local_run(
    client, deployed, worker, nightly_run, worker_data, dask_cluster, corpus
):
    from distributed import Client

    address, dask_data = dask_cluster
    run = client.create_flow_run_from_deployment(
        deployed["nightly-corpus"].id,
        parameters={"settings": {"corpus_dir": str(corpus), "mode": "auto"}},
        job_variables={"env": {"DRI_DASK_ADDRESS": address, "DRI_DATA_DIR": str(dask_data)}},
    )
    run = _wait_final(client, run.id)
    _assert_completed(client, run)
    _assert_completed(client, nightly_run)
    local, on_dask = _results(worker_data), _results(dask_data)
    tiny = {k: v for k, v in local.items() if k[0].startswith("tiny-")}
    assert on_dask.keys() == tiny.keys()
    for key, scores in tiny.items():
        assert on_dask[key] == pytest.approx(scores), key
    # The tasks ran in the Dask worker's process, not in the flow run's.
    with Client(address, timeout=60) as c:
        dask_pids = set(c.run(os.getpid).values())
    (summary,) = [json.loads(p.read_text()) for p in (dask_data / "runs").glob("tiny-*.json")]
    assert set(summary["worker_pids"]) <= dask_pids and summary["worker_pids"]


# -- failures -------------------------------------------------------------------


def test_partially_failed_run_logs_one_line_per_failure_and_no_traceback(client, deployed, worker, tmp_path):
    folder = write_corpus(tmp_path / "broken", manifest=None)
    (folder / "gone.txt").symlink_to(folder / "nowhere.txt")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02 not text")
    run = client.create_flow_run_from_deployment(
        deployed["nightly-corpus"].id, parameters={"settings": {"corpus_dir": str(folder), "mode": "auto"}}
    )
    run = _wait_final(client, run.id)
    assert run.state.name == "Partially failed", run.state

    # The flow-run process ships its log lines in batches, so they can reach the
    # API after the run's final state: wait until both failures are there.
    def errors_of_run() -> list[str] | None:
        errors = [message for level, message in _logs(client, run.id) if level >= 40]
        named = all(any(name in m for m in errors) for name in ("gone.txt", "binary.txt"))
        return errors if named else None

    errors = _poll("the run's error lines", errors_of_run, timeout=60)
    assert not [m for m in errors if "Traceback" in m or "Engine execution" in m], errors
    assert len([m for m in errors if "gone.txt" in m]) == 1, errors
    assert len([m for m in errors if "binary.txt" in m]) == 1, errors
    assert all("\n" not in m for m in errors), errors


# -- helpers -------------------------------------------------------------------


def _report(path: str, started: float) -> None:
    """The measured latency, for docs/prefect.md (run with ``-s`` to see it)."""
    print(
        f"\n{path} path: folder to completed run in {time.monotonic() - started:.1f} s ({datetime.now():%H:%M:%S})"
    )
