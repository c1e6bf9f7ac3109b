"""Round-trip machine translation, offline by default, to build translation corpora.

The Dr Inventor paper ("Machine Translation Evaluation", Hurley et al., EGPAI
2016) scored English texts against their English -> X -> English round trips
made with Google Translate. That needs a network service; this module makes
the same kind of corpus offline with Debian's Apertium rule-based engine
(Forcada et al., "Apertium: a free/open-source platform for rule-based
machine translation", Machine Translation 25(2), 2011), and lets any other
service be plugged in through the :class:`TranslationEngine` protocol, e.g. a
LibreTranslate server with :class:`LibreTranslateEngine`.

Language codes are ISO 639-3 (``eng``, ``spa``, ``cat``, ``glg``, ``epo``,
``hbs``); each engine maps them to its own names.

Example
-------
>>> engine = ApertiumEngine()                                          # doctest: +SKIP
>>> engine.translate("The sun attracts the planets.", "eng", "spa")    # doctest: +SKIP
'El sol atrae los planetas.'
>>> build_translation_corpus("texts/", "corpus/", ["spa", "epo"])      # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from dri.atomic import write_text
from dri.corpora.manifest import write_manifest
from dri.corpora.text import CorpusError, read_text
from dri.corpora.translation import ORIGINALS, PIVOT, ROUNDTRIP, load_translation
from dri.errors import ProjectError
from dri.files import NotText, decode_text
from dri.literal import lone_surrogate
from dri.settings import HOST_NAME_RULE, host_name_ok, max_text_chars, uri_port_problem
from dri.staging import remove_abandoned, staging_name

if TYPE_CHECKING:
    import urllib.request

__all__ = [
    "APERTIUM_MODES",
    "LANGUAGES",
    "MAX_ANSWER_BYTES",
    "ApertiumEngine",
    "BuildResult",
    "EngineError",
    "LibreTranslateEngine",
    "TranslationEngine",
    "build_translation_corpus",
    "language_problem",
    "shown_url",
    "strip_unknown_marks",
    "url_problem",
]

#: A language code as engines name them (eng, pt-BR, zh-Hans, sr_Latn): it names
#: the corpus's folders roundtrip/<lang>/ and pivot/<lang>/ and their files' suffix.
_LANGUAGE_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")

# The pivot languages of the round trips, with a readable name for reports.
LANGUAGES = {
    "spa": "Spanish",
    "cat": "Catalan",
    "glg": "Galician",
    "epo": "Esperanto",
    "hbs": "Serbo-Croatian",
}

# Apertium mode names, (from, to) -> mode, as installed by the Debian packages
# apertium-eng-spa, apertium-eng-cat, apertium-en-gl, apertium-eo-en and
# apertium-hbs-eng (see /usr/share/apertium/modes or `apertium -l`).
APERTIUM_MODES = {
    ("eng", "spa"): "eng-spa",
    ("spa", "eng"): "spa-eng",
    ("eng", "cat"): "eng-cat",
    ("cat", "eng"): "cat-eng",
    ("eng", "glg"): "en-gl",
    ("glg", "eng"): "gl-en",
    ("eng", "epo"): "en-eo",
    ("epo", "eng"): "eo-en",
    ("eng", "hbs"): "eng-hbs",
    ("hbs", "eng"): "hbs-eng",
}
APERTIUM_PACKAGES = {
    "spa": "apertium-eng-spa",
    "cat": "apertium-eng-cat",
    "glg": "apertium-en-gl",
    "epo": "apertium-eo-en",
    "hbs": "apertium-hbs-eng",
}

# LibreTranslate speaks ISO 639-1; it has no Serbo-Croatian, Serbian is closest.
LIBRETRANSLATE_CODES = {"eng": "en", "spa": "es", "cat": "ca", "glg": "gl", "epo": "eo", "hbs": "sr"}

# Apertium marks words it could not analyse (*), generate (#) or transfer (@)
# at the start of the word; a # may also stand at the end of a word ("be#").
# (That last rule would also turn "C#" into "C"; Apertium output is what matters here.)
_MARKED_WORD = re.compile(r"(?<![\w*#@])[*#@]+(\w+(?:['’-]\w+)*)")
_TRAILING_HASH = re.compile(r"(?<=\w)#+(?!\w)")


#: The most bytes of a translation server's answer read (a text's translation is far smaller).
MAX_ANSWER_BYTES = 10_000_000
#: Seconds one read from a translation server may wait for a byte; the whole
#: answer still has the engine's ``timeout`` (a server sending a byte every 20 s
#: never tripped a timeout that counted each read alone).
READ_STALL_SECONDS = 30.0
#: Unanswered requests in a row after which a build asks the server no more.
GIVE_UP_AFTER = 2


class EngineError(ProjectError):
    """A translation that could not be made; ``str()`` is one line."""


@runtime_checkable
class TranslationEngine(Protocol):
    """Anything that translates ``text`` from language ``src`` to ``dst``."""

    name: str

    def translate(self, text: str, src: str, dst: str) -> str: ...


def strip_unknown_marks(text: str) -> str:
    """``text`` without Apertium's ``*``, ``#`` and ``@`` word marks.

    >>> strip_unknown_marks("The #sun @*orbit the **revolve #grupa# be#.")
    'The sun orbit the revolve grupa be.'
    """
    return _TRAILING_HASH.sub("", _MARKED_WORD.sub(r"\1", text))


@dataclass
class ApertiumEngine:
    """Debian's ``apertium`` command, one process per call.

    ``-u`` asks Apertium not to mark unknown words; the other marks are
    stripped from every output so that they do not reach the next step.
    """

    command: str = "apertium"
    timeout: float = 300.0
    modes: dict[tuple[str, str], str] = field(default_factory=lambda: dict(APERTIUM_MODES))
    name: str = "apertium"

    def available_modes(self) -> set[str]:
        exe = shutil.which(self.command)
        if exe is None:
            raise EngineError(f"{self.command}: not installed (apt-get install apertium)")
        out = subprocess.run([exe, "-l"], capture_output=True, text=True, timeout=60)
        return set(out.stdout.split())

    def mode(self, src: str, dst: str) -> str:
        try:
            return self.modes[(src, dst)]
        except KeyError:
            raise EngineError(f"apertium: no mode known for {src} -> {dst}") from None

    def translate(self, text: str, src: str, dst: str) -> str:
        mode = self.mode(src, dst)
        exe = shutil.which(self.command)
        if exe is None:
            raise EngineError(f"{self.command}: not installed (apt-get install apertium)")
        try:
            out = subprocess.run(
                [exe, "-u", "-f", "txt", mode],
                input=text,
                capture_output=True,
                text=True,
                timeout=self.timeout,
            )
        except subprocess.TimeoutExpired:
            raise EngineError(f"apertium {mode}: no answer within {self.timeout:.0f} s") from None
        if out.returncode != 0:
            lang = dst if src == "eng" else src
            hint = f" (apt-get install {APERTIUM_PACKAGES[lang]})" if lang in APERTIUM_PACKAGES else ""
            reason = " ".join(out.stderr.split())[:200] or f"exit status {out.returncode}"
            raise EngineError(f"apertium {mode}: {reason}{hint}")
        return strip_unknown_marks(out.stdout)


def language_problem(lang: str) -> str | None:
    """Why ``lang`` cannot be a language of a built corpus, or None: it names
    folders, so ``../x``, ``a/b`` or a line break would write outside them."""
    if _LANGUAGE_CODE.fullmatch(lang):
        return None
    return "not a language code (up to 32 letters, digits, - and _, such as spa or pt-BR)"


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a LibreTranslate server's address, or None: it must be
    ``http://`` or ``https://`` with a host (``http://localhost:5000``) and no
    login, in words that quote none of it (:func:`shown_url` shows it)."""
    if "@" in url:
        # urllib sends no user:password@ (the host was read as "user"), and every
        # message quoting the URL showed the password; LibreTranslate takes an API key.
        return (
            "a login (user:password@) is not sent to LibreTranslate; give --api-key, and the URL without it"
        )
    problem = uri_port_problem(url)
    if problem:
        return problem
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "not an http:// or https:// URL"
    if not parts.hostname:
        return "names no host"
    if not host_name_ok(parts.hostname):
        return HOST_NAME_RULE
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        # A key in the query (?api_key=...) was quoted in every message and the
        # report, and "/translate" went after it.
        return "a query or fragment (?..., #...) is no part of a server's address; give a key with --api-key"
    if any(c.isspace() or ord(c) < 32 for c in url):
        return "holds white space or control characters"
    return None


