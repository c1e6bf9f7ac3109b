"""Human judgement files: rated pairs and ranked pools (CSV), multiple-choice analogy items (JSONL).

Three ways users check the scores against their own raters' data
(``dri evaluate judgements|ranking|choice``, docs/evaluation.md):

* **Judgements** -- a UTF-8 CSV with a header and the columns ``a``, ``b``,
  ``score`` (more columns are kept as extras): a pair of texts and a human
  score, higher meaning more similar or better. ``a`` and ``b`` are texts, or
  paths of ``.txt``/``.pdf`` files (absolute or relative to the CSV's folder).
* **Ranking** -- the same CSV plus a ``query`` column and, optionally, a
  ``facet`` column: ``a`` is the query text, ``b`` a candidate, ``score`` its
  graded relevance to the query (0 or more, e.g. 0-3 in CSFCube). The rows of
  one query (one ``(query, facet)`` when there is a facet column: a query
  paper searched by its background, method or result is three queries) are
  its pool of candidates to rank.
* **Choice** -- UTF-8 JSON Lines, one item a line:
  ``{"query": ..., "options": [...], "answer": i}`` with ``answer`` the
  0-based index of the analogous option; optional ``types`` (one label per
  option, e.g. ``target``/``noun``/``random``), ``id`` and ``group``.
  StoryAnalogy's own field names ``candidates`` and ``candidate_types`` are
  accepted too, so its ``multiple_choice.jsonl`` loads as it is.

A malformed row or line is left out with a one-line problem
``FILE: line N: reason``; the rest loads. The CSV files are read by
:func:`~corpora.text.csv_rows` and :func:`~corpora.text.header_rows`, as the
other corpus tables are (UTF-8, UTF-16 with a BOM, else Windows-1252). A file with nothing usable raises
:class:`~corpora.text.CorpusError`.

The structure scores need documents, so :func:`write_documents` writes each
distinct text once, named by its content hash, into a folder with a
``manifest.csv`` of the pairs: a corpus the corpus flow compares like any
other.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from dri.atomic import write_bytes
from dri.corpora.manifest import ManifestPair, write_manifest
from dri.corpora.text import (
    MAX_TEXT_BYTES,
    CorpusError,
    csv_rows,
    file_lines,
    first_of,
    header_record,
    header_rows,
    named_columns,
    read_table_text,
    read_text,
    refuse_repeated_columns,
)
from dri.errors import json_reason
from dri.files import FileRefused, read_limited
from dri.literal import lone_surrogate_problem, printable

__all__ = [
    "ChoiceItem",
    "ChoiceSet",
    "Judgement",
    "JudgementSet",
    "RankedPair",
    "RankingSet",
    "WrittenDocuments",
    "load_choice",
    "load_judgements",
    "load_ranking",
    "write_documents",
]

#: Suffixes that make a cell a document path rather than a text.
DOCUMENT_SUFFIXES = (".txt", ".pdf")
#: The columns a judgements file needs; a ranking file needs ``query`` too.
JUDGEMENT_COLUMNS = ("a", "b", "score")
RANKING_COLUMNS = (*JUDGEMENT_COLUMNS, "query")
#: The columns read by name, in any case.
OWN_COLUMNS = frozenset((*RANKING_COLUMNS, "facet"))
#: The largest score magnitude taken: squares and sums of larger ones overflow
#: the statistics (Pearson's r, DCG) and the plots' tick arithmetic.
MAX_SCORE = 1e100


@dataclass
class Judgement:
    """One rated pair: each side a text or an existing document path."""

    a: str | Path
    b: str | Path
    score: float
    line: int
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class JudgementSet:
    path: Path
    pairs: list[Judgement]
    problems: list[str] = field(default_factory=list)


@dataclass
class RankedPair(Judgement):
    """A query (``a``), one candidate of its pool (``b``) and its graded relevance (``score``)."""

    query: str = ""  # the query's key: its ``query`` cell, with ``/facet`` when the file has facets
    facet: str = ""


@dataclass
class RankingSet:
    path: Path
    pairs: list[RankedPair]
    problems: list[str] = field(default_factory=list)

    @property
    def queries(self) -> list[str]:
        """The queries' keys in file order."""
        return list(dict.fromkeys(p.query for p in self.pairs))


