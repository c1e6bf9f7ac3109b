"""The connection to Neo4j: the driver, its errors as one-line store errors,
and managed transactions with retries.

Every write is a managed transaction (``session.execute_write``), which the
driver retries on transient errors (ServiceUnavailable, SessionExpired,
TransientError) with exponential backoff for up to ``retry_seconds``
(``DRI_NEO4J_RETRY_SECONDS``, default 60 s: longer than a server restart).
The retry window is for a server that was reachable and went away: a
server this process has not reached yet is contacted once when the store
opens (:meth:`Neo4jConnection.first_contact`), and a refused or failed
connection then fails at once with :class:`StoreUnavailable`, whose advice
says to start the server or fix ``NEO4J_URI``.
When an operation gives up after the retry window, the server is marked
down in this process: later operations fail at once with
:class:`StoreUnavailable` instead of waiting the window again, after a quick
connection check at most every :data:`DOWN_RECHECK_SECONDS`; the first check
that connects clears the mark.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from dri.store.neo4j_store.settings import Neo4jSettings, check_uri, split_userinfo
from dri.store.records import StoreError, StoreUnavailable, register_secret, safe_uri

__all__ = ["DOWN_RECHECK_SECONDS", "Neo4jConnection", "state_lock"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: After giving up on a server, operations fail at once for this long before
#: checking the connection again (seconds).
DOWN_RECHECK_SECONDS = 5.0

# Per process: the servers this process gave up on (monotonic time of the
# last failed check), and those it has reached.
state_lock = threading.Lock()
_down_since: dict[tuple[str, str], float] = {}
#: Why this process's first contact with a server failed, said again at once within
#: DOWN_RECHECK_SECONDS.
_no_contact: dict[tuple[str, str], str] = {}
_reached: set[tuple[str, str]] = set()


class Neo4jConnection:
    """A driver for one server and database, with the store's error handling."""

    def __init__(self, settings: Neo4jSettings):
        # The driver only when a Neo4j store is opened, not for SQLite.
        import neo4j

        clean, user, password = split_userinfo(settings.uri)
        if clean != settings.uri:
            settings = dataclasses.replace(
                settings,
                uri=clean,
                user=settings.user or user,
                password=settings.password or password,
                login_from=settings.login_from if settings.password else "the login in the store URI",
            )
        register_secret(settings.password)
        check_uri(settings.uri, "store URI")
        self.settings = settings
        self.location = f"Neo4j at {safe_uri(settings.uri)}"
        self._key = (safe_uri(settings.uri), settings.database)
        self.database = settings.database
        self.batch_size = max(1, int(settings.batch_size))
        auth = (settings.user, settings.password) if settings.user and settings.password else None
        with self._errors():
            self._driver = neo4j.GraphDatabase.driver(
                settings.uri,
                auth=auth,
                max_transaction_retry_time=settings.retry_seconds,
                connection_timeout=settings.connection_timeout,
                connection_acquisition_timeout=settings.connection_timeout + settings.retry_seconds,
                notifications_min_severity="OFF",
                user_agent="dri-store",
            )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Driver and server errors as one-line :class:`StoreError`s naming the server."""
        from neo4j import exceptions as ex

        try:
            yield
        except StoreError:
            raise
        except (ex.AuthError, ex.ClientError) as err:
            if (err.code or "").endswith("DatabaseNotFound"):
                # "Graph not found: neo4j" named neither the variable nor what to do.
                raise StoreError(
                    self.location,
                    f"no database {self.settings.database!r} on this server ({self.settings.database_from} "
                    "names it); create it, or set NEO4J_DATABASE to one that is there",
                ) from None
            # Neo4j refuses a password tried too often with a rate limit, not an AuthError.
            if not isinstance(err, ex.AuthError) and "Security.Authentication" not in (err.code or ""):
                raise StoreError(self.location, f"{err.code or 'error'}: {_message(err)}") from None
            raise StoreError(
                self.location,
                f"authentication failed ({_message(err)}); check {self.settings.login_from}",
            ) from None
        except (
            ex.ServiceUnavailable,
            ex.SessionExpired,
            ex.TransientError,
            ex.ConnectionAcquisitionTimeoutError,
        ) as err:
            if not isinstance(err, ex.TransientError):  # a busy server is not a down one
                with state_lock:
                    _down_since[self._key] = time.monotonic()
            raise StoreUnavailable(
                self.location,
                f"unavailable after retrying for up to {self.settings.retry_seconds:g} s: {_message(err)}",
            ) from None
        except ex.Neo4jError as err:
            raise StoreError(self.location, f"{err.code or 'error'}: {_message(err)}") from None
        except (ex.DriverError, ValueError) as err:
            if isinstance(err, ValueError) and "URI" not in str(err) and "scheme" not in str(err):
                raise
            raise StoreError(self.location, _message(err)) from None
        except OSError as err:
            raise StoreError(self.location, f"connection failed: {err}") from None

    def first_contact(self) -> None:
        """Connect now, unless this process has reached the server before: a
        server that refuses the connection (or cannot be found) fails at
        once instead of after the retry window, and a port that accepts the
        connection but never answers Bolt's handshake (an HTTP server waits
        for a request line) within the connection timeout, not the 70 s of
        a connection acquired under the retry window."""
        from neo4j import exceptions as ex
        from neo4j.warnings import PreviewWarning

        with state_lock:
            if self._key in _reached:
                return
            since, failed = _down_since.get(self._key), _no_contact.get(self._key)
        if since is not None and failed and time.monotonic() - since < DOWN_RECHECK_SECONDS:
            # The same command opening the store again (its plan, then its run) waited
            # the whole timeout again for a server that had just not answered.
            raise StoreUnavailable(self.location, failed)
        with self._errors():
            try:
                # The timeout as a keyword is a preview of neo4j 6.4 (pinned); its warning is
                # for the API's stability, not this use.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PreviewWarning)
                    self._driver.verify_connectivity(
                        connection_acquisition_timeout=self.settings.connection_timeout
                    )
            except (ex.ServiceUnavailable, OSError) as err:
                with state_lock:
                    _down_since[self._key] = time.monotonic()
                reason = _message(err)
                if "Connection refused" in reason:
                    reason = "connection refused (is the server running?)"
                with state_lock:
                    _no_contact[self._key] = f"cannot connect: {reason}"
                raise StoreUnavailable(self.location, f"cannot connect: {reason}") from None
        with state_lock:
            _reached.add(self._key)
            _no_contact.pop(self._key, None)

    def _check_down(self) -> None:
        """Fail at once if this process gave up on the server, unless a quick
        connection check (at most every DOWN_RECHECK_SECONDS) finds it back."""
        with state_lock:
            since = _down_since.get(self._key)
        if since is None:
            return
        reason = (
            f"unavailable: gave up after retrying for up to {self.settings.retry_seconds:g} s "
            "and it is still not answering"
        )
        if time.monotonic() - since < DOWN_RECHECK_SECONDS:
            raise StoreUnavailable(self.location, reason)
        try:
            self._driver.verify_connectivity()
        except Exception:
            with state_lock:
                _down_since[self._key] = time.monotonic()
            raise StoreUnavailable(self.location, reason) from None
        with state_lock:
            _down_since.pop(self._key, None)
        log.info("%s answers again", self.location)

    def _write(self, work: Callable[..., T], *args: Any) -> T:
        self._check_down()
        with self._errors(), self._driver.session(database=self.database) as session:
            done: T = session.execute_write(work, *args)
            return done

    def _read(self, query: str, **params: Any) -> list[Any]:
        def work(tx: Any) -> list[Any]:
            return list(tx.run(query, params))

        self._check_down()
        with self._errors(), self._driver.session(database=self.database) as session:
            return session.execute_read(work)

    def _unwind(self, tx: Any, query: str, rows: Sequence[dict[str, Any]], **params: Any) -> None:
        """``query`` (which reads ``$rows``) over ``rows`` in batches of ``batch_size``."""
        for start in range(0, len(rows), self.batch_size):
            tx.run(query, {**params, "rows": list(rows[start : start + self.batch_size])}).consume()

    def close(self) -> None:
        self._driver.close()

    def available(self) -> bool:
        try:
            self._driver.verify_connectivity()
        except Exception:
            with state_lock:
                _down_since[self._key] = time.monotonic()
            return False
        with state_lock:
            _down_since.pop(self._key, None)
        return True


#: What a port that answers without Bolt's handshake is (an HTTP server, the Browser's port).
NOT_BOLT = "the port answers, but not with Bolt's handshake: not a Neo4j Bolt port (the Browser's HTTP port?)"


def _message(err: BaseException) -> str:
    """The driver's message on one line, in words a user can act on: its
    deadline (which need not be the timeout set) and resolved-address
    noise left out."""
    text = " ".join(str(getattr(err, "message", None) or str(err) or type(err).__name__).split())
    if "Bolt handshake" in text:
        return NOT_BOLT
    return re.sub(r"\s*\(deadline Deadline\([^)]*\)\)", "", text)
