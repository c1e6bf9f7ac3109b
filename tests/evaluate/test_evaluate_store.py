"""The evaluations through the corpus flow and the store: what they store,
that a second evaluation stores nothing twice, and that the same numbers come
back from Neo4j with the ready queries of ``docs/cypher.md``."""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path

import pytest

from dri.evaluate import analogy_search, evaluate_plagiarism, evaluate_translation
from dri.extract.document import content_ids
from dri.metrics.results import STRUCTURE_SCORES

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corpora" / "demo"


def _doc_id(path: str | Path) -> str:
    return content_ids(Path(path).read_bytes())[0]


def _cypher(heading: str) -> str:
    """The first ```cypher block under ``## <heading>`` in docs/cypher.md."""
    text = (ROOT / "docs" / "cypher.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1]
    return re.search(r"```cypher\n(.*?)```", section, re.S).group(1)


def _run_cypher(uri: str, query: str, **params) -> list[dict]:
    import os

    import neo4j

    user, password = os.environ.get("NEO4J_USER") or "", os.environ.get("NEO4J_PASSWORD") or ""
    with neo4j.GraphDatabase.driver(uri, auth=(user, password) if user or password else None) as driver:
        records, _, _ = driver.execute_query(
            query, params, database_=os.environ.get("NEO4J_DATABASE") or None
        )
        return [r.data() for r in records]


def test_plagiarism_stored_in_neo4j_with_levels_and_not_twice(neo4j_store, neo4j_uri):
    result, _ = evaluate_plagiarism(DEMO / "plagiarism", False, baselines=False)
    run_id = result.meta["run_id"]
    assert result.meta["store"].startswith("neo4j") and result.meta["flow_mapped"] == 12
    assert not [r for r in result.rows if r["error"]]

    stored = {(c.source_id, c.target_id): c for c in neo4j_store.comparisons(run_id=run_id, pairs=True)}
    assert len(stored) == 12
    for row in result.rows:
        record = stored[(_doc_id(row["source"]), _doc_id(row["target"]))]
        for name in STRUCTURE_SCORES:
            assert row[name] == pytest.approx(record.scores[name])
        assert record.pairs and all(
            {"lin", "generic", "source_lemma", "target_lemma"} <= set(p) for p in record.pairs
        )
    levels = {d.name: d.meta.get("level") for d in neo4j_store.documents("plagiarism")}
    assert levels["taska_cut.txt"] == "cut" and levels["taskc_non.txt"] == "non"
    assert levels["orig_taskb.txt"] == "orig"

    # The ready query of docs/cypher.md gives the report's medians per level.
    rows = _run_cypher(
        neo4j_uri, _cypher("A corpus's score distribution per level"), corpus="plagiarism", run_id=run_id
    )
    medians = {r["level"]: r["median"] for r in rows}
    assert {r["level"]: r["pairs"] for r in rows} == {"cut": 3, "light": 3, "heavy": 3, "non": 3}
    report = result.stats()["analogy_similarity"].groups
    for level, median in medians.items():
        assert median == pytest.approx(report[level].median)

    counts = neo4j_store.counts()
    again, _ = evaluate_plagiarism(DEMO / "plagiarism", False, baselines=False)
    assert again.meta["run_id"] == run_id
    assert again.meta["flow_mapped"] == 0 and again.meta["flow_already_stored"] == 12
    assert again.meta["groups_recorded"] == 0
    assert neo4j_store.counts() == counts
    assert [r["analogy_similarity"] for r in again.rows] == [r["analogy_similarity"] for r in result.rows]


def test_translation_stores_languages_and_reads_scores_back(tmp_path, monkeypatch):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    from dri.store import open_store

    result, _ = evaluate_translation(DEMO / "translation", False, baselines=False)
    with open_store() as store:
        assert store.backend == "sqlite" and str(tmp_path) in store.location
        run = {c.source_id + c.target_id: c for c in store.comparisons(run_id=result.meta["run_id"])}
        languages = {d.path: d.meta.get("language") for d in store.documents("translation")}
        counts = store.counts()
    assert len(run) == 15
    for row in result.rows:
        record = run[_doc_id(row["source"]) + _doc_id(row["target"])]
        assert row["analogy_similarity"] == pytest.approx(record.scores["analogy_similarity"])
        assert languages[str(Path(row["target"]).resolve())] == row["group"]
        assert languages[str(Path(row["source"]).resolve())] is None  # originals have no language
    evaluate_translation(DEMO / "translation", False, baselines=False)
    with open_store() as store:
        assert store.counts() == counts


def test_analogy_target_override_runs_the_target_mode_with_sections(tmp_path, monkeypatch):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "papers"
    corpus.mkdir()
    (corpus / "atom.txt").write_text(
        "Abstract\n\nThe electron orbits the nucleus.\n\nMethods\n\nThe farmer feeds the cows.\n",
        encoding="utf-8",
    )
    (corpus / "solar.txt").write_text(
        "Abstract\n\nThe planet orbits the sun.\n\nMethods\n\nThe baker bakes the bread.\n", encoding="utf-8"
    )
    (corpus / "farm.txt").write_text("Abstract\n\nThe farmer feeds the cows.\n", encoding="utf-8")
    results, _ = analogy_search(
        corpus, "atom.txt", k=2, sections=["abstract"], report_dir=False, baselines=False
    )
    (atom,) = results
    assert atom.compared == 2 and next(h.source.name for h in atom.hits) == "solar.txt"
    mapped = {(a, b) for _, a, b, _ in atom.hits[0].mapping}
    assert ("planet", "electron") in mapped and ("orbit", "orbit") in mapped
    # Restricted to the abstracts, the farm text maps nothing of atom.txt's abstract.
    farm = next(h for h in atom.hits if h.source.name == "farm.txt")
    assert farm.scores["analogy_similarity"] < atom.hits[0].scores["analogy_similarity"]
    assert not {("farmer", "farmer"), ("cow", "cow")} & {(a, b) for _, a, b, _ in farm.mapping}
    from dri.store import open_store

    with open_store() as store:
        (run,) = list(store.runs())
    assert "-target-atom-" in run.run_id and run.comparisons == 2
    assert all(not math.isnan(h.scores["analogy_similarity"]) for h in atom.hits)


def _model_runs_of_a_new_process(monkeypatch) -> list[int]:
    """The sentence encoder as a new process has it (no text known), and the
    batch sizes the model runs from now on in this thread (the suite's
    background tests share the process's encoder)."""
    from collections import OrderedDict

    from dri.mapping.encoder import sentence_encoder

    encoder = sentence_encoder()
    monkeypatch.setattr(encoder, "_documents", OrderedDict())
    monkeypatch.setattr(encoder, "_known", OrderedDict())
    read: list[int] = []
    model = encoder._run
    here = threading.current_thread()

    def counted(sequences):
        if threading.current_thread() is here:
            read.append(len(sequences))
        return model(sequences)

    monkeypatch.setattr(encoder, "_run", counted)
    return read


def test_the_encoder_baseline_reads_the_vectors_stored_with_the_graphs(tmp_path, monkeypatch):

    import numpy as np

    from dri.evaluate import evaluate
    from dri.evaluate.analogy import analogy_evaluation
    from dri.mapping.content import CONTENT_VECTOR
    from dri.store import open_store

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "stories"
    corpus.mkdir()
    (corpus / "atom.txt").write_text("The electron orbits the nucleus. The nucleus attracts it.\n")
    (corpus / "solar.txt").write_text("The planet orbits the sun. The sun attracts the planet.\n")
    (corpus / "farm.txt").write_text("The farmer feeds the cows in the morning.\n")
    first = evaluate(analogy_evaluation(corpus, ["atom.txt"]))
    # A new process knows no text: the model must not read the stored documents again.
    read = _model_runs_of_a_new_process(monkeypatch)
    again = evaluate(analogy_evaluation(corpus, ["atom.txt"]))
    assert again.meta["flow_mapped"] == 0 and read == []
    with open_store() as store:
        vectors = {
            d.path: np.asarray(store.get_graph(d.doc_id).graph[CONTENT_VECTOR])
            for d in store.documents(store.corpora()[0])
        }
    for before, row in zip(first.rows, again.rows, strict=True):
        s, t = (vectors[str(Path(row[end]).resolve())] for end in ("source", "target"))
        stored = float(s @ t / np.linalg.norm(s) / np.linalg.norm(t))
        assert row["encoder"] == pytest.approx(min(1.0, max(0.0, stored)), abs=1e-7)  # float32
        assert row["encoder"] == pytest.approx(
            before["encoder"], abs=1e-5
        )  # the rounding of the stored vector


def test_stored_documents_keep_their_abstracted_sentences_and_compare_without_the_model(
    tmp_path, monkeypatch
):

    from dri.evaluate import evaluate
    from dri.evaluate.analogy import analogy_evaluation
    from dri.mapping.abstract_sentences import ABSTRACT_SENTENCES, abstract_sentence_vectors
    from dri.metrics import compare
    from dri.store import open_store

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "stories"
    corpus.mkdir()
    (corpus / "atom.txt").write_text("The electron orbits the nucleus. The nucleus attracts it.\n")
    (corpus / "solar.txt").write_text("The planet orbits the sun. The sun attracts the planet.\n")
    evaluate(analogy_evaluation(corpus, ["atom.txt"]))
    with open_store() as store:
        graphs = [store.get_graph(d.doc_id) for d in store.documents(store.corpora()[0])]
    assert len(graphs) == 2
    for g in graphs:
        assert isinstance(g.graph[ABSTRACT_SENTENCES], str)
        rows = abstract_sentence_vectors(g)
        assert rows is not None and len(rows) == g.graph["sentences"] == 2
    # A new process knows no text: the model must not read the stored documents again.
    read = _model_runs_of_a_new_process(monkeypatch)
    comparison = compare(graphs[0], graphs[1])
    assert read == []
    assert 0.0 < comparison.scores.analogy_similarity <= 1.0
