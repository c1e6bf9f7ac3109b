"""The runners' shared settings (``flows/execution.py``)."""

from __future__ import annotations

import pytest

from dri.errors import SettingsError
from dri.flows.execution import local_workers


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "DRI_WORKERS must be a whole number, not 'abc'"),
        ("1.5", "DRI_WORKERS must be a whole number, not '1.5'"),
        ("0", "DRI_WORKERS must be at least 1, not '0'"),
        ("-3", "DRI_WORKERS must be at least 1, not '-3'"),
    ],
)
def test_a_bad_worker_count_is_a_settings_error_naming_the_variable(monkeypatch, value, message):
    # dri evaluate sizes its batches by it: 'abc' was a ValueError, '0' a division by zero (exit 70).
    monkeypatch.setenv("DRI_WORKERS", value)
    with pytest.raises(SettingsError) as err:
        local_workers()
    assert str(err.value) == message


def test_the_worker_count_is_the_variable_else_the_cpus(monkeypatch):
    monkeypatch.setenv("DRI_WORKERS", "3")
    assert local_workers() == 3
    monkeypatch.delenv("DRI_WORKERS")
    assert local_workers() >= 1
