"""Build the project's own offline WordNet 3.0 folder for NLTK.

WordNet comes from Debian's ``wordnet-base`` (the database files) and
``wordnet-sense-index`` (``index.sense`` and ``cntlist``, the SemCor sense
counts), installed under ``/usr/share/wordnet``. NLTK's reader wants them in an
``nltk_data/corpora/wordnet`` folder together with a ``lexnames`` file, which
Debian does not ship; this module copies the files, writes ``lexnames`` (the
45 lexicographer files of WordNet 3.0, see ``lexnames(5WN)``) and builds the
information-content (IC) file used by Lin's measure.

Information content (Resnik 1995; Lin 1998): every noun and verb synset
starts with a count of 1 (add-one smoothing), receives the SemCor count of
each of its senses from ``cntlist``, and its total is propagated to every
hypernym and instance hypernym exactly once (a synset reached by two paths
is counted once). IC(s) = -log(freq(s) / N), where N is the summed frequency
of the roots of that part of speech, as NLTK computes it. The file is written
in NLTK's ``wordnet_ic`` format (``<offset><pos> <freq> [ROOT]``) at
``corpora/wordnet_ic/ic-semcor-cntlist.dat``, so NLTK's
``WordNetICCorpusReader`` reads it too.

The build takes a few seconds and is idempotent: a stamp file records the
sources it was built from, and a second call returns at once.

Run it with ``scripts/setup-wordnet`` (or ``python -m dri.mapping.wordnet_data``).
Nothing here downloads anything.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from dri.errors import ProjectError, one_line, os_reason
from dri.files import what_is_there
from dri.settings import DEBIAN_WORDNET, nltk_data_dir, wordnet_source_dir

__all__ = [
    "DEBIAN_WORDNET",
    "IC_FILE",
    "LEXNAMES",
    "ForeignWordNet",
    "WordNetSetupError",
    "WordNetSourceError",
    "build_wordnet",
    "is_built",
    "wordnet_root",
]

IC_FILE = "ic-semcor-cntlist.dat"
BUILD_VERSION = 1
_STAMP = ".dri-build.json"

WORDNET_FILES = (
    "index.noun",
    "index.verb",
    "index.adj",
    "index.adv",
    "data.noun",
    "data.verb",
    "data.adj",
    "data.adv",
    "noun.exc",
    "verb.exc",
    "adj.exc",
    "adv.exc",
    "index.sense",
    "cntlist",
    "cntlist.rev",
)

# lexnames(5WN) for WordNet 3.0: file number, name, syntactic category.
LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3),
    ("adj.pert", 3),
    ("adv.all", 4),
    ("noun.Tops", 1),
    ("noun.act", 1),
    ("noun.animal", 1),
    ("noun.artifact", 1),
    ("noun.attribute", 1),
    ("noun.body", 1),
    ("noun.cognition", 1),
    ("noun.communication", 1),
    ("noun.event", 1),
    ("noun.feeling", 1),
    ("noun.food", 1),
    ("noun.group", 1),
    ("noun.location", 1),
    ("noun.motive", 1),
    ("noun.object", 1),
    ("noun.person", 1),
    ("noun.phenomenon", 1),
    ("noun.plant", 1),
    ("noun.possession", 1),
    ("noun.process", 1),
    ("noun.quantity", 1),
    ("noun.relation", 1),
    ("noun.shape", 1),
    ("noun.state", 1),
    ("noun.substance", 1),
    ("noun.time", 1),
    ("verb.body", 2),
    ("verb.change", 2),
    ("verb.cognition", 2),
    ("verb.communication", 2),
    ("verb.competition", 2),
    ("verb.consumption", 2),
    ("verb.contact", 2),
    ("verb.creation", 2),
    ("verb.emotion", 2),
    ("verb.motion", 2),
    ("verb.perception", 2),
    ("verb.possession", 2),
    ("verb.social", 2),
    ("verb.stative", 2),
    ("verb.weather", 2),
    ("adj.ppl", 3),
)

_SS_TYPE_POS = {"1": "n", "2": "v"}


class WordNetSetupError(ProjectError, RuntimeError):
    """WordNet is not available; the message says what to do."""


class ForeignWordNet(WordNetSetupError):
    """The folder holds a WordNet that dri did not build, which a build would delete."""


def _refuse_foreign(corpora: Path) -> None:
    """Raise :class:`ForeignWordNet` when ``corpora`` holds a ``wordnet`` or
    ``wordnet_ic`` folder without dri's build stamp: ``DRI_NLTK_DATA`` pointed at a
    user's own nltk_data, whose WordNet corpora (and anything kept beside them)
    a build replaced without a word."""
    ours = (corpora / "wordnet" / _STAMP).is_file()
    foreign = [name for name in ("wordnet", "wordnet_ic") if (corpora / name).exists() and not ours]
    if foreign:
        raise ForeignWordNet(
            f"{corpora}: its {' and '.join(foreign)} folder(s) were not built by dri (no {_STAMP}), "
            "and building WordNet here would replace them; point DRI_NLTK_DATA at a new folder "
            "or unset it"
        )


def wordnet_root(nltk_data: Path | None = None) -> Path:
    """The ``corpora`` folder inside the project's nltk_data folder."""
    if nltk_data is None:
        nltk_data = nltk_data_dir()
    return Path(nltk_data) / "corpora"


