import json
import sqlite3
import sys

from streams import ClosedPipe

from dri.cli import main

TEXT = "The sun attracts the planets. The planets orbit the sun because gravity holds them."


def test_graph_prints_a_summary_per_document_and_writes_json(tmp_path, capsys):
    src = tmp_path / "solar.txt"
    src.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["graph", str(src), "--out", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{src}: ") and "concepts" in line and "2 sentences" in line
    data = json.loads((out / "solar.json").read_text())
    lemmas = {n["lemma"] for n in data["nodes"]}
    assert {"sun", "planet", "attract", "orbit"} <= lemmas


def test_graph_batch_carries_on_after_a_bad_file_and_exits_1(tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text(TEXT, encoding="utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert main(["graph", str(empty), str(good), "--out", str(tmp_path), "--format", "graphml"]) == 1
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(empty) in errors[0]
    assert str(good) in captured.out
    assert (tmp_path / "good.graphml").read_text().startswith("<?xml")


def test_graph_png(tmp_path):
    src = tmp_path / "solar.txt"
    src.write_text(TEXT, encoding="utf-8")
    png = tmp_path / "solar.png"
    assert main(["graph", str(src), "--png", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_graph_png_named_as_another_format_is_refused_before_any_work(tmp_path, capsys):
    # PNG bytes were written into "solar.svg", which no SVG reader opens.
    src = tmp_path / "solar.txt"
    src.write_text(TEXT, encoding="utf-8")
    picture = tmp_path / "solar.SVG"
    assert main(["graph", str(src), "--png", str(picture)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {picture}: --png writes a PNG picture; give a name ending in .png"
    ]
    assert not picture.exists()
    assert main(["graph", str(src), "--png", str(tmp_path / "solar.json")]) == 2
    capsys.readouterr()
    assert main(["graph", str(src), "--png", str(tmp_path / "solar")]) == 0  # no suffix: a PNG by that name


def test_graph_png_in_a_folder_not_made_yet(tmp_path):
    # It was "cannot write: No such file or directory" after the graph was built.
    src = tmp_path / "solar.txt"
    src.write_text(TEXT, encoding="utf-8")
    png = tmp_path / "new" / "sub" / "solar.png"
    assert main(["graph", str(src), "--png", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_graph_png_into_a_folder_named_with_a_trailing_slash(tmp_path):
    src = tmp_path / "solar.txt"
    src.write_text(TEXT, encoding="utf-8")
    pictures = tmp_path / "pictures"
    assert (
        main(["graph", str(src), "--png", f"{pictures}/"]) == 0
    )  # one input, a folder that is not there yet
    assert (pictures / "solar.png").read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "pictures.png").exists()


def test_graph_png_folder_where_a_file_is_is_one_line_before_any_work(tmp_path, capsys):
    # It was mkdir's "cannot write: File exists", once for each document, after each summary.
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(TEXT, encoding="utf-8")
    picture = tmp_path / "pic.png"
    picture.write_bytes(b"theirs")
    for argv in (
        [str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--png", str(picture)],
        [str(tmp_path / "a.txt"), "--png", f"{picture}/"],
    ):
        assert main(["graph", *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.splitlines() == [
            f"error: {argv[-1]}: --png must be a folder for the pictures, and a file is in the way"
        ]
    assert picture.read_bytes() == b"theirs"
    # A link to nothing, or a file where a folder above it goes: the same error once a document.
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for png, says in [
        (
            tmp_path / "dangling",
            "--png must be a folder for the pictures, and a link to nothing is in the way",
        ),
        (picture / "sub", f"--png cannot be made: {picture} is a file, not a folder"),
        # Each was "is a file, not a folder".
        (
            tmp_path / "dangling" / "p.png",
            f"--png cannot be made: {tmp_path / 'dangling'} is a symbolic link to nothing, not a folder",
        ),
    ]:
        assert main(["graph", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--png", str(png)]) == 2
        assert capsys.readouterr().err.splitlines() == [f"error: {png}: {says}"]


def test_graph_batch_of_two_files_of_one_name_writes_the_first_and_names_the_second(tmp_path, capsys):
    # b/x.txt's graph silently replaced a/x.txt's x.json (and x.png), with exit 0.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "x.txt", tmp_path / "b" / "x.txt"
    first.write_text(TEXT, encoding="utf-8")
    second.write_text("The pump pushes the water through the pipes.", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["graph", str(first), str(second), str(first), "--out", str(out)]) == 1
    errors = capsys.readouterr().err.splitlines()
    assert errors == [
        f"error: {second}: not written: its files would replace those of {first}, "
        "of the same name 'x' (rename one, or give them apart)"
    ]
    lemmas = {n["lemma"] for n in json.loads((out / "x.json").read_text())["nodes"]}
    assert "sun" in lemmas and "pump" not in lemmas
    # One file by two spellings is one file: it was "would replace those of a/x.txt".
    again = tmp_path / "a" / ".." / "a" / "x.txt"
    assert main(["graph", str(first), str(again), "--out", str(out)]) == 0


def test_graph_never_writes_over_a_document_it_was_given(tmp_path, capsys):
    text = tmp_path / "solar"  # a text without a suffix, which a picture could be named
    text.write_text(TEXT, encoding="utf-8")
    named_json = tmp_path / "notes" / "atom.json"  # a text file with a misleading suffix
    named_json.parent.mkdir()
    named_json.write_text(TEXT.replace("sun", "nucleus"), encoding="utf-8")
    assert main(["graph", str(text), "--png", str(text)]) == 1
    assert main(["graph", str(named_json), str(text), "--out", str(named_json.parent)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {text}: not written: {text} is an input file of this command; choose another output",
        f"error: {named_json}: not written: {named_json} is an input file of this command; "
        "choose another output",
    ]
    assert text.read_text(encoding="utf-8") == TEXT
    assert named_json.read_text(encoding="utf-8") == TEXT.replace("sun", "nucleus")
    assert json.loads((named_json.parent / "solar.json").read_text())["nodes"]  # the other one is written


def test_graph_never_writes_its_picture_over_its_graph_file_or_a_database(tmp_path, capsys):
    # --png po/x.json with --out po left a graph file holding a PNG; --png over the
    # store replaced it.
    text = tmp_path / "x.txt"
    text.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "po"
    store = tmp_path / "dri-store"  # a store named without a suffix, which a picture could be
    sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.close()
    kept = store.read_bytes()
    assert main(["graph", str(text), "--out", str(out), "--png", str(out / "x.json")]) == 2
    assert main(["graph", str(text), "--png", str(store)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {out / 'x.json'}: --png writes a PNG picture; give a name ending in .png",
        f"error: {text}: not written: {store}: a SQLite database (a store or a cache) is there; "
        "choose another output",
    ]
    assert not (out / "x.json").exists() and store.read_bytes() == kept


def test_graph_writes_every_graph_when_the_reader_of_the_output_went_away(tmp_path, monkeypatch):
    """``dri graph *.txt --out DIR | head -1``: every graph is written, the lines
    are not, exit 141 (before, the batch stopped at the first line it could not print)."""
    texts = []
    for name in ("solar", "atom", "heart"):
        texts.append(tmp_path / f"{name}.txt")
        texts[-1].write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out"
    with open(tmp_path / "stdout", "w", encoding="utf-8") as sink:
        monkeypatch.setattr(sys, "stdout", ClosedPipe(sink.fileno()))
        assert main(["graph", *map(str, texts), "--out", str(out)]) == 141
    assert sorted(p.name for p in out.iterdir()) == ["atom.json", "heart.json", "solar.json"]


def test_a_graph_file_that_cannot_be_written_keeps_its_picture(tmp_path, capsys):
    # A folder where the graph file goes failed the document whole: no picture either.
    src = tmp_path / "a.txt"
    src.write_text(TEXT, encoding="utf-8")
    (tmp_path / "out" / "a.json").mkdir(parents=True)
    png = tmp_path / "pic.png"
    assert main(["graph", str(src), "--out", str(tmp_path / "out"), "--png", str(png)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {tmp_path / 'out' / 'a.json'}: cannot write: ")
    assert png.read_bytes()[:4] == b"\x89PNG"
