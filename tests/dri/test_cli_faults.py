"""Bad options and missing files on the command line: one line on stderr
naming the option or file, and exit status 1 or 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dri.cli import main
from dri.settings import DEFAULT_CANDIDATES


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("k", ["99999999999999999999", "-5", "0", "ten"])
def test_store_top_k_out_of_range_names_the_option(capsys, tmp_path, k):
    code, _, err = _run(capsys, "store", "--uri", str(tmp_path / "x.sqlite"), "top", "a.txt", "-k", k)
    assert code == 2
    assert "argument -k: must be" in err.splitlines()[-1]


@pytest.mark.parametrize(
    "argv, argument",
    [
        (["top", ""], "document"),
        (["top", "a.txt", "--run", " "], "--run"),
        (["documents", ""], "corpus"),
        (["mapping", "a.txt", "", "--run", "r"], "target"),
    ],
)
def test_store_given_an_empty_name_is_a_usage_error(capsys, tmp_path, argv, argument):
    # "no document ''", exit 1, as if the store had been looked into.
    code, _, err = _run(capsys, "store", "--uri", str(tmp_path / "x.sqlite"), *argv)
    assert code == 2 and err.splitlines()[-1].endswith(f"error: argument {argument}: an empty name")


def test_store_looking_at_a_missing_file_creates_nothing(capsys, tmp_path):
    target = tmp_path / "nonexistent" / "deep" / "x.sqlite"
    code, _, err = _run(capsys, "store", "--uri", str(target), "info")
    assert code == 1
    assert err.splitlines() == [f"error: {target}: no store here (it is created by the first `dri run`)"]
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("command", [["info"], ["runs"], ["corpora"], ["top", "a.txt"]])
def test_store_looking_at_an_empty_file_leaves_it_empty(capsys, tmp_path, command):
    # An empty file is a store to be for `dri run`; looking into it wrote the
    # store's tables into it (98 KB) and printed an empty store with exit 0.
    target = tmp_path / "notes.txt"
    target.touch()
    code, _, err = _run(capsys, "store", "--uri", str(target), *command)
    assert code == 1
    assert err.splitlines() == [f"error: {target}: no store here (it is created by the first `dri run`)"]
    assert target.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("command", [["info"], ["runs"], ["documents", "c"], ["clear", "--yes"]])
def test_store_commands_leave_a_foreign_sqlite_file_unchanged(capsys, tmp_path, command):
    import sqlite3

    foreign = tmp_path / "theirs.db"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE x(a)")
    db.commit()
    db.close()
    before = foreign.read_bytes()
    code, _, err = _run(capsys, "store", "--uri", str(foreign), *command)
    assert code == 1
    assert err.splitlines() == [
        f"error: {foreign}: not a dri store (a SQLite database of other tables: x); left unchanged"
    ]
    assert foreign.read_bytes() == before


@pytest.mark.parametrize(
    "command", [["top", "solar.txt"], ["documents", "c"], ["mapping", "solar.txt", "atom.txt", "--run", "r"]]
)
def test_store_commands_on_a_hand_edited_row_are_one_line_naming_it(capsys, tmp_path, command):
    # A meta that is not JSON was json's traceback of dri store top and documents (exit 70).
    import contextlib
    import sqlite3

    import networkx as nx

    from dri.graphs import ros
    from dri.store import ComparisonRecord, open_store

    path = tmp_path / "s.sqlite"
    with open_store(str(path)) as store:
        for name in ("solar", "atom"):
            g = nx.DiGraph(doc_id=name, graph_id=name, name=f"{name}.txt", path=f"/c/{name}.txt")
            g.add_node("c:x", kind=ros.CONCEPT, lemma="x", label="x", order=0)
            store.put_document("c", g)
        scores = dict.fromkeys(("analogy_similarity", "jaccard", "semantic", "conceptual", "relational"), 0.5)
        store.put_comparison(ComparisonRecord("solar", "atom", "r", {}, scores, []))
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE documents SET meta = '{bad'")
        db.execute("UPDATE members SET meta = '{bad'")
    code, _, err = _run(capsys, "store", "--uri", str(path), *command)
    assert code == 1
    [line] = err.splitlines()
    assert line.startswith(f"error: {path}: damaged row: document ") and ", meta: not JSON (" in line


def test_a_file_where_the_data_folder_keeps_a_folder_is_named(capsys, tmp_path, monkeypatch):
    # The bare "…/ratings: File exists" said nothing of a file in the way.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "ratings").write_text("x")
    rated = tmp_path / "r.csv"
    rated.write_text("rater,pair,novelty,usefulness,challenge\nr1,p1,3,4,5\n")
    code, _, err = _run(capsys, "ratings", "import", str(rated))
    assert code == 1
    assert err.splitlines() == [
        f"error: {tmp_path / 'data' / 'ratings'}: not a folder (a file of that name is in the way)"
    ]


@pytest.mark.parametrize(
    "uri, says",
    [
        ("bolt://127.0.0.1:notaport", "the port must be a number"),
        ("http://neo4j:pw-Secret9@127.0.0.1:7474", "unknown store URI scheme 'http'"),
        # "unknown store URI scheme 'neo4j'", a scheme it knows.
        (
            "neo4j:pw-Secret9@127.0.0.1:7711",
            "***@127.0.0.1:7711: a Neo4j URI starts neo4j:// ; use neo4j://HOST:PORT",
        ),
        ("bolt:/user:pw-Secret9@h", "***@h: a Neo4j URI starts bolt:// ; use bolt://HOST:PORT"),
        # "'bolt:' is not a Neo4j URI".
        ("bolt://user:pw-Secret9@", "'bolt://' names no host"),
        # The blank after it was read as part of the port: "the port must be a number".
        ("bolt://127.0.0.1:0 ", "'bolt://127.0.0.1:0': the port must be a number from 1 to 65535"),
        # No scheme at all: read as a SQLite file's name, "no store here" showed the password.
        ("user:pw-Secret9@127.0.0.1:7711", "***@127.0.0.1:7711: a login and a host without a scheme"),
        ("user:pw/Secret9@127.0.0.1:7711", "***@127.0.0.1:7711: a login and a host without a scheme"),
        # With a database after the host, the login was shown as part of a file name.
        (
            "user:pw-Secret9@127.0.0.1:7711/neo4j",
            "***@127.0.0.1:7711/neo4j: a login and a host without a scheme",
        ),
        ("sqlite://u:pw-Secret9/x@/f.sqlite", "sqlite:///f.sqlite: a SQLite store takes no user or password"),
        # A user that is an e-mail address, or none: the password was shown as part of a file name.
        ("me@corp.com:pw-Secret9@127.0.0.1:7711", "***@127.0.0.1:7711: a login and a host without a scheme"),
        (":pw-Secret9@127.0.0.1:7711", "***@127.0.0.1:7711: a login and a host without a scheme"),
        (
            "sqlite:///tmp/x.sqlite?password=pw-Secret9",
            "sqlite:///tmp/x.sqlite: a SQLite URI takes no ?query",
        ),
        # "unknown store URI scheme 'sqlite'; use … sqlite:///FILE".
        ("sqlite:/tmp/x.sqlite", "sqlite:/tmp/x.sqlite: a SQLite URI starts sqlite:// ; use sqlite:///FILE"),
    ],
)
def test_store_bad_uris_are_one_line(capsys, uri, says):
    code, _, err = _run(capsys, "store", "--uri", uri, "info")
    assert code == 1 and len(err.splitlines()) == 1 and says in err and "pw-Secret9" not in err


def test_a_bad_retry_setting_names_the_variable(capsys, monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:7687")
    monkeypatch.setenv("DRI_NEO4J_RETRY_SECONDS", "abc")
    code, _, err = _run(capsys, "store", "info")
    assert code == 1
    assert err.splitlines() == [
        "error: DRI_NEO4J_RETRY_SECONDS: must be a number of seconds, 0 or more and at most 86,400, not 'abc'"
    ]


def test_report_on_a_folder_without_a_summary(capsys, tmp_path):
    code, _, err = _run(capsys, "report", str(tmp_path))
    assert code == 1 and err.splitlines() == [
        f"error: {tmp_path}: no report here (run `dri evaluate ...` first)"
    ]


def test_report_given_an_index_without_its_summary(capsys, tmp_path):
    (tmp_path / "index.html").write_text("<html></html>")
    code, _, err = _run(capsys, "report", str(tmp_path / "index.html"))
    assert code == 1 and len(err.splitlines()) == 1 and "summary.md: cannot read the report summary" in err


def test_report_with_a_windows_1252_summary_is_printed_with_a_warning(capsys, tmp_path):
    (tmp_path / "summary.md").write_bytes("# Résumé — naïve\n".encode("cp1252"))
    code, out, err = _run(capsys, "report", str(tmp_path))
    assert code == 0 and "# Résumé — naïve" in out
    assert err.splitlines() == [f"warning: {tmp_path / 'summary.md'}: not UTF-8; read as cp1252"]


def test_report_with_a_binary_summary_is_one_line_not_printed(capsys, tmp_path):
    (tmp_path / "summary.md").write_bytes(b"# Report\n\x00\x9c\xff\x1b[2J" * 50)
    code, out, err = _run(capsys, "report", str(tmp_path))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"error: {tmp_path / 'summary.md'}: binary data, not text (contains NUL bytes); not a report summary"
    ]


def test_report_of_a_utf16_summary_prints_it(capsys, tmp_path):
    # Its NUL bytes were called binary data, though its byte-order mark says what it is.
    (tmp_path / "summary.md").write_text("# Résumé\n\nAS 0.5\n", encoding="utf-16")
    code, out, err = _run(capsys, "report", str(tmp_path))
    assert code == 0 and "# Résumé" in out and "AS 0.5" in out and err == ""


def test_report_lines_keep_a_line_break_of_the_folder_name_in_their_line(capsys, tmp_path):
    folder = tmp_path / "rep\n| x |"
    folder.mkdir()
    (folder / "summary.md").write_bytes(b"# T\nnul\x00\n")
    code, _, err = _run(capsys, "report", str(folder))
    shown = f"{tmp_path}/rep\\u000a| x |/summary.md"
    assert code == 1 and err.splitlines() == [
        f"error: {shown}: binary data, not text (contains NUL bytes); not a report summary"
    ]
    (folder / "summary.md").write_bytes("# Résumé\n".encode("cp1252"))
    code, out, err = _run(capsys, "report", str(folder))
    assert code == 0 and err.splitlines() == [f"warning: {shown}: not UTF-8; read as cp1252"]
    assert out.splitlines()[-1] == f"(report folder: {tmp_path}/rep\\u000a| x |)"


def test_report_with_a_summary_over_the_limit_is_one_line_not_read(capsys, tmp_path):
    # Read whole, a damaged summary of 4 GB was a MemoryError (exit 70); this one is sparse.
    summary = tmp_path / "summary.md"
    with summary.open("wb") as fh:
        fh.truncate(20_000_001)
    code, out, err = _run(capsys, "report", str(tmp_path))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"error: {summary}: cannot read the report summary: too large (20000001 bytes; the limit is 20000000)"
    ]


def test_report_open_of_a_page_that_is_a_loop_of_links_prints_the_summary(capsys, tmp_path, monkeypatch):
    # Path.resolve raised RuntimeError on the loop: a traceback, exit 70.
    monkeypatch.setenv("BROWSER", "true")
    (tmp_path / "summary.md").write_text("# Report\r\n\r\n\tAS 0.5\r\n", encoding="utf-8")
    (tmp_path / "index.html").symlink_to(tmp_path / "index.html")
    code, out, err = _run(capsys, "report", "--open", str(tmp_path))
    assert code == 0 and err.splitlines() == [
        f"note: {tmp_path / 'index.html'}: a loop of symbolic links, not a page to open; "
        "printing the summary instead"
    ]
    # Windows line ends and a tab were shown as \u000d and \u0009 in every line.
    assert out.splitlines()[:3] == ["# Report", "", "        AS 0.5"]


def test_report_open_of_a_page_that_leads_out_of_the_report_prints_the_summary(capsys, tmp_path, monkeypatch):
    # An index.html linked to /etc/passwd was opened in the browser as the report's page.
    opened = tmp_path / "opened"
    monkeypatch.setenv("BROWSER", f"touch {opened} %s")
    report = tmp_path / "report"
    report.mkdir()
    (report / "summary.md").write_text("# Report\n", encoding="utf-8")
    (tmp_path / "secret.html").write_text("<p>not the report</p>", encoding="utf-8")
    (report / "index.html").symlink_to(tmp_path / "secret.html")
    code, out, err = _run(capsys, "report", "--open", str(report))
    assert code == 0 and out.splitlines()[0] == "# Report" and not opened.exists()
    assert err.splitlines() == [
        f"note: {report / 'index.html'}: leads to {tmp_path / 'secret.html'}, outside the report; "
        "printing the summary instead"
    ]


def test_report_open_of_a_page_that_is_a_folder_says_what_it_is(capsys, tmp_path, monkeypatch):
    # It said "no such page to open" of a folder, a FIFO or a link to /dev/zero.
    monkeypatch.setenv("BROWSER", "true")
    (tmp_path / "summary.md").write_text("# Report\n", encoding="utf-8")
    (tmp_path / "index.html").mkdir()
    code, _, err = _run(capsys, "report", "--open", str(tmp_path))
    assert code == 0 and err.splitlines() == [
        f"note: {tmp_path / 'index.html'}: a folder, not a page to open; printing the summary instead"
    ]


def test_report_of_an_empty_summary_says_so(capsys, tmp_path):
    (tmp_path / "summary.md").write_text(" \n", encoding="utf-8")
    code, out, err = _run(capsys, "report", str(tmp_path))
    assert code == 1 and out == ""
    assert err.splitlines() == [f"error: {tmp_path / 'summary.md'}: an empty report summary"]


def test_report_path_of_the_newest_passes_over_a_folder_it_cannot_look_into(capsys, tmp_path, monkeypatch):
    # A folder whose summary could not be looked at (EACCES, a loop) stopped the search.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    reports = tmp_path / "data" / "reports"
    (reports / "old").mkdir(parents=True)
    (reports / "old" / "summary.md").write_text("# Old\n", encoding="utf-8")
    (reports / "zz\nnew").mkdir()
    (reports / "zz\nnew" / "summary.md").symlink_to(reports / "zz\nnew" / "summary.md")
    code, out, _ = _run(capsys, "report", "--path")
    assert code == 0 and out.splitlines() == [str(reports / "old")]
    (reports / "zz\nnew" / "summary.md").unlink()
    (reports / "zz\nnew" / "summary.md").write_text("# New\n", encoding="utf-8")
    # To a pipe, the folder's own bytes, for a script: the name shown escaped named no folder.
    code, out, _ = _run(capsys, "report", "--path")
    assert code == 0 and out == f"{reports}/zz\nnew\n"
    # On a terminal, one line, the break shown.
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = _run(capsys, "report", "--path")
    assert code == 0 and out.splitlines() == [f"{reports}/zz\\u000anew"]


def test_report_path_to_a_pipe_is_the_folders_own_bytes(tmp_path):
    # `cd "$(dri report --path)"` failed on a name holding bytes that are not UTF-8.
    reports = tmp_path / "data" / "reports"
    named = reports / os.fsdecode(b"analogy-h\xff\x01x")
    named.mkdir(parents=True)
    (named / "summary.md").write_text("# New\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "dri.cli", "report", "--path"],
        env={**os.environ, "DRI_DATA_DIR": str(tmp_path / "data")},
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == os.fsencode(named) + b"\n"


def test_run_manifest_mode_without_a_manifest_is_one_line_before_any_flow(capsys, tmp_path):
    (tmp_path / "a.txt").write_text("The sun attracts the planets.\n")
    code, _, err = _run(capsys, "run", str(tmp_path), "--mode", "manifest")
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"error: {tmp_path}: --mode manifest needs manifest.csv")


def test_run_rejects_a_bad_worker_count_from_the_environment(capsys, tmp_path, monkeypatch):
    # A bad setting is exit 1, as in dri evaluate (it was 2, a usage error's).
    monkeypatch.setenv("DRI_WORKERS", "many")
    code, _, err = _run(capsys, "run", str(tmp_path))
    assert code == 1 and err.splitlines() == [
        "error: DRI_WORKERS must be a whole number from 1 to 256, not 'many'"
    ]


@pytest.mark.parametrize("command", ["run", "compare", "evaluate", "watch"])
def test_a_bad_text_limit_is_one_line_before_any_work(capsys, tmp_path, monkeypatch, command):
    # dri run wrote a run summary of every document failed for it, dri compare said it
    # once a file, and dri evaluate once a document.
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("The sun attracts the planets.\n", encoding="utf-8")
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "abc")
    argv = {
        "run": ["run", str(tmp_path)],
        "compare": ["compare", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")],
        "evaluate": ["evaluate", "analogy", str(tmp_path)],
        # The folder's run failed every document, and the folder was marked as run for good.
        "watch": ["watch", str(tmp_path), "--once", "--run", "--min-age", "0"],
    }[command]
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (1, "")
    assert err.splitlines() == ["error: DRI_MAX_TEXT_CHARS must be a positive whole number, not 'abc'"]


def test_run_names_a_bad_task_runner_variable(capsys, tmp_path, monkeypatch):
    # It was "unknown task runner 'bogus'; expected one of processes, threads, dask": no
    # variable named, and inline, which the variable takes, left out; exit 2.
    monkeypatch.setenv("DRI_TASK_RUNNER", "bogus")
    code, _, err = _run(capsys, "run", str(tmp_path))
    assert code == 1 and err.splitlines() == [
        "error: DRI_TASK_RUNNER=bogus: unknown task runner; expected one of processes, threads, dask "
        "(or inline, for dri run and dri evaluate)"
    ]


@pytest.mark.parametrize("k", ["0", "-2"])
def test_run_top_per_document_below_1_is_a_usage_error(capsys, tmp_path, k):
    # It was taken, and the run mapped no pair at all, with exit 0.
    code, _, err = _run(capsys, "run", str(tmp_path), "--top-per-document", k)
    assert code == 2
    assert err.splitlines()[-1] == f"dri run: error: argument --top-per-document: must be at least 1, not {k}"


@pytest.mark.parametrize(
    "options, says",
    [
        (["--mode", "all-pairs", "--target", "a.txt"], "--target is for --mode target (or auto)"),
        (["--target", "a.txt", "--top-per-document", "2"], "--top-per-document is for all-pairs runs"),
        # Auto mode on a corpus with a manifest (targets.txt): its pairs are the manifest's.
        (["--top-per-document", "2", "MANIFEST"], "--top-per-document is for all-pairs runs"),
        (["--target", "a.txt", "MANIFEST"], "TMP has a manifest, which --mode auto follows"),
        (["--runner", "inline", "--dask", "tcp://127.0.0.1:1"], "--dask runs the tasks on a Dask cluster"),
        (["--exhaustive", "--candidates", "5"], "--exhaustive maps every document"),
        # The default's own value typed was taken as not typed.
        (["--exhaustive", "--candidates", str(DEFAULT_CANDIDATES)], "--exhaustive maps every document"),
    ],
)
def test_run_options_that_cannot_go_together_are_a_usage_error(capsys, tmp_path, options, says):
    # Each ran as if one of the two were not there.
    if "MANIFEST" in options:
        options = [o for o in options if o != "MANIFEST"]
        (tmp_path / "a.txt").write_text("The sun attracts the planets.\n")
        (tmp_path / "targets.txt").write_text("a.txt\n")
    code, out, err = _run(capsys, "run", str(tmp_path), *options)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {says.replace('TMP', str(tmp_path))}")


def test_run_with_a_target_of_no_document_stops_before_parsing(capsys, tmp_path, monkeypatch):
    # Every document was parsed and stored, then "cannot plan pairs", and a run of no pairs recorded.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "fortress.txt").write_text("The army attacks the fortress.\n")
    (corpus / "tumour.txt").write_text("The rays destroy the tumour.\n")
    (corpus / "loop.txt").symlink_to(corpus / "loop.txt")
    (corpus / "bin.txt").write_bytes(b"\x00\x01\xff" * 100)
    (corpus / "empty.txt").write_bytes(b"")
    (tmp_path / "outside.txt").write_text("The sun attracts the planets.\n")
    (corpus / "ext.txt").symlink_to(tmp_path / "outside.txt")
    for target, says, status in (
        ("sun.txt", f"{corpus}: --target 'sun.txt' names no document of the folder", 2),
        ("Fortress.txt", "; the corpus has 'fortress.txt', a name that differs only in case", 2),
        ("0" * 32, "--target '00000000000000000000000000000000' names no document", 2),
        ("loop.txt", f"{corpus.resolve()}/loop.txt: cannot read: a loop of symbolic links", 1),
        ("bin.txt", f"{corpus.resolve()}/bin.txt: binary data, not text (contains NUL bytes)", 1),
        ("empty.txt", f"{corpus.resolve()}/empty.txt: an empty file (the --target; nothing was run)", 1),
        ("ext.txt", f"{corpus.resolve()}/ext.txt: refused, a symbolic link to {tmp_path / 'outside.txt'}", 1),
    ):
        code, out, err = _run(capsys, "run", str(corpus), "--target", target, "--no-progress")
        assert code == status and out == "" and len(err.splitlines()) == 1 and says in err
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["logs"]  # no store, no run


@pytest.mark.parametrize(
    "options, says",
    [
        (["judgements", "j.csv", "--far"], "--far is an option of dri evaluate analogy, not judgements"),
        (
            ["plagiarism", ".", "--exhaustive"],
            "--exhaustive is an option of dri evaluate analogy, not plagiarism",
        ),
        (
            ["analogy", ".", "--languages", "spa"],
            "--languages is an option of dri evaluate translation, not analogy",
        ),
        (
            ["choice", "c.jsonl", "--api-key", "k"],
            "--api-key is an option of dri evaluate translation, not choice",
        ),
        (
            ["analogy", ".", "--exhaustive", "--candidates", str(DEFAULT_CANDIDATES)],
            "--exhaustive maps every document; it cannot go with --candidates",
        ),
        # Each ran as if it were not there: every language of the corpus scored, exit 0.
        (
            ["translation", ".", "--languages", "spa"],
            "--languages is for building a corpus: it goes with --build-from FOLDER",
        ),
        (
            ["translation", ".", "--libretranslate", "http://127.0.0.1:5000", "--api-key", "k"],
            "--libretranslate is for building a corpus: it goes with --build-from FOLDER",
        ),
        (
            ["translation", "new", "--build-from", ".", "--api-key", "k"],
            "--api-key is LibreTranslate's: it goes with --libretranslate URL (Apertium takes none)",
        ),
    ],
)
def test_evaluate_options_of_another_kind_are_a_usage_error(capsys, options, says):
    # dri evaluate judgements FILE --far ran as if --far were not there.
    code, out, err = _run(capsys, "evaluate", *options)
    assert code == 2 and out == "" and err.splitlines() == [f"error: {says}"]


def test_run_sections_no_document_has_fail_the_run_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Abstract\n\nThe sun attracts the planet.\n", encoding="utf-8")
    (corpus / "b.txt").write_text("The nucleus attracts the electron.\n", encoding="utf-8")
    code, out, err = _run(capsys, "run", str(corpus), "--sections", "nosuch", "--no-progress")
    assert code == 1
    assert f"{corpus}: no document has a sentence in the section(s) nosuch" in err
    assert "the sections the documents have: abstract" in err
    assert "0 pairs (0 mapped" in out


def test_a_run_that_does_nothing_keeps_the_summary_of_the_last_run_that_did(capsys, tmp_path, monkeypatch):
    # A run failing at once (no store, every document refused) replaced that summary.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The sun attracts the planet.\n", encoding="utf-8")
    (corpus / "b.txt").write_text("The nucleus attracts the electron.\n", encoding="utf-8")
    code, out, _ = _run(capsys, "run", str(corpus), "--no-progress")
    assert code == 0
    good = Path(out.split("summary: ")[1].split()[0])
    good_text = good.read_text(encoding="utf-8")
    failed = good.parent / "failed" / good.name

    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")  # nothing listens there: refused at once
    code, out, err = _run(capsys, "run", str(corpus), "--no-progress")
    assert code == 1 and "cannot connect" in err and len(err.splitlines()) == 1
    assert out.splitlines()[-1] == (
        f"summary: {failed} (nothing done; the last run that did something keeps its summary: {good})"
    )
    assert good.read_text(encoding="utf-8") == good_text
    assert json.loads(failed.read_text(encoding="utf-8"))["failures"][0]["stage"] == "store"

    monkeypatch.delenv("NEO4J_URI")
    for document in corpus.iterdir():
        document.write_bytes(b"")
    code, out, err = _run(capsys, "run", str(corpus), "--no-progress")
    assert code == 1 and "2 documents failed: empty file" in err
    assert good.read_text(encoding="utf-8") == good_text
    assert json.loads(failed.read_text(encoding="utf-8"))["documents"] == 2


@pytest.mark.parametrize("sections", [[""], [" "], ["abstract", ""]])
def test_run_an_empty_section_name_is_a_usage_error(capsys, tmp_path, sections):
    code, _, err = _run(capsys, "run", str(tmp_path), "--sections", *sections)
    assert code == 2
    assert err.splitlines()[-1] == "dri run: error: argument --sections: an empty section name"


@pytest.mark.parametrize("option", ["--corpus", "--run-id"])
@pytest.mark.parametrize("value", ["", "  "])
def test_run_an_empty_corpus_or_run_id_is_a_usage_error(capsys, tmp_path, option, value):
    code, _, err = _run(capsys, "run", str(tmp_path), option, value)
    assert code == 2
    assert err.splitlines()[-1] == f"dri run: error: argument {option}: an empty name"


@pytest.mark.parametrize("option", ["--corpus", "--run-id"])
def test_run_a_name_too_long_for_the_stores_index_is_a_usage_error(capsys, tmp_path, option):
    # SQLite stored it; Neo4j failed every document or pair: "Property value is too large to index".
    code, _, err = _run(capsys, "run", str(tmp_path), option, "é" * 10_000)
    assert code == 2
    assert err.splitlines()[-1] == (
        f"dri run: error: argument {option}: a name of 10,000 characters; at most 1,000 (the stores index it)"
    )
    from dri.cli import build_parser

    args = build_parser(["run"]).parse_args(["run", str(tmp_path), option, "\U0001f600" * 1000])
    assert len(args.corpus or args.run_id) == 1000
    # Counted as stored: 200 bytes that are not UTF-8 are 1,200 characters of escapes.
    code, _, err = _run(capsys, "run", str(tmp_path), option, os.fsdecode(b"\xff" * 200))
    assert code == 2 and err.splitlines()[-1] == (
        f"dri run: error: argument {option}: a name of 1,200 characters as stored; at most 1,000 (the stores index it)"
    )


def test_run_section_names_lose_the_spaces_around_them(tmp_path):
    from dri.cli import build_parser

    args = build_parser(["run"]).parse_args(["run", str(tmp_path), "--sections", " Abstract ", "background"])
    assert args.sections == ["Abstract", "background"]


@pytest.mark.parametrize("value", ["\u0663", "1_0", "abc"])
def test_watch_seconds_in_other_digits_are_usage_errors(capsys, tmp_path, value):
    # float() took "٣" as 3 and "1_0" as 10.
    code, _, err = _run(capsys, "watch", str(tmp_path), "--run", "--min-age", value)
    assert code == 2
    assert (
        err.splitlines()[-1]
        == f"dri watch: error: argument --min-age: must be a number of seconds, not '{value}'"
    )


@pytest.mark.parametrize(
    ("option", "value"),
    [("--interval", "nan"), ("--interval", "-1"), ("--interval", "inf"), ("--min-age", "nan")],
)
def test_watch_seconds_that_are_not_a_time_to_wait_are_usage_errors(capsys, tmp_path, option, value):
    # time.sleep() of nan, -1 or inf stopped the watch after its first scan with exit 70;
    # a --min-age of nan let no folder ever count.
    code, _, err = _run(capsys, "watch", str(tmp_path), "--run", option, value)
    assert code == 2
    assert (
        err.splitlines()[-1]
        == f"dri watch: error: argument {option}: must be from 0 to 1e+09 seconds, not {value}"
    )


@pytest.mark.parametrize(
    "workers, says",
    [
        ("0", "must be at least 1, not 0"),
        ("-1", "must be at least 1, not -1"),
        ("x", "must be a whole number, not 'x'"),
        # int() took them as 10 and 3.
        ("1_0", "must be a whole number, not '1_0'"),
        ("\u0663", "must be a whole number, not '\u0663'"),
        # Past a C int it was multiprocessing's OverflowError (exit 70).
        ("99999999999999999999", "must be at most 256, not 99999999999999999999"),
    ],
)
@pytest.mark.parametrize("command", ["watch", "run"])
def test_a_worker_count_out_of_range_is_a_usage_error(capsys, tmp_path, command, workers, says):
    # It was met only by a run on a corpus big enough for workers, long after the start.
    code, _, err = _run(capsys, command, str(tmp_path), "--workers", workers)
    assert code == 2
    assert err.splitlines()[-1] == f"dri {command}: error: argument --workers: {says}"


_OUT_COMMANDS = {
    "graph": ("graph", "doc.txt"),
    "evaluate": ("evaluate", "judgements", "pairs.csv"),
    "demo": ("demo",),
}


@pytest.mark.parametrize("command", sorted(_OUT_COMMANDS))
@pytest.mark.parametrize("out, says", [("", "an empty folder name"), (" ", "an empty folder name")])
def test_an_empty_out_folder_is_a_usage_error_not_the_current_folder(
    capsys, tmp_path, monkeypatch, command, out, says
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doc.txt").write_text("The cat sat on the mat.", encoding="utf-8")
    (tmp_path / "pairs.csv").write_text("a,b,score\nThe cat sat.,The dog sat.,2\n", encoding="utf-8")
    code, _, err = _run(capsys, *_OUT_COMMANDS[command], "--out", out)
    assert code == 2
    assert (
        err.splitlines()[-1]
        == f"dri {command}: error: argument --out: {says} (give . for the current folder)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.txt", "pairs.csv"]


@pytest.mark.parametrize("command", sorted(_OUT_COMMANDS))
def test_an_out_folder_that_is_a_file_is_a_usage_error_before_any_work(capsys, tmp_path, command):
    for path in (tmp_path / "doc.txt", tmp_path / "pairs.csv"):
        path.write_text("a,b,score\n", encoding="utf-8")
    blocker = tmp_path / "report"
    blocker.write_text("not a folder", encoding="utf-8")
    argv = [str(tmp_path / a) if a in ("doc.txt", "pairs.csv") else a for a in _OUT_COMMANDS[command]]
    code, out, err = _run(capsys, *argv, "--out", str(blocker))
    assert code == 2 and out == ""
    assert err.splitlines()[-1].endswith(
        f"argument --out: {blocker}: not a folder (a file of that name is there)"
    )
    code, out, err = _run(capsys, *argv, "--out", str(blocker / "deep"))
    assert code == 2 and out == ""
    assert err.splitlines()[-1].endswith(
        f"argument --out: {blocker / 'deep'}: cannot be a folder, {blocker} is a file"
    )
    loop = tmp_path / "loop"
    loop.symlink_to(loop)  # said "a file of that name is there"
    code, out, err = _run(capsys, *argv, "--out", str(loop))
    assert code == 2 and err.splitlines()[-1].endswith(
        f"argument --out: {loop}: a loop of symbolic links, not a folder"
    )
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")  # said "a file of that name is there"
    code, out, err = _run(capsys, *argv, "--out", str(dangling))
    assert code == 2 and err.splitlines()[-1].endswith(
        f"argument --out: {dangling}: a symbolic link to nothing, not a folder"
    )


@pytest.mark.parametrize("command", sorted(_OUT_COMMANDS))
def test_the_filesystem_root_or_a_system_folder_as_out_is_a_usage_error(
    capsys, tmp_path, monkeypatch, command
):
    # "--out /" wrote the command's files straight into the root of the filesystem.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doc.txt").write_text("The cat sat on the mat.", encoding="utf-8")
    (tmp_path / "pairs.csv").write_text("a,b,score\nThe cat sat.,The dog sat.,2\n", encoding="utf-8")
    (tmp_path / "root").symlink_to("/")
    root_before = sorted(os.listdir("/"))
    for given, what in [
        ("/", "the root of the filesystem"),
        ("//", "the root of the filesystem"),
        ("/usr/..", "the root of the filesystem"),
        ("root", "the root of the filesystem"),
        ("/etc", "the system folder /etc"),
    ]:
        code, out, err = _run(capsys, *_OUT_COMMANDS[command], "--out", given)
        assert code == 2 and out == ""
        assert err.splitlines()[-1] == (
            f"dri {command}: error: argument --out: {given}: {what}, "
            "not a folder for this command's files; name a folder of their own"
        )
    assert sorted(os.listdir("/")) == root_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.txt", "pairs.csv", "root"]


def test_graph_pictures_into_the_filesystem_root_are_a_usage_error(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doc.txt").write_text("The cat sat on the mat.", encoding="utf-8")
    root_before = sorted(os.listdir("/"))
    code, out, err = _run(capsys, "graph", "doc.txt", "--png", "/")
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "error: --png /: the root of the filesystem, not a folder for this command's files; "
        "name a folder of their own"
    ]
    assert sorted(os.listdir("/")) == root_before
    # An ordinary folder under the root is the user's to name.
    code, out, err = _run(capsys, "graph", "doc.txt", "--out", str(tmp_path / "graphs"))
    assert code == 0 and (tmp_path / "graphs" / "doc.json").is_file()


@pytest.mark.parametrize(
    "argv",
    [
        ("run", ""),
        ("run", " "),
        ("watch", "", "--once"),
        ("evaluate", "analogy", ""),
        ("evaluate", "judgements", ""),
    ],
)
def test_an_empty_corpus_or_root_is_a_usage_error_not_the_current_folder(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("The cat sat on the mat.", encoding="utf-8")
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.splitlines()[-1].endswith(": an empty path (give . for the current folder)")
    assert err.splitlines()[-1].startswith(f"dri {argv[0]}: error: argument ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


@pytest.mark.parametrize(
    "argv, says",
    [
        (("compare", "", "a.txt"), "argument A: an empty file name"),
        (("compare", "a.txt", "b.txt", "--html", " "), "argument --html: an empty file name"),
        (("compare", "a.txt", "b.txt", "--svg", ""), "argument --svg: an empty file name"),
        (("graph", "a.txt", ""), "argument FILE: an empty file name"),
        (("graph", "a.txt", "--png", ""), "argument --png: an empty file name"),
        (("ratings", "import", ""), "argument FILE.csv: an empty file name"),
        (("report", ""), "argument DIR: an empty path (give . for the current folder)"),
    ],
)
def test_an_empty_file_name_is_a_usage_error_not_the_current_folder(
    capsys, tmp_path, monkeypatch, argv, says
):
    # Path("") is ".": `dri compare "" b.txt` was told ".: is a folder", `--png ""` drew nothing.
    monkeypatch.chdir(tmp_path)
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("The cat sat on the mat.", encoding="utf-8")
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert (
        err.splitlines()[-1]
        == f"dri {' '.join(argv[:2]) if argv[0] == 'ratings' else argv[0]}: error: {says}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


@pytest.mark.parametrize("under", [False, True])
@pytest.mark.parametrize("argv", [("report",), ("ratings", "show"), ("watch", "{root}", "--once", "--run")])
def test_a_data_folder_that_is_a_file_names_dri_data_dir(capsys, tmp_path, monkeypatch, argv, under):
    blocker = tmp_path / "data"
    blocker.write_text("a file", encoding="utf-8")
    data = blocker / "sub" if under else blocker
    monkeypatch.setenv("DRI_DATA_DIR", str(data))
    (tmp_path / "root").mkdir()
    code, _, err = _run(capsys, *(a.format(root=tmp_path / "root") for a in argv))
    assert code == 1
    assert err.splitlines() == [f"error: {data}: DRI_DATA_DIR must be a folder, and a file is in the way"]


@pytest.mark.parametrize(
    "url",
    [
        "not a url",
        "localhost:5000",
        "http://",
        "http://h:abc",
        "file:///etc/passwd",
        # Refused, and never shown with its password (which every text's error line did).
        "http://user:PassW0rdXYZ@127.0.0.1:9/",
    ],
)
def test_a_libretranslate_url_that_is_not_one_is_a_usage_error(capsys, tmp_path, url):
    # "not a url" raised urllib's ValueError at the first text: exit 70.
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "a.txt").write_text("The sun attracts the planets.", encoding="utf-8")
    argv = [
        "evaluate",
        "translation",
        str(tmp_path / "c"),
        "--build-from",
        str(texts),
        "--libretranslate",
        url,
    ]
    code, _, err = _run(capsys, *argv, "--out", str(tmp_path / "r"))
    assert code == 2
    assert "argument --libretranslate: " in err.splitlines()[-1] and "W0rdXYZ" not in err
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("value", ["../../etc", "spa,a/b", "spa\nforged"])
def test_a_language_that_is_not_a_code_is_a_usage_error(capsys, tmp_path, value):
    code, _, err = _run(
        capsys,
        "evaluate",
        "translation",
        str(tmp_path / "c"),
        "--build-from",
        str(tmp_path),
        "--languages",
        value,
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 2
    assert "argument --languages: " in err and "not a language code" in err.splitlines()[-1]
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    ("kind", "option", "value"),
    [
        ("translation", "--languages", ""),
        ("translation", "--languages", " , ,"),
        ("analogy", "--sections", ",,"),
    ],
)
def test_an_empty_list_option_of_evaluate_is_a_usage_error(capsys, tmp_path, kind, option, value):
    # Before, an empty list was the default, silently: all five languages, every section.
    code, _, err = _run(
        capsys, "evaluate", kind, str(tmp_path / "c"), option, value, "--out", str(tmp_path / "r")
    )
    assert code == 2
    assert f"argument {option}: " in err.splitlines()[-1] and "names nothing" in err


def test_a_line_break_in_a_text_to_translate_does_not_forge_a_line(capsys, tmp_path):
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "a\nforged.txt").write_text("The sun attracts the planets.", encoding="utf-8")
    argv = ["evaluate", "translation", str(tmp_path / "c"), "--build-from", str(texts), "--languages", "xx"]
    code, out, err = _run(capsys, *argv, "--out", str(tmp_path / "r"))
    assert code == 1  # built nothing: said so (it was evaluated, "roundtrip: missing", exit 2)
    lines = (out + err).splitlines()
    assert not [line for line in lines if line.startswith("forged")]
    assert "error: a\\u000aforged via xx: apertium: no mode known for eng -> xx" in lines


def test_a_bad_text_limit_is_one_line_for_the_command_not_one_per_file(capsys, tmp_path, monkeypatch):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("The cat sat on the mat.", encoding="utf-8")
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "-5")
    code, out, err = _run(capsys, "graph", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))
    assert code not in (0, 70) and out == ""
    assert err.splitlines() == ["error: DRI_MAX_TEXT_CHARS must be a positive whole number, not '-5'"]


@pytest.mark.parametrize("kind", ["loop", "unmakeable"])
def test_a_data_folder_that_cannot_be_made_names_dri_data_dir(capsys, tmp_path, monkeypatch, kind):
    # A loop of links was "a file is in the way"; a path mkdir cannot make said only its errno.
    if kind == "loop":
        data = tmp_path / "a"
        data.symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(data)
        says = "DRI_DATA_DIR must be a folder, and a loop of symbolic links is in the way"
    else:
        data = Path("/proc/1/dri-data")
        says = "DRI_DATA_DIR cannot be made there: No such file or directory"
    monkeypatch.setenv("DRI_DATA_DIR", str(data))
    code, _, err = _run(capsys, "ratings", "show")
    assert code == 1 and err.splitlines() == [f"error: {data}: {says}"]


@pytest.mark.parametrize("command", ["run", "watch"])
def test_a_prefect_api_url_prefect_cannot_read_is_one_line_before_prefect_is_imported(
    capsys, tmp_path, monkeypatch, command
):
    # Prefect's settings refused it as Prefect was imported: "Invalid IPv6 URL", exit 70.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PREFECT_API_URL", "http://u:pw-s3cret@[::1/api")
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "a.txt").write_text("The sun attracts the planets.", encoding="utf-8")
    argv = (
        ["run", str(folder), "--runner", "processes"]
        if command == "run"
        else ["watch", str(tmp_path), "--once"]
    )
    code, _, err = _run(capsys, *argv)
    assert code in (1, 2) and err.splitlines() == [
        "error: PREFECT_API_URL http://[::1/api: an IPv6 host opens with [ and is not closed with ]"
    ]


def test_an_empty_store_uri_is_a_usage_error_and_clears_nothing(capsys, tmp_path, monkeypatch):
    # `dri store --uri "$UNSET" clear --yes` opened the configured store and emptied it.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    for uri in ("", "  "):
        code, out, err = _run(capsys, "store", "--uri", uri, "clear", "--yes")
        assert code == 2 and out == ""
        assert err.splitlines()[-1] == (
            "dri store: error: argument --uri: an empty store URI (leave --uri out for the configured store)"
        )


def test_ratings_show_says_what_is_in_the_stores_place(capsys, tmp_path, monkeypatch):
    # A folder where the ratings file goes was "no ratings stored yet".
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    place = tmp_path / "data" / "ratings" / "ratings.csv"
    code, _, err = _run(capsys, "ratings", "show")
    assert code == 1 and err.startswith("no ratings stored yet")
    place.mkdir(parents=True)
    code, _, err = _run(capsys, "ratings", "show")
    assert code == 1 and err.splitlines() == [f"error: {place}: is a folder, not a regular ratings file"]


def test_a_translation_build_that_built_nothing_leaves_nothing_and_says_so(capsys, tmp_path, monkeypatch):
    # It left originals/ and translation.json, refused every later build of that folder,
    # and evaluated it: "roundtrip: missing", exit 2. "SPA,spa" built one language twice.
    import socket

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "sun.txt").write_text("The sun attracts the planets.\n", encoding="utf-8")
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    corpus = tmp_path / "new"
    argv = ["evaluate", "translation", str(corpus), "--build-from", str(texts), "--languages", "SPA,spa"]
    code, out, err = _run(capsys, *argv, "--libretranslate", url, "-q")
    assert code == 1 and out == "" and not corpus.exists()
    assert err.splitlines() == [
        f"error: sun via spa: {url}/translate: Connection refused",
        f"error: {corpus}: not built: no text came back from any language, so nothing was written "
        "(the lines above say why); run it again when the translator answers",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "texts"]
    # No text to give the translator: it was blamed all the same ("run it again when it answers").
    (texts / "sun.txt").write_bytes(b"")
    code, out, err = _run(capsys, *argv, "--libretranslate", url, "-q")
    assert code == 1 and not corpus.exists()
    assert err.splitlines() == [
        f"error: {texts / 'sun.txt'}: empty file",
        f"error: {corpus}: not built: no text of {texts} could be read (the lines above say why)",
    ]
