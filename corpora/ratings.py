"""Expert ratings of analogies: import, validation and storage.

The Dr Inventor paper ("Finding and Evaluating a Computer Graphics Analogy",
Hurley et al., EGPAI 2016) had 12 to 13 computer-graphics researchers rate
each analogy from 1 to 5 on novelty, usefulness and challenging the normal
view of the topic, and reported the mean per property and Krippendorff's
alpha (interval). A ratings file is a CSV with one row per rater and pair::

    rater,pair,novelty,usefulness,challenge
    r01,alexa2002~adams2009,5,4,4
    r02,alexa2002~adams2009,4,3,5

``pair`` is any label of the compared pair. Every property is an integer
from 1 to 5; an empty cell means "not rated". Imported ratings are kept in
``<data_dir>/ratings/ratings.csv``; a later rating of the same rater and pair
replaces the earlier one.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dri import atomic
from dri.corpora.text import (
    MAX_TABLE_BYTES,
    CorpusError,
    csv_rows,
    header_record,
    header_rows,
    refuse_repeated_columns,
)
from dri.settings import data_dir

__all__ = [
    "COLUMNS",
    "PROPERTIES",
    "ImportResult",
    "import_ratings",
    "load_ratings",
    "ratings_file",
    "read_ratings",
]

PROPERTIES = ("novelty", "usefulness", "challenge")
COLUMNS = ("rater", "pair", *PROPERTIES)
SCALE = range(1, 6)


@dataclass
class ImportResult:
    source: Path
    stored: Path
    accepted: int
    total_stored: int
    problems: list[str] = field(default_factory=list)


def ratings_file() -> Path:
    return data_dir() / "ratings" / "ratings.csv"


#: The longest rater or pair name kept (as for a corpus or run name, ``dri run --name``).
MAX_NAME_CHARS = 1000


def read_ratings(path: str | Path) -> tuple[list[dict[str, object]], list[str]]:
    """``(rows, problems)``: the valid rows of a ratings CSV and one line per bad row.

    A missing file or missing columns raise :class:`CorpusError`.
    """
    path = Path(path)
    records = csv_rows(path, "ratings file")
    header = [h.strip().lower() for h in (header_record(records) or (1, []))[1]]
    if not header:
        raise CorpusError(path, f"empty file: ratings start with the header {','.join(COLUMNS)}")
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise CorpusError(path, f"ratings need the columns {','.join(COLUMNS)}; missing {', '.join(missing)}")
    refuse_repeated_columns(path, header)
    rows: list[dict[str, object]] = []
    problems: list[str] = []
    first: dict[tuple[str, str], tuple[int, int]] = {}  # (rater, pair) -> its line and row
    # A row cut short is refused: its missing ratings read as "not rated" without a word.
    for line, fields_row, problem in header_rows(records, header, required=COLUMNS):
        if fields_row is None:
            problems.append(f"{path}: {problem}")
            continue
        row = {name: value.strip() for name, value in fields_row.items()}
        reason = None
        if not row["rater"] or not row["pair"]:
            reason = "empty rater or pair"
        elif max(len(row["rater"]), len(row["pair"])) > MAX_NAME_CHARS:
            # A field past csv's default limit (131,072) is a ratings file other tools cannot read.
            longest = max(len(row["rater"]), len(row["pair"]))
            reason = f"a rater or pair name of {longest:,} characters; at most {MAX_NAME_CHARS:,}"
        out: dict[str, object] = {"rater": row["rater"], "pair": row["pair"]}
        for prop in PROPERTIES:
            value = row[prop]
            if value == "":
                out[prop] = None
                continue
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            # nan and inf are not ratings (and int() of them would raise).
            if not math.isfinite(number) or number != int(number) or int(number) not in SCALE:
                reason = reason or f"{prop} must be a whole number from 1 to 5, not {_cell(value)}"
            else:
                out[prop] = int(number)
        if reason is None and all(out[p] is None for p in PROPERTIES):
            reason = "no property rated"
        key = (row["rater"], row["pair"])
        if reason is None and key in first and rows[first[key][1]] != out:
            # Two ratings of one pair by one rater: the later replaced the earlier without a word.
            reason = f"rater {key[0]!r} rated pair {key[1]!r} otherwise on line {first[key][0]}; that rating is kept"
        if reason:
            problems.append(f"{path}: line {line}: {reason}")
        elif key not in first:
            first[key] = (line, len(rows))
            rows.append(out)
    return rows, problems


def _cell(value: str) -> str:
    """A cell for a message: quoted, and its start only if long (a number of
    5,000 digits was a line of 5,000 characters)."""
    return repr(value) if len(value) <= 40 else f"{value[:40]!r}... ({len(value):,} characters)"


def load_ratings(path: str | Path | None = None) -> list[dict[str, object]]:
    """The stored ratings (empty if none were imported)."""
    path = Path(path) if path else ratings_file()
    if not path.is_file():
        return []
    rows, _ = read_ratings(path)
    return rows


def _stored_ratings(path: Path) -> list[dict[str, object]]:
    """The rows of the ratings store ``path`` (none if it is absent); a
    :class:`CorpusError` if any row is not a valid rating (edited by hand, say):
    the file is rewritten with the valid rows only, so importing would drop it."""
    if not os.path.lexists(path):
        return []
    # Anything else there is read to be refused: a link to /dev/zero was "no ratings",
    # and the import then wrote into the device and said it had stored them.
    rows, problems = read_ratings(path)
    if problems:
        reason = problems[0].removeprefix(f"{path}: ")
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CorpusError(
            path, f"{reason}{more}; nothing imported, so that no stored rating is lost: fix it first"
        )
    return rows


def import_ratings(path: str | Path, store_path: str | Path | None = None) -> ImportResult:
    """Validate ``path`` and merge its valid rows into the stored ratings."""
    rows, problems = read_ratings(path)
    target = Path(store_path) if store_path else ratings_file()
    # Locked from reading the stored rows to writing them back: an import
    # running at the same time merges into what this one wrote, not beside it.
    with atomic.locked(target):
        merged = {(str(r["rater"]), str(r["pair"])): r for r in _stored_ratings(target)}
        for r in rows:
            merged[(str(r["rater"]), str(r["pair"]))] = r
        text = _ratings_csv(merged.values())
        if (size := len(text.encode("utf-8"))) > MAX_TABLE_BYTES:
            # Written, every later ratings command refused the store as too large to read.
            raise CorpusError(
                target,
                f"would hold {size:,} bytes with these ratings, over the {MAX_TABLE_BYTES:,} a ratings "
                "file may; nothing imported",
            )
        atomic.write_text(target, text, newline="")
    return ImportResult(Path(path), target, len(rows), len(merged), problems)


def _ratings_csv(rows: Iterable[dict[str, object]]) -> str:
    """The text of a ratings store holding ``rows``."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(COLUMNS))
    writer.writeheader()
    for r in rows:
        writer.writerow({k: ("" if r.get(k) is None else r[k]) for k in COLUMNS})
    return text.getvalue()
