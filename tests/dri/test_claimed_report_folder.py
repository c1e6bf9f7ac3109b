"""``claimed_report_folder``: one writer of a report folder at a time, whatever its data folder."""

from __future__ import annotations

from dri.commands.folders import claimed_report_folder


def test_a_folder_claimed_under_another_data_folder_is_refused(tmp_path, monkeypatch) -> None:
    # The lock was a file of the data folder: commands of two data folders
    # both claimed one --out, and the second report replaced the first.
    out = tmp_path / "out"
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "a"))
    with claimed_report_folder(out) as first:
        monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "b"))
        with claimed_report_folder(out) as second:
            assert (first, second) == (True, False)
    with claimed_report_folder(out) as again:
        assert again


def test_a_folder_is_claimed_when_the_data_folder_cannot_be_made(tmp_path, monkeypatch) -> None:
    # No lock at all was taken then (its locks folder could not be made): two such commands both wrote.
    blocker = tmp_path / "a file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("DRI_DATA_DIR", str(blocker / "data"))
    out = tmp_path / "out"
    with claimed_report_folder(out) as first, claimed_report_folder(out) as second:
        assert (first, second) == (True, False)


def test_a_claim_leaves_nothing_in_the_users_folders(tmp_path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    with claimed_report_folder(mine) as claimed:
        assert claimed
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    # A folder made for the claim and left empty goes, its parents made with it too.
    with claimed_report_folder(tmp_path / "new" / "report") as claimed:
        assert claimed and (tmp_path / "new" / "report").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
    with claimed_report_folder(tmp_path / "kept") as claimed:
        (tmp_path / "kept" / "summary.md").write_text("a report", encoding="utf-8")
    assert (tmp_path / "kept" / "summary.md").is_file()


def test_a_folder_that_cannot_be_made_is_not_claimed_but_not_refused(tmp_path) -> None:
    # The report's own write says what is wrong with it, as before.
    blocked = tmp_path / "file"
    blocked.write_text("x", encoding="utf-8")
    with claimed_report_folder(blocked / "out") as claimed:
        assert claimed
    assert blocked.read_text(encoding="utf-8") == "x"
