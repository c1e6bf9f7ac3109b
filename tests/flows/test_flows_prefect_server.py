"""flows/prefect_server.py: why a temporary server did not start, from its log."""

from __future__ import annotations

from dri.flows.prefect_server import _reason

TRACEBACK = """\
19:27:52.888 | ERROR   | uvicorn.error - Traceback (most recent call last):
  File "sqlalchemy/engine/base.py", line 149, in __init__
    self._dbapi_connection = engine.raw_connection()
sqlite3.DatabaseError: file is not a database

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "uvicorn/lifespan/on.py", line 86, in main
sqlalchemy.exc.DatabaseError: (sqlite3.DatabaseError) file is not a database
(Background on this error at: https://sqlalche.me/e/20/4xp6)

19:27:52.901 | ERROR   | uvicorn.error - Application startup failed. Exiting.
"""


def test_the_reason_is_the_last_exception_the_server_logged_this_time(tmp_path):
    log = tmp_path / "dri-server.log"
    log.write_text("ValueError: an older start's failure\n" + TRACEBACK, encoding="utf-8")
    earlier = len("ValueError: an older start's failure\n")
    assert (
        _reason(log, earlier)
        == "sqlalchemy.exc.DatabaseError: (sqlite3.DatabaseError) file is not a database"
    )


def test_without_an_exception_the_reason_is_the_last_line_and_without_a_log_it_says_so(tmp_path):
    log = tmp_path / "dri-server.log"
    log.write_text("starting\n\x1b[31mKilled\n\n", encoding="utf-8")
    assert _reason(log, 0) == "\\u001b[31mKilled"  # escaped, as every name in a message is
    log.write_text("", encoding="utf-8")
    assert _reason(log, 0) == "it printed nothing"
    assert _reason(tmp_path / "missing.log", 0).startswith("its log cannot be read (")
