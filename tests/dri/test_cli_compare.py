"""``dri compare``: texts, stored graphs, JSON output and one-line errors."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from processes import alive, descendants, wait_for
from streams import ClosedPipe

from dri.cli import main
from dri.graphs import add_triple, new_graph, save_json
from dri.mapping.content import FAR_CONTENT
from dri.settings import clough_stevenson_dir

CORPUS = clough_stevenson_dir()
#: As the session started: the pipe test runs in the background (tests/background.py),
#: beside tests that change this process's environment.
ENV_AT_START = dict(os.environ)


def _graphs(tmp_path: Path) -> tuple[Path, Path]:
    solar = new_graph("solar", name="solar")
    add_triple(solar, "sun", "attract", "planet")
    add_triple(solar, "planet", "revolve", "sun")
    atom = new_graph("atom", name="atom")
    add_triple(atom, "nucleus", "attract", "electron")
    add_triple(atom, "electron", "revolve", "nucleus")
    a, b = tmp_path / "solar.json", tmp_path / "atom.json"
    save_json(solar, a)
    save_json(atom, b)
    return a, b


def test_stored_graphs_table(tmp_path, capsys):
    a, b = _graphs(tmp_path)
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "analogy similarity (AS)" in out
    # Beside AS, the encoder's content similarity and whether the texts are far apart.
    content = next(line for line in out.splitlines() if line.startswith("content similarity"))
    assert 0.0 <= float(content.split()[2]) <= 1.0 and "sentence encoder" in content
    assert ("about different things" in content) == (float(content.split()[2]) < FAR_CONTENT)
    assert "source term" in out and "generic space" in out
    row = next(line for line in out.splitlines() if line.startswith("sun "))
    assert row.split()[1] == "nucleus" and row.split()[3] == "object.n.01"


def test_json_output(tmp_path, capsys):
    a, b = _graphs(tmp_path)
    assert main(["compare", "--json", str(a), str(b)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scores"]["mapped_relations"] == 2
    assert data["scores"]["relational"] == 1.0
    assert len(data["mapping"]["pairs"]) == 4


DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"


def test_the_candidate_inferences_follow_the_mapping_table(capsys):
    source, target = DEMO / "solar-system.txt", DEMO / "rutherford-atom.txt"
    assert main(["compare", str(source), str(target)]) == 0
    lines = capsys.readouterr().out.splitlines()
    heading = next(n for n, line in enumerate(lines) if line.startswith("Candidate inferences (2;"))
    assert heading > next(n for n, line in enumerate(lines) if line.startswith("source term"))
    rows = [line.split() for line in lines[heading + 1 :]]
    assert [row[1:] for row in rows] == [
        ["nucleus", "heat_to", "electron", "<-", "sun", "heat_to", "planet"],
        ["nucleus", "give", "[new:", "light]", "<-", "sun", "give", "light"],
    ]
    assert float(rows[0][0]) > float(rows[1][0]) > 0
    assert main(["compare", "--json", str(source), str(target)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(i["text"], i["order"]) for i in data["inferences"]] == [
        ("nucleus heat_to electron", 1),
        ("nucleus give [new: light]", 1),
    ]
    new = data["inferences"][1]["arguments"][1]
    assert new["target"] is None and new["source_lemma"] == "light"


def test_texts(tmp_path, capsys):
    assert main(["compare", "--json", str(CORPUS / "orig_taske.txt"), str(CORPUS / "g0pE_taske.txt")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scores"]["mapped_relations"] > 0
    assert 0 < data["scores"]["analogy_similarity"] <= 1


def _without_timing(out: str) -> str:
    return "\n".join(line for line in out.splitlines() if not line.startswith("mapping time"))


def test_a_text_read_before_is_not_parsed_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    demo = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"
    a, b = demo / "solar-system.txt", demo / "rutherford-atom.txt"
    assert main(["compare", str(a), str(b)]) == 0
    first = capsys.readouterr().out

    here = threading.current_thread()

    def not_here(original):
        # Only this thread's calls: the suite's background tests share the process.
        def guarded(*args, **kwargs):
            if threading.current_thread() is here:
                raise AssertionError("parsed or encoded again")
            return original(*args, **kwargs)

        return guarded

    from dri.commands import compare as compare_command
    from dri.mapping.encoder import SentenceEncoder

    monkeypatch.setattr(compare_command, "build_graphs", not_here(compare_command.build_graphs))
    monkeypatch.setattr(SentenceEncoder, "_run", not_here(SentenceEncoder._run))
    assert main(["compare", str(a), str(b)]) == 0
    assert _without_timing(capsys.readouterr().out) == _without_timing(first)
    # The same bytes under another name: the kept graph, named as the file read now.
    copy = tmp_path / "copy.txt"
    copy.write_bytes(a.read_bytes())
    assert main(["compare", str(copy), str(b)]) == 0
    assert capsys.readouterr().out.startswith("source: copy.txt ")
    # A lower limit than the kept text's length: refused as a first read is.
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "100")
    assert main(["compare", str(a), str(b)]) == 1
    assert capsys.readouterr().err.startswith(f"error: {a}: too long: ")


def _without_seconds(data: object) -> object:
    if isinstance(data, dict):
        return {k: _without_seconds(v) for k, v in data.items() if k != "seconds"}
    return [_without_seconds(v) for v in data] if isinstance(data, list) else data


def test_texts_parsed_by_a_forked_child_compare_as_in_one_process(tmp_path, monkeypatch, capsys):
    demo = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"
    a, b = str(demo / "solar-system.txt"), str(demo / "rutherford-atom.txt")
    traced = (
        "import sys\n"
        "from dri.commands import compare\n"
        "from dri.cli import main\n"
        "started = compare.parse_ahead\n"
        "def traced(documents):\n"
        "    ahead = started(documents)\n"
        "    print('forked:', ahead.started, file=sys.stderr)\n"
        "    return ahead\n"
        "compare.parse_ahead = traced\n"
        f"sys.exit(main(['compare', '--json', {a!r}, {b!r}]))\n"
    )
    env = {**ENV_AT_START, "DRI_DATA_DIR": str(tmp_path / "forked")}
    done = subprocess.run(
        [sys.executable, "-c", traced], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "forked: True" in done.stderr

    from dri.commands import compare as compare_command
    from dri.extract.parse_ahead import ParseAhead

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "here"))
    monkeypatch.setattr(compare_command, "parse_ahead", lambda documents: ParseAhead([]))  # never forks
    assert main(["compare", "--json", a, b]) == 0
    here = json.loads(capsys.readouterr().out)
    assert _without_seconds(json.loads(done.stdout)) == _without_seconds(here)


def _as_from_a_terminal() -> None:  # pragma: no cover - runs in the child, before exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.background  # waits on a subprocess
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupt_while_the_child_parses_ends_both(tmp_path, signal_name):
    # Ctrl-C reaches the process group; SIGTERM only the command, which stops its child.
    long_text = tmp_path / "long.txt"
    long_text.write_text(
        " ".join(
            path.read_bytes().decode("utf-8", "replace") for path in sorted(CORPUS.glob("g*_task*.txt"))[:40]
        )
    )
    demo = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"
    env = {**ENV_AT_START, "DRI_DATA_DIR": str(tmp_path / "data")}
    command = subprocess.Popen(
        [sys.executable, "-m", "dri.cli", "compare", str(long_text), str(demo / "solar-system.txt")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # As a terminal starts a command: a suite run in the background (``&``) ignores Ctrl-C.
        preexec_fn=_as_from_a_terminal,
    )
    try:
        assert wait_for(lambda: descendants(command.pid), timeout=60), "no child was forked"
        children = descendants(command.pid)
        if signal_name == "SIGINT":
            os.killpg(command.pid, signal.SIGINT)
        else:
            os.kill(command.pid, signal.SIGTERM)
        _, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
            command.wait()
    assert command.returncode == 128 + getattr(signal, signal_name)
    assert err.strip().splitlines() == [err.strip()] and err.startswith("error: interrupted"), err
    # Reaped before the command ended, not left to finish its parse.
    assert not any(alive(pid) for pid in children)


def test_a_text_read_with_a_warning_warns_every_time(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    text = tmp_path / "cafe.txt"
    text.write_bytes(
        "The caf\xe9 serves coffee to the guests. The guests drink the coffee.\n".encode("cp1252")
    )
    for _ in range(2):
        assert main(["compare", str(text), str(text)]) == 0
        assert f"{text}: not valid UTF-8; read as Windows-1252" in capsys.readouterr().err


def test_bad_inputs_get_one_line_errors(tmp_path, capsys):
    a, _ = _graphs(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["compare", str(bad), str(tmp_path / "missing.txt")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2
    assert (
        err[0].startswith(f"error: {bad}: ") and err[1] == f"error: {tmp_path / 'missing.txt'}: no such file"
    )
    binary = tmp_path / "noise.txt"
    binary.write_bytes(bytes(range(256)) * 40)
    assert main(["compare", str(binary), str(a)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {binary}")


def test_a_line_break_in_a_name_or_lemma_stays_in_its_line(tmp_path, capsys):
    # The error was cut at the name's line break ("error: nosuch"), and a graph JSON's
    # lemma with a line break split its row of the mapping table in two.
    missing, empty = tmp_path / "nosuch\nline.txt", tmp_path / "empty\nfile.txt"
    empty.write_text("", encoding="utf-8")
    assert main(["compare", str(missing), str(empty)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path}/nosuch\\u000aline.txt: no such file",
        f"error: {tmp_path}/empty\\u000afile.txt: empty file",
    ]
    solar = new_graph("solar", name="solar")
    add_triple(solar, "s\nun", "attract", "planet")
    atom = new_graph("atom", name="atom")
    add_triple(atom, "nucleus", "attract", "electron")
    a, b = tmp_path / "solar.json", tmp_path / "atom.json"
    save_json(solar, a)
    save_json(atom, b)
    assert main(["compare", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if line.startswith("s\\u000aun "))
    assert row.split()[:2] == ["s\\u000aun", "nucleus"]
    header = next(line for line in lines if line.startswith("source term"))
    assert header.index("target term") == row.index("nucleus")  # widths as printed


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_output_pipe_closed_early_exits_quietly(tmp_path):
    """``dri compare A B --json | head -1``: no BrokenPipeError traceback."""
    a, b = _graphs(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "dri.cli", "compare", "--json", str(a), str(b)],
        env=ENV_AT_START,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written, as after head's line
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_the_pages_are_written_when_the_reader_of_the_output_went_away(tmp_path, monkeypatch):
    """``dri compare A B --html P --svg S | head -1``: the pages are written all
    the same (before, the printed table failed first and neither was written)."""
    a, b = _graphs(tmp_path)
    page, picture = tmp_path / "out.html", tmp_path / "out.svg"
    with open(tmp_path / "stdout", "w", encoding="utf-8") as sink:
        monkeypatch.setattr(sys, "stdout", ClosedPipe(sink.fileno()))
        assert main(["compare", str(a), str(b), "--html", str(page), "--svg", str(picture)]) == 141
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert picture.read_text(encoding="utf-8").startswith("<svg")


def test_html_and_svg_pages(tmp_path, capsys):
    a, b = _graphs(tmp_path)
    page, picture = tmp_path / "out.html", tmp_path / "out.svg"
    assert main(["compare", str(a), str(b), "--html", str(page), "--svg", str(picture)]) == 0
    assert "analogy similarity (AS)" in capsys.readouterr().out  # the table is printed as before
    html = page.read_text(encoding="utf-8")
    svg = picture.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and svg.startswith("<svg") and svg in html
    assert len(re.findall(r'<g id="mapping-pair-\d+"', svg)) == 4  # one link per mapped pair
    assert html.count('<tr><td class="text">') >= 4 and "Candidate inferences" in html


def test_an_unwritable_page_is_one_line(tmp_path, capsys):
    # A write that fails only when made (a full device): a missing folder is refused before.
    a, b = _graphs(tmp_path)
    assert main(["compare", str(a), str(b), "--html", "/dev/full"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: /dev/full: cannot write")


def test_a_page_named_as_a_folder_is_a_usage_error(tmp_path, capsys):
    # --svg newdir/ wrote a plain file named newdir: Path drops the "/".
    a, b = _graphs(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["compare", str(a), str(b), "--svg", f"{tmp_path}/newdir/"])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"dri compare: error: argument --svg: {tmp_path}/newdir/: names a folder (it ends in /); give a file name"
    )
    assert not (tmp_path / "newdir").exists()


def test_a_page_over_a_compared_file_is_refused_before_comparing(tmp_path, capsys):
    a, b = _graphs(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(b)
    graph_a, graph_b = a.read_bytes(), b.read_bytes()
    store, wal = tmp_path / "dri.sqlite", tmp_path / "dri.sqlite-wal"
    sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.close()
    wal.write_bytes(b"\x37\x7f\x06\x82")
    for flag, path, says in [
        ("--html", a, f"{a}: --html would overwrite A, the file compared"),
        ("--svg", link, f"{link}: --svg would overwrite B, the file compared"),
        ("--html", tmp_path, f"{tmp_path}: --html must name a file, not a folder"),
        # The store replaced by a page: every later command failed on it.
        (
            "--html",
            store,
            f"{store}: --html would overwrite it: a SQLite database (a store or a cache) is there",
        ),
        ("--svg", wal, f"{wal}: --svg would overwrite it: a SQLite database (a store or a cache) is there"),
    ]:
        assert main(["compare", str(a), str(b), flag, str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and err.startswith(f"error: {says}")
    assert a.read_bytes() == graph_a and b.read_bytes() == graph_b
    both = tmp_path / "page"
    assert main(["compare", str(a), str(b), "--html", str(both), "--svg", str(both)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {both}: --html and --svg name one file; give each its own"
    ]
    assert not both.exists()
    # Two spellings of one new file: the picture was written over the page, exit 0.
    (tmp_path / "sub").mkdir()
    dangling = tmp_path / "sub" / "link.html"
    dangling.symlink_to(tmp_path / "z.svg")
    for html, svg in [
        (str(both), f"{tmp_path}/sub/../page"),
        (str(dangling), str(tmp_path / "z.svg")),
    ]:
        assert main(["compare", str(a), str(b), "--html", html, "--svg", svg]) == 2
        assert capsys.readouterr().err.endswith("--html and --svg name one file; give each its own\n")
    assert not both.exists() and not (tmp_path / "z.svg").exists()


def test_a_page_in_a_missing_folder_is_refused_before_comparing(tmp_path, capsys):
    # Found after the whole comparison, as the page was written.
    a, b = _graphs(tmp_path)
    page = tmp_path / "nodir" / "x.html"
    assert main(["compare", str(a), str(b), "--html", str(page)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"error: {page}: --html names a file in {tmp_path / 'nodir'}, which does not exist"
    ]
    a.with_name("file").write_text("x", encoding="utf-8")
    page = tmp_path / "file" / "x.svg"
    assert main(["compare", str(a), str(b), "--svg", str(page)]) == 2
    assert capsys.readouterr().err.endswith(
        f"--svg names a file in {tmp_path / 'file'}, which is not a folder\n"
    )


def test_graphs_of_more_relation_pairs_than_a_mapping_takes_are_one_line(tmp_path, capsys, monkeypatch):
    # Two texts of 5,000 short sentences took 2.25 GB and 78 s, of 10,000 11.8 GB
    # (the seed tables grow with the product of the relations). A smaller bound here.
    from dri.mapping import mapper

    monkeypatch.setattr(mapper, "MAX_RELATION_PAIRS", 3)
    a, b = _graphs(tmp_path)
    assert main(["compare", str(a), str(b)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {a} -> {b}: 2 relations against 2: 4 relation pairs, over the 3 a mapping takes; "
        "what to do: compare shorter documents, or some of their sections (dri run and dri evaluate analogy take --sections)"
    ]
    monkeypatch.setattr(mapper, "MAX_RELATION_PAIRS", 4)
    assert main(["compare", str(a), str(b)]) == 0


def test_a_stored_graphs_text_is_held_to_the_text_limit(tmp_path, capsys, monkeypatch):
    # The same documents as text were refused; as graph JSON they were compared.
    a, b = _graphs(tmp_path)
    graph = json.loads(a.read_text(encoding="utf-8"))
    graph["graph"]["text"] = "The sun attracts the planet. " * 4
    a.write_text(json.dumps(graph), encoding="utf-8")
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "50")
    assert main(["compare", str(a), str(b)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: {a}: too long: 116 characters")


def test_a_graph_json_cut_inside_a_string_says_where_once(tmp_path, capsys):
    a, b = _graphs(tmp_path)
    a.write_text('{"schema_version":1,"nodes":[{"id":"c:a', encoding="utf-8")
    assert main(["compare", str(a), str(b)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {a}: not a stored ROS graph (not JSON (Unterminated string starting at line 1, column 36))"
    ]
