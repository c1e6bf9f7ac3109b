"""One store for ROS graphs and similarity results, with two backends.

* **Neo4j** (:class:`store.neo4j_store.Neo4jStore`), over Bolt with the
  official driver, when ``NEO4J_URI`` is set (with ``NEO4J_USER``,
  ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``) or a Prefect Secret block named
  by ``DRI_NEO4J_SECRET_BLOCK`` holds the connection;
* **SQLite** (:class:`store.sqlite_store.SQLiteStore`), the embedded default,
  in ``data/dri.sqlite`` (``DRI_DATA_DIR``), so a fresh machine needs no server.

Both implement :class:`Store` and pass the same contract tests. The schema,
the semantics of each method and the environment are in ``docs/store.md``;
ready Cypher queries in ``docs/cypher.md``. Dr Inventor kept its ROS graphs
in Neo4j too (Hurley et al.,
EGPAI 2016, section 4).

Example
-------
>>> with open_store("sqlite://:memory:") as store:
...     store.corpora()
[]
"""

from __future__ import annotations

import re
from pathlib import Path

from dri.store.base import Store, default_sqlite_path
from dri.store.neo4j_store import NEO4J_SCHEMES, Neo4jSettings, Neo4jStore
from dri.store.records import (
    Analogue,
    ComparisonRecord,
    DocumentRecord,
    EvaluationRecord,
    RunRecord,
    StoreError,
    StoreUnavailable,
    safe_uri,
)
from dri.store.sqlite_store import SQLiteStore

__all__ = [
    "Analogue",
    "ComparisonRecord",
    "DocumentRecord",
    "EvaluationRecord",
    "RunRecord",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "open_store",
]

# "scheme:..." with a scheme of a store or a web server, e.g. "neo4j:secret@host:7687".
_LOOKS_LIKE_URI = re.compile(r"^(bolt|neo4j|sqlite|https?|postgres(ql)?|mysql)(\+[a-z]+)?:", re.IGNORECASE)
#: ``user:password@host[:port][/database]``: a user without "/" or ":" (perhaps
#: empty, perhaps an e-mail address), a colon, anything (a password may hold
#: "/"), then an "@", a host without "/" and perhaps a path without "@".
_LOOKS_LIKE_LOGIN = re.compile(r"^[^/:]*:.*@[^/@]+(/[^@]*)?$")


def open_store(uri: str | None = None, *, create: bool = True) -> Store:
    """The configured store.

    ``uri`` chooses explicitly: a Neo4j URI (``bolt://``, ``neo4j://``, with
    ``+s``/``+ssc``), ``sqlite:///path/to/file.sqlite``, ``sqlite://:memory:``,
    or a plain file path for SQLite. Without it, Neo4j when ``NEO4J_URI`` (or
    the Secret block) is configured, else SQLite at ``data_dir()/dri.sqlite``.
    Raises :class:`StoreError` (one line, naming the server or file) when the
    store cannot be opened. ``create=False`` (for commands that only look)
    refuses to create a SQLite file that does not exist yet.
    """

    if uri:
        if "://" in uri:  # blanks around a URI, not a file name, were part of its port
            uri = uri.strip()
        scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
        if scheme in NEO4J_SCHEMES:
            return Neo4jStore(Neo4jSettings.from_env(uri))  # type: ignore[arg-type]
        if scheme == "sqlite":
            target = uri.split("://", 1)[1]
            if not target.strip():
                # Path("") is ".": the message was ".: no store here".
                raise StoreError(safe_uri(uri), "names no file; use sqlite:///FILE (or sqlite://:memory:)")
            if "?" in target or "#" in target:
                # "sqlite:///x.sqlite?password=…" was a file of that name: "no store here", the password shown.
                shown = safe_uri(
                    re.split("[?#]", uri, maxsplit=1)[0]
                )  # not the query: it may hold a password
                raise StoreError(shown, "a SQLite URI takes no ?query or #fragment; use sqlite:///FILE")
            if "@" in target and not target.startswith("/"):
                # sqlite://user:password@/file: a file has no login, and the words
                # before "@" would be shown as part of its path in every message.
                raise StoreError(
                    safe_uri(uri), "a SQLite store takes no user or password; use sqlite:///FILE"
                )
            return SQLiteStore(target if target == ":memory:" else Path(target), create=create)
        if not scheme and uri.lower().startswith("sqlite:"):
            # "unknown store URI scheme 'sqlite'" contradicted its own advice to use sqlite:///.
            raise StoreError(safe_uri(uri), "a SQLite URI starts sqlite:// ; use sqlite:///FILE")
        named = uri.split(":", 1)[0].lower()
        if not scheme and named in NEO4J_SCHEMES:
            # "bolt:/host" was "unknown store URI scheme 'bolt'", a scheme it knows.
            raise StoreError(safe_uri(uri), f"a Neo4j URI starts {named}:// ; use {named}://HOST:PORT")
        if scheme or _LOOKS_LIKE_URI.match(uri):
            # Also "neo4j:user:password@host" without "//": never a file name to create.
            raise StoreError(
                safe_uri(uri),
                f"unknown store URI scheme {scheme or uri.split(':', 1)[0]!r}; "
                "use bolt://HOST:PORT, neo4j://HOST:PORT or sqlite:///FILE",
            )
        if _LOOKS_LIKE_LOGIN.match(uri):
            # "user:password@host:7687", a URI without its scheme: as a file name
            # it was "no store here", with the password in the message.
            raise StoreError(
                safe_uri(uri),
                "a login and a host without a scheme; use bolt://HOST:PORT or neo4j://HOST:PORT "
                "(with NEO4J_USER and NEO4J_PASSWORD), or sqlite:///FILE for a file of that name",
            )
        return SQLiteStore(Path(uri), create=create)
    settings = Neo4jSettings.from_env()
    if settings is not None:
        return Neo4jStore(settings)
    return SQLiteStore(default_sqlite_path(), create=create)