def shown_url(url: str) -> str:
    """``url`` for a message: without a login (``user:password@``, also with
    no scheme before it) or a query or fragment (where a key may be), cut at
    200 characters."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    if "@" in rest:  # first: a password may hold "?" or "#"
        rest = rest.rsplit("@", 1)[1]
    rest = re.split(r"[?#]", rest, maxsplit=1)[0]
    return f"{scheme}{sep}{rest}"[:200]


@dataclass
class LibreTranslateEngine:
    """A LibreTranslate server's ``POST /translate`` (JSON), with the stdlib only."""

    url: str
    api_key: str | None = None
    timeout: float = 120.0
    codes: dict[str, str] = field(default_factory=lambda: dict(LIBRETRANSLATE_CODES))
    name: str = "libretranslate"
    #: Requests in a row the server did not answer (refused, timed out): at
    #: :data:`GIVE_UP_AFTER`, the rest are not sent.
    _silent: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A URL that is not http(s) with a host ("localhost:5000", "not a url")
        # made urllib's Request raise ValueError at the first text: exit 70.
        problem = url_problem(self.url)
        if problem:
            raise EngineError(f"LibreTranslate URL {shown_url(self.url)!r}: {problem}")

    def request(self, text: str, src: str, dst: str) -> urllib.request.Request:
        """The HTTP request :meth:`translate` sends (separate so it can be checked)."""
        import urllib.request  # only a LibreTranslate run needs it: 0.05 s of every dri evaluate

        body = {
            "q": text,
            "source": self.codes.get(src, src),
            "target": self.codes.get(dst, dst),
            "format": "text",
        }
        if self.api_key:
            body["api_key"] = self.api_key
        return urllib.request.Request(
            self.url.rstrip("/") + "/translate",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            method="POST",
        )

    def translate(self, text: str, src: str, dst: str) -> str:
        import http.client  # only a LibreTranslate run needs them
        import urllib.error
        import urllib.request

        req = self.request(text, src, dst)
        if self._silent >= GIVE_UP_AFTER:
            # A server down or mute cost the whole timeout for each text and language, in silence.
            raise EngineError(
                f"{req.full_url}: not asked: the server did not answer the last {self._silent} requests"
            )
        try:
            raw = _answer_within(req, self.timeout)
        except http.client.HTTPException as err:  # not HTTP: a bad status line, 100+ headers, bad chunks
            self._silent = 0
            raise EngineError(f"{req.full_url}: not an HTTP answer ({type(err).__name__})") from None
        except urllib.error.HTTPError as err:
            self._silent = 0
            raise EngineError(f"{req.full_url}: HTTP {err.code} {err.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as err:
            self._silent += 1
            reason = getattr(err, "reason", err)
            # "Connection refused", as other messages say it ("[Errno 111] …" was urllib's).
            said = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
            raise EngineError(f"{req.full_url}: {said}") from None
        self._silent = 0
        if len(raw) > MAX_ANSWER_BYTES:
            raise EngineError(f"{req.full_url}: answer over {MAX_ANSWER_BYTES:,} bytes")
        try:
            answer = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):  # not UTF-8, not JSON, a number or nesting Python refuses
            raise EngineError(f"{req.full_url}: answer is not JSON") from None
        translated = answer.get("translatedText") if isinstance(answer, dict) else None
        if not isinstance(translated, str):
            # Its shape, not its words: a server may echo the request, API key and all.
            if not isinstance(answer, dict):
                shape = f"the answer is {_json_kind(answer)}"
            elif "translatedText" in answer:
                shape = f"it is {_json_kind(translated)}"
            else:
                shape = "an object without it"
            raise EngineError(f"{req.full_url}: answer has no translatedText text ({shape})")
        if lone_surrogate(translated) is not None:
            raise EngineError(f"{req.full_url}: answer holds a lone surrogate, which is not text")
        return translated


