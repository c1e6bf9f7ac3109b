"""Where the tool keeps its data, read from the environment.

``DRI_DATA_DIR``   working data: embedded store, caches, reports
                   (default: see below).
``DRI_INCOMING_DIR``  the folder the corpus sensor watches for new corpus
                   folders (default: ``incoming/`` in the data folder).
``DRI_NLTK_DATA``  the nltk_data folder holding WordNet (default:
                   ``nltk_data`` in the default data folder, built by
                   ``scripts/setup-wordnet``).
``DRI_MAX_TEXT_CHARS``  the most characters of text a document may have
                   (default 2,000,000, a long book; see ``extract.reader``;
                   its digits may be grouped by threes, ``2,000,000`` or ``2_000_000``).
``DRI_CLOUGH_CORPUS``  the Clough & Stevenson plagiarism corpus used by tests
                   and benchmarks (default: ``../shared/corpora/clough-stevenson``
                   beside the project folder).

The default data folder is ``data/`` of the source checkout when dri runs
from one (``pyproject.toml`` beside the ``dri`` folder), else the user's data
folder, ``$XDG_DATA_HOME/dri`` (``~/.local/share/dri``): an installed wheel
never writes into site-packages. This module imports nothing of dri, so
every layer may use it.
"""

from __future__ import annotations

import errno
import os
import warnings
from pathlib import Path
from urllib.parse import urlsplit

from dri.errors import SettingsError
from dri.literal import grouped_whole_number

__all__ = [
    "DEBIAN_WORDNET",
    "DEFAULT_CANDIDATES",
    "HOST_NAME_RULE",
    "INLINE_MAX_PAIRS",
    "INLINE_MAX_PARSE",
    "PROJECT_ROOT",
    "cache_dir",
    "checkout_root",
    "clough_stevenson_dir",
    "data_dir",
    "host_name_ok",
    "incoming_dir",
    "max_text_chars",
    "nltk_data_dir",
    "prefect_api_url_problem",
    "prefect_defaults",
    "setting",
    "uri_port_problem",
    "wordnet_source_dir",
]

#: Documents with more text are refused: a whole graph takes about 2 to 5 minutes
#: and 200-250 MB per million characters (parse, encoder, rules; docs/architecture.md),
#: and such graphs are too big to map.
DEFAULT_MAX_TEXT_CHARS = 2_000_000

#: The folder above the ``dri`` package: the source checkout when running from one.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

#: Candidates per target that stage 2 of the two-stage analogy search
#: structure-maps (``dri.flows.search``). Chosen once for all data on the demo
#: corpus, the AnaloBench story bank and Clough & Stevenson, where it keeps
#: the recall of the exhaustive top 10 at 0.9 or more (``docs/search.md``).
DEFAULT_CANDIDATES = 250

#: A corpus run with no more documents to parse and pairs to map than these,
#: and no runner asked for, runs in the calling process without Prefect's
#: server or a worker pool, whose start-up would cost more than the job.
INLINE_MAX_PARSE = 20
INLINE_MAX_PAIRS = 200


def checkout_root() -> Path | None:
    """The source checkout dri runs from, or ``None`` for an installed package."""
    return PROJECT_ROOT if (PROJECT_ROOT / "pyproject.toml").is_file() else None


def _default_data_dir() -> Path:
    checkout = checkout_root()
    if checkout is not None:
        return checkout / "data"
    xdg = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(xdg) / "dri"


def setting(name: str) -> str:
    """The variable ``name`` with the blanks around it dropped, ``""`` when unset:
    a blank ``DRI_DASK_ADDRESS=" "`` counted as a choice of runner, and
    ``DRI_TASK_RUNNER=" inline"`` was no inline run."""
    return (os.environ.get(name) or "").strip()


def _env_path(name: str) -> Path | None:
    """The folder the variable ``name`` names, blanks around it dropped and ``~``
    expanded, or ``None`` when it is unset, empty or blank; a :class:`SettingsError`
    for ``~user`` of no user. Quoted (``DRI_DATA_DIR='~/dri'``) or set
    by a service's environment file, the shell leaves ``~`` as it is: the store
    (which expanded it) and the rest of the data (which did not) went to two
    folders, one of them a literal ``./~`` in the current folder; and a blank
    value made a folder of spaces there."""
    value = (os.environ.get(name) or "").strip()  # " /data/dri" made a folder " " here
    if not value:
        return None
    try:
        return Path(value).expanduser()
    except RuntimeError:  # "~nosuchuser/x": no such user, no home to expand to (was exit 70)
        raise SettingsError(
            f"{name}: {value.split('/', 1)[0][:100]!r} names no user of this machine, so it has no home folder"
        ) from None


def data_dir() -> Path:
    """The data folder, made if missing.

    One that cannot be a folder (``DRI_DATA_DIR`` naming a file, or a path
    under one) is a :class:`NotADirectoryError` whose words name the variable:
    every command reads the data folder, and the bare "File exists" of
    ``mkdir`` did not say which setting was wrong.
    """
    configured = _env_path("DRI_DATA_DIR")
    path = configured or _default_data_dir()
    what = "DRI_DATA_DIR" if configured else "the data folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        # A link in a loop looks like a file in the way to mkdir: say which it is.
        blocker = "a loop of symbolic links" if path.is_symlink() and not path.exists() else "a file"
        raise NotADirectoryError(
            errno.ENOTDIR, f"{what} must be a folder, and {blocker} is in the way", str(path)
        ) from None
    except OSError as err:  # a path that cannot be made (under /proc, a read-only file system)
        raise type(err)(err.errno, f"{what} cannot be made there: {err.strerror or err}", str(path)) from None
    return path


