"""``dri graph FILE...``: turn documents into ROS graphs.

Prints one summary line per document. ``--out DIR`` writes each graph as JSON
(default) or GraphML; ``--png`` draws it. A bad file gets a one-line error on
stderr, the rest of the batch carries on, and the exit status is 1 if any
file failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from dri.commands.folders import (
    file_in_the_way,
    given_file,
    not_a_folder,
    output_folder,
    output_name,
    overwrites_a_database,
    system_folder_refusal,
)
from dri.extract import DocumentError, build_graphs, read_document
from dri.graphs import save_json, summary
from dri.graphs.export import draw_png, write_graphml
from dri.literal import echo, printable
from dri.settings import max_text_chars

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["register", "run_graph"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "graph",
        help="turn texts and PDFs into ROS graphs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", type=given_file, metavar="FILE")
    p.add_argument("--out", type=output_folder, help="folder to write each graph to")
    p.add_argument("--format", choices=["json", "graphml"], default="json", help="format written with --out")
    p.add_argument(
        "--png",
        type=output_name,
        metavar="PATH",
        # A str, not a Path: a Path drops the trailing "/" that says "a folder".
        help="draw the graph: a PNG file for one input, a folder for several "
        "(or for one, given as an existing folder or a path ending in /)",
    )
    p.set_defaults(handler=run_graph)


def _png_path(given: str, name: str, many: bool) -> Path:
    target = Path(given)
    if many or given.endswith(("/", os.sep)) or target.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return target / f"{name}.png"
    target.parent.mkdir(parents=True, exist_ok=True)  # as --out and a --png folder are made
    return target


class _InputInTheWay(Exception):
    """An output path that is one of the command's own input files."""


def _refuse_an_input(target: Path, inputs: set[str]) -> None:
    """:class:`_InputInTheWay` when ``target`` is one of ``inputs`` (real paths): a graph
    or picture written there would destroy a document given (``dri graph x.txt --png
    x.txt``, or a text named ``x.json`` with ``--out`` its own folder); or a SQLite
    database (the store)."""
    if os.path.realpath(target) in inputs:
        raise _InputInTheWay(f"{printable(target)} is an input file of this command; choose another output")
    database = overwrites_a_database(target)
    if database:
        raise _InputInTheWay(f"{printable(target)}: {database}; choose another output")


def _show(line: str, gone: bool) -> bool:
    """Print ``line`` unless the reader of the output went away (``| head``);
    True once it has. The graphs are written all the same: a closed pipe
    ends the lines, not the batch."""
    if gone:
        return True
    try:
        echo(line, one_line=True)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nothing more can be shown; the interpreter's last flush goes nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return True
    return False


def _png_folder_refusal(args: argparse.Namespace) -> str | None:
    """Why ``--png`` cannot be the folder of the pictures it must be (several
    documents, or a name ending in "/"): a file is in the way. Found as the
    first picture was written, it was mkdir's "File exists", once a document."""
    if not args.png:
        return None
    target = Path(args.png)
    folder = len(args.files) > 1 or args.png.endswith(("/", os.sep))
    if folder or target.is_dir():
        in_system = system_folder_refusal(target)
        if in_system:
            return f"--png {in_system}"
    in_the_way = file_in_the_way(target.parent)
    if in_the_way is not None:  # "Not a directory", once a document, after the work
        return (
            f"{printable(args.png)}: --png cannot be made: {printable(in_the_way)} is "
            f"{not_a_folder(in_the_way)}, not a folder"
        )
    if folder and (target.is_symlink() or target.exists()) and not target.is_dir():
        what = "a link to nothing" if not target.exists() else "a file"
        return f"{printable(args.png)}: --png must be a folder for the pictures, and {what} is in the way"
    if not folder and not target.is_dir() and target.suffix and target.suffix.lower() != ".png":
        # PNG bytes in "pic.svg" or "pic.json": a file no reader of its kind opens.
        return f"{printable(args.png)}: --png writes a PNG picture; give a name ending in .png"
    return None


def run_graph(args: argparse.Namespace) -> int:
    max_text_chars()  # a bad setting is one line for the command, not one for each file
    refusal = _png_folder_refusal(args)
    if refusal:
        echo(f"error: {refusal}", file=sys.stderr, one_line=True)
        return 2
    documents, failed = [], 0
    for path in args.files:
        try:
            documents.append(read_document(path))
        except DocumentError as err:
            echo(f"error: {err}", file=sys.stderr, one_line=True)
            failed += 1
    # Each document's warnings were logged as it was read (once: not again here).
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    many = len(args.files) > 1
    named: dict[str, str] = {}  # output name -> the document written under it, as given
    written_from: dict[str, str] = {}  # output name -> that document's real path
    inputs = {os.path.realpath(p) for p in args.files}
    gone = False  # the reader of stdout went away
    for doc, g in zip(documents, build_graphs(documents)):
        stem = Path(doc.path).stem
        gone = _show(f"{doc.path}: {summary(g)}", gone)
        real = os.path.realpath(doc.path)  # a/x.txt and a/../a/x.txt are one file, not two of one name
        named.setdefault(stem, str(doc.path))
        if (args.out or (args.png and many)) and written_from.setdefault(stem, real) != real:
            # a/x.txt and b/x.txt (or x.txt and x.pdf): the second file overwrote the first's graph.
            reason = f"its files would replace those of {named[stem]}, of the same name {stem!r}"
            echo(
                f"error: {doc.path}: not written: {reason} (rename one, or give them apart)",
                file=sys.stderr,
                one_line=True,
            )
            failed += 1
            continue
        target = args.out / f"{stem}.{args.format}" if args.out else None
        try:
            picture = _png_path(args.png, stem, many) if args.png else None
            for output in (target, picture):
                if output is not None:
                    _refuse_an_input(output, inputs)
            if (
                target is not None
                and picture is not None
                and os.path.realpath(target) == os.path.realpath(picture)
            ):
                raise _InputInTheWay(
                    f"{printable(picture)}: --png names the graph file of --out; choose another"
                )
        except _InputInTheWay as err:
            echo(f"error: {doc.path}: not written: {err}", file=sys.stderr, one_line=True)
            failed += 1
            continue
        failed += not _write_outputs(g, target, picture, args.format)
    return 1 if failed else 141 if gone else 0


def _write_outputs(g: nx.DiGraph, target: Path | None, picture: Path | None, form: str) -> bool:
    """Write the graph file and the picture asked for; whether every one was
    written. Each is tried on its own: a graph file that cannot be written
    (a folder in its place, a full disk) kept its picture from being drawn."""
    written = True
    for output in (target, picture):
        if output is None:
            continue
        try:
            if output is picture:
                draw_png(g, output)
            elif form == "json":
                save_json(g, output)
            else:
                write_graphml(g, output)
        except OSError as err:  # a full disk, a read-only folder: the next output may fit
            echo(
                f"error: {err.filename or output}: cannot write: {err.strerror or err}",
                file=sys.stderr,
                one_line=True,
            )
            written = False
    return written
