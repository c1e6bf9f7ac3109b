"""The corpus sensor: notice new corpus folders and announce them.

A *corpus folder* is a direct sub-folder of a watched root holding at least
one document (see :func:`dri.corpora.text.is_document`). Each new one is
announced once with a Prefect event ``corpus.arrived`` whose payload carries
``corpus_dir``; the ``on-new-corpus`` deployment in ``prefect.yaml`` has a
trigger on that event and runs the corpus flow on the folder.

The folders already announced are kept in a small JSON file under
``data_dir()/sensor/`` (one per watched root), written atomically after each
announcement and guarded by a lock file, so a restarted or overlapping sensor
never announces a folder twice for the same content. A folder is announced
only after delivery is confirmed by the server, and only once nothing in it
has changed for ``min_age`` seconds, so a corpus that is still being copied
is not run half finished.

A folder's record keeps a signature of its files (each one's path, size,
modification time and status-change time, :func:`folder_state`: the last
changes with a file's permissions or owner too, so a document that failed
as unreadable is tried again once it is made readable). A folder announced before whose
signature has changed since, because a writer paused longer than
``min_age`` or a file was edited, added or removed, is announced again
(``changed=True``, payload ``"changed": true``) once it has settled: its run
re-extracts the documents whose content changed and redoes their
comparisons, replacing the old ones, and removes the members whose files
went (deleted or renamed) (:mod:`dri.flows.replaced`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TypedDict

from prefect import State, flow, get_run_logger
from prefect.events import Event, Resource
from prefect.events.clients import get_events_client
from prefect.states import Failed
from prefect.utilities.asyncutils import run_coro_as_sync

from dri import atomic
from dri.corpora.text import is_document
from dri.errors import ProjectError, one_line
from dri.files import NAME_BYTES, FileRefused, name_that_fits, read_limited, what_is_there
from dri.flows.failures import ReportedFailure
from dri.literal import printable
from dri.settings import data_dir, incoming_dir
from dri.store.records import redact

__all__ = [
    "EVENT_NAME",
    "Emitter",
    "MissingRoot",
    "SensorResult",
    "SensorStateError",
    "corpus_sensor_flow",
    "find_new_corpora",
    "folder_state",
    "load_seen",
    "prefect_emitter",
    "scan",
    "state_path",
    "watch",
]

EVENT_NAME = "corpus.arrived"


class Emitter(Protocol):
    """``emit(corpus_dir, n_documents, changed=False)``; must raise if the event was
    not delivered. ``changed``: the folder was announced before and has changed since.
    What it returns, if anything, is kept in the folder's record (:class:`SeenRecord`)."""

    def __call__(self, folder: str, n_documents: int, /, *, changed: bool = False) -> SeenRecord | None: ...


class MissingRoot(ReportedFailure, ProjectError, NotADirectoryError):
    """The watched root is not a folder; the message names it and the way out
    (dri's own words: a root gone during a watch was "MissingRoot: …")."""

    def __init__(self, root: Path) -> None:
        super().__init__(
            f"{root}: the sensor's root is not a folder; create it (mkdir -p {root}) "
            "or point the sensor at another folder (the deployment's root parameter, "
            "or DRI_INCOMING_DIR for the default)"
        )
        self.root = root


@dataclass
class SensorResult:
    """What one scan of a root found."""

    root: str
    announced: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # announced again: changed since last time
    already_seen: int = 0
    waiting: list[str] = field(default_factory=list)  # changed less than min_age ago
    errors: list[str] = field(default_factory=list)


#: What a signature is made of: 2 since status-change times are in it (1: path, size
#: and modification time). A record of another kind takes the folder as it is.
SIGNATURE_KIND = 2

#: Bytes the seen-state file may hold: a record is about 200 bytes, so half a million folders.
MAX_STATE_BYTES = 100_000_000


def state_path(root: str | Path, state_dir: str | Path | None = None) -> Path:
    """The seen-state file for ``root``: one per watched root, keyed by its path,
    and named by it as far as a file name allows (a root of a 250-byte name
    could not be watched: "File name too long" for its lock)."""
    if state_dir is None:
        state_dir = data_dir() / "sensor"
    root = Path(root).resolve()
    key = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    fixed = len(f"seen--{key}.json.lock")
    return Path(state_dir) / f"seen-{name_that_fits(root.name or 'root', NAME_BYTES - fixed)}-{key}.json"


class SeenRecord(TypedDict, total=False):
    """What the state file keeps of an announced folder (``signature`` only
    since signatures were kept)."""

    announced: str  # ISO time of the announcement
    documents: int
    signature: str  # FolderState.signature
    signature_kind: int  # SIGNATURE_KIND of the signature; absent: 1
    stored: bool  # dri watch --run: whether the run stored the corpus


