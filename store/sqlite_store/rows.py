"""Records as the rows the SQL statements take and give: document columns,
candidate inferences (their arguments as JSON), document records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dri.store.base import to_json_text
from dri.store.records import INFERENCE_FIELDS, DocumentRecord, stored_inference, stored_json, stored_number

__all__ = ["DOC_COLUMNS", "INFERENCE_COLUMNS", "document", "inference", "inference_row"]

DOC_COLUMNS = "doc_id, graph_id, name, path, kind, extractor_version, title, concepts, relations"

# The inference columns in INFERENCE_FIELDS order ("order" is an SQL keyword).
INFERENCE_COLUMNS = ", ".join("relation_order" if f == "order" else f for f in INFERENCE_FIELDS)


def inference_row(inference: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(to_json_text(inference[f]) if f == "arguments" else inference[f] for f in INFERENCE_FIELDS)


def inference(row: Sequence[Any], where: str, what: str) -> dict[str, Any]:
    """An inference of the comparison ``what`` names, from its row of ``where``."""
    return stored_inference(where, what, dict(zip(INFERENCE_FIELDS, row)))


def document(row: Sequence[Any], meta: str, corpora: list[str], where: str) -> DocumentRecord:
    """A document record from its row of the store at ``where``; a damaged
    row is a :class:`dri.store.records.DamagedRow` naming it."""
    doc_id, graph_id, name, path, kind, version, title, concepts, relations = row
    what = f"document {doc_id}"
    return DocumentRecord(
        doc_id,
        graph_id,
        name,
        path,
        kind,
        version,
        title,
        int(stored_number(where, f"{what}, concepts", concepts)),
        int(stored_number(where, f"{what}, relations", relations)),
        tuple(corpora),
        stored_json(where, f"{what}, meta", meta),
    )
