"""Documents of a corpus whose content changed, or whose file went, since its last run.

A corpus keeps each document under its name (a membership keyed by corpus
and name). When a file's bytes change, its run stores the new content as a
new document (ids are content hashes) and moves the name to it; the old
content's comparisons in the run would then linger beside the new ones.
:func:`drop_replaced`, called after the documents are stored and before the
pairs are planned, removes the run's comparisons of the contents that lost
their name, so the run maps the new ones in their place: one comparison per
pair of names, never the old and the new side by side (``dri watch`` re-runs
a folder that changed, :mod:`dri.flows.sensor`); an old content that no
corpus holds any more goes from the store, as a deleted file's does.

A file deleted from the folder, or renamed inside it, leaves its old name
behind as a membership; :func:`drop_departed` removes such names (with
:meth:`dri.store.Store.drop_members`), after the documents are stored and
before the pairs are planned, with the run's comparisons of their contents:
a renamed file's pairs are mapped again under its new name (which may pair
them the other way round, so keeping the old ones would store a pair
twice), and a deleted file's content goes from the store when no corpus
holds it any more.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable

from dri.flows import tasks as steps
from dri.literal import storable
from dri.store import StoreError

__all__ = ["drop_departed", "drop_replaced", "members"]

log = logging.getLogger(__name__)


def members(corpus: str) -> dict[str, str]:
    """``{name: doc_id}`` of ``corpus`` as stored now (empty if the store cannot say)."""
    try:
        return {d.name: d.doc_id for d in steps.worker_store().documents(corpus)}
    except StoreError:
        return {}  # the run reports an unusable store itself


def drop_replaced(corpus: str, run_id: str, before: dict[str, str]) -> list[str]:
    """Remove run ``run_id``'s comparisons of the documents that ``corpus`` held
    in ``before`` and that a new content has replaced under their name since;
    returns those documents' ids."""
    if not before:
        return []
    after = members(corpus)
    current = set(after.values())
    replaced = sorted({old for name, old in before.items() if after.get(name, old) != old} - current)
    if replaced:
        try:
            store = steps.worker_store()
            dropped = store.drop_comparisons(run_id, replaced)
            # An old content that no corpus holds now goes, as a deleted file's does:
            # kept, it was a second document under the file's name ("names 2 documents").
            unheld = store.drop_unheld(replaced)
        except StoreError:
            return []  # kept: a re-run replaces them once the store answers
        log.info(
            "%d document(s) of %s changed; %d old comparison(s) and %d old document(s) dropped",
            len(replaced),
            corpus,
            dropped + unheld.comparisons,
            unheld.documents,
        )
    return replaced


def _gone(path: str, root: str, kept: set[str]) -> bool:
    """Whether the file a membership names under ``root`` is gone (not merely
    unreadable, or refused by this run: those keep their memberships)."""
    if path in kept or not path.startswith(storable(root).rstrip(os.sep) + os.sep):
        return False
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def drop_departed(corpus: str, root: str, run_id: str, paths: Iterable[str]) -> list[str]:
    """Remove the members of ``corpus`` whose files under ``root`` are gone (not
    in ``paths``, the documents the run found, and not there any more), with
    run ``run_id``'s comparisons of their contents; returns their names."""
    kept = {storable(p) for p in paths}  # as the members' paths are stored
    try:
        store = steps.worker_store()
        gone = sorted({d.name for d in store.documents(corpus) if _gone(d.path, root, kept)})
        if not gone:
            return []
        dropped = store.drop_members(corpus, gone, run_id)
    except StoreError:
        return []  # kept: a re-run drops them once the store answers
    log.info(
        "%d file(s) of %s gone from its folder; %d old comparison(s) and %d document(s) dropped",
        len(gone),
        corpus,
        dropped.comparisons,
        dropped.documents,
    )
    return gone
