"""The plagiarism corpus format of Clough & Stevenson (2011).

P. Clough and M. Stevenson, "Developing a corpus of plagiarised short
answers", Language Resources and Evaluation 45(1), 2011 -- the corpus the Dr
Inventor paper (Hurley et al., EGPAI 2016, "Plagiarism Corpus") evaluates on.

Layout of a corpus folder::

    file_information.csv     File,Task,Category
    orig_taska.txt           the source text of task a (Category "orig")
    g0pA_taska.txt           an answer to task a at one level
    ...

``Category`` is one of ``cut`` (near copy), ``light`` (light revision),
``heavy`` (heavy revision), ``non`` (not plagiarised) or ``orig``. Each
answer is compared with its task's original. Texts may be UTF-8 or
Windows-1252 (see :mod:`corpora.text`).

Example
-------
>>> corpus = load_plagiarism("/work/shared/corpora/clough-stevenson")  # doctest: +SKIP
>>> len(corpus.pairs), corpus.pairs[0].level                          # doctest: +SKIP
(95, 'non')
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.manifest import ManifestPair
from dri.corpora.text import (
    CorpusError,
    csv_rows,
    header_record,
    header_rows,
    named_columns,
    no_corpus_folder,
    refuse_repeated_columns,
)
from dri.files import what_is_there
from dri.literal import printable

log = logging.getLogger(__name__)

__all__ = ["LEVELS", "LEVEL_ORDER", "PlagiarismCorpus", "PlagiarismPair", "load_plagiarism"]

# The ordinal coding used for Spearman's rho: more copying, higher number.
LEVELS = {"cut": 3, "light": 2, "heavy": 1, "non": 0}
LEVEL_ORDER = ("cut", "light", "heavy", "non")
INFO_FILE = "file_information.csv"
COLUMNS = ("File", "Task", "Category")


@dataclass(frozen=True)
class PlagiarismPair:
    """An answer and the original it may copy from."""

    original: Path
    answer: Path
    task: str
    level: str

    @property
    def level_code(self) -> int:
        return LEVELS[self.level]

    def as_manifest(self) -> ManifestPair:
        return ManifestPair(self.original, self.answer, self.level, {"task": self.task})


@dataclass
class PlagiarismCorpus:
    root: Path
    originals: dict[str, Path]
    pairs: list[PlagiarismPair]
    problems: list[str] = field(default_factory=list)

    def manifest(self) -> list[ManifestPair]:
        return [p.as_manifest() for p in self.pairs]


def load_plagiarism(corpus_dir: str | Path) -> PlagiarismCorpus:
    """Read ``file_information.csv`` of ``corpus_dir`` into answer/original pairs.

    A missing folder, index file or column raises :class:`CorpusError`. A bad
    row (unknown category, missing file, task without an original) is left
    out and described, one line each, in ``problems``; the rest carries on.
    """
    root = Path(corpus_dir)
    info, rows, problems = _index_rows(root)
    originals, answers = _by_category(root, info, rows, problems)
    pairs = _pairs(root, info, originals, answers, problems)
    return PlagiarismCorpus(root, originals, pairs, problems)


def _index_rows(root: Path) -> tuple[Path, list[tuple[int, dict[str, str]]], list[str]]:
    """The index file, its rows (line, fields) each once, and the problems of the others."""
    if not root.is_dir():
        raise no_corpus_folder(root)
    info = root / INFO_FILE
    if not info.is_file():
        what = what_is_there(info)  # a folder of that name, or a link to nothing, said "missing"
        raise CorpusError(
            info, f"{what}: a plagiarism corpus needs file_information.csv (File,Task,Category)"
        )
    records = csv_rows(info, INFO_FILE, inside=root.resolve())
    first = header_record(records)
    if first is None:  # blank lines only: said "lacks column(s) file, task, category"
        raise CorpusError(
            info, "an empty file: a plagiarism corpus needs the header File,Task,Category and a row a file"
        )
    header = named_columns(first[1], COLUMNS)  # in any case: file,task,category
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise CorpusError(
            info, f"lacks column(s) {', '.join(missing)} (the header must be File,Task,Category)"
        )
    refuse_repeated_columns(info, header)
    problems: list[str] = []
    rows = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, fields_row, problem in header_rows(records, header):
        if fields_row is None:
            problems.append(f"{info}: {problem}; row left out")
            continue
        row = {name: value.strip() for name, value in fields_row.items()}
        key = (row["File"], row["Task"], row["Category"].lower())
        if key in seen:
            log.warning(
                "%s: line %d repeats line %d; counted once",
                info,
                line,
                seen[key],
                extra={
                    "warning_kind": f"repeated rows in {info.name}, each counted once",
                    "warning_item": f"line {line}",
                },
            )
            continue
        seen[key] = line
        rows.append((line, row))
    return info, rows, problems


def _by_category(
    root: Path, info: Path, rows: list[tuple[int, dict[str, str]]], problems: list[str]
) -> tuple[dict[str, Path], list[tuple[int, str, str, str]]]:
    """The originals by task, and the answers as (line, file name, task, level)."""
    originals: dict[str, Path] = {}
    answers: list[tuple[int, str, str, str]] = []
    for line, row in rows:
        name, task, category = row["File"], row["Task"], row["Category"].lower()
        if not name:
            problems.append(f"{info}: line {line}: empty File")
            continue
        if not _inside(root, name):
            problems.append(f"{info}: line {line}: {name!r} is not a file name inside the corpus folder")
            continue
        if category == "orig":
            if task in originals and originals[task] != root / name:
                problems.append(
                    f"{info}: line {line}: a second original for task {printable(task)} "
                    f"({printable(name)}); {printable(originals[task].name)} is kept"
                )
                continue
            originals[task] = root / name
        elif category in LEVELS:
            answers.append((line, name, task, category))
        else:
            problems.append(
                f"{info}: line {line}: unknown category {row['Category']!r} for {printable(name)}"
            )
    # Tasks whose original is not listed fall back to the corpus's naming rule; one
    # there that is no file (a link to nothing, a FIFO) is named by _pairs, not "no original".
    for _, _, task, _ in answers:
        if task not in originals and _there(root / f"orig_task{task}.txt"):
            originals[task] = root / f"orig_task{task}.txt"
    return originals, answers


def _pairs(
    root: Path,
    info: Path,
    originals: dict[str, Path],
    answers: list[tuple[int, str, str, str]],
    problems: list[str],
) -> list[PlagiarismPair]:
    """Each answer with its task's original, when both files are there."""
    for task, path in sorted(originals.items()):
        if not _is_file(path):
            problems.append(f"{printable(path)}: original of task {printable(task)} is {what_is_there(path)}")
    pairs = []
    seen_answers: set[Path] = set()
    for line, name, task, category in answers:
        answer, original = root / name, originals.get(task)
        if original is None or not _is_file(original):
            problems.append(f"{printable(answer)}: no original for task {task!r} (line {line})")
        elif not _is_file(answer):
            # A folder, a FIFO or a loop of links was "missing" too.
            problems.append(
                f"{printable(answer)}: listed on line {line} of {INFO_FILE} but {what_is_there(answer)}"
            )
        elif answer == original:
            problems.append(
                f"{info}: line {line}: {printable(name)} is the original of task {printable(task)}, "
                "not an answer to it"
            )
        elif answer in seen_answers:
            problems.append(
                f"{info}: line {line}: {printable(name)} is listed again with another task or category"
            )
        else:
            seen_answers.add(answer)
            pairs.append(PlagiarismPair(original, answer, task, category))
    return pairs


def _is_file(path: Path) -> bool:
    """``path.is_file()``, false for names the system refuses (too long, say)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _there(path: Path) -> bool:
    """Whether anything stands at ``path``, a link to nothing too."""
    try:
        return os.path.lexists(path)
    except ValueError:  # a NUL in the name
        return False


def _inside(root: Path, name: str) -> bool:
    """Whether ``name`` is a relative path staying inside ``root`` (no ``..``,
    no absolute path, no NUL): an index file must not point elsewhere."""
    if "\x00" in name:
        return False
    path = Path(name)
    return not path.is_absolute() and ".." not in path.parts