def load_seen(path: Path) -> dict[str, SeenRecord]:
    """Folders already announced, ``{absolute path: record}``; empty if none."""
    if not os.path.lexists(path):
        return {}
    if not path.exists():
        # A link to nothing (or a loop of links) is not "no state": every corpus was announced
        # again, and saving the state then failed on the link ("No such file or directory").
        there = what_is_there(path)
        raise SensorStateError(
            path,
            "a symbolic link to a file that is not there" if there == "a symbolic link to nothing" else there,
        )
    try:
        # Read within bounds: a link to /dev/zero grew until the process was killed, a FIFO waited for ever.
        data = json.loads(read_limited(path, MAX_STATE_BYTES).decode("utf-8"))
    except FileRefused as err:
        # Starting over would re-announce every corpus; refuse instead.
        raise SensorStateError(path, err.reason) from err
    except ValueError as err:
        raise SensorStateError(path, one_line(err)) from err
    except RecursionError:
        raise SensorStateError(path, "nested too deeply to read") from None
    seen = data.get("seen", {}) if isinstance(data, dict) else None
    if not isinstance(seen, dict) or not all(isinstance(record, dict) for record in seen.values()):
        # JSON of another shape (a list, null, a record that is not an object): refused the same way.
        raise SensorStateError(path, 'not {"seen": {folder: record}}')
    return seen


