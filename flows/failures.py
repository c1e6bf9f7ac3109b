"""Failures a flow has already reported, kept out of Prefect's engine traceback.

A flow run that ends in a ``Failed`` state whose data is an exception makes
Prefect's engine raise that exception when the run finishes, and the engine
logs it as ``Engine execution exited with unexpected exception`` with its
whole traceback (``prefect.flow_engine.run_flow``). For the failures below
the flow has already logged one line per failed item and a headline, so the
traceback says nothing new: :class:`QuietEngineFilter`, installed on Prefect's
flow-run logger when this module is imported, drops those records. Any other
exception keeps its traceback.
"""

from __future__ import annotations

import logging

__all__ = ["QuietEngineFilter", "ReportedFailure"]


class ReportedFailure(Exception):
    """A failure whose every line the flow has already logged."""


class QuietEngineFilter(logging.Filter):
    """Drops log records whose exception is a :class:`ReportedFailure`."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ReportedFailure)


def _install() -> None:
    # The engine logs through an adapter over the "prefect.flow_runs" logger;
    # a logger's filters see the records logged on it, before any handler.
    logger = logging.getLogger("prefect.flow_runs")
    if not any(isinstance(f, QuietEngineFilter) for f in logger.filters):
        logger.addFilter(QuietEngineFilter())


_install()
