"""Report folders: files exist, plots are real PNGs, numbers match the rows."""

from __future__ import annotations

import csv
import json
import math
import os
import random
import time

import matplotlib.image as mpimg
import pytest

from dri.metrics.report import find_report, write_ratings_report, write_report
from dri.metrics.results import EvaluationResult, ReportSection, ReportTable
from dri.metrics.stats import rating_stats
from dri.metrics.validity import judgement_section

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVELS = {"cut": 3, "light": 2, "heavy": 1, "non": 0}


def _rows(n_per_level: int = 5, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for level, code in LEVELS.items():
        for i in range(n_per_level):
            base = 0.2 * code + 0.1 * rng.random()
            rows.append(
                {
                    "source": f"orig_{i}.txt",
                    "target": f"{level}_{i}.txt",
                    "group": level,
                    "task": "a",
                    "analogy_similarity": base,
                    "semantic": min(1, base + 0.2),
                    "jaccard": base,
                    "conceptual": base,
                    "relational": base,
                    "mapped_concepts": 3,
                    "mapped_relations": 2,
                    "tfidf_cosine": min(1, base + 0.1),
                    "chrf": base / 2,
                    "mapping_seconds": 0.01,
                    "error": "",
                }
            )
    rows.append(
        {
            "source": "orig_x.txt",
            "target": "broken.txt",
            "group": "cut",
            "analogy_similarity": math.nan,
            "error": "broken.txt: empty file",
        }
    )
    return rows


def _assert_png(path):
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100


def test_write_report_files_and_numbers(tmp_path):
    rows = _rows()
    result = EvaluationResult(
        "plagiarism",
        rows,
        groups=list(LEVELS),
        levels=LEVELS,
        negative="non",
        baseline_scores=("tfidf_cosine", "chrf"),
        problems=["x.txt: unknown category"],
        meta={"corpus": "demo", "wall_seconds": 1.5},
    )
    files = write_report(result, tmp_path / "rep")
    for path in (files.scores_csv, files.stats_json, files.summary_md, files.index_html):
        assert path.is_file() and path.stat().st_size > 0
    assert [p.name for p in files.plots] == ["boxplots.png", "boxplots_baselines.png"]
    for plot in files.plots:
        _assert_png(plot)

    with files.scores_csv.open(encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == len(rows)
    assert {
        "analogy_similarity",
        "semantic",
        "jaccard",
        "conceptual",
        "relational",
        "tfidf_cosine",
        "chrf",
        "task",
        "error",
    } <= set(table[0])
    assert table[-1]["error"] == "broken.txt: empty file" and table[-1]["analogy_similarity"] == ""

    stats = json.loads(files.stats_json.read_text(encoding="utf-8"))
    as_stats = stats["scores"]["analogy_similarity"]
    cut_values = sorted(r["analogy_similarity"] for r in rows if r["group"] == "cut" and not r["error"])
    assert as_stats["groups"]["cut"]["median"] == pytest.approx(cut_values[len(cut_values) // 2])
    assert as_stats["groups"]["cut"]["n"] == 5  # the failed pair is not counted
    assert as_stats["auc"] == 1.0 and as_stats["rho"] > 0.9
    assert stats["failed"] == 1 and stats["problems"] == ["x.txt: unknown category"]

    summary = files.summary_md.read_text(encoding="utf-8")
    assert "![boxplots](boxplots.png)" in summary and "boxplots_baselines.png" in summary
    assert "TF-IDF cosine" in summary and "Spearman rho" in summary and "AUC (vs non)" in summary
    assert "broken.txt: empty file" in summary and "x.txt: unknown category" in summary
    assert "Spearman's rho against the level (cut 3, light 2, heavy 1, non 0)" in summary
    html = files.index_html.read_text(encoding="utf-8")
    assert '<img src="boxplots.png"' in html and '<table class="stats">' in html
    assert "<pre>" not in html and "|---|" not in html and "## " not in html


def test_a_long_problem_is_cut_in_the_report_as_on_the_terminal(tmp_path):
    # A 10 MB line of targets.txt was copied whole into summary.md, index.html and stats.json.
    long_problem = f"targets.txt: line 1: target {'x' * 10_000_000!r} names no document"
    result = EvaluationResult(
        "plagiarism", _rows(), groups=list(LEVELS), levels=LEVELS, negative="non", problems=[long_problem]
    )
    files = write_report(result, tmp_path / "rep")
    stats = json.loads(files.stats_json.read_text(encoding="utf-8"))
    (shown,) = stats["problems"]
    assert len(shown) <= 2_100 and shown.startswith("targets.txt: line 1: target 'xxx")
    assert shown.endswith("' names no document") and "characters left out" in shown
    for page in (files.summary_md, files.index_html):
        assert page.stat().st_size < 200_000 and "characters left out" in page.read_text(encoding="utf-8")


def test_a_report_written_again_without_baselines_loses_their_box_plot(tmp_path):
    def result(baselines):
        return EvaluationResult(
            "plagiarism",
            _rows(),
            groups=list(LEVELS),
            levels=LEVELS,
            negative="non",
            baseline_scores=baselines,
        )

    out = tmp_path / "rep"
    write_report(result(("tfidf_cosine", "chrf")), out)
    (out / "notes.txt").write_text("the user's")
    files = write_report(result(()), out)
    assert [p.name for p in files.plots] == ["boxplots.png"]
    assert not (out / "boxplots_baselines.png").exists()
    assert (out / "notes.txt").read_text() == "the user's"
    assert "boxplots_baselines.png" not in files.summary_md.read_text(encoding="utf-8")


def test_translation_report_ranks_languages(tmp_path):
    rows = [
        {"source": "o.txt", "target": f"{lang}{i}.txt", "group": lang, "analogy_similarity": v + 0.01 * i}
        for lang, v in (("spa", 0.8), ("hbs", 0.3), ("epo", 0.6))
        for i in range(3)
    ]
    result = EvaluationResult(
        "translation",
        rows,
        groups=["spa", "epo", "hbs"],
        rank=True,
        structure_scores=("analogy_similarity",),
        group_labels={"spa": "Spanish", "hbs": "Serbo-Croatian", "epo": "Esperanto"},
    )
    files = write_report(result, tmp_path)
    stats = json.loads(files.stats_json.read_text(encoding="utf-8"))
    assert stats["scores"]["analogy_similarity"]["ranking"] == ["spa", "epo", "hbs"]
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "spa > epo > hbs" in summary and "the groups ranked by their medians" in summary
    assert "Spearman" not in summary and "AUC" not in summary
    assert len(files.plots) == 1  # no baselines, no baseline plot
    _assert_png(files.plots[0])


def test_group_table_text_names_only_the_statistics_of_the_kind(tmp_path):
    # Human-judgement groups have no levels and no negative group: no rho, no AUC.
    rows = [
        {"source": f"a{i}", "target": f"b{i}", "group": group, "analogy_similarity": 0.1 * i}
        for i, group in enumerate(["low", "low", "high", "high"])
    ]
    result = EvaluationResult(
        "judgements", rows, groups=["low", "high"], structure_scores=("analogy_similarity",)
    )
    files = write_report(result, tmp_path)
    for text in (files.summary_md.read_text(encoding="utf-8"), files.index_html.read_text(encoding="utf-8")):
        assert "Medians per group; Kruskal-Wallis across the groups." in text
        assert "cut 3" not in text and "Spearman" not in text and "AUC" not in text


def test_ratings_in_reports(tmp_path):
    ratings = rating_stats(
        [
            {"rater": r, "pair": p, "novelty": n, "usefulness": 3, "challenge": 4}
            for r, p, n in (("a", "p1", 5), ("b", "p1", 4), ("a", "p2", 2), ("b", "p2", 2))
        ]
    )
    result = EvaluationResult(
        "analogy",
        [{"source": "s", "target": "t", "group": "t", "analogy_similarity": 0.5}],
        across_groups=False,
    )
    section = ReportSection("Extra part", "Said once.", [ReportTable(["a", "b"], [["x|y", "1"]])], ["p.png"])
    files = write_report(result, tmp_path / "a", ratings=ratings, sections=[section])
    text = files.summary_md.read_text(encoding="utf-8")
    assert "## Expert ratings" in text and "| novelty | 3.25 |" in text
    assert (
        "## Extra part\n\nSaid once.\n\n| a | b |\n|---|---|\n| x\\|y | 1 |" in text and "![p](p.png)" in text
    )
    html = files.index_html.read_text(encoding="utf-8")
    assert (
        "<h2>Extra part</h2>" in html and '<td class="text">x|y</td>' in html and '<img src="p.png"' in html
    )
    # An analogy search has no statistics across its targets.
    assert "Kruskal" not in text and "Kruskal" not in html
    assert files.plots == ()
    folder = write_ratings_report(ratings, tmp_path / "r", source="ratings.csv")
    stats = json.loads((folder / "stats.json").read_text(encoding="utf-8"))
    assert [r["prop"] for r in stats["ratings"]] == ["novelty", "usefulness", "challenge"]
    # Ratings alone have no scores.csv, and their pages do not point to one.
    assert not (folder / "scores.csv").exists()
    for page in ("summary.md", "index.html"):
        written = (folder / page).read_text(encoding="utf-8")
        assert "scores.csv" not in written and "stats.json" in written
    assert "scores.csv" in files.summary_md.read_text(encoding="utf-8")


def test_undefined_statistics_are_null_in_stats_json(tmp_path):
    # Constant scores leave the correlations undefined: written as NaN, which
    # JSON does not have (a browser's JSON.parse refused the file).
    rows = [
        {**row, "analogy_similarity": 0.5, "human": i} for i, row in enumerate(_rows()) if not row["error"]
    ]
    result = EvaluationResult("judgements", rows, structure_scores=("analogy_similarity",))
    result.validity = judgement_section(rows, ["analogy_similarity"], n_boot=20)[1]
    files = write_report(result, tmp_path / "rep")

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    stats = json.loads(files.stats_json.read_text(encoding="utf-8"), parse_constant=refuse)
    assert stats["meta"]["validity"]["analogy_similarity"]["pearson"]["value"] is None


def test_find_report_newest_and_named(tmp_path):
    root = tmp_path / "reports"
    old, new = root / "old", root / "new"
    for folder in (old, new):
        folder.mkdir(parents=True)
        (folder / "summary.md").write_text("# x", encoding="utf-8")
    past = time.time() - 100
    os.utime(old / "summary.md", (past, past))
    assert find_report(None, root) == new
    assert find_report(old, root) == old
    assert find_report(old / "summary.md", root) == old
    assert find_report(tmp_path / "nowhere", root) is None
    assert find_report(None, tmp_path / "empty") is None
