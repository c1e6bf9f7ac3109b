"""``dri compare`` and ``dri graph`` with names and text that are markup or
terminal control: exit 0 (never 70), files that parse, names shown as escapes."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from dri.cli import main
from dri.store import open_store

SOLAR = "The a$\\foo$b sun attracts the planet. The planet orbits the sun."
ATOM = "The nucleus attracts the electron. The electron orbits the nucleus."
GERMAN = (
    "Der Hund jagt die Katze durch den Garten. Die Katze klettert auf den Baum und wartet dort. "
    "Der Vogel singt ein Lied."
)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def test_compare_draws_and_writes_names_that_are_markup(tmp_path, capsys):
    source = tmp_path / "$x^2$ <script>alert(1).txt"
    target = tmp_path / "atom\x1b[31m\x0b.txt"
    source.write_text(SOLAR, encoding="utf-8")
    target.write_text(ATOM, encoding="utf-8")
    svg, html = tmp_path / "m.svg", tmp_path / "m.html"
    assert main(["compare", str(source), str(target), "--svg", str(svg), "--html", str(html)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "atom\\u001b[31m\\u000b.txt" in out
    text = "".join(ET.parse(svg).getroot().itertext())
    assert "$x^2$ <script>alert(1).txt" in text  # drawn as it is, not as math
    assert "atom\\u001b[31m\\u000b.txt" in text
    tags = _Tags()
    tags.feed(html.read_text(encoding="utf-8"))
    assert "script" not in tags.tags and "svg" in tags.tags
    assert main(["compare", str(source), str(target), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target"] == target.name


def test_graph_warns_once_and_draws_markup(tmp_path, capsys):
    german, solar = tmp_path / "hund\x1b[2J.txt", tmp_path / "a$\\foo$b.txt"
    german.write_text(GERMAN, encoding="utf-8")
    solar.write_text(SOLAR, encoding="utf-8")
    pictures = tmp_path / "png"
    assert main(["graph", str(german), str(solar), "--png", str(pictures)]) == 0
    captured = capsys.readouterr()
    # Logged once as it is read, not printed again.
    assert captured.err.count("does not look like English") == 1
    assert "\x1b" not in captured.out + captured.err and "hund\\u001b[2J.txt" in captured.err
    assert sorted(p.name for p in pictures.iterdir()) == ["a$\\foo$b.png", "hund\x1b[2J.png"]
    graphml = tmp_path / "graphml"
    assert main(["graph", str(german), "--out", str(graphml), "--format", "graphml"]) == 0
    root = ET.parse(graphml / "hund\x1b[2J.graphml").getroot()  # XML 1.0 despite the name
    assert any("hund\\u001b[2J.txt" in (data.text or "") for data in root.iter())


def test_graph_and_compare_take_a_name_that_is_not_utf8(tmp_path, capsys):
    source = tmp_path / os.fsdecode(b"sun\xff.txt")  # bytes Python reads as a lone surrogate
    target = tmp_path / "atom.txt"
    source.write_text(SOLAR, encoding="utf-8")
    target.write_text(ATOM, encoding="utf-8")
    graphs, pictures = tmp_path / "json", tmp_path / "png"
    assert main(["graph", str(source), "--out", str(graphs)]) == 0
    assert main(["graph", str(source), "--png", str(pictures)]) == 0
    [written] = graphs.iterdir()
    data = json.loads(written.read_text(encoding="utf-8"))  # UTF-8 and JSON
    assert data["graph"]["name"] == "sun\\udcff.txt"
    svg, html = tmp_path / "m.svg", tmp_path / "m.html"
    assert main(["compare", str(written), str(target), "--svg", str(svg), "--html", str(html)]) == 0
    assert "sun\\udcff.txt" in "".join(ET.parse(svg).getroot().itertext())
    out = capsys.readouterr().out
    out.encode("utf-8")  # nothing unprintable reached the terminal
    assert "sun\\udcff.txt" in out
    for _ in range(2):  # parsed, then the graph kept by the first (extract/kept_graphs.py)
        assert main(["compare", str(source), str(target), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["source"] == "sun\\udcff.txt"


def test_a_line_break_in_a_name_does_not_forge_a_row(tmp_path, capsys, monkeypatch):
    # Each row named the document or run as it is, so "x\nforged  9.999.txt" printed a
    # second row of its own in dri run, dri store, dri compare, dri graph and the evaluation's progress.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    with (
        open_store() as store
    ):  # the suite's Neo4j, if one is configured: another atom.txt there is ambiguous
        store.clear()
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "x\nforged  0.999.txt").write_text(SOLAR, encoding="utf-8")
    (corpus / "atom.txt").write_text(ATOM, encoding="utf-8")
    (corpus / "targets.txt").write_text("atom.txt\n", encoding="utf-8")
    run = "r\nforged"
    commands = [
        ["run", str(corpus), "--run-id", run, "--corpus", "c\nforged", "--no-progress"],
        ["store", "info"],
        ["store", "corpora"],
        ["store", "runs"],
        ["store", "documents", "c\nforged"],
        ["store", "top", "atom.txt"],
        ["store", "mapping", "x\nforged  0.999.txt", "atom.txt", "--run", run],
        ["compare", str(corpus / "x\nforged  0.999.txt"), str(corpus / "atom.txt")],
        ["graph", str(corpus / "x\nforged  0.999.txt")],
        ["evaluate", "analogy", str(corpus), "--out", str(tmp_path / "report")],
    ]
    for argv in commands:
        assert main(argv) == 0, argv
        captured = capsys.readouterr()
        lines = (captured.out + captured.err).splitlines()
        assert not [line for line in lines if line.startswith("forged")], argv
        assert any("\\u000aforged" in line for line in lines), argv
    # The names as printed, copied into the next command, find what they name ("no corpus").
    as_printed = [
        ["store", "documents", "c\\u000aforged"],
        [
            "store",
            "top",
            "x\\u000aforged  0.999.txt",
            "--corpus",
            "c\\u000aforged",
            "--run",
            "r\\u000aforged",
        ],
        ["store", "mapping", "x\\u000aforged  0.999.txt", "atom.txt", "--run", "r\\u000aforged"],
    ]
    for argv in as_printed:
        assert main(argv) == 0, argv
        assert "\\u000aforged" in capsys.readouterr().out, argv
    assert main(["store", "documents", "c\\u000anot"]) == 1
    assert capsys.readouterr().err.endswith("no corpus 'c\\u000anot' (or it is empty)\n")  # one backslash


def test_a_line_break_in_a_language_does_not_forge_a_line_of_the_statistics(tmp_path, capsys, monkeypatch):
    # The round trips' folder names are the groups: each score's line printed them as they are.
    import csv
    import shutil
    from pathlib import Path

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "tr"
    shutil.copytree(Path(__file__).parents[2] / "corpora" / "demo" / "translation", corpus)
    renamed = {"cat": "x\nforged 0.999", "spa": "spa"}
    for folder in ("roundtrip", "pivot"):
        for old in ("epo", "glg", "hbs"):
            shutil.rmtree(corpus / folder / old)
        (corpus / folder / "cat").rename(corpus / folder / renamed["cat"])
    with (corpus / "manifest.csv").open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["group"] in renamed]
    for r in rows:
        r["target"] = r["target"].replace(f"/{r['group']}/", f"/{renamed[r['group']]}/")
        r["group"] = renamed[r["group"]]
    with (corpus / "manifest.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    meta = json.loads((corpus / "translation.json").read_text(encoding="utf-8"))
    for key in ("languages", "modes"):
        meta[key] = {renamed[k]: v for k, v in meta[key].items() if k in renamed}
    (corpus / "translation.json").write_text(json.dumps(meta), encoding="utf-8")
    assert main(["evaluate", "translation", str(corpus), "--out", str(tmp_path / "r"), "--no-baselines"]) == 0
    captured = capsys.readouterr()
    lines = (captured.out + captured.err).splitlines()
    assert not [line for line in lines if line.startswith("forged")]
    assert any(line.startswith("  analogy_similarity: ") and "x\\u000aforged 0.999" in line for line in lines)


def test_a_line_break_in_a_watched_folder_does_not_forge_a_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "root" / "a\nforged folder"
    folder.mkdir(parents=True)
    (folder / "sun.txt").write_text(SOLAR, encoding="utf-8")
    (folder / "atom.txt").write_text(ATOM, encoding="utf-8")
    assert main(["watch", str(tmp_path / "root"), "--once", "--run", "--min-age", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not [line for line in lines if line.startswith("forged")]
    # Found by its words, not its place: capsys takes the whole process's output, and in the
    # suite another test's background thread once wrote an empty line first.
    assert [line for line in lines if "new corpus" in line] == [
        f"{tmp_path / 'root'}/a\\u000aforged folder: new corpus of 2 documents, running it"
    ]


def test_a_line_break_in_a_file_name_does_not_split_its_error_or_warning(tmp_path, capsys):
    # "error: x" and "forged.pdf: corrupt PDF (…)" came on two lines, as did the warning.
    bad, german = tmp_path / "x\nforged.pdf", tmp_path / "hund\nforged.txt"
    bad.write_text("This is plain text with a .pdf name.", encoding="utf-8")
    german.write_text(GERMAN, encoding="utf-8")
    assert main(["graph", str(bad), str(german)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert not [line for line in err if line.startswith("forged")]
    assert any(line.startswith(f"error: {tmp_path}/x\\u000aforged.pdf: corrupt PDF") for line in err)
    assert any(f"{tmp_path}/hund\\u000aforged.txt: " in line and "English" in line for line in err)
