"""The command-line options of the two-stage analogy search, shared by ``dri run`` and ``dri evaluate``."""

from __future__ import annotations

import argparse

from dri.settings import DEFAULT_CANDIDATES

__all__ = ["add_search_arguments", "positive"]


def positive(text: str) -> int:
    """An option's whole number of at least 1 (argparse's ``type``)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_search_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--candidates",
        type=positive,
        default=DEFAULT_CANDIDATES,
        metavar="N",
        help=f"documents per target that stage 2 structure-maps, the closest by content "
        f"(default {DEFAULT_CANDIDATES})",
    )
    parser.add_argument(
        "--exhaustive", action="store_true", help="structure-map every document against the target"
    )
