"""How to reach Neo4j: the URI, user, password and database from the
environment or a Prefect Secret block, checked before the driver sees them.

User info in a URI (``bolt://user:password@host``) is split off, since the
driver refuses it and its error would quote the password; every password is
registered as a secret, so that no message or log shows it.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from dri.literal import decimal_number
from dri.settings import (
    HOST_NAME_RULE,
    host_name_ok,
    prefect_api_url_problem,
    prefect_defaults,
    uri_port_problem,
)
from dri.store.base import env
from dri.store.records import StoreError, register_secret, safe_uri

__all__ = [
    "DEFAULT_CONNECTION_TIMEOUT",
    "DEFAULT_RETRY_SECONDS",
    "NEO4J_SCHEMES",
    "Neo4jSettings",
    "check_uri",
    "split_userinfo",
]

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
#: How long one transaction is retried on transient errors, by default (seconds).
DEFAULT_RETRY_SECONDS = 60.0
DEFAULT_CONNECTION_TIMEOUT = 10.0


@dataclass(frozen=True)
class Neo4jSettings:
    """How to reach Neo4j. The password never appears in ``repr`` or logs."""

    uri: str
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    database: str = "neo4j"
    #: Upper bound on the driver's retries of one transaction, in seconds.
    retry_seconds: float = DEFAULT_RETRY_SECONDS
    connection_timeout: float = DEFAULT_CONNECTION_TIMEOUT
    #: Rows per ``UNWIND $rows`` statement; 1 gives one write per row (for benchmarks).
    batch_size: int = 10_000
    #: Where the login came from, for the advice of a failed authentication.
    login_from: str = "NEO4J_USER and NEO4J_PASSWORD"
    #: Where the database name came from, for the message of a database not there.
    database_from: str = "the default"

    @classmethod
    def from_env(cls, uri: str | None = None) -> Neo4jSettings | None:
        """Settings from ``NEO4J_URI``/``USER``/``PASSWORD``/``DATABASE``, completed
        by the Prefect Secret block named in ``DRI_NEO4J_SECRET_BLOCK``;
        ``None`` when no URI is configured anywhere."""
        secret = _secret_block(env("DRI_NEO4J_SECRET_BLOCK"))
        register_secret(env("NEO4J_PASSWORD"))
        register_secret(secret.get("password"))
        where = "store URI" if uri else "NEO4J_URI" if env("NEO4J_URI") else "the Secret block's uri"
        uri = uri or env("NEO4J_URI") or secret.get("uri")
        if not uri:
            return None
        uri, uri_user, uri_password = split_userinfo(str(uri))
        check_uri(uri, where)
        password = env("NEO4J_PASSWORD") or uri_password or secret.get("password")
        login_from = (
            "NEO4J_USER and NEO4J_PASSWORD"
            if env("NEO4J_PASSWORD") or not password
            else f"the login in {where}"
            if uri_password
            else "the Secret block's user and password"
        )
        # Blanks around the name ("neo4j ") made "Graph not found: neo4j" of a database that is there.
        database, database_from = (env("NEO4J_DATABASE") or "").strip(), "NEO4J_DATABASE"
        if not database:
            database, database_from = str(secret.get("database") or ""), "the Secret block's database"
        if not database:
            database_from = "the default"
        return cls(
            uri=uri,
            user=env("NEO4J_USER") or uri_user or secret.get("user") or secret.get("username"),
            password=password,
            login_from=login_from,
            database=database or "neo4j",
            database_from=database_from,
            retry_seconds=_env_seconds("DRI_NEO4J_RETRY_SECONDS", DEFAULT_RETRY_SECONDS, zero=True),
            connection_timeout=_env_seconds("DRI_NEO4J_CONNECTION_TIMEOUT", DEFAULT_CONNECTION_TIMEOUT),
        )


#: The longest duration a variable may give: a day. The driver's socket refused 1e10
#: seconds with an OverflowError ("timestamp out of range"), a traceback, exit 70.
MAX_ENV_SECONDS = 86_400.0
#: The shortest duration a variable that cannot be 0 may give.
MIN_ENV_SECONDS = 0.01


def _env_seconds(name: str, default: float, *, zero: bool = False) -> float:
    """A duration from the environment; a one-line :class:`StoreError` naming
    the variable if it is not a finite number from 0 (or just above) to
    :data:`MAX_ENV_SECONDS`."""
    raw = env(name)
    if raw is None:
        return default
    number = decimal_number(raw)
    value = math.nan if number is None else number
    # Under MIN_ENV_SECONDS (1e-300, say) the driver gave up at once with an opaque
    # "50N42: Unexpected error", naming neither the variable nor the cause.
    least_value = 0.0 if zero else MIN_ENV_SECONDS
    if not math.isfinite(value) or value < least_value or value > MAX_ENV_SECONDS:
        least = "0 or more" if zero else f"at least {MIN_ENV_SECONDS:g}"
        raise StoreError(
            name, f"must be a number of seconds, {least} and at most {MAX_ENV_SECONDS:,.0f}, not {raw!r}"
        )
    return value


def check_uri(uri: str, where: str = "NEO4J_URI") -> None:
    """Raise a one-line :class:`StoreError` naming ``where`` unless the driver
    can use ``uri``: a Neo4j scheme, ``//``, a host and a numeric port. The
    message shows the URI without its user info, however malformed."""
    shown = safe_uri(uri)
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    hint = "expected bolt://HOST:PORT or neo4j://HOST:PORT (+s or +ssc for TLS)"
    if scheme not in NEO4J_SCHEMES:
        raise StoreError(where, f"{shown!r} is not a Neo4j URI; {hint}")
    problem = uri_port_problem(uri)
    if problem:
        if "@" in uri:  # the login's "/" cut the host short: the host shown alone looked right
            shown = shown.replace("://", "://***@", 1) if "://" in shown else shown
        raise StoreError(where, f"{shown!r}: {problem}")
    parts = urlsplit(uri)
    port = parts.port
    if not parts.hostname:
        raise StoreError(where, f"{shown!r} names no host; {hint}")
    if not host_name_ok(parts.hostname):
        # The driver's IDNA encoding raised UnicodeError at connect time: exit 70.
        raise StoreError(where, f"{shown!r}: {HOST_NAME_RULE}")
    if port == 0:
        raise StoreError(where, f"{shown!r}: the port must be a number from 1 to 65535")
    if scheme.startswith("neo4j") and (problem := _routing_context_problem(parts.query)):
        # The server answered such a context with "50N42: Unexpected error ... see debug log".
        raise StoreError(
            where, f"{shown!r}: {problem}; a neo4j:// URI takes ?key=value&key2=value2 (or nothing)"
        )
    if scheme.startswith("bolt") and (parts.path not in ("", "/") or parts.query or parts.fragment):
        # The server answers a direct connection given a routing context with its
        # "50N42: Unexpected error ... see debug log", which says nothing to fix.
        raise StoreError(
            where,
            f"{shown!r}: a bolt:// URI takes no path or ?query (a routing context is for neo4j://); {hint}",
        )


def _routing_context_problem(query: str) -> str | None:
    """Why the query of a ``neo4j://`` URI is no routing context, or None: the
    driver sends it to the server as pairs of a key and a value, each key once,
    and ``address`` is the driver's own."""
    seen: set[str] = set()
    for part in query.split("&") if query else []:
        key, equals, value = part.partition("=")
        if not key or not equals or not value:
            return f"the routing context {part!r} is not key=value"
        if key in seen:
            return f"the routing context names {key!r} twice"
        if key == "address":
            return "the routing context names 'address', which the driver sets itself"
        seen.add(key)
    return None


