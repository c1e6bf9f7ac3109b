"""``dri evaluate judgements|ranking|choice`` on small files of our own, end to end."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

from dri.cli import main
from dri.evaluate import evaluate_choice, evaluate_judgements, evaluate_ranking
from dri.metrics.progress import REPORT_FILES, statistics_progress
from dri.metrics.ranking import RankingResult

PAIRS = [
    ("The sun attracts the planets.", "The nucleus attracts the electrons.", 4.0),
    ("The cat chased the mouse.", "The dog chased the cat.", 3.0),
    ("The farmer planted the seeds.", "The general attacked the fortress.", 0.5),
    ("The pump pushes the water.", "The heart pushes the blood.", 4.5),
]


def test_judgements_report_correlations_and_scatter(tmp_path: Path, caplog):
    csv_file = tmp_path / "rated.csv"
    # Extra columns are kept; those named like the report's own (target, error) under file_<name>.
    lines = ["a,b,score,target,error,note"]
    lines += [f'"{a}","{b}",{s},t{i},e{i},n{i}' for i, (a, b, s) in enumerate(PAIRS)] + ["only,two"]
    csv_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, "dri.evaluate.validity"):
        result, files = evaluate_judgements(csv_file, tmp_path / "report")
    assert len(result.rows) == 4 and not any(r["error"] for r in result.rows)
    assert result.problems == [f"{csv_file}: line 6: 2 fields, the header has 6"]
    assert [(r["file_target"], r["file_error"], r["note"]) for r in result.rows] == [
        (f"t{i}", f"e{i}", f"n{i}") for i in range(4)
    ]
    assert all(Path(r["target"]).parent.name.startswith("judgements-rated-") for r in result.rows)
    assert [r.getMessage() for r in caplog.records] == [
        f"{csv_file}: the column 'target' is one of the report's own; its values are the report's column 'file_target'",
        f"{csv_file}: the column 'error' is one of the report's own; its values are the report's column 'file_error'",
    ]
    assert [float(r["human"]) for r in result.rows] == [s for _, _, s in PAIRS]
    stats = result.validity.to_dict()
    assert {"analogy_similarity", "tfidf_cosine", "lcs_words"} <= set(stats)
    for per_score in stats.values():
        assert set(per_score) == {"pearson", "spearman", "kendall"} and per_score["pearson"]["n"] == 4
    # The shared report files plus the validity ones.
    names = {p.name for p in files.folder.iterdir()}
    assert {"scores.csv", "stats.json", "summary.md", "index.html", "validity.json", "scatter.png"} <= names
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "Agreement with the human scores" in summary and "![scatter](scatter.png)" in summary
    assert json.loads((files.folder / "validity.json").read_text())["jaccard"]["kendall"]["n"] == 4


def test_choice_accuracy_ties_and_type_picks(tmp_path: Path):
    items = [
        {
            "query": "The sun attracts the planets.",
            "options": [
                "The nucleus attracts the electrons.",
                "The sun shines on the planets.",
                "Bread is baked.",
            ],
            "answer": 0,
            "types": ["target", "noun", "random"],
        },
        {
            "query": "The heart pumps the blood.",
            "options": ["The heart is red.", "The pump moves the water.", "The choir sang."],
            "answer": 1,
            "types": ["noun", "target", "random"],
        },
    ]
    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text("\n".join(json.dumps(i) for i in items) + "\n{broken\n", encoding="utf-8")
    result, files = evaluate_choice(jsonl, tmp_path / "report")
    assert len(result.rows) == 6 and result.problems == [
        f"{jsonl}: line 3: not valid JSON (Expecting property name enclosed in double quotes at column 2)"
    ]
    assert {r["group"] for r in result.rows} == {"target", "noun", "random"}
    for score, st in result.validity.to_dict().items():
        acc = st["accuracy"]
        assert acc["n"] == 2 and 0.0 <= acc["value"] <= 1.0
        picked = sum(st["picks"].values())
        assert picked + st["ties"] + st["unscored"] == 2, score
        assert st["correct"] == round(acc["value"] * 2) and (st["correct"] <= picked)
    assert not math.isnan(result.rows[0]["analogy_similarity"])
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "Multiple-choice accuracy" in summary and "picks noun" in summary


def test_cli_choice_and_malformed_files(tmp_path: Path, capsys):
    jsonl = tmp_path / "one.jsonl"
    jsonl.write_text(
        json.dumps(
            {
                "query": "The sun attracts the planets.",
                "options": ["The nucleus attracts the electrons.", "Bread."],
                "answer": 0,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["evaluate", "choice", str(jsonl), "--out", str(tmp_path / "r"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "analogy_similarity: accuracy" in out and "report:" in out
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\nx,y\n", encoding="utf-8")
    assert main(["evaluate", "judgements", str(bad), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {bad}: line 1: the header lacks the column(s) score (need a,b,score)"]


POOLS = [
    ("solar", "The sun attracts the planets.", "The nucleus attracts the electrons.", 3),
    ("solar", "The sun attracts the planets.", "The planets circle the sun.", 2),
    ("solar", "The sun attracts the planets.", "The farmer planted the seeds.", 0),
    ("heart", "The heart pumps the blood.", "The pump pushes the water.", 3),
    ("heart", "The heart pumps the blood.", "The choir sang a song.", 0),
    ("heart", "The heart pumps the blood.", "The blood is red.", 1),
]


def test_ranking_report_builds_its_statistics_json_once_and_tells_each_file(tmp_path: Path, monkeypatch):
    # validity.json and stats.json each built every query's metrics for every score (375,000
    # records at 100,000 rows), and the report's seconds of writing had no progress line.
    csv_file = tmp_path / "pools.csv"
    lines = ["query,a,b,score"] + [f'{q},"{a}","{b}",{s}' for q, a, b, s in POOLS]
    csv_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = []
    real = RankingResult.to_dict
    monkeypatch.setattr(RankingResult, "to_dict", lambda self: built.append(1) or real(self))
    heard = []
    with statistics_progress(lambda *report: heard.append(report)):
        _, files = evaluate_ranking(csv_file, tmp_path / "report")
    assert len(built) == 1
    assert [(d, t) for d, t, what in heard if what == REPORT_FILES] == [(d, 6) for d in range(7)]
    validity = json.loads((files.folder / "validity.json").read_text(encoding="utf-8"))
    assert json.loads(files.stats_json.read_text(encoding="utf-8"))["meta"]["validity"] == validity
    assert list(validity["scores"]["analogy_similarity"]["queries"][0]) == [
        "query", "pool", "relevant", "ndcg_pct20", "ndcg_10", "average_precision", "unscored"
    ]  # fmt: skip


def test_ranking_report_per_query_and_means(tmp_path: Path, capsys):
    csv_file = tmp_path / "pools.csv"
    lines = ["query,a,b,score"] + [f'{q},"{a}","{b}",{s}' for q, a, b, s in POOLS] + ["lonely,x,y,1"]
    csv_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result, files = evaluate_ranking(csv_file, tmp_path / "report")
    assert len(result.rows) == 6 and not any(r["error"] for r in result.rows)
    assert result.problems == [f"{csv_file}: query 'lonely': one candidate, nothing to rank; left out"]
    assert [r["query"] for r in result.rows] == [q for q, *_ in POOLS]
    assert result.ordered_groups() == ["3", "2", "1", "0"]  # grouped by relevance grade
    ranking = result.validity
    assert isinstance(ranking, RankingResult) and ranking.pools == {"solar": 3, "heart": 3}
    assert {"analogy_similarity", "relational"} <= set(ranking.structure_scores)
    assert result.structure_scores[0] == "coverage"  # ranking: how much of the query a candidate says
    assert {"tfidf_cosine", "chrf"} <= set(ranking.baseline_scores)
    for sr in ranking.scores.values():
        assert sr.ndcg_pct20.n == 2 and 0.0 <= sr.map.value <= 1.0
        assert [q.relevant for q in sr.queries] == [2, 1]
    names = {p.name for p in files.folder.iterdir()}
    assert {"scores.csv", "summary.md", "index.html", "validity.json", "ranking.png"} <= names
    summary = files.summary_md.read_text(encoding="utf-8")
    assert "## Ranking quality" in summary and "![ranking](ranking.png)" in summary
    assert "| heart | 3 | 1 |" in summary
    assert json.loads((files.folder / "validity.json").read_text())["pools"] == {"solar": 3, "heart": 3}
    # The command prints the means and exits 1 for the left-out query.
    assert main(["evaluate", "ranking", str(csv_file), "--out", str(tmp_path / "cli"), "-q"]) == 1
    captured = capsys.readouterr()
    assert "analogy_similarity: NDCG%20 " in captured.out and "; MAP " in captured.out
    assert (
        captured.err.strip() == f"error: {csv_file}: query 'lonely': one candidate, nothing to rank; left out"
    )
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,score\nx,y,1\n", encoding="utf-8")
    assert main(["evaluate", "ranking", str(bad), "-q"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {bad}: line 1: the header lacks the column(s) query (need a,b,score,query)"
    )
