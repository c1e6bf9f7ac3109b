"""How far a long step after an evaluation's rows is: its statistics (a
bootstrap's resamples, a ranking's queries) and the writing of its report.

A step tells :func:`tell_progress` ``done`` of ``total``; whoever listens
inside :func:`statistics_progress` (``dri evaluate``'s progress lines) hears
it. A module of its own so that the report's writer and the statistics both
tell it without importing each other.

>>> heard = []
>>> with statistics_progress(lambda *report: heard.append(report)):
...     tell_progress(1, 2, REPORT_FILES)
>>> heard
[(1, 2, 'report files written')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["REPORT_FILES", "StatisticsListener", "statistics_progress", "tell_progress"]

#: ``listener(done, total, what)``: ``done`` of ``total`` steps of a statistic's
#: work (``what``: "bootstrap resamples", "queries ranked") or of the report's
#: files (:data:`REPORT_FILES`) so far (:func:`statistics_progress`).
StatisticsListener = Callable[[int, int, str], None]

#: What :func:`dri.metrics.report.write_report` tells the listeners it counts.
REPORT_FILES = "report files written"

_listeners: list[StatisticsListener] = []


@contextmanager
def statistics_progress(listener: StatisticsListener) -> Iterator[None]:
    """Call ``listener(done, total, what)`` as the statistics computed inside the
    block go: a bootstrap when it starts (``done`` 0), every
    :data:`~dri.metrics.validity.REPORT_EVERY` resamples and at its last one;
    a ranking likewise for the queries it ranks; a report at each of its files.
    A long statistics phase can then say how far it is."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)


def tell_progress(done: int, total: int, what: str) -> None:
    """Report ``done`` of ``total`` steps of ``what`` to the :func:`statistics_progress` listeners."""
    for listener in list(_listeners):
        listener(done, total, what)
