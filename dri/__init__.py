"""dri: Dr Inventor-style analogy and document-similarity pipeline.

The public API is one import::

    from dri import compare, graph_from_text

    comparison = compare(graph_from_text("The sun attracts the planets."),
                         graph_from_text("The nucleus attracts the electrons."))
    comparison.scores.analogy_similarity

Each name is imported from its subpackage on first use (PEP 562), so
``import dri`` -- which every ``import dri.<subpackage>`` runs first -- loads
neither spaCy nor Prefect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dri.lazy import lazy_exports

if TYPE_CHECKING:
    from dri.evaluate import analogy_search, evaluate_plagiarism, evaluate_translation
    from dri.extract import graph_from_path, graph_from_text, read_document
    from dri.flows.pipeline import run_corpus
    from dri.mapping import map_graphs
    from dri.metrics import compare
    from dri.store import open_store

__version__ = "0.1.0"

#: Public name -> the module it comes from.
_EXPORTS = {
    "analogy_search": "dri.evaluate",
    "compare": "dri.metrics",
    "evaluate_plagiarism": "dri.evaluate",
    "evaluate_translation": "dri.evaluate",
    "graph_from_path": "dri.extract",
    "graph_from_text": "dri.extract",
    "map_graphs": "dri.mapping",
    "open_store": "dri.store",
    "read_document": "dri.extract",
    "run_corpus": "dri.flows.pipeline",
}

__all__ = [
    "__version__",
    "analogy_search",
    "compare",
    "evaluate_plagiarism",
    "evaluate_translation",
    "graph_from_path",
    "graph_from_text",
    "map_graphs",
    "open_store",
    "read_document",
    "run_corpus",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
