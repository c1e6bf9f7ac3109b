"""prefect.yaml deployed to the test server: schedules, the trigger, the sensor."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from flows_corpus_helpers import write_corpus

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def deployed(prefect_server):
    """Deploy every deployment of prefect.yaml with the real ``prefect deploy``."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.settings import PREFECT_API_URL

    with get_client(sync_client=True) as client:
        client.create_work_pool(WorkPoolCreate(name="dri-process", type="process"), overwrite=True)
    done = subprocess.run(
        [sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--all", "--prefect-file", "prefect.yaml"],
        cwd=PROJECT,
        env={**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    with get_client(sync_client=True) as client:
        return {d.name: d for d in client.read_deployments()}


def test_nightly_corpus_has_a_cron_schedule_with_timezone(deployed):
    nightly = deployed["nightly-corpus"]
    assert [(s.schedule.cron, s.schedule.timezone, s.active) for s in nightly.schedules] == [
        ("0 2 * * *", "Europe/Dublin", True)
    ]
    settings = nightly.parameters["settings"]
    assert settings["mode"] == "auto" and settings["corpus_dir"]
    assert nightly.work_pool_name == "dri-process"


def test_corpus_sensor_runs_on_an_interval(deployed):
    sensor = deployed["corpus-sensor"]
    assert [s.schedule.interval.total_seconds() for s in sensor.schedules] == [60.0]
    assert sensor.entrypoint == "dri.flows.sensor:corpus_sensor_flow"


def test_on_new_corpus_has_a_corpus_arrived_trigger(deployed):
    from prefect.client.orchestration import get_client

    dep = deployed["on-new-corpus"]
    with get_client(sync_client=True) as client:
        automations = [
            a
            for a in client.read_automations()
            if any(getattr(act, "deployment_id", None) == dep.id for act in a.actions)
        ]
    assert len(automations) == 1
    trigger, action = automations[0].trigger, automations[0].actions[0]
    assert trigger.expect == {"corpus.arrived"}
    assert trigger.match.root == {"prefect.resource.id": "dri.corpus.*"}
    assert action.parameters == {"settings": {"corpus_dir": "{{ event.payload.corpus_dir }}", "mode": "auto"}}


def _corpus_dir(run) -> str | None:
    return (run.parameters.get("settings") or {}).get("corpus_dir")


def _runs_of(deployment, want: int = 1, timeout: float = 60.0):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            runs = client.read_flow_runs(
                deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id]))
            )
            if len(runs) >= want or time.monotonic() > deadline:
                return runs
            time.sleep(0.25)


def test_sensor_event_schedules_a_run_of_the_new_corpus(deployed, tmp_path):
    from dri.flows.sensor import prefect_emitter, scan

    dep = deployed["on-new-corpus"]
    before = len(_runs_of(dep, want=0, timeout=0))
    root = tmp_path / "incoming"
    folder = write_corpus(root / "arrived")
    result = scan(root, prefect_emitter, state_dir=tmp_path / "state")
    assert result.announced == [str(folder.resolve())]
    runs = _runs_of(dep, want=before + 1)
    new = [r for r in runs if _corpus_dir(r) == str(folder.resolve())]
    assert len(new) == 1
    assert new[0].parameters["settings"]["mode"] == "auto"
    assert new[0].state.is_scheduled()
    # The sensor remembers the folder: a second scan emits no event, so it schedules nothing.
    emitted = []
    again = scan(root, lambda f, n: emitted.append(f) or prefect_emitter(f, n), state_dir=tmp_path / "state")
    assert again.announced == [] and emitted == []
    assert len([r for r in _runs_of(dep, want=0, timeout=0) if _corpus_dir(r) == str(folder.resolve())]) == 1
