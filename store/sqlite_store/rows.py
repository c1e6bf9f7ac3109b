"""Records as the rows the SQL statements take and give: document columns,
candidate inferences (their arguments as JSON), document records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dri.store.base import to_json_text
from dri.store.records import INFERENCE_FIELDS, DocumentRecord

__all__ = ["DOC_COLUMNS", "INFERENCE_COLUMNS", "document", "inference", "inference_row"]

DOC_COLUMNS = "doc_id, graph_id, name, path, kind, extractor_version, title, concepts, relations"

# The inference columns in INFERENCE_FIELDS order ("order" is an SQL keyword).
INFERENCE_COLUMNS = ", ".join("relation_order" if f == "order" else f for f in INFERENCE_FIELDS)


def inference_row(inference: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(to_json_text(inference[f]) if f == "arguments" else inference[f] for f in INFERENCE_FIELDS)


def inference(row: Sequence[Any]) -> dict[str, Any]:
    return {f: json.loads(v) if f == "arguments" else v for f, v in zip(INFERENCE_FIELDS, row)}


def document(row: Sequence[Any], meta: str, corpora: list[str]) -> DocumentRecord:
    doc_id, graph_id, name, path, kind, version, title, concepts, relations = row
    return DocumentRecord(
        doc_id,
        graph_id,
        name,
        path,
        kind,
        version,
        title,
        int(concepts),
        int(relations),
        tuple(corpora),
        json.loads(meta),
    )
