"""The plain steps of a corpus run, without Prefect."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from flows_corpus_helpers import write_corpus
from prefect.task_runners import ProcessPoolTaskRunner
from session_env import ENV_AT_START

from dri.corpora.discover import discover_documents
from dri.errors import Failure, one_line
from dri.flows.runners import make_task_runner, runner_config
from dri.flows.tasks import (
    RunSummary,
    extract_and_store,
    extract_batch,
    map_and_store,
    map_batch,
    plan_pairs,
    save_summary,
    store_mapped,
    tiled_pairs,
    worker_store,
    write_summary,
)


def test_broken_links_are_listed_and_reported_by_extraction(tmp_path, data_dir):
    root = write_corpus(tmp_path / "c", manifest=None)
    (root / "dangling.txt").symlink_to(root / "nowhere.txt")
    (root / "loop.txt").symlink_to(root / "loop.txt")
    found = discover_documents(root)
    assert [Path(p).name for p in found] == [
        "atom.txt",
        "dangling.txt",
        "fortress.txt",
        "loop.txt",
        "solar.txt",
        "tumour.txt",
    ]
    done, failures = extract_batch(found, "c", root)
    assert len(done) == 4
    assert [(f.path, f.stage, f.scope) for f in failures] == [
        (f"{root.resolve()}/{name}", "extract", "document") for name in ("dangling.txt", "loop.txt")
    ]
    assert [str(f) for f in failures] == [
        f"{root.resolve()}/dangling.txt: no such file (a symbolic link to {root / 'nowhere.txt'})",
        f"{root.resolve()}/loop.txt: cannot read: a loop of symbolic links (a symbolic link to {root / 'loop.txt'})",
    ]


def test_a_file_that_leads_out_of_the_corpus_when_read_fails_unless_allowed(tmp_path, data_dir):
    # Listed as a plain file, then replaced by a link to a file outside before the read:
    # the run read and stored that file (/etc/passwd, say), which discovery refuses.
    root = write_corpus(tmp_path / "c", manifest=None)
    secret = tmp_path / "secret.txt"
    secret.write_text("The spy hides the secret plans in the old tower.", encoding="utf-8")
    found = discover_documents(root)
    swapped = root / "atom.txt"
    swapped.unlink()
    swapped.symlink_to(secret)
    done, failures = extract_batch(found, "c", root)
    assert len(done) == len(found) - 1
    assert [str(f) for f in failures] == [
        f"{root.resolve()}/atom.txt: refused, it leads to {secret.resolve()}, outside the folder {root.resolve()}"
    ]
    done, failures = extract_batch(found, "c", root, allow_outside_links=True)
    assert len(done) == len(found) and not failures


DOCS = {"/c/a.txt": "A", "/c/b.txt": "B", "/c/c.txt": "C", "/c/d.txt": "D"}


def test_plan_all_pairs_is_each_unordered_pair_once():
    plan = plan_pairs("all-pairs", DOCS)
    pairs = [(p.source_id, p.target_id) for p in plan.pairs]
    assert pairs == [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]


@pytest.mark.parametrize("n, tile", [(0, 3), (1, 3), (7, 3), (30, 14), (100, 14), (50, 1)])
def test_tiled_pairs_are_every_pair_once(n, tile):
    pairs = list(tiled_pairs(n, tile))
    assert sorted(pairs) == [(i, j) for i in range(n) for j in range(i + 1, n)]


def test_a_batch_of_tiled_pairs_needs_few_documents():
    pairs = list(tiled_pairs(1000, 14))
    widest = max(len({d for pair in pairs[k : k + 196] for d in pair}) for k in range(0, len(pairs), 196))
    assert widest <= 4 * 14  # row-by-row order: up to 197 documents per 196 pairs


def test_plan_all_pairs_compares_duplicate_texts_once():
    plan = plan_pairs("all-pairs", {**DOCS, "/c/a-copy.txt": "A"})
    assert len(plan.pairs) == 6
    assert all(p.source_id != p.target_id for p in plan.pairs)


def test_plan_target_maps_every_other_document_onto_the_target():
    plan = plan_pairs("target", DOCS, target="c.txt")
    assert [(p.source_id, p.target_id) for p in plan.pairs] == [("A", "C"), ("B", "C"), ("D", "C")]
    assert plan_pairs("target", DOCS, target="C").pairs == plan.pairs  # by doc id too
    with pytest.raises(LookupError, match="zzz"):
        plan_pairs("target", DOCS, target="zzz")


def test_plan_target_naming_a_link_in_a_loop_is_a_lookup_error(tmp_path):
    # Path.resolve() raised RuntimeError on it ("cannot plan pairs: RuntimeError: Symlink loop").
    loop = tmp_path / "loop.txt"
    loop.symlink_to(tmp_path / "back")
    (tmp_path / "back").symlink_to(loop)
    with pytest.raises(LookupError, match="loop.txt"):
        plan_pairs("target", DOCS, target=str(loop))


def test_plan_manifest_skips_pairs_of_failed_documents(tmp_path):
    for name in ("a.txt", "b.txt", "bad.txt"):  # bad.txt is there, its text failed
        (tmp_path / name).write_text("x")
    a, b, bad = (str(tmp_path / n) for n in ("a.txt", "b.txt", "bad.txt"))
    rows = [(a, b, "g1"), (a, bad, "g2")]
    plan = plan_pairs("manifest", {a: "A", b: "B"}, manifest=rows, root=str(tmp_path))
    assert [(p.source_id, p.target_id, p.group) for p in plan.pairs] == [("A", "B", "g1")]
    (problem,) = plan.problems
    assert bad in str(problem) and (problem.stage, problem.target) == ("plan", bad)


def test_plan_manifest_names_why_a_path_is_no_document(tmp_path):
    # Each was "skipped, no graph for" it, as if its text had failed.
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("x")
    (tmp_path / "outside.txt").write_text("x")
    (corpus / "notes.md").write_text("x")
    a = str(corpus / "a.txt")
    paths = {
        str(corpus / "nope.txt"): "listed in the manifest, but there is no such file",
        str(corpus): "listed in the manifest, but a folder, not a document",
        str(tmp_path / "outside.txt"): "listed in the manifest, but outside the corpus folder, "
        "whose documents a manifest names",
        str(corpus / "notes.md"): "listed in the manifest, but not a .txt or .pdf document",
    }
    rows = [(path, a, "g") for path in paths] + [(a, str(corpus / "nope.txt"), "g")]
    plan = plan_pairs("manifest", {a: "A"}, manifest=rows, root=str(corpus))
    assert plan.pairs == []
    named = {(f.path, f.reason) for f in plan.problems if f.scope == "document"}
    assert named == set(paths.items())  # each once, however many pairs name it
    assert len([f for f in plan.problems if f.scope == "pair"]) == 5


def test_plan_rejects_unknown_mode():
    with pytest.raises(ValueError, match="sideways"):
        plan_pairs("sideways", DOCS)


def test_a_target_that_differs_only_in_unicode_form_or_case_names_the_document():
    # "café.txt" typed against "cafe\u0301.txt" copied from a Mac: the refusal named a
    # target that looked exactly like a document of the corpus.
    docs = {"/c/cafe\u0301.txt": "A", "/c/Atom.txt": "B", "/c/b.txt": "C"}
    for target, hint in (
        ("caf\u00e9.txt", "'cafe\\u0301.txt', a name that differs only in its Unicode form"),
        ("/elsewhere/atom.TXT", "'Atom.txt', a name that differs only in case"),
    ):
        with pytest.raises(LookupError) as err:
            plan_pairs("target", docs, target=target)
        assert (
            str(err.value)
            == f"target {target!r} is not a stored document of this corpus; the corpus has {hint}"
        )
    with pytest.raises(LookupError) as err:
        plan_pairs("target", docs, target="zzz.txt")
    assert str(err.value) == "target 'zzz.txt' is not a stored document of this corpus"
    # A user's error: the run's line said "cannot plan pairs: LookupError: target ...".
    assert one_line(err.value) == str(err.value)


def test_run_ids_that_differ_only_in_slashes_or_colons_keep_a_summary_each(tmp_path):
    # "a/b" and "a_b" were both written to a_b.json, the later run's over the earlier's.
    paths = []
    # A line break or a control character made a file name of two lines, or one that
    # drives a terminal (run r\nforged wrote runs/r<newline>forged.json).
    run_ids = ["a/b", "a_b", "a:b", "a\nb", "a\x1b[2Jb", "a\x85b"]
    for run_id in run_ids:
        summary = RunSummary(run_id=run_id, corpus="c", corpus_dir="/c", mode="all-pairs", params={})
        paths.append(write_summary(summary, tmp_path))
    assert len(set(paths)) == len(run_ids) and paths[1].name == "a_b.json"
    assert all(p.name.isprintable() for p in paths)
    assert [json.loads(p.read_text())["run_id"] for p in paths] == run_ids


@pytest.mark.parametrize("run_id", ["x" * 5000, "é" * 200, "a/" * 300])
def test_write_summary_of_a_run_id_longer_than_a_file_name(tmp_path, run_id):
    # A --run-id of 5,000 characters: the run was stored, then its summary
    # failed with "File name too long".
    summary = RunSummary(run_id=run_id, corpus="c", corpus_dir="/c", mode="all-pairs", params={})
    path = write_summary(summary, tmp_path)
    assert len(path.name.encode()) <= 255 - len(".x.123456-abcdef12.tmp")
    assert json.loads(path.read_text())["run_id"] == run_id
    other = RunSummary(run_id=run_id + "y", corpus="c", corpus_dir="/c", mode="all-pairs", params={})
    assert write_summary(other, tmp_path) != path


def test_write_summary_is_json_with_state(tmp_path):
    summary = RunSummary(
        run_id="tiny-manifest-abc",
        corpus="tiny",
        corpus_dir="/c",
        mode="manifest",
        params={},
        documents=4,
        failures=[Failure("/c/x.txt", "extract", "empty file")],
    )
    path = write_summary(summary, tmp_path)
    data = json.loads(path.read_text())
    assert data["state"] == "partial failure"
    assert data["failures"] == [
        {
            "path": "/c/x.txt",
            "stage": "extract",
            "reason": "empty file",
            "target": "",
            "scope": "document",
            "message": "/c/x.txt: empty file",
        }
    ]
    assert summary.summary_path == str(path)


def test_runner_config_prefers_arguments_then_environment(monkeypatch):
    monkeypatch.setenv("DRI_DASK_ADDRESS", "tcp://10.0.0.5:8786")
    assert runner_config().kind == "dask"
    assert make_task_runner(runner_config()).__class__.__name__ == "DaskTaskRunner"
    assert runner_config(kind="threads").kind == "threads"
    # An explicit other runner takes no DRI_DASK_ADDRESS (--runner threads ran on that cluster).
    assert runner_config(kind="threads").dask_address is None
    assert make_task_runner(runner_config(kind="threads")).__class__.__name__ != "DaskTaskRunner"
    monkeypatch.delenv("DRI_DASK_ADDRESS")
    monkeypatch.setenv("DRI_WORKERS", "3")
    config = runner_config()
    assert (config.kind, config.workers) == ("processes", 3)
    runner = make_task_runner(config)
    assert isinstance(runner, ProcessPoolTaskRunner) and runner._max_workers == 3
    # Workers unpickle the flow, task runner included, by the class's name.
    assert type(pickle.loads(pickle.dumps(runner))) is type(runner) is type(runner.duplicate())
    with pytest.raises(ValueError, match="gpu"):
        runner_config(kind="gpu")


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_importing_the_flow_builds_no_task_runner_and_a_run_gets_the_configured_one():
    code = (
        "import sys; before = list(sys.warnoptions)\n"
        "import dri.flows.corpus as c\n"
        "assert sys.warnoptions == before, sys.warnoptions\n"
        "print(type(c.corpus_flow.task_runner.duplicate()).__name__)\n"
    )
    env = {**ENV_AT_START, "DRI_TASK_RUNNER": "threads"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["ThreadPoolTaskRunner"]


def test_extract_and_store_parses_once_per_content(corpus, data_dir):
    path = str(corpus / "solar.txt")
    first = extract_and_store(path, "tiny", {"name": "solar.txt"})
    again = extract_and_store(path, "tiny", {"name": "solar.txt"})
    assert first.parsed and not again.parsed
    assert first.graph_id == again.graph_id
    g = worker_store().get_graph(first.doc_id)
    assert ("sun", "attract", "planet") in __import__("graphs").triples(g)
    (corpus / "solar.txt").write_text("The moon circles the earth.\n")
    edited = extract_and_store(path, "tiny", {"name": "solar.txt"})
    assert edited.parsed and edited.doc_id != first.doc_id
    # Unchanged bytes in another corpus: not parsed again, but listed there too.
    other = extract_and_store(str(corpus / "atom.txt"), "other")
    assert extract_and_store(str(corpus / "atom.txt"), "tiny").parsed is False
    assert other.doc_id in {d.doc_id for d in worker_store().documents("tiny")}


def test_a_long_documents_encoding_is_announced_on_the_progress_log(
    corpus, data_dir, monkeypatch, progress_under_test
):
    # dri evaluate said nothing for the 10 s the encoder read a 78,000-character text.
    from dri.flows import tasks

    progress, lines = progress_under_test
    monkeypatch.setattr(tasks, "progress_log", progress)
    solar, atom = corpus / "solar.txt", corpus / "atom.txt"
    monkeypatch.setattr(tasks, "ENCODING_PROGRESS_CHARS", len(solar.read_text(encoding="utf-8").strip()))
    extract_and_store(str(solar), "tiny")
    assert lines == [
        f"{solar}: {len(solar.read_text(encoding='utf-8').strip()):,} characters parsed; the sentence encoder reads them"
    ]
    monkeypatch.setattr(tasks, "ENCODING_PROGRESS_CHARS", 10_000)
    extract_and_store(str(atom), "tiny")
    assert len(lines) == 1


def test_map_and_store_skips_a_stored_pair(corpus, data_dir):
    a = extract_and_store(str(corpus / "solar.txt"), "tiny")
    b = extract_and_store(str(corpus / "atom.txt"), "tiny")
    first = map_and_store(a.doc_id, b.doc_id, "run-1", {})
    assert not first.skipped and 0 < first.scores["analogy_similarity"] <= 1
    # The stored comparison keeps the time compare() took, the worker's seconds_map.
    record = worker_store().get_comparison(a.doc_id, b.doc_id, "run-1")
    assert record is not None and record.mapping_seconds == pytest.approx(first.seconds_map)
    assert first.seconds_map > 0 and "mapping_seconds" not in record.scores  # a time, not a score
    assert map_and_store(a.doc_id, b.doc_id, "run-1", {}).skipped
    assert not map_and_store(a.doc_id, b.doc_id, "run-2", {}).skipped


def test_a_batch_mapped_for_its_caller_to_store_is_stored_by_it_as_map_batch_stores(corpus, data_dir):
    """map_batch(store_here=False) (a search's pool worker): the results carry their
    records, nothing is stored until store_mapped (the pool's parent), which stores
    what map_batch itself would have."""
    a = extract_and_store(str(corpus / "solar.txt"), "tiny")
    b = extract_and_store(str(corpus / "atom.txt"), "tiny")
    pairs = [(a.doc_id, b.doc_id), (b.doc_id, a.doc_id)]
    carried = map_batch(pairs, "run-later", {}, None, False)
    assert all(r.record is not None and r.scores for r in carried)
    assert worker_store().comparisons(run_id="run-later") == []
    stored = store_mapped(carried)
    assert [r.record for r in stored] == [None, None] and [r.scores for r in stored] == [
        r.scores for r in carried
    ]
    here = map_batch(pairs, "run-here", {})
    assert [r.scores for r in here] == [r.scores for r in carried]
    mine = {(r.source_id, r.target_id): r for r in worker_store().comparisons(run_id="run-later", pairs=True)}
    theirs = {
        (r.source_id, r.target_id): r for r in worker_store().comparisons(run_id="run-here", pairs=True)
    }
    assert mine.keys() == theirs.keys() == set(pairs)
    for key, record in mine.items():
        assert (record.scores, record.pairs, record.inferences) == (
            theirs[key].scores,
            theirs[key].pairs,
            theirs[key].inferences,
        )
    assert all(r.skipped for r in map_batch(pairs, "run-later", {}, None, False))


def test_a_summary_the_runs_folder_cannot_take_names_the_file_in_the_way(tmp_path, monkeypatch):
    # "…/runs: cannot write the run summary: File exists" said nothing of a file in the way.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    (tmp_path / "runs").write_text("x")
    summary = RunSummary(run_id="r", corpus="c", corpus_dir="/c", mode="all", params={}, documents=1)
    path, failure = save_summary(summary)
    assert path == "" and failure is not None
    assert (failure.path, failure.reason) == (
        str(tmp_path / "runs"),
        "cannot write the run summary: not a folder (a file of that name is in the way)",
    )


def test_plan_manifest_finds_a_document_that_is_a_link_by_its_resolved_path(tmp_path):
    # With --allow-outside-links a link in the folder is a document under its own name,
    # and the manifest's resolved path named a file "outside the corpus folder".
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (tmp_path / "solar.txt").write_text("x")
    (corpus / "ext.txt").symlink_to(tmp_path / "solar.txt")
    (corpus / "a.txt").write_text("x")
    ext, a = str(corpus / "ext.txt"), str(corpus / "a.txt")
    rows = [(os.path.realpath(ext), a, "g")]
    plan = plan_pairs("manifest", {ext: "E", a: "A"}, manifest=rows, root=str(corpus))
    assert [(p.source_id, p.target_id, p.source) for p in plan.pairs] == [("E", "A", ext)]
    assert plan.problems == []