@dataclass
class ChoiceItem:
    """A query, its options (texts or document paths) and the analogous option's index."""

    id: str
    query: str | Path
    options: list[str | Path]
    answer: int
    line: int
    types: list[str] | None = None
    group: str = ""


@dataclass
class ChoiceSet:
    path: Path
    items: list[ChoiceItem]
    problems: list[str] = field(default_factory=list)

    @property
    def typed(self) -> bool:
        return any(item.types for item in self.items)


def _side(value: str, base: Path) -> str | Path:
    """A cell as a document path if it names an existing .txt/.pdf file, else as
    text (not empty: :func:`_side_in` says where it is)."""
    text = value.strip()
    if text.lower().endswith(DOCUMENT_SUFFIXES) and "\n" not in text and len(text) < 4096:
        try:
            path = Path(text).expanduser()
            path = path if path.is_absolute() else base / path
            if path.is_file():
                # Absolute, but not through its links: the document keeps the .txt or .pdf
                # of the name given (a link.txt to a file named without one was "not a .txt
                # or .pdf document", named by the link's target).
                return Path(os.path.abspath(path))
            found = path.exists()
            dangling = not found and path.is_symlink()
            link = os.readlink(path) if dangling else ""
        except (OSError, RuntimeError) as err:
            # "~nobody/a.txt" (no such user) or a name longer than the system takes: this row's fault.
            reason = (getattr(err, "strerror", None) or str(err)).rstrip(".")
            raise ValueError(f"no such document {text!r} ({reason})") from None
        if dangling:
            raise ValueError(
                f"no such document {text!r} (a symbolic link to {printable(link)}, which is not there)"
            )
        if found:
            raise ValueError(f"the document {text!r} is not a regular file")
        raise ValueError(f"no such document {text!r}")
    return value


def _side_in(value: str, base: Path, where: str) -> str | Path:
    """:func:`_side` of the cell or field ``where`` (``column a``, ``option 2``),
    whose empty text the problem names ("line 2: empty text" said not which)."""
    if not value.strip():
        raise ValueError(f"empty text in {where}")
    return _side(value, base)


def _read(path: Path) -> str:
    """The text of ``path``, or a one-line :class:`CorpusError`."""
    return read_table_text(path, "JSON Lines file")


def _rated_rows(path: Path, columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str] | None, str]]:
    """The rows of a CSV that must have ``columns`` (:func:`~corpora.text.header_rows`)."""
    records = csv_rows(path)
    first = header_record(records)
    if first is None:  # said "the header lacks the column(s) a, b, score"
        raise CorpusError(path, f"an empty file; it needs the header {','.join(columns)} and a row a pair")
    # The project's own column names in any case ("A,B,Score" was refused), as the ratings' are.
    header = named_columns(first[1], OWN_COLUMNS)
    missing = [c for c in columns if c not in header]
    if missing:
        raise CorpusError(
            path,
            f"line {first[0]}: the header lacks the column(s) {', '.join(missing)} (need {','.join(columns)})",
        )
    refuse_repeated_columns(path, header)
    yield from header_rows(records, header, columns)


def _number(text: str, name: str = "score") -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} {text!r} is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{name} {text!r} is not a finite number")
    if abs(value) > MAX_SCORE:
        raise ValueError(f"{name} {text!r} is out of range (at most {MAX_SCORE:g} either way)")
    return value


def _judgement(row: dict[str, str], line: int, base: Path) -> Judgement:
    score = _number(row["score"])
    a, b = _side_in(row["a"], base, "column a"), _side_in(row["b"], base, "column b")
    extra = {k: v for k, v in row.items() if k not in JUDGEMENT_COLUMNS}
    return Judgement(a, b, score, line, extra)


