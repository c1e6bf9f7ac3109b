"""Documents in, ROS graphs out: reading, sentence splitting, spaCy parsing, triples.

The text-mining front end of the Dr Inventor analogy system (Hurley, Abgaz,
Ali and O'Donoghue, EGPAI 2016, section 4) rebuilt on pdfminer.six and spaCy:

* :func:`read_document` reads plain text (UTF-8, or Windows-1252 with a
  warning) or a PDF (title, abstract, sections; page furniture and references
  dropped) into a :class:`Document` of :class:`Sentence` objects;
* :func:`build_graphs` parses the sentences with ``nlp.pipe`` and applies the
  subject-verb-object rules of :mod:`extract.rules` to build one ROS graph
  (:mod:`graphs.ros`) per document.

Decisions, with their reasons, are in the module docstrings: triples with a
missing argument are dropped (:mod:`extract.rules`), pronouns resolve to the
nearest agreeing noun, relative pronouns to the noun their clause modifies,
compound nouns join with "_" and relation labels use verb lemmas
(``base_on``, ``try_to_identify``, ``take_over``).

>>> from dri.extract import graph_from_text                      # doctest: +SKIP
>>> from dri.graphs import triples
>>> triples(graph_from_text("The planets are attracted by the sun."))  # doctest: +SKIP
[('sun', 'attract', 'planet')]
"""

from dri.extract.build import build_graphs, graph_from_path, graph_from_text, load_nlp
from dri.extract.document import EXTRACTOR_VERSION, Document, DocumentError, Sentence
from dri.extract.reader import document_from_text, read_document

__all__ = [
    "EXTRACTOR_VERSION",
    "Document",
    "DocumentError",
    "Sentence",
    "build_graphs",
    "document_from_text",
    "graph_from_path",
    "graph_from_text",
    "load_nlp",
    "read_document",
]