class SensorStateError(ProjectError, RuntimeError):
    """The sensor's state file cannot be read: one line naming it, with what to do."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(
            f"{path}: unreadable sensor state ({reason}); restore it, or move it away to start over "
            "(every corpus folder is then announced again)"
        )


def _save_seen(path: Path, root: Path, seen: dict[str, SeenRecord]) -> None:
    atomic.write_text(
        path, json.dumps({"root": str(root), "seen": seen}, indent=1, sort_keys=True), sync=True
    )


@dataclass(frozen=True)
class FolderState:
    """What one look at a corpus folder saw."""

    documents: int
    age: float  # seconds since anything in it last changed
    signature: str  # of every file's path, size, modification and status-change times


#: Seconds a modification time may lie ahead of this clock (another machine's,
#: over a network) and still count for a folder's age.
CLOCK_SKEW = 5.0


def _entries(folder: Path) -> list[Path]:
    """Every path under ``folder``, links to folders not followed, as
    ``Path.rglob("*")`` gives them, but a folder that cannot be read is an
    error: ``rglob`` passed over it without a word, and a corpus in it was
    never run."""

    def refuse(err: OSError) -> None:
        raise err

    found: list[Path] = []
    for top, folders, files in os.walk(folder, onerror=refuse):
        found.extend(Path(top, name) for name in (*folders, *files))
    return sorted(found)


def folder_state(folder: Path, now: float) -> FolderState:
    """The documents, age and signature of ``folder`` (hidden files count too:
    an editor's temporary file means a writer is at work). A modification
    time in the future (a copied file, another machine's clock) says nothing
    of the age: the age was negative, below every ``min_age``, and the corpus
    was "still changing" for ever."""
    n, newest = 0, -math.inf  # no time of the past: an age without end, as settled as can be
    if (own := folder.stat().st_mtime) <= now + CLOCK_SKEW:
        newest = own
    digest = hashlib.sha256()
    for path in _entries(folder):
        # lstat: a dangling link is the corpus's problem, reported by its run, not the sensor's.
        info = path.lstat()
        if info.st_mtime <= now + CLOCK_SKEW:
            newest = max(newest, info.st_mtime)
        if not stat.S_ISDIR(info.st_mode):
            # fsencode: a file name that is not UTF-8 is its own bytes here.
            digest.update(
                os.fsencode(
                    f"{path.relative_to(folder)}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\n"
                )
            )
        if (path.is_file() or path.is_symlink()) and is_document(path):
            n += 1
    return FolderState(n, max(0.0, now - newest), digest.hexdigest()[:32])


def find_new_corpora(
    root: str | Path, seen: dict[str, SeenRecord], min_age: float = 0.0, now: float | None = None
) -> tuple[list[tuple[str, int, str]], list[str], list[str]]:
    """``(ready, waiting, errors)``: settled corpus folders that are new or
    changed since their record in ``seen``, with their document counts and
    signatures; such folders still changing; and one-line errors."""
    root = Path(root).resolve()
    now = time.time() if now is None else now
    ready, waiting, errors = [], [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        key = str(folder)
        try:
            if folder.is_symlink() and root.is_relative_to(folder.resolve()):
                # Its run would be of the root's own folder (or one above): every corpus at once.
                errors.append(
                    f"{folder}: a link to {folder.resolve()}, which holds the watched folder; left out"
                )
                continue
            state = folder_state(folder, now)
        except FileNotFoundError:  # a file or folder in it went as it was read: a writer at work
            waiting.append(key)
            continue
        except RecursionError:
            errors.append(f"{folder}: folders nested too deeply to read")
            continue
        except (OSError, RuntimeError) as err:  # RuntimeError: a loop of links (Path.resolve)
            failed = err.filename if isinstance(err, OSError) else None  # the file in it that failed
            where = f" ({printable(failed)})" if failed and str(failed) != str(folder) else ""
            errors.append(f"{folder}: {getattr(err, 'strerror', None) or one_line(err)}{where}")
            continue
        known = seen.get(key)
        if state.documents == 0 or (known is not None and known.get("signature") == state.signature):
            continue
        if state.age >= min_age:
            ready.append((key, state.documents, state.signature))
        else:
            waiting.append(key)
    return ready, waiting, errors


def scan(
    root: str | Path,
    emit: Emitter,
    *,
    min_age: float = 0.0,
    state_dir: str | Path | None = None,
    gone: Callable[[dict[str, SeenRecord]], set[str]] | None = None,
) -> SensorResult:
    """Announce every new corpus folder under ``root`` once; see the module doc.
    ``gone`` names, of the folders seen before (with their records), those
    whose results are gone (``dri watch --run``: a store cleared, or another
    one): they count as new."""
    root_path = Path(root).resolve()
    if not root_path.is_dir():
        raise MissingRoot(root_path)
    path = state_path(root_path, state_dir)
    result = SensorResult(root=str(root_path))
    with atomic.locked(path):
        seen = load_seen(path)
        for folder in sorted(gone(seen)) if gone and seen else ():
            del seen[folder]
        ready, result.waiting, result.errors = find_new_corpora(root_path, seen, min_age)
        result.already_seen = len(seen)
        for folder, n, signature in ready:
            if (
                folder in seen
                and seen[folder].get("signature_kind", 1 if "signature" in seen[folder] else 0)
                != SIGNATURE_KIND
            ):
                # Recorded before signatures were kept, or of another kind: what its content was
                # then cannot be told, so it is taken as it is (not every folder run again).
                seen[folder]["signature"] = signature
                seen[folder]["signature_kind"] = SIGNATURE_KIND
                _save_seen(path, root_path, seen)
                continue
            changed = folder in seen
            try:
                kept = emit(folder, n, changed=changed)
            except Exception as err:
                # Redacted: the words of Prefect's client may quote PREFECT_API_URL's login.
                result.errors.append(redact(f"{folder}: not announced: {one_line(err)}"))
                continue
            seen[folder] = {
                "announced": datetime.now(UTC).isoformat(),
                "documents": n,
                "signature": signature,
                "signature_kind": SIGNATURE_KIND,
                **(kept or {}),
            }
            # Saved per folder: a crash later in the loop must not re-announce this one.
            _save_seen(path, root_path, seen)
            result.announced.append(folder)
            if changed:
                result.changed.append(folder)
    return result


def prefect_emitter(folder: str, n_documents: int, *, changed: bool = False) -> None:
    """Send ``corpus.arrived`` for ``folder`` and wait until the server has it."""
    event = Event(
        event=EVENT_NAME,
        resource=Resource(
            {
                "prefect.resource.id": f"dri.corpus.{folder}",
                "prefect.resource.name": Path(folder).name,
            }
        ),
        payload={"corpus_dir": folder, "documents": n_documents, "changed": changed},
    )

    async def send() -> None:
        # checkpoint_every=1: emit() returns only after the server's pong, so
        # the folder is never marked seen for an event that was lost.
        async with get_events_client(checkpoint_every=1) as client:
            await client.emit(event)

    run_coro_as_sync(send())


def watch(
    root: str | Path,
    *,
    interval: float = 60.0,
    once: bool = False,
    min_age: float = 30.0,
    emit: Emitter = prefect_emitter,
    on_scan: Callable[[SensorResult], None] | None = None,
    state_dir: str | Path | None = None,
    gone: Callable[[dict[str, SeenRecord]], set[str]] | None = None,
) -> SensorResult:
    """Scan ``root`` every ``interval`` seconds (once with ``once``); returns the last scan."""
    while True:
        result = scan(root, emit, min_age=min_age, state_dir=state_dir, gone=gone)
        if on_scan:
            on_scan(result)
        if once:
            return result
        time.sleep(interval)


@flow(name="corpus-sensor", description="Announce new corpus folders with corpus.arrived events.")
def corpus_sensor_flow(root: str | None = None, min_age_seconds: float = 30.0) -> list[str] | State:
    """One scan of ``root`` (default :func:`dri.settings.incoming_dir`, i.e.
    ``DRI_DATA_DIR/incoming`` of the process running it) as a Prefect flow;
    the ``corpus-sensor`` deployment runs it on an interval. Returns the folders
    announced; a missing root fails the run with one line saying what to do."""
    logger = get_run_logger()
    where = Path(root).resolve() if root else incoming_dir()
    try:
        result = scan(where, prefect_emitter, min_age=min_age_seconds)
    except MissingRoot as err:
        logger.error("%s", err)
        return Failed(message=str(err), data=err)
    for folder in result.announced:
        what = "changed since its last run" if folder in result.changed else "new corpus"
        logger.info("%s: %s, emitted %s", folder, what, EVENT_NAME)
    for folder in result.waiting:
        logger.info("%s: still changing, will look again", folder)
    for error in result.errors:
        logger.error("%s", error)
    logger.info("%d new, %d seen before", len(result.announced), result.already_seen)
    return result.announced