def load_judgements(path: str | Path) -> JudgementSet:
    """The rated pairs of a CSV with columns ``a``, ``b``, ``score``."""
    path = Path(path)
    pairs, problems = [], []
    for line, row, problem in _rated_rows(path, JUDGEMENT_COLUMNS):
        try:
            if row is None:
                raise ValueError(problem.split(": ", 1)[1])
            pairs.append(_judgement(row, line, path.parent))
        except ValueError as err:
            problems.append(f"{path}: line {line}: {err}")
    if not pairs:
        raise CorpusError(path, "no usable rows" + first_of(problems))
    return JudgementSet(path, pairs, problems)


def _ranked(row: dict[str, str], line: int, base: Path, faceted: bool) -> RankedPair:
    query, facet = row["query"].strip(), row.get("facet", "").strip()
    if not query:
        raise ValueError("empty query")
    if faceted and not facet:
        raise ValueError("empty facet")
    judgement = _judgement(row, line, base)
    if judgement.score < 0:
        raise ValueError(f"relevance {row['score']!r} is below 0")
    return RankedPair(judgement.a, judgement.b, judgement.score, line, judgement.extra, query, facet)


def _pool_keys(pairs: list[RankedPair], faceted: bool) -> None:
    """Give each pair its query's key: ``query/facet`` (``query`` without facets), and
    a second ``(query, facet)`` whose key reads like an earlier one's (``p/q`` and
    ``r`` against ``p`` and ``q/r``) a ``#2`` after it: two pools are never one."""
    keys: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for pair in pairs:
        pool = (pair.query, pair.facet)
        if pool not in keys:
            key = base = f"{pair.query}/{pair.facet}" if faceted else pair.query
            count = 1
            while key in taken:
                count += 1
                key = f"{base} #{count}"
            keys[pool] = key
            taken.add(key)
    for pair in pairs:
        pair.query = keys[(pair.query, pair.facet)]


def _one_query_text_and_candidate_each(
    path: Path, pairs: list[RankedPair], problems: list[str]
) -> list[RankedPair]:
    """``pairs`` without the rows that contradict an earlier row of their pool:
    another query text (``a``) than the pool's first row, or a candidate (``b``)
    already in the pool with another relevance; each left out with a one-line
    problem. Both were ranked as given, a candidate twice in one pool with two
    relevances. The same text twice with one relevance stays (CSFCube's pools
    hold a paper under two ids)."""
    first: dict[str, RankedPair] = {}
    seen: dict[tuple[str, str], RankedPair] = {}
    kept = []
    for pair in pairs:
        head = first.setdefault(pair.query, pair)
        # Cells as read: a space around a text does not make it another one.
        candidate = (pair.query, str(pair.b).strip())
        if str(pair.a).strip() != str(head.a).strip():
            problems.append(
                f"{path}: line {pair.line}: query {pair.query!r} has another text on line {head.line}; left out"
            )
        elif candidate in seen and seen[candidate].score != pair.score:
            earlier = seen[candidate]
            problems.append(
                f"{path}: line {pair.line}: the candidate of line {earlier.line} again, in the pool of "
                f"query {pair.query!r}, with relevance {pair.score:g}, not {earlier.score:g}; left out"
            )
        else:
            seen.setdefault(candidate, pair)
            kept.append(pair)
    return kept


