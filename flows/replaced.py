"""Documents of a corpus whose content changed since its last run.

A corpus keeps each document under its name (a membership keyed by corpus
and name). When a file's bytes change, its run stores the new content as a
new document (ids are content hashes) and moves the name to it; the old
content's comparisons in the run would then linger beside the new ones.
:func:`drop_replaced`, called after the documents are stored and before the
pairs are planned, removes the run's comparisons of the contents that lost
their name, so the run maps the new ones in their place: one comparison per
pair of names, never the old and the new side by side (``dri watch`` re-runs
a folder that changed, :mod:`dri.flows.sensor`).
"""

from __future__ import annotations

import logging

from dri.flows import tasks as steps
from dri.store import StoreError

__all__ = ["drop_replaced", "members"]

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
            dropped = steps.worker_store().drop_comparisons(run_id, replaced)
        except StoreError:
            return []  # kept: a re-run replaces them once the store answers
        log.info("%d document(s) of %s changed; %d old comparison(s) dropped", len(replaced), corpus, dropped)
    return replaced