def _sources_signature(source: Path) -> dict[str, list[int]]:
    return {
        name: [(source / name).stat().st_size, int((source / name).stat().st_mtime)] for name in WORDNET_FILES
    }


def is_built(nltk_data: Path | None = None) -> bool:
    corpora = wordnet_root(nltk_data)
    stamp = corpora / "wordnet" / _STAMP
    if not stamp.is_file() or not (corpora / "wordnet_ic" / IC_FILE).is_file():
        return False
    try:
        data = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return False
    # JSON of another shape (a stamp cut short to "1", or edited) is no build, not an AttributeError.
    return isinstance(data, dict) and data.get("version") == BUILD_VERSION


class WordNetSourceError(WordNetSetupError):
    """A file of the folder WordNet is set up from that is not WordNet 3.0's (empty,
    cut short, junk); the message names it, and ``DRI_WORDNET_SOURCE`` if that
    chose the folder. Before, a parser's ValueError (exit 70), or, for an empty
    or truncated data file, a WordNet without its synsets, kept as built."""


def _source_problem(source: Path, name: str, reason: str) -> WordNetSourceError:
    """The error of the source file ``name``, with what to do: Debian's packages
    reinstalled, the variable that chose the folder pointed elsewhere, or another folder."""
    where, advice = str(source), "set WordNet up from a folder of WordNet 3.0's files"
    if source == DEBIAN_WORDNET:
        advice = "reinstall the Debian packages wordnet-base and wordnet-sense-index"
    elif source == wordnet_source_dir():
        where = f"DRI_WORDNET_SOURCE={source}"
        advice = "point DRI_WORDNET_SOURCE at WordNet 3.0's files, or unset it"
    return WordNetSourceError(f"{where}: {name}: {reason}; {advice}")


_T = TypeVar("_T")


def _parsed(source: Path, name: str, parse: Callable[[Iterator[str]], _T]) -> _T:
    """``parse`` of the lines of the source file ``name``; a
    :class:`WordNetSourceError` naming the file and line it could not read."""
    at = [0]

    def lines() -> Iterator[str]:
        with (source / name).open(encoding="utf-8") as fh:
            for at[0], line in enumerate(fh, start=1):
                yield line

    try:
        return parse(lines())
    except UnicodeDecodeError as err:
        reason = f"not UTF-8 text ({err.reason}), after line {at[0]}"
    except (ValueError, IndexError) as err:
        reason = f"line {at[0]}: not as WordNet 3.0 writes it ({one_line(err)[:200]})"
    except OSError as err:
        reason = f"cannot be read ({os_reason(err)})"
    raise _source_problem(source, name, reason)


def _entries(lines: Iterator[str]) -> Iterator[str]:
    """The lines of a data or index file past its licence header."""
    return (line for line in lines if not line.startswith("  "))


def _hypernyms(lines: Iterator[str]) -> dict[int, list[int]]:
    """offset -> hypernym and instance-hypernym offsets, of a data.<pos> file's lines."""
    parents: dict[int, list[int]] = {}
    for line in _entries(lines):
        fields = line.split(" ")
        offset = int(fields[0])
        words = int(fields[3], 16)
        at = 4 + 2 * words
        n_pointers = int(fields[at])
        ups = []
        for k in range(n_pointers):
            symbol, target = fields[at + 1 + 4 * k], fields[at + 2 + 4 * k]
            if symbol in ("@", "@i"):
                ups.append(int(target))
        parents[offset] = ups
    return parents