def load_ranking(path: str | Path) -> RankingSet:
    """The pools of a CSV with columns ``a``, ``b``, ``score``, ``query`` (and ``facet``).

    Each row is one candidate of its query's pool, ``score`` its graded
    relevance. A query with a single usable candidate has nothing to rank:
    it is left out with a one-line problem.
    """
    path = Path(path)
    pairs, problems = [], []
    faceted = False
    for line, row, problem in _rated_rows(path, RANKING_COLUMNS):
        try:
            if row is None:
                raise ValueError(problem.split(": ", 1)[1])
            faceted = faceted or "facet" in row
            pairs.append(_ranked(row, line, path.parent, faceted))
        except ValueError as err:
            problems.append(f"{path}: line {line}: {err}")
    _pool_keys(pairs, faceted)
    pairs = _one_query_text_and_candidate_each(path, pairs, problems)
    pools: dict[str, int] = {}
    for pair in pairs:
        pools[pair.query] = pools.get(pair.query, 0) + 1
    for query, size in pools.items():
        if size < 2:
            problems.append(f"{path}: query {query!r}: one candidate, nothing to rank; left out")
    pairs = [p for p in pairs if pools[p.query] >= 2]
    if not pairs:
        raise CorpusError(path, "no query with two or more usable candidates" + first_of(problems))
    return RankingSet(path, pairs, problems)


def _text_problem(text: str) -> str | None:
    """Why a string of a choice item is not text: a lone surrogate, or a NUL
    (which no document and no manifest cell takes); else None."""
    if "\x00" in text:
        return "holds a NUL character, which is not text"
    return lone_surrogate_problem(text)


def _item(record: object, line: int, base: Path) -> ChoiceItem:
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    for key, value in record.items():
        texts = [t for t in (value if isinstance(value, list) else [value]) if isinstance(t, str)]
        problem = next(filter(None, map(_text_problem, texts)), None)
        if problem:
            raise ValueError(f"{json.dumps(key)} {problem}")
    if "options" in record and "candidates" in record:
        raise ValueError('both "options" and "candidates"; give the options once')
    ident = record.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (str, int, type(None))):
        raise ValueError(f'"id" must be a string or a whole number, not {json.dumps(ident)[:80]}')
    options = record.get("options", record.get("candidates"))
    if "query" not in record or options is None or "answer" not in record:
        raise ValueError('needs "query", "options" and "answer"')
    if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) for o in options):
        raise ValueError('"options" must be a list of at least 2 strings')
    answer = record["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
        raise ValueError(f'"answer" must be an option index 0-{len(options) - 1}, not {answer!r}')
    if not isinstance(record["query"], str):
        raise ValueError('"query" must be a string')
    types = record.get("types", record.get("candidate_types"))
    if types is not None and (
        not isinstance(types, list)
        or len(types) != len(options)
        or not all(isinstance(t, str) for t in types)
    ):
        raise ValueError('"types" must list one label (a string) per option')
    if types is not None and not all(t.strip() for t in types):
        raise ValueError('"types" holds an empty label')
    group = record.get("group", record.get("variant", ""))
    if isinstance(group, bool) or not isinstance(group, (str, int)):
        raise ValueError(f'"group" must be a string or a whole number, not {json.dumps(group)[:80]}')
    sides = [_side_in(o, base, f"option {i}") for i, o in enumerate(options)]
    twin = next(
        (i for i, side in enumerate(sides) if i != answer and _one_document(side, sides[answer])), None
    )
    if twin is not None:
        # Every score ties the two, and a tie for the top counts as wrong.
        raise ValueError(f"option {twin} repeats the answer, option {answer}: no score can pick it alone")
    return ChoiceItem(
        # A null id is no id ("None" merged every item that had one).
        id=str(record["id"]) if record.get("id") is not None else f"line-{line}",
        query=_side_in(record["query"], base, '"query"'),
        options=sides,
        answer=answer,
        line=line,
        types=types,
        group=str(group),
    )


def _one_document(a: str | Path, b: str | Path) -> bool:
    """Whether two sides become one document: spelled alike, or of the same bytes
    (a copy of a file, a text of its bytes), or two texts that differ only in
    blanks, which every score reads alike. Sizes first: the bytes of files of
    one size only are read (200 items over two 19 MB files read them all)."""
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str):
        return a.split() == b.split()
    sizes = []
    for side in (a, b):
        try:
            sizes.append(
                len(side.encode("utf-8", "surrogatepass")) if isinstance(side, str) else side.stat().st_size
            )
        except OSError:  # its row's problem says why
            return False
    return sizes[0] == sizes[1] and _side_bytes(a) == _side_bytes(b) is not None