def _answer_within(req: urllib.request.Request, timeout: float) -> bytes:
    """The body of the answer to ``req`` (at most :data:`MAX_ANSWER_BYTES` + 1
    bytes), all of it within ``timeout`` seconds, or a :class:`TimeoutError`.
    The request runs in a thread of its own that is left behind at the
    deadline: a socket's timeout counts each read alone, and a server that
    sends its status line, headers or body a byte at a time never tripped it."""
    import urllib.request

    outcome: dict[str, Any] = {}
    deadline = time.monotonic() + timeout

    def fetch() -> None:
        try:
            with urllib.request.urlopen(req, timeout=min(timeout, READ_STALL_SECONDS)) as resp:
                outcome["raw"] = _read_until(resp, deadline, MAX_ANSWER_BYTES + 1, timeout)
        except BaseException as err:  # handed to the caller's thread
            outcome["error"] = err

    worker = threading.Thread(target=fetch, name="libretranslate-request", daemon=True)
    worker.start()
    worker.join(timeout + 1.0)
    if worker.is_alive():
        raise TimeoutError(f"no whole answer within {timeout:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return bytes(outcome["raw"])


def _read_until(resp: Any, deadline: float, limit: int, timeout: float) -> bytes:
    """Up to ``limit`` bytes of an HTTP answer, as they come; a :class:`TimeoutError`
    if the whole answer is not in by ``deadline`` (``time.monotonic``)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no whole answer within {timeout:g} s")
        chunk = resp.read1(min(65536, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words ("an array")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number"}
    return kinds.get(type(value), type(value).__name__)


@dataclass
class BuildResult:
    root: Path
    languages: list[str]
    written: list[Path]
    problems: list[str]
    seconds: float
    #: The source texts read, which the translator was given.
    sources: int = 0


def _sources(src: str | Path | Iterable[str | Path]) -> tuple[list[Path], Path | None]:
    """``(files, folder)``: the ``.txt`` names of a folder ``src``, sorted, and the
    folder resolved, which the files are read inside; or the files of a list, and None.

    Every name ending in ``.txt`` is listed, whatever it is (a FIFO, a folder, a
    link to nothing or out of the folder), so that reading it says why it is left
    out: they were left out of the listing without a word."""
    if isinstance(src, (str, Path)):
        folder = Path(src)
        if not folder.is_dir():
            raise CorpusError(folder, "no such folder of English texts")
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".txt")
        except OSError as err:
            raise CorpusError(folder, f"cannot read the folder: {err.strerror or err}") from None
        if not files:
            raise CorpusError(folder, "no .txt files to translate")
        return files, folder.resolve()
    return [Path(p) for p in src], None


def _refuse_a_built_corpus(out: Path) -> None:
    """A :class:`CorpusError` if ``out`` is anything but a missing or empty folder:
    a build into a corpus replaced the originals of the texts it was given, kept
    the round trips of the languages it was not, and scored the old round trips
    against the new originals, with exit 0; a user's own ``manifest.csv`` or
    ``translation.json`` there was replaced."""
    try:
        held = sorted(p.name for p in out.iterdir()) if out.is_dir() else None
    except OSError as err:
        raise CorpusError(out, f"cannot look into it ({err.strerror or err})") from None
    if out.exists() and held is None:
        raise CorpusError(out, "is not a folder; --build-from writes a new corpus folder there")
    if held:
        shown = ", ".join(held[:3]) + (", …" if len(held) > 3 else "")
        raise CorpusError(
            out,
            f"is not empty ({shown}); --build-from writes a new corpus: give a new folder, "
            "or evaluate this one without --build-from",
        )


def _source_texts(src: str | Path | Iterable[str | Path], problems: list[str]) -> dict[str, str]:
    """The texts to translate by name; one that cannot be read (not a regular
    file, a link to nothing, a link out of the folder ``src``, as ``dri run``
    refuses one), is over the text limit (``DRI_MAX_TEXT_CHARS``, which the
    evaluation then refuses, after the engine spent minutes on it), or has the
    name of one before (``a.TXT`` beside ``a.txt``: one of them was left out
    without a word) is a line of ``problems``."""
    limit = max_text_chars()
    texts: dict[str, str] = {}
    first: dict[str, Path] = {}
    files, inside = _sources(src)
    for path in files:
        if path.stem in first:
            problems.append(f"{path}: left out: its name is that of {first[path.stem].name}; rename one")
            continue
        try:
            # Read as the flow reads a corpus's file: /etc/hostname was copied and translated.
            text = read_text(path, inside=inside)
        except CorpusError as err:
            problems.append(str(err))
            continue
        if len(text) > limit:
            problems.append(
                f"{path}: too long: {len(text):,} characters of text, the limit is {limit:,} (DRI_MAX_TEXT_CHARS)"
            )
            continue
        first[path.stem] = path
        texts[path.stem] = text
    return texts


def _translation_problem(text: str, limit: int) -> str | None:
    """Why a round trip cannot be a document of the corpus (the evaluation refused
    it after the build had counted it as written), or None."""
    if not text.strip():
        return "the round trip came back empty"
    try:
        decode_text(text.encode("utf-8"))
    except NotText as err:
        return f"the round trip came back as {err}"
    if len(text) > limit:
        return f"the round trip came back too long ({len(text):,} characters; the limit is {limit:,})"
    return None


def _round_trips(
    out: Path,
    texts: dict[str, str],
    languages: list[str],
    engine: TranslationEngine,
    source_language: str,
    problems: list[str],
) -> list[Path]:
    """Each text to each language and back, written under ``out``; the files written."""
    limit = max_text_chars()
    written: list[Path] = []
    for lang in languages:
        for name, text in texts.items():
            try:
                there = engine.translate(text, source_language, lang)
                back = strip_unknown_marks(engine.translate(there, lang, source_language))
            except EngineError as err:
                problems.append(f"{name} via {lang}: {err}")
                continue
            problem = _translation_problem(back, limit)
            if problem:
                problems.append(f"{name} via {lang}: {problem}")
                continue
            # The one-way text is named NAME.<lang>, not .txt, so that nothing that
            # collects English documents from the folder picks it up.
            for target, content in (
                (out / PIVOT / lang / f"{name}.{lang}", there),
                (out / ROUNDTRIP / lang / f"{name}.txt", back),
            ):
                target.parent.mkdir(parents=True, exist_ok=True)
                write_text(target, content)
                written.append(target)
    return written


def build_translation_corpus(
    src: str | Path | Iterable[str | Path],
    out_dir: str | Path,
    languages: Iterable[str] = tuple(LANGUAGES),
    engine: TranslationEngine | None = None,
    source_language: str = "eng",
) -> BuildResult:
    """Translate every English text of ``src`` to each language and back.

    ``src`` is a folder of ``.txt`` files or a list of files. Writes the
    layout of :mod:`corpora.translation` into ``out_dir``, which must be a
    new or empty folder: ``originals/``, ``roundtrip/<lang>/``, the one-way
    translations as ``pivot/<lang>/NAME.<lang>``, ``manifest.csv`` and
    ``translation.json``. The corpus is built in a hidden folder beside it
    and moved into place whole, once at least one round trip is done: a
    build stopped part-way, or one whose every translation failed, leaves
    nothing (running it again builds it). A text or language that fails is
    noted in ``problems`` (one line each) and the rest carries on. A
    language that is not a code (:func:`language_problem`: ``../x``,
    ``a/b``) is a ValueError before anything is written.
    """
    started = time.perf_counter()
    engine = engine or ApertiumEngine()
    out = Path(out_dir)
    languages = list(languages)
    for lang in languages:
        problem = language_problem(lang)
        if problem:
            raise ValueError(f"{lang!r:.60}: {problem}")
    if out.is_symlink():  # moved onto, a link is replaced by the corpus, or the move fails
        raise CorpusError(out, "is a symbolic link; --build-from writes a new corpus: give the folder itself")
    out = out.absolute()  # "." has no name, and its parent is itself: the build went inside it
    _refuse_a_built_corpus(out)
    problems: list[str] = []
    texts = _source_texts(src, problems)
    out.parent.mkdir(parents=True, exist_ok=True)
    # mkdir, not mkdtemp: the corpus keeps the folder mode of any other (mkdtemp's is 0700).
    remove_abandoned(out.parent)  # earlier builds stopped by kill -9
    staging = out.parent / staging_name(out.name)
    staging.mkdir()
    moved = False
    try:
        written = _write_corpus(staging, texts, languages, engine, source_language, problems)
        if (staging / ROUNDTRIP).is_dir():
            _refuse_a_built_corpus(out)  # made by someone else while this one translated
            if out.is_dir():
                out.rmdir()
            os.replace(staging, out)
            moved = True
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    # Nothing moved, nothing written (an empty folder given stays empty).
    written = [out / p.relative_to(staging) for p in written] if moved else []
    return BuildResult(out, languages, written, problems, time.perf_counter() - started, sources=len(texts))


def _write_corpus(
    folder: Path,
    texts: dict[str, str],
    languages: list[str],
    engine: TranslationEngine,
    source_language: str,
    problems: list[str],
) -> list[Path]:
    """The originals, round trips, ``translation.json`` and manifest in ``folder``."""
    (folder / ORIGINALS).mkdir()
    written: list[Path] = []
    for name, text in texts.items():
        target = folder / ORIGINALS / f"{name}.txt"
        write_text(target, text)
        written.append(target)
    written += _round_trips(folder, texts, languages, engine, source_language, problems)
    meta = {
        "engine": getattr(engine, "name", type(engine).__name__),
        "source_language": source_language,
        "languages": {lang: LANGUAGES.get(lang, lang) for lang in languages},
        "modes": {
            lang: [APERTIUM_MODES.get((source_language, lang)), APERTIUM_MODES.get((lang, source_language))]
            for lang in languages
        }
        if isinstance(engine, ApertiumEngine)
        else None,
        "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "problems": problems,
    }
    write_text(folder / "translation.json", json.dumps(meta, indent=1, ensure_ascii=False))
    if (folder / ROUNDTRIP).is_dir():
        write_manifest(load_translation(folder).manifest(), folder / "manifest.csv")
    return written
