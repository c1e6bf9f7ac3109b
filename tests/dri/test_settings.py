"""The folders the environment names (``dri.settings``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dri import settings
from dri.errors import SettingsError


def test_a_data_folder_given_with_a_tilde_is_under_home(tmp_path, monkeypatch):
    # Quoted, the shell left "~" as it was: the store went to $HOME/dri and the rest
    # of the data to a folder "./~/dri" in the current folder.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRI_DATA_DIR", "~/dri")
    assert settings.data_dir() == tmp_path / "home" / "dri"
    assert (tmp_path / "home" / "dri").is_dir() and not (tmp_path / "~").exists()
    monkeypatch.setenv("DRI_NLTK_DATA", "~/nltk_data")
    assert settings.nltk_data_dir() == tmp_path / "home" / "nltk_data"
    monkeypatch.setenv("DRI_INCOMING_DIR", "~/incoming")
    assert settings.incoming_dir() == (tmp_path / "home" / "incoming").resolve()


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_data_folder_is_unset(tmp_path, monkeypatch, blank):
    # "   " made a folder of three spaces in the current folder.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRI_DATA_DIR", blank)
    monkeypatch.setenv("DRI_NLTK_DATA", blank)
    assert settings.data_dir() == settings._default_data_dir()
    assert settings.nltk_data_dir() == settings._default_data_dir() / "nltk_data"
    assert list(Path(tmp_path).iterdir()) == []


def test_a_home_of_no_user_is_a_settings_error_naming_the_variable(monkeypatch):
    # Path.expanduser's RuntimeError was exit 70, and the bug log's own data folder a second traceback.
    monkeypatch.setenv("DRI_DATA_DIR", "~nosuchuser9/x")
    with pytest.raises(SettingsError) as err:
        settings.data_dir()
    assert str(err.value) == (
        "DRI_DATA_DIR: '~nosuchuser9' names no user of this machine, so it has no home folder"
    )


def test_blanks_around_a_folder_are_dropped(tmp_path, monkeypatch):
    # " /data/dri" made a folder " " in the current folder, and the summary named the other.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRI_DATA_DIR", f"  {tmp_path / 'dri'} \t")
    assert settings.data_dir() == tmp_path / "dri"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dri"]


@pytest.mark.parametrize("value", ["", "   "])
def test_a_blank_prefect_home_is_unset(monkeypatch, value):
    # Empty, Prefect put its database in the current folder; blank, in a folder named by the blanks.
    monkeypatch.setenv("PREFECT_HOME", value)
    settings.prefect_defaults(quiet_console=False)
    assert "PREFECT_HOME" not in __import__("os").environ
    monkeypatch.setenv("PREFECT_HOME", "/tmp/chosen")
    settings.prefect_defaults(quiet_console=False)
    assert __import__("os").environ["PREFECT_HOME"] == "/tmp/chosen"


@pytest.mark.parametrize(
    ("raw", "chars"),
    [
        ("100,000", 100_000),
        ("2,000,000", 2_000_000),
        ("1_000_000", 1_000_000),
        (" 999 ", 999),
        ("1000", 1000),
    ],
)
def test_the_text_limit_takes_digits_grouped_by_threes(monkeypatch, raw, chars):
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", raw)
    assert settings.max_text_chars() == chars


@pytest.mark.parametrize(
    "raw", ["1,,0", ",100", "100,", "10,00", "1,0000", "1__0", "1_0", "1,000_000", "1 000"]
)
def test_the_text_limit_refuses_digit_marks_out_of_place(monkeypatch, raw):
    # Every "," and "_" was dropped wherever it stood: "1,,0" was a limit of 10 characters.
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", raw)
    with pytest.raises(SettingsError) as err:
        settings.max_text_chars()
    assert str(err.value) == f"DRI_MAX_TEXT_CHARS must be a positive whole number, not {raw!r}"
