"""``dri report [DIR]``: print an evaluation report's summary, or open it.

Without DIR, the newest report under ``data/reports/`` (``DRI_DATA_DIR``).
``--open`` opens ``index.html`` in a web browser instead of printing;
``--path`` prints only the report folder (to a pipe, its name's own bytes,
whatever characters it holds, so that a script can use it).
"""

from __future__ import annotations

import argparse
import os
import sys
import webbrowser
from pathlib import Path

from dri.commands.folders import given_path
from dri.corpora.text import MAX_TEXT_BYTES, file_lines
from dri.files import FileRefused, NotText, decode_text, read_limited, what_is_there
from dri.literal import echo, printable
from dri.metrics.report import find_report
from dri.settings import data_dir
from dri.staging import left_incomplete

__all__ = ["register", "run_report"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help="print or open an evaluation report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "dir", nargs="?", type=given_path, metavar="DIR", help="report folder (default: the newest)"
    )
    how = p.add_mutually_exclusive_group()
    how.add_argument("--open", action="store_true", help="open index.html in a browser")
    how.add_argument("--path", action="store_true", help="print the report folder only")
    p.set_defaults(handler=run_report)


def _page(path: Path) -> Path | None:
    """``path`` resolved, or None for a loop of links (Python 3.11 raises RuntimeError)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _for_terminal(text: str) -> str:
    """``text`` with its line ends as ``\\n`` and its tabs as spaces to the next
    stop of 8, which :func:`dri.literal.echo` would otherwise show escaped."""
    return "\n".join(line.expandtabs() for line in file_lines(text))


def _print_path(folder: Path) -> None:
    """Print ``folder``: to a terminal as text, to a pipe as the name's own bytes."""
    if sys.stdout.isatty() or printable(folder) == str(folder):
        echo(folder, one_line=True)
    else:
        # For a script (`cd "$(dri report --path)"`) the folder's own bytes, as ls
        # gives them to a pipe: the name shown escaped named no folder.
        sys.stdout.flush()
        sys.stdout.buffer.write(os.fsencode(folder) + b"\n")
        sys.stdout.buffer.flush()


def run_report(args: argparse.Namespace) -> int:
    root = data_dir() / "reports"
    folder = find_report(args.dir, root)
    if folder is None:
        where = args.dir if args.dir else root
        echo(f"error: {where}: no report here (run `dri evaluate ...` first)", file=sys.stderr, one_line=True)
        return 1
    if left_incomplete(folder):
        # Shown as whole, its summary was one report's and its pictures another's.
        echo(
            f"error: {folder}: a report left part-written (a dri command was stopped while moving "
            "its files in, or is moving them now); run its dri evaluate again with --out naming this folder",
            file=sys.stderr,
            one_line=True,
        )
        return 1
    if args.path:
        _print_path(folder)
        return 0
    if args.open:
        page = _page(folder / "index.html")
        if page is None:
            echo(
                f"note: {folder / 'index.html'}: a loop of symbolic links, not a page to open; "
                "printing the summary instead",
                file=sys.stderr,
                one_line=True,
            )
        elif not page.is_file():
            there = what_is_there(page)  # a folder or a FIFO was "no such page" too
            why = "no such page to open" if there == "missing" else f"{there}, not a page to open"
            echo(
                f"note: {page}: {why}; printing the summary instead",
                file=sys.stderr,
                one_line=True,
            )
        elif not page.is_relative_to(_page(folder) or folder):
            # A link to /etc/passwd was opened in the browser as the report's page.
            echo(
                f"note: {folder / 'index.html'}: leads to {page}, outside the report; printing the summary instead",
                file=sys.stderr,
                one_line=True,
            )
        elif not webbrowser.open(page.as_uri()):
            echo(
                f"note: {page}: no browser to open it with; printing instead", file=sys.stderr, one_line=True
            )
        else:
            return 0
    summary = folder / "summary.md"
    try:
        # Bounded like every user file: a damaged 4 GB summary was a MemoryError (exit 70).
        data = read_limited(summary, MAX_TEXT_BYTES, what="report summary")
    except FileRefused as err:
        echo(
            f"error: {summary}: cannot read the report summary: {err.reason}", file=sys.stderr, one_line=True
        )
        return 1
    try:
        text, encoding = decode_text(data)
    except NotText as err:
        # Printed as Windows-1252 it was a screen of junk with exit 0.
        echo(f"error: {summary}: {err}; not a report summary", file=sys.stderr, one_line=True)
        return 1
    encoding = encoding.replace("-sig", "")
    if encoding not in ("utf-8", "utf-16", "utf-32"):
        echo(f"warning: {summary}: not UTF-8; read as {encoding}", file=sys.stderr, one_line=True)
    if not text.strip():
        echo(f"error: {summary}: an empty report summary", file=sys.stderr, one_line=True)
        return 1
    # Windows line ends and tabs are layout, not control characters to show escaped.
    echo(_for_terminal(text))
    echo()
    echo(f"(report folder: {folder})", one_line=True)
    return 0