def _offsets(lines: Iterator[str]) -> set[int]:
    """The synset offsets of a data.<pos> file's lines."""
    return {int(line.split(" ", 1)[0]) for line in _entries(lines)}


def _indexed(lines: Iterator[str]) -> set[int]:
    """The synset offsets an index.<pos> file's lines name (each line's last ``synset_cnt`` fields)."""
    named: set[int] = set()
    for line in _entries(lines):
        fields = line.split()
        synsets = int(fields[2])
        if not 0 < synsets < len(fields):
            raise ValueError(f"{synsets} synsets in a line of {len(fields)} fields")
        named.update(int(offset) for offset in fields[-synsets:])
    return named


def _sense_keys(lines: Iterator[str]) -> dict[str, tuple[str, int]]:
    """sense key -> (pos, synset offset) of index.sense's noun and verb senses."""
    key_offset: dict[str, tuple[str, int]] = {}
    for line in lines:
        key, offset, _ = line.split(" ", 2)
        pos = _SS_TYPE_POS.get(key.split("%", 1)[1][0])
        if pos:
            key_offset[key] = (pos, int(offset))
    return key_offset


def _sense_counts(lines: Iterator[str], key_offset: dict[str, tuple[str, int]]) -> dict[str, dict[int, int]]:
    """pos -> synset offset -> summed SemCor count of its senses, from cntlist's lines."""
    counts: dict[str, dict[int, int]] = {"n": defaultdict(int), "v": defaultdict(int)}
    for line in lines:
        count_text, key, _ = line.split(" ", 2)
        count = int(count_text)
        if not 0 <= count <= _MAX_SENSE_COUNT:
            # A negative count built an IC file every load refused; 4,000 digits overflowed a float.
            raise ValueError(f"a sense count of {count_text[:20]!r}, not 0 to {_MAX_SENSE_COUNT:,}")
        hit = key_offset.get(key)
        if hit:
            counts[hit[0]][hit[1]] += count
    return counts


#: The largest SemCor count of a sense that is taken (WordNet 3.0's is a few thousand).
_MAX_SENSE_COUNT = 1_000_000_000
#: Bytes a source file may hold (WordNet 3.0's largest, data.noun, holds 15 MB).
MAX_SOURCE_BYTES = 100_000_000


def _exceptions(lines: Iterator[str]) -> None:
    """Check an exception list's lines: each an inflected form and its base form(s)
    (a blank line built a WordNet every load refused as damaged)."""
    for line in lines:
        if len(line.split()) < 2:
            raise ValueError("not a form and its base form")


_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}


def _read_sources(source: Path) -> tuple[dict[str, dict[int, list[int]]], dict[str, dict[int, int]]]:
    """The noun and verb hypernyms and SemCor counts of the source folder, after
    checking that no file is empty or over :data:`MAX_SOURCE_BYTES`, each reads
    as WordNet 3.0 writes it, every synset an index names is in its data file
    (an empty or truncated data file built a WordNet without them, kept as
    built) and every hypernym a data file points to is in it; a
    :class:`WordNetSourceError` naming the file otherwise."""
    for name in WORDNET_FILES:
        size = (source / name).stat().st_size
        if size == 0 or size > MAX_SOURCE_BYTES:
            # A sparse file of 500 MB without a line end was read whole as one line (2.6 GB).
            too_large = f"{size:,} bytes, larger than any of WordNet 3.0's files"
            raise _source_problem(source, name, "an empty file" if size == 0 else too_large)
    parents: dict[str, dict[int, list[int]]] = {}
    for pos, word in _POS_FILES.items():
        data = f"data.{word}"
        if pos in _SS_TYPE_POS.values():
            parents[pos] = _parsed(source, data, _hypernyms)
            offsets = set(parents[pos])
        else:
            offsets = _parsed(source, data, _offsets)
        lacking = _parsed(source, f"index.{word}", _indexed) - offsets
        if lacking:
            raise _source_problem(
                source,
                data,
                f"lacks {len(lacking):,} synsets index.{word} names (cut short, or of another WordNet)",
            )
        # A pointer to a synset the file lacks was a KeyError in the counts' propagation.
        if dangling := {up for ups in parents.get(pos, {}).values() for up in ups} - offsets:
            raise _source_problem(source, data, f"points to {len(dangling):,} synsets it lacks")
    for word in _POS_FILES.values():
        _parsed(source, f"{word}.exc", _exceptions)
    key_offset = _parsed(source, "index.sense", _sense_keys)
    counts = _parsed(source, "cntlist", lambda lines: _sense_counts(lines, key_offset))
    return parents, counts


