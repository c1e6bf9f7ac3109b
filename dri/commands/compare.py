"""``dri compare A B``: map one document onto another and score the analogy.

A and B may be text files, PDFs or stored ROS graphs (``.json`` written by
``dri graph --out``). Prints the scores (the Analogy Similarity, the content
similarity of the sentence encoder, Jaccard, weighted Jaccard, semantic,
conceptual and relational similarity) and the mapping table: source term,
target term, Lin, generic space (with "(loose)" for a concept pair outside
the matched structure), then the candidate inferences:
source relations the mapping leaves out, carried over into B's terms, best
supported first (``[new: x]`` marks an entity B lacks; docs/mapping.md).
``--json`` prints the same as one JSON object. ``--html FILE`` also writes a
page that works offline: the scores, the mapping picture (the two graphs side
by side, mapped pairs linked and coloured by Lin), the mapping table and the
candidate inferences; ``--svg FILE`` writes the picture alone. A bad input
gets a one-line error naming the file and the reason, and the exit status is 1;
an ``--html`` or ``--svg`` that is a folder, A, B or the other page is refused
before comparing (exit 2).

A text or PDF read before (the same bytes, this extractor version) is not
parsed again: its graph, with the encoder vectors the comparison computed,
is kept in ``data/cache/graphs.sqlite`` (:mod:`extract.kept_graphs`), so a
second ``dri compare`` of the same files loads neither spaCy nor the encoder.
A first read is parsed on the second core (:mod:`extract.parse_ahead`) while
the command loads WordNet and encodes the documents' sentences.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx

from dri import atomic
from dri.commands.folders import given_file, output_file, overwrites_a_database
from dri.errors import ProjectError, SettingsError
from dri.extract import Document, DocumentError, build_graphs, read_document
from dri.extract.build import document_text
from dri.extract.document import content_ids
from dri.extract.kept_graphs import GraphCache
from dri.extract.parse_ahead import parse_ahead
from dri.extract.reader import DEFAULT_MAX_BYTES, refuse_too_long
from dri.files import FileRefused, read_limited
from dri.graphs import NotAGraph, load_json
from dri.literal import echo, printable, storable
from dri.mapping.content import FAR_CONTENT, SENTENCE_VECTORS, packed_sentence_vectors
from dri.mapping.encoder import MODEL_SHA256, load_in_background
from dri.mapping.mapper import MappingTooLarge
from dri.mapping.profiles import DEFAULT_PROFILE, PROFILES
from dri.mapping.wordnet import WordNetSetupError, wordnet
from dri.mapping.wordnet_data import is_built as wordnet_is_built
from dri.metrics import compare
from dri.settings import data_dir, max_text_chars

if TYPE_CHECKING:
    from dri.mapping.inference import CandidateInference
    from dri.metrics.scores import Comparison

__all__ = [
    "add_profile_option",
    "format_comparison",
    "format_inferences",
    "load_graph",
    "register",
    "run_compare",
]

#: Candidate inferences listed by ``dri compare`` (all of them are in ``--json``).
SHOWN_INFERENCES = 20


def add_profile_option(p: argparse.ArgumentParser) -> None:
    """``--profile NAME``: the mapping profile (docs/mapping.md)."""
    p.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=None,
        help=f"mapping profile: 'paper' reproduces the EGPAI 2016 paper (default: {DEFAULT_PROFILE})",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "compare",
        help="map document A onto document B and score the analogy",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("source", type=given_file, metavar="A", help="source: text, PDF or graph JSON")
    p.add_argument("target", type=given_file, metavar="B", help="target: text, PDF or graph JSON")
    p.add_argument("--json", action="store_true", help="print the scores and mapping as JSON")
    p.add_argument(
        "--html", type=output_file, metavar="FILE", help="also write the comparison as an HTML page"
    )
    p.add_argument("--svg", type=output_file, metavar="FILE", help="also write the mapping picture as SVG")
    add_profile_option(p)
    p.set_defaults(handler=run_compare)


class InputError(ProjectError):
    """One line: ``<path>: <reason>``."""


def load_graph(path: Path, kept: GraphCache | None = None) -> nx.DiGraph:
    """A ROS graph from a stored graph JSON, a text file or a PDF (from ``kept``
    if the file's bytes were read before)."""
    return _load(Path(path), kept).graph


@dataclass
class _Loaded:
    graph: nx.DiGraph
    #: Characters of text, if the graph was built now from a file read without a warning.
    new_chars: int | None = None


def _load(path: Path, kept: GraphCache | None) -> _Loaded:
    found = _read(path, kept)
    if isinstance(found, _Loaded):
        return found
    # A new document's vectors are encoded by the comparison: the encoder loads
    # on a second core while spaCy loads and parses on this one.
    load_in_background()
    return _parsed([found], build_graphs([found]))[0]


def _read(path: Path, kept: GraphCache | None) -> _Loaded | Document:
    """The graph of a stored graph JSON or of a file read before, else the file's
    document, to be parsed; :class:`InputError` for a file refused."""
    if path.suffix.lower() == ".json":
        try:
            graph = load_json(path)
            text = graph.graph.get("text")
            # The text a stored graph carries is read as a document's is (the
            # encoder ran over 2.7 MB of it for a minute, whatever DRI_MAX_TEXT_CHARS said).
            refuse_too_long(printable(path), text if isinstance(text, str) else "")
            return _Loaded(graph)
        except FileRefused as err:
            raise InputError(str(err)) from None
        except NotAGraph as err:
            raise InputError(f"{printable(path)}: not a stored ROS graph ({err.reason})") from None
        except DocumentError as err:
            raise InputError(str(err)) from None
    graph = _kept_graph(path, kept) if kept is not None else None
    if graph is not None:
        return _Loaded(graph)
    try:
        return read_document(path)
    except DocumentError as err:
        raise InputError(str(err)) from err


def _parsed(documents: list[Document], graphs: Iterable[nx.DiGraph]) -> list[_Loaded]:
    return [
        _Loaded(graph, None if document.warnings else document.chars)
        for document, graph in zip(documents, graphs, strict=True)
    ]


def _load_all(paths: list[Path], kept: GraphCache | None) -> list[_Loaded] | None:
    """The graphs of ``paths``, or None after a line for each file refused.

    The files to parse are parsed by a forked child (:mod:`extract.parse_ahead`)
    while this process loads the sentence encoder and WordNet's tables, which
    the comparison needs next: 0.2 s of the first ``dri compare`` of two stories.
    """
    found: list[_Loaded | Document] = []
    for path in paths:
        try:
            found.append(_read(path, kept))
        except InputError as err:
            echo(f"error: {err}", file=sys.stderr, one_line=True)
    if len(found) < len(paths):
        return None
    documents = [item for item in found if isinstance(item, Document)]
    if not documents:
        return [item for item in found if isinstance(item, _Loaded)]
    encoded: dict[str, str] = {}
    with parse_ahead(documents) as ahead:
        load_in_background()  # after the fork: a forked child has none of the parent's threads
        if ahead.started:
            encoded = _prepare_comparison(documents)
        graphs = ahead.graphs()
    parsed = _parsed(documents, graphs if graphs is not None else build_graphs(documents))
    for item in parsed:
        text = item.graph.graph.get("text")
        if isinstance(text, str) and text in encoded:
            item.graph.graph[SENTENCE_VECTORS] = encoded[text]
    rest = iter(parsed)
    return [item if isinstance(item, _Loaded) else next(rest) for item in found]


def _prepare_comparison(documents: list[Document]) -> dict[str, str]:
    """What the comparison needs that the parse does not: WordNet's tables, if
    WordNet is set up, and the documents' sentence vectors (by the text of their
    graphs). A failure is left to the comparison to report in its own words."""
    try:
        if wordnet_is_built():  # setting it up is the comparison's to do, once the files are parsed
            wordnet()
        texts = {text for text in map(document_text, documents) if text.strip()}
        return {text: packed_sentence_vectors(text) for text in texts}
    except Exception:  # the comparison loads them again and says why it cannot
        return {}


def _kept_graph(path: Path, kept: GraphCache) -> nx.DiGraph | None:
    """The kept graph of the file's bytes, or None (the file is then read in full,
    which also says in its own words why a file is refused)."""
    try:
        data = read_limited(path, DEFAULT_MAX_BYTES)
        limit = max_text_chars()
    except (FileRefused, SettingsError):
        return None
    found = kept.get(content_ids(data)[1]) if data else None
    if found is None or found.chars > limit:
        return None
    # Named as a fresh read names it (graphs.ros.new_graph): storable text.
    found.graph.graph.update(path=storable(str(path)), name=storable(path.name))
    return found.graph


def kept_graphs() -> GraphCache | None:
    """The graphs kept in the data folder (extract/kept_graphs.py), or None without one."""
    try:
        return GraphCache(data_dir() / "cache" / "graphs.sqlite", variant=MODEL_SHA256)
    except Exception:  # a data folder that cannot be made: every file is parsed
        return None


def _distance(content: float) -> str:
    """How far apart the two texts' topics are, as the content similarity says."""
    if content < FAR_CONTENT:
        return f"under {FAR_CONTENT:.2f}: about different things, so a high AS is a far analogy"
    return f"{FAR_CONTENT:.2f} or more: about the same things"


def format_comparison(comparison: Comparison) -> str:
    s, m = comparison.scores, comparison.mapping
    lines = [
        # The names on one line: a line break in one must not start a line of its own.
        f"source: {printable(m.source_name or '?')} ({m.source_size} nodes)   "
        f"target: {printable(m.target_name or '?')} ({m.target_size} nodes)",
        f"analogy similarity (AS)  {s.analogy_similarity:.4f}",
        f"content similarity       {s.content:.4f}   (sentence encoder; {_distance(s.content)})",
        f"jaccard                  {s.jaccard:.4f}",
        f"weighted jaccard         {s.weighted_jaccard:.4f}",
        f"semantic similarity      {s.semantic:.4f}",
        f"conceptual similarity    {s.conceptual:.4f}   ({s.mapped_concepts} concept pairs)",
        f"relational similarity    {s.relational:.4f}   ({s.mapped_relations} relation pairs)",
        f"mapping time             {m.seconds * 1000:.1f} ms   (profile {m.profile or '?'})",
    ]
    if s.message:
        lines.append(f"note: {s.message}")
    if m.pairs:
        rows = [("source term", "target term", "lin", "generic space")]
        for kind in ("relation", "concept"):
            rows += [
                (
                    # One row a pair, and widths as printed: a lemma of a graph JSON may hold a line break.
                    printable(p.source_lemma),
                    printable(p.target_lemma),
                    f"{p.lin:.3f}",
                    printable(p.generic or "-") + (" (loose)" if p.loose else ""),
                )
                for p in m.pairs
                if p.kind == kind
            ]
        widths = [max(len(r[c]) for r in rows) for c in range(4)]
        lines.append("")
        for n, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
    lines += format_inferences(comparison.inferences)
    return "\n".join(lines)


def format_inferences(inferences: list[CandidateInference], shown: int = SHOWN_INFERENCES) -> list[str]:
    """The "Candidate inferences" section: support, the inference in the target's terms,
    and the source statement it comes from."""
    if not inferences:
        return []
    lines = ["", f"Candidate inferences ({len(inferences)}; support, in the target's terms <- source)"]
    texts = [printable(ci.text()) for ci in inferences[:shown]]
    width = max(len(t) for t in texts)
    for ci, text in zip(inferences, texts):
        lines.append(f"  {ci.support:6.3f}  {text.ljust(width)}  <- {printable(ci.source_text())}")
    if len(inferences) > shown:
        lines.append(f"  ... {len(inferences) - shown} more (--json lists them all)")
    return lines


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (through links, ``..`` or a second name),
    also before either is written (two spellings of one new page were two files)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def _page_refusal(args: argparse.Namespace) -> str | None:
    """Why the ``--html``/``--svg`` paths cannot be written, found before the comparison.

    A page written over A or B would destroy the input it describes, and
    ``--html`` and ``--svg`` on one path would leave only the picture.
    """
    pages = [(flag, getattr(args, flag)) for flag in ("html", "svg") if getattr(args, flag) is not None]
    for flag, path in pages:
        if not str(path).strip() or path.is_dir():
            return f"{printable(path)}: --{flag} must name a file, not a folder"
        # Found after the whole comparison, as the page was written.
        folder = Path(os.path.realpath(path)).parent
        if not folder.is_dir():
            missing = "does not exist" if not folder.exists() else "is not a folder"
            return f"{printable(path)}: --{flag} names a file in {printable(folder)}, which {missing}"
        if not os.access(folder, os.W_OK | os.X_OK):
            return (
                f"{printable(path)}: --{flag} cannot be written: its folder {printable(folder)} is read-only"
            )
        for role, given in (("A", args.source), ("B", args.target)):
            if path == given or _same_file(path, given):
                return f"{printable(path)}: --{flag} would overwrite {role}, the file compared; choose another name"
        database = overwrites_a_database(path)
        if database:
            return f"{printable(path)}: --{flag} would overwrite it: {database}; choose another name"
    if len(pages) == 2 and (pages[0][1] == pages[1][1] or _same_file(pages[0][1], pages[1][1])):
        return f"{printable(pages[0][1])}: --html and --svg name one file; give each its own"
    return None


def run_compare(args: argparse.Namespace) -> int:
    refusal = _page_refusal(args)
    if refusal:
        echo(f"error: {refusal}", file=sys.stderr, one_line=True)
        return 2
    max_text_chars()  # a bad setting is one line for the command, not one for each file
    kept = kept_graphs()
    loaded = _load_all([args.source, args.target], kept)
    if loaded is None:
        return 1

    graphs = [item.graph for item in loaded]
    try:
        comparison = compare(*graphs, profile=args.profile)
    except WordNetSetupError as err:
        echo(f"error: {err}", file=sys.stderr, one_line=True)
        return 1
    except MappingTooLarge as err:
        echo(
            f"error: {args.source} -> {args.target}: {err}; what to do: {err.advice}",
            file=sys.stderr,
            one_line=True,
        )
        return 1
    if kept is not None:
        # After the comparison, so the graphs keep the encoder vectors it computed.
        for item in loaded:
            if item.new_chars is not None:
                kept.put(item.graph, item.new_chars)
        kept.close()
    # The pages before the printing: a reader that goes away (``| head``) ends
    # the command at its first line, and the pages would not be written.
    status = _write_pages(comparison, graphs, args.html, args.svg) if args.html or args.svg else 0
    if args.json:
        echo(json.dumps(comparison.to_dict(), ensure_ascii=False, indent=1))
    else:
        echo(format_comparison(comparison))
    return status


def _write_pages(
    comparison: Comparison, graphs: list[nx.DiGraph], page: Path | None, svg: Path | None
) -> int:
    """The ``--html`` page and the ``--svg`` picture of ``comparison``; 1 if one cannot be written."""
    # Here, not at the top: jinja2 is a hundredth of a second a command that writes no page.
    from dri.metrics.pages import comparison_page, mapping_view

    view = mapping_view(comparison, *graphs)
    assert view.picture is not None  # both graphs were given
    wanted = {page: comparison_page(view) if page else "", svg: view.picture.svg}
    status = 0
    for path, text in wanted.items():
        if path is None:
            continue
        try:
            atomic.write_text(path, text)  # whole: a browser reloading it never shows half a page
        except OSError as err:
            echo(f"error: {path}: cannot write: {err.strerror or err}", file=sys.stderr, one_line=True)
            status = 1
    return status
