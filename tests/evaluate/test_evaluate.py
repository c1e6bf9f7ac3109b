"""The evaluations end to end on the demo corpora, with the real spaCy model and WordNet."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import matplotlib.image as mpimg
import pytest

from dri.corpora.text import CorpusError
from dri.evaluate import analogy_search, evaluate_plagiarism, evaluate_translation
from dri.mapping.content import FAR_CONTENT

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture(scope="module")
def plagiarism(tmp_path_factory):
    out = tmp_path_factory.mktemp("plagiarism-report")
    return evaluate_plagiarism(DEMO / "plagiarism", out)


def test_plagiarism_cut_scores_above_non(plagiarism):
    result, _files = plagiarism
    assert len(result.rows) == 12 and not [r for r in result.rows if r["error"]]
    by = {(r["task"], r["group"]): r for r in result.rows}
    for task in "abc":
        for score in ("analogy_similarity", "semantic"):
            assert by[(task, "cut")][score] > by[(task, "non")][score], (task, score)
    stats = result.stats()
    assert stats["analogy_similarity"].groups["cut"].median > stats["analogy_similarity"].groups["non"].median
    assert stats["semantic"].rho > 0.5
    assert stats["analogy_similarity"].auc > 0.8


def test_plagiarism_report_has_scores_baselines_and_plots(plagiarism):
    _result, files = plagiarism
    header = files.scores_csv.read_text(encoding="utf-8").splitlines()[0].split(",")
    for column in (
        "analogy_similarity",
        "semantic",
        "jaccard",
        "conceptual",
        "relational",
        "tfidf_cosine",
        "ngram3_containment",
        "lcs_words",
        "chrf",
        "fuzz_token",
        "mapping_seconds",
    ):
        assert column in header
    assert "seconds" not in header  # every time column says what it times
    assert {p.name for p in files.plots} == {"boxplots.png", "boxplots_baselines.png"}
    for plot in files.plots:
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert mpimg.imread(plot).shape[2] in (3, 4)
    stats = json.loads(files.stats_json.read_text(encoding="utf-8"))
    assert set(stats["scores"]["ngram3_containment"]["groups"]) == {"cut", "light", "heavy", "non"}
    # Near copies share almost all their 3-grams with the original; the non answers almost none.
    assert stats["scores"]["ngram3_containment"]["groups"]["cut"]["median"] > 0.8
    assert stats["scores"]["ngram3_containment"]["groups"]["non"]["median"] < 0.1


def test_mapping_seconds_is_the_mapping_time_whatever_the_baselines(tmp_path):
    # A copy under a new folder name is a new run: every pair is mapped in this test.
    corpus = tmp_path / "plag-timing"
    shutil.copytree(DEMO / "plagiarism", corpus)
    mapped, _ = evaluate_plagiarism(corpus, False)
    assert mapped.meta["flow_mapped"] == len(mapped.rows) == 12
    times = [r["mapping_seconds"] for r in mapped.rows]
    assert all(0.0 < t < mapped.meta["flow_seconds"] + 1 for t in times)
    assert mapped.meta["mapping_seconds"] == pytest.approx(sum(times), abs=1e-3)
    assert mapped.meta["baseline_seconds"] > 0.0 and all("chrf" in r for r in mapped.rows)
    # Without the baselines the same stored comparisons give the same times: the
    # column holds the mapping's time as the flow's worker measured it, nothing else.
    again, _ = evaluate_plagiarism(corpus, False, baselines=False)
    assert again.meta["flow_mapped"] == 0 and not any("chrf" in r for r in again.rows)
    assert [r["mapping_seconds"] for r in again.rows] == times
    # A pair the flow could not compare has no mapping time.
    (corpus / "taskc_cut.txt").write_bytes(b"")
    broken, _ = evaluate_plagiarism(corpus, False, baselines=False)
    failed = [r for r in broken.rows if r["error"]]
    assert len(failed) == 1 and math.isnan(failed[0]["mapping_seconds"])


def test_bad_answer_fails_only_its_pair(tmp_path):
    corpus = tmp_path / "plag"
    shutil.copytree(DEMO / "plagiarism", corpus)
    (corpus / "taskb_heavy.txt").write_bytes(b"")
    with (corpus / "file_information.csv").open("a", encoding="utf-8") as fh:
        fh.write("missing.txt,a,cut\n")
    result, files = evaluate_plagiarism(corpus, False, baselines=False)
    assert files is None
    failed = [r for r in result.rows if r["error"]]
    assert [Path(r["target"]).name for r in failed] == ["taskb_heavy.txt"]
    assert "\n" not in failed[0]["error"] and "taskb_heavy.txt" in failed[0]["error"]
    assert sum(1 for r in result.rows if not r["error"]) == 11
    assert any("missing.txt" in p for p in result.problems)


def test_a_failure_of_one_manifest_row_is_not_shown_on_the_pairs_sharing_its_document(tmp_path):
    # The flow compares the manifest.csv's rows; the index pairs of orig_taska it did not
    # list were each given the skipped row's line, "orig_taska.txt -> taska_heavy.txt:
    # skipped, no graph for taska_heavy.txt", found by the original they share with it.
    # (A folder of its own name: the runs of another "plag" stored its pairs.)
    corpus = tmp_path / "plag-manifest"
    shutil.copytree(DEMO / "plagiarism", corpus)
    (corpus / "taska_heavy.txt").write_bytes(b"")
    (corpus / "manifest.csv").write_text(
        "source,target,group\norig_taska.txt,taska_cut.txt,cut\norig_taska.txt,taska_heavy.txt,heavy\n",
        encoding="utf-8",
    )
    result, _ = evaluate_plagiarism(corpus, False, baselines=False)
    errors = {Path(r["target"]).name: r["error"] for r in result.rows}
    assert errors["taska_cut.txt"] == ""
    assert errors["taska_heavy.txt"] == f"{corpus / 'taska_heavy.txt'}: empty file"
    not_listed = f"not listed in {corpus / 'manifest.csv'}, the pairs the corpus flow compares"
    assert {name: e for name, e in errors.items() if name not in ("taska_cut.txt", "taska_heavy.txt")} == {
        name: not_listed for name in errors if name not in ("taska_cut.txt", "taska_heavy.txt")
    }


def test_a_pairs_failure_is_its_own_and_its_texts_under_other_names(tmp_path):
    # A mapping failure is one pair's: a pair sharing its original was given it as its
    # reason. The flow names a pair by the first path of each text, so the same texts
    # under another name (doc_id) are the same pair.
    from dri.corpora.manifest import ManifestPair
    from dri.errors import Failure
    from dri.evaluate.core import _chosen_pairs, _not_failed, _pair_error
    from dri.flows.tasks import RunSummary

    original, answer, copy, other = (tmp_path / n for n in ("orig.txt", "a.txt", "a-copy.txt", "b.txt"))
    ids = {str(original): "o", str(answer): "a", str(copy): "a", str(other): "b"}
    mapping = Failure(str(original), "map", "mapping failed: out of memory", target=str(answer), scope="pair")
    failures = [mapping]
    assert _pair_error(ManifestPair(original, answer, "cut"), failures, ["r"], ids=ids) == str(mapping)
    assert _pair_error(ManifestPair(original, copy, "cut"), failures, ["r"], ids=ids) == str(mapping)
    assert _pair_error(ManifestPair(original, other, "non"), failures, ["r"], ids=ids) == (
        "not compared by the corpus flow (run r)"
    )
    assert _not_failed(ManifestPair(original, other, "non"), failures, ids)
    assert not _not_failed(ManifestPair(original, copy, "cut"), failures, ids)
    # A search's pair that stage 1 left out is no row, though another pair of its target failed.
    summary = RunSummary("r", "c", str(tmp_path), "target", {}, stage1={"planned": 3, "kept": 2})
    pairs = [ManifestPair(answer, original, "t"), ManifestPair(other, original, "t")]
    reversed_ids = {str(answer): "a", str(other): "b", str(original): "o"}
    failed = Failure(str(answer), "map", "mapping failed: out of memory", target=str(original), scope="pair")
    chosen, not_candidates = _chosen_pairs(pairs, {}, reversed_ids, [summary], [failed], searching=True)
    assert [pair for _, pair, _ in chosen] == pairs[:1] and not_candidates == 1
    # A document that cannot be read is every one of its pairs' reason.
    unread = Failure(str(original), "extract", "empty file")
    assert _pair_error(ManifestPair(original, other, "non"), [mapping, unread], ["r"], ids=ids) == str(unread)


def test_translation_demo_ranks_all_languages(tmp_path):
    result, files = evaluate_translation(DEMO / "translation", tmp_path, baselines=False)
    assert len(result.rows) == 15 and not [r for r in result.rows if r["error"]]
    ranking = result.stats()["analogy_similarity"].ranking
    assert sorted(ranking) == ["cat", "epo", "glg", "hbs", "spa"]
    assert all(0 < r["analogy_similarity"] < 1 for r in result.rows)
    assert "median Serbo-Croatian" in files.summary_md.read_text(encoding="utf-8")


def test_analogy_search_finds_the_classic_analogues(tmp_path):
    results, files = analogy_search(DEMO / "analogy", k=3, report_dir=tmp_path, baselines=False)
    best = {r.target.name: r.hits[0].source.name for r in results}
    assert best["rutherford-atom.txt"] == "solar-system.txt"
    # The radiation problem is searched and ranked too, but its convergence
    # analogues are not found (docs/evaluation.md, "Demo corpora").
    tumour = next(r for r in results if r.target.name == "radiation-tumour.txt")
    assert tumour.compared == 8 and len(tumour.hits) == 3
    assert best["heart-pump.txt"] == "irrigation.txt"
    atom = next(r for r in results if r.target.name == "rutherford-atom.txt")
    assert atom.compared == 8 and len(atom.hits) == 3
    assert [h.rank for h in atom.hits] == [1, 2, 3]
    assert atom.hits[0].scores["analogy_similarity"] >= atom.hits[1].scores["analogy_similarity"]
    assert ("concept", "planet", "electron") in {m[:3] for m in atom.hits[0].mapping}
    # Each hit carries what its source suggests about the target, as stored with the comparison.
    assert [ci.text() for ci in atom.hits[0].inferences] == [
        "nucleus heat_to electron",
        "nucleus give [new: light]",
    ]
    heart = next(r for r in results if r.target.name == "heart-pump.txt")
    assert heart.hits[0].inferences[0].text() == "heart push blood"
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "## Target rutherford-atom.txt" in summary and "planet ↔ electron" in summary


def test_a_search_reads_the_mappings_of_its_top_hits_alone(tmp_path, monkeypatch):
    # Every candidate's scores are rows; only the hits' mapped pairs and
    # inferences are read back (a search of 1,000 stories has 250 candidates).
    from dri.store.sqlite_store.comparisons import SQLiteComparisons

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    read_with_pairs = []
    inner = SQLiteComparisons._comparisons

    def counted(self, where, params, pairs):
        found = inner(self, where, params, pairs)
        if pairs:
            read_with_pairs.extend(Path(c.source_id).name for c in found)
        return found

    monkeypatch.setattr(SQLiteComparisons, "_comparisons", counted)
    results, _ = analogy_search(
        DEMO / "analogy", "rutherford-atom.txt", k=2, report_dir=False, baselines=False
    )
    (atom,) = results
    assert atom.compared == 8 and len(atom.hits) == 2 and len(read_with_pairs) == 2
    assert atom.hits[0].source.name == "solar-system.txt"
    assert ("concept", "planet", "electron") in {m[:3] for m in atom.hits[0].mapping}
    assert all(hit.mapping and hit.inferences for hit in atom.hits)


def test_far_analogy_search_ranks_only_sources_about_other_things(tmp_path):
    results, files = analogy_search(DEMO / "analogy", k=8, report_dir=tmp_path, baselines=False, far=True)
    hits = [h for r in results for h in r.hits]
    # The demo stories are about different things, so most pairs are far; none above the threshold is ranked.
    assert len(hits) >= len(results)
    assert all(h.scores["content"] < FAR_CONTENT for h in hits)
    for r in results:
        assert [h.rank for h in r.hits] == list(range(1, len(r.hits) + 1))
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "far analogies only" in summary and "| content |" in summary


def test_unreadable_corpus_is_a_corpus_error(tmp_path):
    with pytest.raises(CorpusError, match="file_information.csv"):
        evaluate_plagiarism(tmp_path, False)


def test_similarity_kinds_put_the_combined_score_first_and_analogy_kinds_keep_as():
    from dri.evaluate import headline_order
    from dri.metrics.results import STRUCTURE_SCORES

    for kind in ("plagiarism", "translation", "judgements", "ranking"):
        order = headline_order(kind)
        # Structure leads where it beat the encoder on held-out data; elsewhere the encoder
        # does, by the query's coverage in a ranking (a query-by-example).
        expected = {"plagiarism": "combined", "translation": "combined", "judgements": "content"}
        assert order[0] == expected.get(kind, "coverage")
        assert sorted(order) == sorted(STRUCTURE_SCORES)
    for kind in ("analogy", "choice"):
        assert headline_order(kind)[0] == "analogy_similarity"


def test_the_rows_reach_on_compared_before_their_baselines(tmp_path):
    from dri.evaluate.analogy import analogy_evaluation
    from dri.evaluate.core import evaluate
    from dri.settings import DEFAULT_CANDIDATES

    corpus = tmp_path / "analogy"
    shutil.copytree(DEMO / "analogy", corpus)
    evaluation = analogy_evaluation(corpus, ["rutherford-atom.txt"], None, 3, DEFAULT_CANDIDATES, False)
    seen = []

    def on_compared(rows):
        seen.append((rows, [dict(r) for r in rows]))

    result = evaluate(evaluation, on_compared=on_compared)
    ((rows, then),) = seen
    assert rows is result.rows and len(rows) == 8  # the other demo stories
    assert all("chrf" not in r and "analogy_similarity" in r for r in then)  # an analogy search draws now
    assert all("chrf" in r and list(r)[-1] == "error" for r in result.rows)
    assert [{k: r[k] for k in t} for r, t in zip(result.rows, then)] == then


def test_the_analogy_report_draws_the_stored_comparisons_without_mapping_again(tmp_path, monkeypatch):
    import dri.evaluate.analogy as analogy
    from dri.metrics import compare

    calls = []
    monkeypatch.setattr(analogy, "compare", lambda *a, **kw: calls.append(a) or compare(*a, **kw))
    results, files = analogy_search(DEMO / "analogy", "rutherford-atom.txt", k=3, report_dir=tmp_path)
    assert calls == []  # every hit's comparison came from the store
    hits = results[0].hits
    assert all(h.comparison is not None and h.graphs is not None for h in hits)
    assert "<svg" in files.index_html.read_text(encoding="utf-8")
    for hit in hits:
        again = compare(*hit.graphs)
        assert hit.comparison.mapping.pairs == again.mapping.pairs  # loose pairs and evidence included
        assert hit.comparison.scores == again.scores

        def stored(inferences):  # the store keeps no anchors
            return [{k: v for k, v in ci.to_dict().items() if k != "anchors"} for ci in inferences]

        assert stored(hit.comparison.inferences) == stored(again.inferences)
