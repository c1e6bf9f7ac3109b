"""Failures a flow has already reported, kept out of Prefect's engine traceback.

A flow run that ends in a ``Failed`` state whose data is an exception makes
Prefect's engine raise that exception when the run finishes, and the engine
logs it as ``Engine execution exited with unexpected exception`` with its
whole traceback (``prefect.flow_engine.run_flow``). For the failures below
the flow has already logged one line per failed item and a headline, so the
traceback says nothing new: :class:`QuietEngineFilter`, installed on Prefect's
flow-run logger when this module is imported, drops those records. Any other
exception keeps its traceback.

A run stopped by Ctrl-C or SIGTERM makes the engine log ``Crash detected!
Execution was aborted by an interrupt signal`` for the flow and each task
under way; the command says "interrupted" in one line of its own, so
:class:`InterruptChatterFilter` moves those records to the ``dri`` log file
(logger ``dri.flows.interrupt``, folded: not on the console), and so do
the engine's and the stopping task runners' warnings and errors of any
kind once the command has caught a signal (:func:`dri.flows.runners.interrupted_by`): an interrupt raised
inside a library that catches every exception comes back as another
exception (on the Dask runner, pydantic's ``PydanticSerializationError``).
The run's state on the Prefect server still says it crashed, and why.
"""

from __future__ import annotations

import logging

from dri.quiet_logs import FOLDED

__all__ = ["InterruptChatterFilter", "QuietEngineFilter", "ReportedFailure"]

#: The task runners of dri.flows.runners that a signal stops, as Prefect names their loggers.
STOPPING_RUNNERS = ("stoppingprocesspool", "stoppingdask")
#: The engine's crash messages for a run stopped by a signal (prefect.states).
_SIGNALLED = ("Execution was aborted by an interrupt signal", "Execution was aborted by a termination signal")


class ReportedFailure(Exception):
    """A failure whose every line the flow has already logged."""


class QuietEngineFilter(logging.Filter):
    """Drops log records whose exception is a :class:`ReportedFailure`."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ReportedFailure)


class InterruptChatterFilter(logging.Filter):
    """Moves the engine's crash records of a signalled run to the ``dri`` log file."""

    def filter(self, record: logging.LogRecord) -> bool:
        from dri.flows.runners import interrupted_by  # not at import: runners imports Prefect's parts late

        message = record.getMessage()
        signalled = interrupted_by() is not None and record.levelno >= logging.WARNING
        crashed = message.startswith("Crash detected!") and any(s in message for s in _SIGNALLED)
        if not (signalled or crashed):
            return True
        logging.getLogger("dri.flows.interrupt").warning("%s: %s", record.name, message, extra={FOLDED: True})
        return False


def _install() -> None:
    # The engine logs through adapters over the "prefect.flow_runs" and
    # "prefect.task_runs" loggers; a logger's filters see the records logged
    # on it, before any handler.
    flows = logging.getLogger("prefect.flow_runs")
    for logger, kind in ((flows, QuietEngineFilter), (flows, InterruptChatterFilter)):
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())
    # The task runners log on "prefect.task_runner.<class name, lower case, less
    # TaskRunner>": a pool stopped by a signal may warn that its log forwarding
    # did not stop in time, beside the command's own "interrupted" line.
    for name in ("prefect.task_runs", *(f"prefect.task_runner.{r}" for r in STOPPING_RUNNERS)):
        logger = logging.getLogger(name)
        if not any(isinstance(f, InterruptChatterFilter) for f in logger.filters):
            logger.addFilter(InterruptChatterFilter())


_install()