def _information_content_lines(
    every_parents: dict[str, dict[int, list[int]]], counts: dict[str, dict[int, int]]
) -> list[str]:
    lines = ["wnver::dri-semcor-cntlist add-one smoothing, propagated to all hypernyms\n"]
    for pos in ("n", "v"):
        parents = every_parents[pos]
        freq = dict.fromkeys(parents, 0.0)
        for offset in parents:
            own = 1.0 + counts[pos].get(offset, 0)
            # Each ancestor gets the count once, even when reached twice.
            seen = {offset}
            stack = [offset]
            while stack:
                node = stack.pop()
                freq[node] += own
                for up in parents[node]:
                    if up not in seen:
                        seen.add(up)
                        stack.append(up)
        for offset in sorted(parents):
            root = " ROOT" if not parents[offset] else ""
            lines.append(f"{offset}{pos} {freq[offset]:.1f}{root}\n")
    return lines


def build_wordnet(nltk_data: Path | None = None, source: Path | None = None, *, force: bool = False) -> Path:
    """Build (or reuse) WordNet and its IC file under ``nltk_data``; returns the corpora folder.

    Raises :class:`WordNetSetupError` naming the missing Debian files when the
    sources are absent.
    """
    corpora = wordnet_root(nltk_data)
    if is_built(nltk_data) and not force:
        return corpora
    source = Path(source) if source else wordnet_source_dir()
    there = {name: what_is_there(source / name) for name in WORDNET_FILES}
    missing = [name for name, what in there.items() if what == "missing"]
    if missing:
        raise WordNetSetupError(
            f"{source}: missing WordNet files {', '.join(missing)}; "
            "install the Debian packages wordnet-base and wordnet-sense-index, then run scripts/setup-wordnet"
        )
    # A FIFO, a folder or a link to /dev/zero was called missing, with advice to install packages.
    if other := next((name for name, what in there.items() if what != "a regular file"), None):
        raise _source_problem(source, other, f"{there[other]}, not a regular file")
    _refuse_foreign(corpora)
    parents, counts = _read_sources(source)
    corpora.mkdir(parents=True, exist_ok=True)
    # Build in a temporary folder and rename, so a concurrent reader never
    # sees half a WordNet.
    tmp = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=corpora))
    try:
        wn_tmp, ic_tmp = tmp / "wordnet", tmp / "wordnet_ic"
        wn_tmp.mkdir()
        ic_tmp.mkdir()
        for name in WORDNET_FILES:
            shutil.copyfile(source / name, wn_tmp / name)
        (wn_tmp / "lexnames").write_text(
            "".join(f"{i:02d}\t{name}\t{cat}\n" for i, (name, cat) in enumerate(LEXNAMES)), encoding="utf-8"
        )
        (ic_tmp / IC_FILE).write_text("".join(_information_content_lines(parents, counts)), encoding="utf-8")
        (wn_tmp / _STAMP).write_text(
            json.dumps(
                {"version": BUILD_VERSION, "source": str(source), "files": _sources_signature(source)}
            ),
            encoding="utf-8",
        )
        for name in ("wordnet_ic", "wordnet"):  # the stamp (in wordnet/) lands last
            final = corpora / name
            if not final.exists():
                os.replace(tmp / name, final)
                continue
            # An earlier build's folder: its files replaced one by one, the stamp last, and
            # nothing else removed (a user's IC file kept beside it was deleted with it).
            for made in sorted((tmp / name).iterdir(), key=lambda p: p.name == _STAMP):
                os.replace(made, final / made.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return corpora


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the project's offline WordNet 3.0 and its IC file.")
    parser.add_argument("--force", action="store_true", help="rebuild even when already built")
    parser.add_argument(
        "--source",
        type=Path,
        default=None,
        help=f"Debian WordNet folder (default $DRI_WORDNET_SOURCE, else {DEBIAN_WORDNET})",
    )
    args = parser.parse_args(argv)
    try:
        already = is_built() and not args.force
        corpora = build_wordnet(source=args.source, force=args.force)
    except WordNetSetupError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"WordNet {'already set up' if already else 'built'} in {corpora}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
