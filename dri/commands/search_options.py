"""The command-line options of the two-stage analogy search, shared by ``dri run`` and ``dri evaluate``,
and the whole numbers they and ``--workers`` take."""

from __future__ import annotations

import argparse

from dri.evaluate.kinds import positive
from dri.flows.execution import MAX_WORKERS
from dri.settings import DEFAULT_CANDIDATES

__all__ = ["add_search_arguments", "candidates_given", "positive", "search_conflict", "worker_count"]


def worker_count(text: str) -> int:
    """``--workers``: a whole number from 1 to :data:`~dri.flows.execution.MAX_WORKERS`
    (argparse's ``type``): a count past a C int was multiprocessing's OverflowError, exit 70."""
    value = positive(text)
    if value > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_WORKERS}, not {value}")
    return value


def add_search_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> list[argparse.Action]:
    """Add ``--candidates`` and ``--exhaustive``; their actions."""
    candidates = parser.add_argument(
        "--candidates",
        type=positive,
        default=None,  # unset, not the default's value: --exhaustive refuses a typed one
        metavar="N",
        help=f"documents per target that stage 2 structure-maps, the closest by content "
        f"(default {DEFAULT_CANDIDATES})",
    )
    exhaustive = parser.add_argument(
        "--exhaustive", action="store_true", help="structure-map every document against the target"
    )
    return [candidates, exhaustive]


def search_conflict(args: argparse.Namespace) -> str | None:
    """Why ``--exhaustive`` and ``--candidates`` cannot go together, or ``None``:
    the count typed, even the default's, was ignored."""
    if args.exhaustive and args.candidates is not None:
        return "--exhaustive maps every document; it cannot go with --candidates"
    return None


def candidates_given(args: argparse.Namespace) -> int:
    """``--candidates``, or :data:`~dri.settings.DEFAULT_CANDIDATES` when unset."""
    return DEFAULT_CANDIDATES if args.candidates is None else int(args.candidates)
