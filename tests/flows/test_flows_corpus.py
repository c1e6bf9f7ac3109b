"""The corpus flow end to end under the Prefect test server, with the real
spaCy model, WordNet, store and task runners."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import httpx
import pytest

from dri.flows import corpus as corpus_module
from dri.flows import pipeline
from dri.flows.corpus import CorpusSettings, PartialFailure, corpus_flow, default_run_id, run_corpus
from dri.flows.progress import listening
from dri.flows.runners import PrefectServerError
from dri.flows.tasks import worker_store
from dri.mapping.profiles import PROFILES


def stored(run_id: str) -> dict[tuple[str, str], dict]:
    """The scores of ``run_id`` in the current store, by pair."""
    return {(r.source_id, r.target_id): r.scores for r in worker_store().comparisons(run_id=run_id)}


@pytest.mark.slow
def test_corpus_run_stores_graphs_and_results_and_a_second_run_changes_nothing(
    prefect_server, corpus, data_dir
):
    seen = []
    with listening(seen.append):
        state, summary = run_corpus(str(corpus), workers=2)  # the default: worker processes
    assert state.is_completed(), state.message
    assert (summary.documents, summary.parsed, summary.pairs, summary.mapped) == (4, 4, 2, 2)
    assert summary.failures == []
    # The work was done in worker processes, not in the flow's own process.
    assert summary.worker_pids and os.getpid() not in summary.worker_pids
    counts = worker_store().counts()
    results = stored(summary.run_id)
    assert len(results) == 2
    assert all(0 <= s["analogy_similarity"] <= 1 for s in results.values())
    # The solar system and the atom share their whole relational structure.
    top = summary.top[0]
    assert (top["source"].endswith("solar.txt"), top["target"].endswith("atom.txt")) == (True, True)
    assert [p.done for p in seen if p.stage == "map"][-1] == 2
    assert json.loads(Path(summary.summary_path).read_text())["state"] == "completed"

    state, again = run_corpus(str(corpus), workers=2)
    assert state.is_completed()
    assert again.run_id == summary.run_id
    assert (again.parsed, again.reused, again.mapped, again.already_stored) == (0, 4, 0, 2)
    assert worker_store().counts() == counts
    assert stored(summary.run_id) == results
    assert again.top == summary.top  # the best pairs come from the result set, not only from new work


def test_one_bad_file_fails_the_run_partially_and_the_rest_is_stored(prefect_server, corpus, data_dir):
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (corpus / "manifest.csv").write_text(
        "source,target,group\nsolar.txt,atom.txt,science\nfortress.txt,broken.pdf,story\n"
    )
    state = corpus_flow.with_options(task_runner=_threads())(
        CorpusSettings(corpus_dir=str(corpus)), return_state=True
    )
    assert state.is_failed() and state.name == "Partially failed"
    failure = state.result(raise_on_failure=False)
    assert isinstance(failure, PartialFailure)
    summary = failure.summary
    assert summary.parsed == 4 and summary.mapped == 1
    assert len(summary.failures) == 2
    broken, skipped = summary.failures
    assert str(broken).startswith(str(corpus / "broken.pdf") + ": ")
    assert (broken.path, broken.stage, broken.scope) == (str(corpus / "broken.pdf"), "extract", "document")
    assert "broken.pdf" in str(skipped) and "skipped" in str(skipped)
    assert (skipped.stage, skipped.scope) == ("plan", "pair") and skipped.target.endswith("broken.pdf")
    assert len(stored(summary.run_id)) == 1
    # The run's artifact, from the summary template, lists the counts and each failure.
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    with get_client(sync_client=True) as client:
        (artifact,) = client.read_artifacts(
            artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[state.state_details.flow_run_id])
            )
        )
    assert artifact.key == "corpus-run-summary"
    assert f"## {summary.run_id}" in artifact.data and "| failed | 2 |" in artifact.data
    assert all(f"- `{f}`" in artifact.data for f in summary.failures)
    with pytest.raises(PartialFailure):  # called like a function, the failure is an exception
        corpus_flow.with_options(task_runner=_threads())(CorpusSettings(corpus_dir=str(corpus)))


def test_a_prefect_server_that_fails_the_flow_is_one_error_naming_it_without_its_login(monkeypatch, corpus):
    """A 500 from the server (its database on a full disk) was Prefect's
    PrefectHTTPStatusError escaping the command: a traceback and exit 70."""
    url = "http://user:s3cret-pw@127.0.0.1:4200/api"

    @contextlib.contextmanager
    def server():
        yield url

    def fails(*args, **kwargs):
        request = httpx.Request("POST", "http://127.0.0.1:4200/api/flow_runs/")
        raise httpx.HTTPStatusError("boom", request=request, response=httpx.Response(500, request=request))

    class Flow:
        def with_options(self, **kwargs):
            return fails

    monkeypatch.setattr(corpus_module, "shared_prefect_api", server)
    monkeypatch.setattr(corpus_module, "corpus_flow", Flow())
    monkeypatch.setattr(corpus_module.steps, "store_problem", lambda: None)
    with pytest.raises(PrefectServerError) as caught:
        corpus_module.run_on_prefect(CorpusSettings(corpus_dir=str(corpus)), 1, None, "threads")
    assert str(caught.value) == (
        "Prefect's server at http://127.0.0.1:4200/api: 500 Internal Server Error for POST /api/flow_runs/"
    )


def test_a_profile_counts_by_its_fields_in_the_run_id(monkeypatch):
    params = {"sections": None, "mapping": {"profile": "sme"}}
    base = default_run_id("tiny", "manifest", None, params)
    assert base == default_run_id("tiny", "manifest", None, params)
    assert base != default_run_id("tiny", "manifest", None, {**params, "mapping": {"profile": "paper"}})
    # The same name with other fields (a later release's sme) is another result set.
    monkeypatch.setitem(PROFILES, "sme", PROFILES["sme"].but(trickle=0.25))
    changed = default_run_id("tiny", "manifest", None, params)
    assert changed != base and changed.startswith("tiny-manifest-")


def test_a_default_run_id_of_long_names_fits_an_index_key():
    # A 1,000-character corpus and a 250-byte target name made an id of 7,519
    # characters, refused by Neo4j's index for every pair.
    corpus, target = "\udcff" * 1000, os.fsdecode(b"\xff" * 250) + ".txt"
    run_id = default_run_id(corpus, "target", target, {})
    assert len(run_id.encode()) <= 1000 + 11 and run_id.startswith("\\udcff")
    assert run_id != default_run_id(corpus + "x", "target", target, {})
    assert default_run_id("tiny", "target", "/c/a.txt", {}).startswith("tiny-target-a-")


def test_a_new_definition_of_the_scores_is_a_new_result_set(monkeypatch):
    params = {"sections": None, "mapping": {"profile": "sme"}}
    base = default_run_id("tiny", "manifest", None, params)
    monkeypatch.setattr(pipeline, "SCORES_VERSION", "0")
    assert default_run_id("tiny", "manifest", None, params) != base


def test_new_parameters_give_a_new_result_set(prefect_server, corpus, data_dir):
    base = default_run_id("tiny", "manifest", None, {"sections": None})
    assert base == default_run_id("tiny", "manifest", None, {"sections": None})
    assert base != default_run_id("tiny", "manifest", None, {"sections": ["abstract"]})
    summary = corpus_flow.with_options(task_runner=_threads())(
        CorpusSettings(corpus_dir=str(corpus), mode="target", target="atom.txt")
    )
    assert summary.run_id.startswith("tiny-target-atom-")
    assert {p["target"].rsplit("/", 1)[1] for p in summary.top} == {"atom.txt"}
    assert summary.pairs == 3


def _threads():
    from prefect.task_runners import ThreadPoolTaskRunner

    return ThreadPoolTaskRunner(max_workers=2)


@pytest.mark.slow
def test_a_dask_cluster_gives_exactly_the_results_of_a_local_run(
    prefect_server, corpus, tmp_path, monkeypatch
):
    from distributed import LocalCluster

    from dri.graphs import to_json

    monkeypatch.delenv("NEO4J_URI", raising=False)
    results = {}
    for where in ("local", "dask"):
        monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / where))
        if where == "local":
            state, summary = run_corpus(str(corpus), mode="all-pairs", runner="threads", workers=2)
        else:
            # Started after DRI_DATA_DIR is set, so the worker processes inherit it.
            with LocalCluster(
                n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
            ) as cluster:
                state, summary = run_corpus(
                    str(corpus), mode="all-pairs", dask_address=cluster.scheduler_address
                )
        assert state.is_completed(), state.message
        store = worker_store()
        graphs = {doc: to_json(store.get_graph(doc)) for pair in stored(summary.run_id) for doc in pair}
        results[where] = (summary.run_id, stored(summary.run_id), graphs)
    assert len(results["local"][1]) == 6
    assert results["dask"] == results["local"]
