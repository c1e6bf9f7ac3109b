"""``dri evaluate judgements`` and ``dri evaluate choice`` on small files of our own, end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

from dri.cli import main
from dri.corpora.evaluate import evaluate_choice, evaluate_judgements

PAIRS = [
    ("The sun attracts the planets.", "The nucleus attracts the electrons.", 4.0),
    ("The cat chased the mouse.", "The dog chased the cat.", 3.0),
    ("The farmer planted the seeds.", "The general attacked the fortress.", 0.5),
    ("The pump pushes the water.", "The heart pushes the blood.", 4.5),
]


def test_judgements_report_correlations_and_scatter(tmp_path: Path):
    csv_file = tmp_path / "rated.csv"
    lines = ["a,b,score"] + [f'"{a}","{b}",{s}' for a, b, s in PAIRS] + ["only,two"]
    csv_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result, files = evaluate_judgements(csv_file, tmp_path / "report")
    assert len(result.rows) == 4 and not any(r["error"] for r in result.rows)
    assert result.problems == [f"{csv_file}: line 6: wrong number of fields"]
    assert [float(r["human"]) for r in result.rows] == [s for _, _, s in PAIRS]
    stats = result.meta["validity"]
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
    for score, st in result.meta["validity"].items():
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
