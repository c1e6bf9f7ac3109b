"""The folders the environment names (``dri.settings``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dri import settings


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