def _side_bytes(side: str | Path) -> bytes | None:
    """The bytes a side becomes as a document (a file's, a text's UTF-8), or None
    if it cannot be read."""
    if isinstance(side, str):
        return side.encode("utf-8", "surrogatepass")
    try:
        return read_limited(side, MAX_TEXT_BYTES)
    except FileRefused:
        return None


def load_choice(path: str | Path) -> ChoiceSet:
    """The multiple-choice items of a JSON Lines file."""
    path = Path(path)
    raw = _read(path)
    if not raw.strip():  # said "no usable items"
        raise CorpusError(path, 'an empty file; it needs one item a line: {"query", "options", "answer"}')
    items, problems = [], []
    lines: dict[str, int] = {}  # an item's own id -> its line
    for line, text in enumerate(file_lines(raw), start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            problems.append(f"{path}: line {line}: not valid JSON ({json_reason(err, line=False)})")
            continue
        except ValueError:  # an integer of more digits than Python converts
            problems.append(f"{path}: line {line}: a number too long to read (over 4,300 digits)")
            continue
        except RecursionError:
            problems.append(f"{path}: line {line}: nested too deeply to read")
            continue
        try:
            item = _item(record, line, path.parent)
        except ValueError as err:
            problems.append(f"{path}: line {line}: {err}")
            continue
        own_id = record.get("id") is not None
        if own_id and item.id in lines:
            # Items are told apart by their id: the later one took the earlier one's place.
            problems.append(
                f"{path}: line {line}: the id {item.id!r} is line {lines[item.id]}'s too; left out"
            )
            continue
        if own_id:
            lines[item.id] = line
        items.append(item)
    _name_unnamed(items, lines)
    if not items:
        raise CorpusError(path, "no usable items" + first_of(problems))
    return ChoiceSet(path, items, problems)


def _name_unnamed(items: list[ChoiceItem], named: dict[str, int]) -> None:
    """Each item without an id of its own named ``line-N`` unless an item's own
    id is that (then ``line-N (no id)``): an id "line-2" on line 1 left out the
    item of line 2, which had none."""
    for item in items:
        if named.get(item.id) == item.line:
            continue
        name, more = f"line-{item.line}", 1
        while name in named:
            name, more = f"line-{item.line} (no id{f' {more}' if more > 1 else ''})", more + 1
        item.id = name


def _document(side: str | Path, folder: Path) -> Path:
    """The document of ``side`` inside ``folder``, named by its content.

    A document named by path is copied in too: the corpus flow reads the
    documents found under the corpus folder, so a path outside it had no
    graph and every pair it was in was skipped. The copy is of the bytes
    hashed, written whole (:func:`dri.atomic.write_bytes`): a file that
    changes or goes meanwhile leaves no copy cut short under a hash that
    is not its content's. Raises :class:`OSError` if it cannot be read or
    is larger than :data:`~corpora.text.MAX_TEXT_BYTES`.
    """
    if isinstance(side, Path):
        try:
            # Bounded as every document is: a 1 GB file was read whole and copied, then refused.
            data = read_limited(side, MAX_TEXT_BYTES)
        except FileRefused as err:
            raise OSError(errno.EFBIG, err.reason, str(side)) from None
        target = folder / f"{hashlib.sha1(data).hexdigest()[:16]}{side.suffix.lower()}"
    else:
        target = folder / (hashlib.sha1(side.encode("utf-8", "surrogatepass")).hexdigest()[:16] + ".txt")
        data = side.encode("utf-8")  # as write_text wrote it (a lone surrogate was refused on loading)
    if not _holds(target, data):
        write_bytes(target, data)
    return target.resolve()


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` holds ``data``. A document kept from an earlier run is
    reused only then: one changed since (edited, cut short, emptied) was read
    as the text its name promises, and every pair it was in scored on it."""
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


class WrittenDocuments(NamedTuple):
    """What :func:`write_documents` wrote: the manifest's ``pairs``, in order; a
    one-line ``problems`` entry per pair left out; and the ``names`` the user gave
    the documents, by their copies' paths: a document named by path is its
    file, a text its first ``FILE: line N`` (a failure of a copy is told by
    what the user wrote, not by a hashed name in the data folder)."""

    pairs: list[ManifestPair]
    problems: list[str]
    names: dict[str, str]


def write_documents(
    pairs: Sequence[tuple[str | Path, str | Path, str, dict[str, str]]],
    folder: Path,
    source: Path,
    lines: Sequence[int],
) -> WrittenDocuments:
    """Write the texts of ``(a, b, group, extra)`` pairs into ``folder`` with a ``manifest.csv``.

    Each distinct text becomes ``<content hash>.txt`` once, each document
    named by path ``<content hash><suffix>``. A pair left out gets a problem
    naming ``source`` (the judgement file) and the pair's line of ``lines``: a
    document that was there when the file was loaded may be gone (or
    unreadable) by now, which costs its rows only, not the evaluation.
    :class:`CorpusError` if no pair is left.
    """
    folder.mkdir(parents=True, exist_ok=True)
    out: list[ManifestPair] = []
    problems: list[str] = []
    given: dict[str, dict[str, None]] = {}  # a copy's path -> the paths the user gave for its bytes
    cells: dict[str, str] = {}  # a text's copy -> the file and line it was first read from
    # Each distinct text or path once: 100,000 rows of a few texts wrote (or read
    # back and compared) the same copy 200,000 times. A side that fails is tried
    # again on each of its rows, each of which then says so.
    copies: dict[tuple[bool, str | Path], Path] = {}

    def document(side: str | Path) -> Path:
        key = (isinstance(side, Path), side)
        if key not in copies:
            copies[key] = _document(side, folder)
        return copies[key]

    for (a, b, group, extra), line in zip(pairs, lines, strict=True):
        try:
            first, second = document(a), document(b)
        except OSError as err:
            if err.filename not in {str(side) for side in (a, b) if isinstance(side, Path)}:
                raise  # the folder cannot be written to: every row would fail
            reason = err.strerror or str(err)
            problems.append(
                f"{source}: line {line}: cannot read the document {printable(err.filename)} ({reason}); left out"
            )
            continue
        out.append(ManifestPair(first, second, group, dict(extra)))
        for side, copy in ((a, first), (b, second)):
            if isinstance(side, Path):
                given.setdefault(str(copy), {})[str(side)] = None
            else:
                cells.setdefault(str(copy), f"{source}: line {line}")
    if not out:
        raise CorpusError(source, "no usable rows" + first_of(problems))
    # The flow compares each pair once: a pair rated twice (two raters, two lines)
    # is one manifest row, and both ratings stay rows of the evaluation.
    distinct: dict[tuple[Path, Path, str], ManifestPair] = {}
    for pair in out:
        distinct.setdefault((pair.source, pair.target, pair.group), pair)
    write_manifest(list(distinct.values()), folder / "manifest.csv")
    names = {**cells, **{copy: _one_name(list(paths)) for copy, paths in given.items()}}
    return WrittenDocuments(out, problems, names)


def _one_name(paths: list[str]) -> str:
    """The user's name of a copy: its file's path, or the first of the files with its bytes."""
    if len(paths) == 1:
        return paths[0]
    others = ", ".join(paths[1:3]) + (", ..." if len(paths) > 3 else "")
    return f"{paths[0]} (the same bytes as {others})"


def side_text(side: str | Path) -> str:
    """The text of a side: itself, or the document's text (PDFs need the extractor)."""
    return read_text(side) if isinstance(side, Path) else side
