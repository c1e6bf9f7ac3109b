"""Report files are written whole: a reader sees the old file or the new one.

Two commands writing one report folder at once (two ``dri ratings import``
ending together, two evaluations of one corpus into its default folder), or a
reader (``dri report``, a program reading ``stats.json``) beside a writer,
saw a file cut short while it was being written."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from processes import reads_beside, writer_process

from dri.metrics.report import write_ratings_report, write_report
from dri.metrics.results import EvaluationResult
from dri.metrics.stats import rating_stats
from dri.staging import REPORT_RECORD

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND\xaeB`\x82"
LEVELS = ("cut", "light", "heavy", "non")


def _rows() -> list[dict[str, object]]:
    return [
        {"source": f"orig_{i}.txt", "target": f"{level}_{i}.txt", "group": level, "analogy_similarity": s}
        for s, level in enumerate(LEVELS)
        for i in range(40)
    ]


def _rewrite_reports(folder: Path, times: int) -> None:
    ratings = rating_stats(
        [
            {"rater": r, "pair": f"p{p}", "novelty": 1 + (p + len(r)) % 5}
            for r in ("a", "bb")
            for p in range(9)
        ]
    )
    result = EvaluationResult(
        "plagiarism", _rows(), groups=list(LEVELS), structure_scores=("analogy_similarity",)
    )
    for _ in range(times):
        write_report(result, folder)
        write_ratings_report(ratings, folder / "ratings", source="ratings.csv")


def _whole(path: Path) -> bool:
    """Whether ``path`` (if there) reads as a whole file of its kind."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return True
    if path.suffix == ".png":
        return data.startswith(PNG_SIGNATURE) and data.endswith(PNG_END)
    text = data.decode("utf-8")
    if path.suffix == ".json":
        try:
            return isinstance(json.loads(text), dict)
        except ValueError:
            return False
    if path.suffix == ".csv":
        return len(list(csv.reader(io.StringIO(text)))) == len(_rows()) + 1
    if path.suffix == ".html":
        return text.rstrip().endswith("</html>")
    if path.name == REPORT_RECORD:
        return text.endswith("summary.md\n")  # the last of the sorted names
    return text.startswith("# ") and text.endswith("\n")


def test_a_reader_beside_a_writer_never_sees_half_a_report_file(tmp_path) -> None:
    folder = tmp_path / "report"
    _rewrite_reports(folder, 1)
    names = [p.relative_to(folder) for p in folder.rglob("*") if p.is_file()]
    assert len(names) == 10  # 5 of the report (one box plot), 3 of the ratings, each with its record
    writer = writer_process(__file__, "_rewrite_reports", folder, 12)
    reads, cut_short = reads_beside(writer, [folder / name for name in names], _whole)
    assert reads > 100
    assert cut_short == {}
    assert sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file()) == sorted(names)


def test_a_report_stopped_part_way_leaves_the_earlier_one_as_it_was(tmp_path, monkeypatch):
    # Ctrl-C between its files left a new summary.md beside the earlier index.html.
    result = EvaluationResult(
        "plagiarism", _rows(), groups=list(LEVELS), structure_scores=("analogy_similarity",)
    )
    write_report(result, tmp_path)
    earlier = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    (tmp_path / "notes.txt").write_text("the user's own")
    import dri.metrics.report as report

    def stopped(name: str, **context: object) -> str:
        if name == "report.html":  # index.html, written after summary.md
            raise KeyboardInterrupt
        return real(name, **context)

    real = report.render
    monkeypatch.setattr(report, "render", stopped)
    changed = EvaluationResult(
        "plagiarism", _rows()[:80], groups=list(LEVELS), structure_scores=("analogy_similarity",)
    )
    try:
        write_report(changed, tmp_path)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the report was not stopped")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "notes.txt"} == earlier
    assert (tmp_path / "notes.txt").read_text() == "the user's own"
    monkeypatch.setattr(report, "render", real)
    files = write_report(changed, tmp_path)
    assert files.summary_md == tmp_path / "summary.md" and files.folder == tmp_path
    assert all(plot.parent == tmp_path and plot.is_file() for plot in files.plots)
    assert (tmp_path / "summary.md").read_bytes() != earlier["summary.md"]
    assert not list(tmp_path.glob(".dri-staging-*"))