def cache_dir() -> Path:
    path = data_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def incoming_dir() -> Path:
    """The sensor's default root, absolute; created when it is the default
    (it lives in the data folder), left alone when ``DRI_INCOMING_DIR`` names it."""
    configured = _env_path("DRI_INCOMING_DIR")
    if configured:
        return configured.resolve()
    path = (data_dir() / "incoming").resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def nltk_data_dir() -> Path:
    return _env_path("DRI_NLTK_DATA") or _default_data_dir() / "nltk_data"


#: Where Debian's ``wordnet-base`` and ``wordnet-sense-index`` put WordNet 3.0's files.
DEBIAN_WORDNET = Path("/usr/share/wordnet")


def wordnet_source_dir() -> Path:
    """The folder WordNet is set up from: ``DRI_WORDNET_SOURCE``, or :data:`DEBIAN_WORDNET`."""
    return _env_path("DRI_WORDNET_SOURCE") or DEBIAN_WORDNET


def max_text_chars() -> int:
    """``DRI_MAX_TEXT_CHARS``, or :data:`DEFAULT_MAX_TEXT_CHARS`; a :class:`SettingsError`
    naming the variable if it is not a positive whole number."""
    raw = os.environ.get("DRI_MAX_TEXT_CHARS")
    if not raw:
        return DEFAULT_MAX_TEXT_CHARS
    # Digit groups may be marked ("1_000_000", "1,000,000"); other scripts' digits are refused.
    value = grouped_whole_number(raw) or 0
    if value < 1:
        raise SettingsError(f"DRI_MAX_TEXT_CHARS must be a positive whole number, not {raw!r}")
    return value


def clough_stevenson_dir() -> Path:
    default = PROJECT_ROOT.parent / "shared" / "corpora" / "clough-stevenson"
    return _env_path("DRI_CLOUGH_CORPUS") or default


def prefect_defaults(quiet_console: bool) -> None:
    """Offline-friendly Prefect settings, unless the user set them.

    Call before Prefect is imported. Server analytics and client telemetry
    off (``DO_NOT_TRACK``), because the machine may have no route out: the
    temporary server would log a telemetry error and the client would print
    a telemetry notice on a terminal;
    a generous start-up timeout, because a first server start can be slow.
    ``quiet_console`` keeps Prefect's console to warnings for commands that
    print their own progress; the Prefect server still gets every log line.
    """
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    if "PREFECT_HOME" in os.environ and not os.environ["PREFECT_HOME"].strip():
        # Empty, Prefect put its database in the current folder; blank, in a folder
        # named by the blanks. Unset, as every blank variable of dri is.
        del os.environ["PREFECT_HOME"]
    # Prefect warns, two lines on the terminal, when it imports under a
    # PREFECT_HOME it cannot make; a command that uses the home says so in
    # its own one line (the file in the way), and one that does not need not.
    warnings.filterwarnings(
        "ignore", message="Failed to create the Prefect home directory", category=UserWarning
    )
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    # Progress of long documents (dri.progress) goes to the run's logs, in workers too.
    os.environ.setdefault("PREFECT_LOGGING_EXTRA_LOGGERS", "dri.progress")
    if quiet_console:
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_FLOW_RUNS_LEVEL", "WARNING")
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_TASK_RUNS_LEVEL", "WARNING")


def uri_port_problem(uri: str) -> str | None:
    """Why :func:`urllib.parse.urlsplit` cannot read ``uri``'s host and port, in
    words that quote none of it; None if it can. The parser's own words may
    quote a piece of the password: a "/" in it ends the host part early, and
    the rest is read as the port ("Port could not be cast to integer value as 'S3cr3t'")."""
    try:
        _ = urlsplit(uri).port
    except ValueError as err:
        if "IPv6" in str(err):
            return "an IPv6 host opens with [ and is not closed with ]"
        escape = (
            " (a password holding /, ?, # or @ is written percent-encoded: / as %2F)" if "@" in uri else ""
        )
        return f"the port must be a number from 1 to 65535{escape}"
    return None


#: What :func:`host_name_ok` asks of a host name, for messages.
HOST_NAME_RULE = "not a host name (each dot-separated part 1 to 63 characters)"


def host_name_ok(host: str) -> bool:
    """Whether ``host`` is an IP address (``::1`` has colons) or a name that the
    IDNA codec of :mod:`socket` takes (no empty part, none over 63 characters)."""
    if ":" in host:
        return True
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


def prefect_api_url_problem(url: str) -> str | None:
    """Why ``url`` (``PREFECT_API_URL``) is not an http:// or https:// URL with a
    host name and a port, in words that quote none of it; None if it is.
    Prefect's settings refuse some such URLs when Prefect is first imported
    (an IPv6 host without its "]": a traceback)."""
    problem = uri_port_problem(url)
    if problem is None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problem = "not an http:// or https:// URL with a host"
        elif not host_name_ok(parts.hostname):
            problem = HOST_NAME_RULE
    return problem