def split_userinfo(uri: str) -> tuple[str, str | None, str | None]:
    """``(uri without user:password@, user, password)``. The driver refuses
    user info in a URI, and its error message would quote the password."""
    try:
        parts = urlsplit(uri)
        if "@" not in parts.netloc:
            return uri, None, None
        user, password = parts.username, parts.password
        host = parts.netloc.rsplit("@", 1)[1]
    except ValueError:
        return uri, None, None
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    if not host:  # urlunsplit drops the "//" of an empty host: "bolt:" was "not a Neo4j URI"
        clean = clean.replace(":", "://", 1)
    return clean, unquote(user) if user else None, unquote(password) if password else None


def _secret_block(name: str | None) -> dict[str, Any]:
    """The content of a Prefect Secret block: a JSON object with any of uri,
    user, password and database, or a bare password."""
    if not name:
        return {}
    url = os.environ.get("PREFECT_API_URL")
    problem = prefect_api_url_problem(url) if url else None
    if url and problem:  # Prefect's own import would stop with a traceback
        raise StoreError(
            f"Prefect Secret block {name!r}", f"cannot load it: PREFECT_API_URL {safe_uri(url)}: {problem}"
        )
    # Offline, quiet: without them Prefect's in-process server logged its telemetry's failures.
    prefect_defaults(quiet_console=True)
    try:
        # Prefect only when a Secret block is named.
        from prefect.blocks.system import Secret

        block = Secret.load(name)
        # Prefect's load() returns a coroutine only when called from async code.
        assert isinstance(block, Secret)
        value = block.get()
    except Exception as err:
        raise StoreError(f"Prefect Secret block {name!r}", f"cannot load it: {err}") from None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"password": value}
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    return {"password": str(value)}
