"""Round-trip translation: Apertium for real, LibreTranslate's requests on a local server."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from dri.corpora.text import CorpusError
from dri.corpora.translate import (
    APERTIUM_MODES,
    LANGUAGES,
    MAX_ANSWER_BYTES,
    ApertiumEngine,
    EngineError,
    LibreTranslateEngine,
    TranslationEngine,
    build_translation_corpus,
    strip_unknown_marks,
    url_problem,
)
from dri.corpora.translation import load_translation
from dri.staging import STAGING_PREFIX

SHORT = "The general divided his army into small groups. The groups attacked the fortress."


def test_strip_unknown_marks():
    assert strip_unknown_marks("@The #sun *revolve around #grupa#.") == "The sun revolve around grupa."
    assert strip_unknown_marks("@*the **revolve, which be# called") == "the revolve, which be called"
    # Marks inside words and free-standing symbols are left alone.
    assert strip_unknown_marks("a@b.c cost 5 * 3, #1") == "a@b.c cost 5 * 3, 1"


def test_apertium_has_every_round_trip_mode():
    modes = ApertiumEngine().available_modes()
    missing = {m for m in APERTIUM_MODES.values() if m not in modes}
    assert not missing, f"apt packages missing for modes {missing}"


def test_apertium_round_trip_spanish_for_real():
    engine = ApertiumEngine()
    assert isinstance(engine, TranslationEngine)
    spanish = engine.translate(SHORT, "eng", "spa")
    assert "ejército" in spanish and spanish != SHORT
    back = engine.translate(spanish, "spa", "eng")
    assert "army" in back and not any(c in back for c in "*#@")


def test_apertium_unknown_pair_is_one_line_error():
    with pytest.raises(EngineError, match="no mode known for eng -> xxx"):
        ApertiumEngine().translate("x", "eng", "xxx")
    with pytest.raises(EngineError, match="not installed"):
        ApertiumEngine(command="no-such-apertium-binary").translate("x", "eng", "spa")


def test_build_translation_corpus_all_languages_for_real(tmp_path):
    src = tmp_path / "texts"
    src.mkdir()
    (src / "fortress.txt").write_text(SHORT, encoding="utf-8")
    (src / "broken.txt").write_bytes(b"")  # empty: reported, the rest carries on
    result = build_translation_corpus(src, tmp_path / "corpus")
    assert result.problems and "broken.txt" in result.problems[0] and "empty" in result.problems[0]
    corpus = load_translation(tmp_path / "corpus")
    assert corpus.languages == sorted(LANGUAGES)
    assert corpus.problems == []
    for pair in corpus.pairs:
        back = pair.roundtrip.read_text(encoding="utf-8")
        assert back.strip() and not any(c in back for c in "*#@"), pair.language
        pivot = tmp_path / "corpus" / "pivot" / pair.language / f"fortress.{pair.language}"
        assert pivot.read_text(encoding="utf-8") != back
    assert (tmp_path / "corpus" / "manifest.csv").is_file()
    meta = json.loads((tmp_path / "corpus" / "translation.json").read_text(encoding="utf-8"))
    assert meta["engine"] == "apertium" and meta["modes"]["hbs"] == ["eng-hbs", "hbs-eng"]


#: Answers a broken or hostile server might give, by target language.
HOSTILE_ANSWERS = {
    "h1": b"[" * 100_000,
    "h2": b'{"translatedText": ' + b"9" * 5000 + b"}",
    "h3": b'{"translatedText": "a \\ud800 b"}',
    "h4": b"\xff\xfe not UTF-8",
    "h5": b'{"translatedText": ["a list"]}',
    "h6": b" " * (MAX_ANSWER_BYTES + 1),
    # A server that echoes the request: its words were quoted, API key and all.
    "h7": b'{"translated": "bad key k3y"}',
    "h8": b'["k3y", "x"]',
    "empty": b'{"translatedText": "  "}',
    "nul": b'{"translatedText": "a\\u0000b"}',
}


class _FakeLibreTranslate(BaseHTTPRequestHandler):
    seen: ClassVar[list] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, self.headers["Content-Type"], body))
        if body["target"] == "xx":
            self.send_response(400)
            self.end_headers()
            return
        if body["target"] == "slow":  # a byte now and then: each read within its timeout
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            for _ in range(20):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.25)
            return
        answer = (
            HOSTILE_ANSWERS.get(body["target"])
            or HOSTILE_ANSWERS.get(body["source"])  # the way back of a round trip
            or json.dumps({"translatedText": f"[{body['source']}->{body['target']}] {body['q']}"}).encode()
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def libre_server():
    server = HTTPServer(("127.0.0.1", 0), _FakeLibreTranslate)
    _FakeLibreTranslate.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_libretranslate_request_building(libre_server):
    engine = LibreTranslateEngine(libre_server + "/", api_key="k3y", timeout=10)
    req = engine.request("Hello", "eng", "glg")
    assert req.full_url == libre_server + "/translate" and req.get_method() == "POST"
    assert json.loads(req.data) == {
        "q": "Hello",
        "source": "en",
        "target": "gl",
        "format": "text",
        "api_key": "k3y",
    }
    assert engine.translate("Hello", "eng", "spa") == "[en->es] Hello"
    path, content_type, body = _FakeLibreTranslate.seen[-1]
    assert path == "/translate" and content_type == "application/json" and body["api_key"] == "k3y"
    with pytest.raises(EngineError, match="HTTP 400"):
        engine.translate("Hello", "eng", "xx")


@pytest.mark.parametrize(
    "target, says",
    [
        ("h1", "answer is not JSON"),
        ("h2", "answer is not JSON"),
        ("h3", "answer holds a lone surrogate, which is not text"),
        ("h4", "answer is not JSON"),
        ("h5", "answer has no translatedText text (it is an array)"),
        ("h6", f"answer over {MAX_ANSWER_BYTES:,} bytes"),
        ("h7", "answer has no translatedText text (an object without it)"),
        ("h8", "answer has no translatedText text (the answer is an array)"),
        # A byte every 0.25 s: each read within its own timeout, the answer never whole.
        ("slow", "no whole answer within 1 s"),
    ],
)
def test_a_hostile_translation_server_is_one_engine_error(libre_server, target, says):
    engine = LibreTranslateEngine(libre_server, api_key="k3y", timeout=1 if target == "slow" else 10)
    with pytest.raises(EngineError) as err:
        engine.translate("Hello", "eng", target)
    assert str(err.value).startswith(libre_server) and says in str(err.value)
    assert "k3y" not in str(err.value)


def test_a_status_line_sent_a_byte_at_a_time_is_cut_at_the_timeout():
    # Each read had its own timeout, and the whole answer's deadline began after the headers:
    # a server sending its status line a byte every 10 s held a build for ever.
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()

        def dribble() -> None:
            conn, _ = listening.accept()
            with conn:
                conn.recv(65536)
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: yes\r\n":
                    try:
                        conn.send(bytes([byte]))
                    except OSError:
                        return
                    time.sleep(0.25)

        threading.Thread(target=dribble, daemon=True).start()
        engine = LibreTranslateEngine(f"http://127.0.0.1:{listening.getsockname()[1]}", timeout=1)
        with pytest.raises(EngineError, match="no whole answer within 1 s$"):  # not after the 7.75 s of it
            engine.translate("Hello", "eng", "spa")


@pytest.mark.parametrize(
    "answer",
    [
        b"GARBAGE\r\n\r\n",  # http.client's BadStatusLine
        b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 150 + b"\r\n",  # "got more than 100 headers"
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # IncompleteRead
    ],
)
def test_an_answer_that_is_not_http_is_one_engine_error(answer):
    # Each was http.client's exception, a traceback and exit 70.
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()

        def reply() -> None:
            conn, _ = listening.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(answer)

        threading.Thread(target=reply, daemon=True).start()
        url = f"http://127.0.0.1:{listening.getsockname()[1]}"
        with pytest.raises(EngineError, match=f"^{url}/translate: not an HTTP answer \\("):
            LibreTranslateEngine(url, timeout=10).translate("Hello", "eng", "spa")


def test_a_build_goes_into_the_folder_given_with_the_mode_of_any_other(libre_server, tmp_path, monkeypatch):
    # "." was built into a hidden folder inside itself, then refused as not empty; a link
    # to an empty folder failed after the translating, "Not a directory"; the corpus was 0700.
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    engine = LibreTranslateEngine(libre_server)
    (tmp_path / "dot").mkdir()
    monkeypatch.chdir(tmp_path / "dot")
    assert build_translation_corpus(src, ".", ["spa"], engine).problems == []
    assert sorted(p.name for p in (tmp_path / "dot").iterdir()) == [
        "manifest.csv",
        "originals",
        "pivot",
        "roundtrip",
        "translation.json",
    ]
    assert (tmp_path / "dot").stat().st_mode & 0o777 == 0o777 & ~_umask()
    (tmp_path / "empty").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    asked = len(_FakeLibreTranslate.seen)
    with pytest.raises(CorpusError, match="link: is a symbolic link; --build-from writes a new corpus"):
        build_translation_corpus(src, tmp_path / "link", ["spa"], engine)
    assert (
        len(_FakeLibreTranslate.seen) == asked and list((tmp_path / "empty").iterdir()) == []
    )  # refused first


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_server_that_does_not_answer_is_asked_no_more(tmp_path):
    # A server down or mute cost the whole timeout for each text and language, in silence.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    engine = LibreTranslateEngine(f"http://127.0.0.1:{port}", timeout=5)
    for _ in range(2):
        with pytest.raises(EngineError, match="Connection refused"):
            engine.translate("Hello", "eng", "spa")
    with pytest.raises(EngineError, match="not asked: the server did not answer the last 2 requests$"):
        engine.translate("Hello", "eng", "spa")


def test_a_build_into_a_corpus_is_refused(libre_server, tmp_path):
    # It replaced the originals given and scored the old round trips against them, exit 0.
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    engine = LibreTranslateEngine(libre_server)
    build_translation_corpus(src, tmp_path / "out", ["spa"], engine)
    before = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    (src / "a.txt").write_text("Another line.", encoding="utf-8")
    with pytest.raises(
        CorpusError, match="is not empty \\(manifest.csv, originals, pivot, …\\); --build-from"
    ):
        build_translation_corpus(src, tmp_path / "out", ["epo"], engine)
    assert {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()} == before
    # A user's own files there were replaced too.
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "manifest.csv").write_text("my own", encoding="utf-8")
    with pytest.raises(CorpusError, match="is not empty \\(manifest.csv\\)"):
        build_translation_corpus(src, tmp_path / "theirs", ["epo"], engine)
    assert (tmp_path / "theirs" / "manifest.csv").read_text(encoding="utf-8") == "my own"
    # An empty folder is a new one.
    (tmp_path / "empty").mkdir()
    assert build_translation_corpus(src, tmp_path / "empty", ["epo"], engine).problems == []
    assert (tmp_path / "empty" / "roundtrip" / "epo" / "a.txt").is_file()


def test_a_build_leaves_out_what_its_corpus_could_not_hold(libre_server, tmp_path, monkeypatch):
    # Each was written and counted as built; the evaluation then refused it
    # (empty, binary, too long), or one of two names was dropped without a word.
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    (src / "a.TXT").write_text("Another line.", encoding="utf-8")
    (src / "long.txt").write_text("Word " * 100, encoding="utf-8")
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "200")
    (tmp_path / "out").mkdir()  # an empty folder given: it stays empty, nothing counted as written
    result = build_translation_corpus(
        src, tmp_path / "out", ["empty", "nul"], LibreTranslateEngine(libre_server)
    )
    assert result.problems == [
        f"{src / 'a.txt'}: left out: its name is that of a.TXT; rename one",
        f"{src / 'long.txt'}: too long: 500 characters of text, the limit is 200 (DRI_MAX_TEXT_CHARS)",
        "a via empty: the round trip came back empty",
        "a via nul: the round trip came back as binary data, not text (contains NUL bytes)",
    ]
    # No round trip came back: nothing is left to refuse the next build, which can then succeed.
    assert list((tmp_path / "out").iterdir()) == [] and result.written == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "texts"]


class _EchoEngine:
    """Translates by tagging the text: no server, no Apertium."""

    def translate(self, text: str, src: str, dst: str) -> str:
        return f"[{src}->{dst}] {text}"


def test_a_source_that_is_no_text_of_the_folder_is_a_line_of_its_own(tmp_path):
    # A FIFO, a link to nothing and a folder named .txt vanished without a line, and a
    # link out of the folder was copied into originals/ and translated (/etc/hostname).
    outside = tmp_path / "secret.txt"
    outside.write_text("Not for the translator.", encoding="utf-8")
    src = tmp_path / "texts"
    src.mkdir()
    (src / "good.txt").write_text("One line.", encoding="utf-8")
    os.mkfifo(src / "fifo.txt")
    (src / "dang.txt").symlink_to(tmp_path / "nope")
    (src / "dir.txt").mkdir()
    (src / "out.txt").symlink_to(outside)
    (src / "same.txt").symlink_to("good.txt")  # a link inside the folder is a text of it
    result = build_translation_corpus(src, tmp_path / "out", ["spa"], _EchoEngine())
    assert result.problems == [
        f"{src / 'dang.txt'}: no such file (a symbolic link to {tmp_path / 'nope'})",
        f"{src / 'dir.txt'}: is a folder, not a regular file",
        f"{src / 'fifo.txt'}: is a FIFO (named pipe), not a regular file",
        f"{src / 'out.txt'}: refused, it leads to {outside}, outside the folder {src.resolve()}",
    ]
    assert sorted(p.name for p in (tmp_path / "out" / "originals").iterdir()) == ["good.txt", "same.txt"]
    assert not any("Not for the translator" in p.read_text(encoding="utf-8") for p in result.written)


def test_libretranslate_builds_a_corpus(libre_server, tmp_path):
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    result = build_translation_corpus(
        src, tmp_path / "out", ["spa", "epo"], LibreTranslateEngine(libre_server)
    )
    assert result.problems == []
    back = (tmp_path / "out" / "roundtrip" / "epo" / "a.txt").read_text(encoding="utf-8")
    assert back == "[eo->en] [en->eo] One line."


@pytest.mark.parametrize("lang", ["../../escape", "a/b", "spa\nforged", "", "x" * 33])
def test_a_language_that_is_not_a_code_builds_nothing(libre_server, tmp_path, lang):
    # A language names the corpus's folders: the server took "../../escape" and the
    # round trips were written two folders above the corpus.
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    out = tmp_path / "c" / "out"
    with pytest.raises(ValueError, match="not a language code"):
        build_translation_corpus(src, out, ["spa", lang], LibreTranslateEngine(libre_server))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["texts"]


def test_unreachable_libretranslate_is_reported_not_raised(tmp_path):
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    # Port 9 on loopback: nothing listens there, the connection is refused at once.
    result = build_translation_corpus(
        src, tmp_path / "out", ["spa"], LibreTranslateEngine("http://127.0.0.1:9", timeout=5)
    )
    assert len(result.problems) == 1 and result.problems[0].startswith(
        "a via spa: http://127.0.0.1:9/translate"
    )


@pytest.mark.parametrize(
    "url", ["not a url", "localhost:5000", "http://", "http://h:abc", "ftp://x", "http://a b"]
)
def test_a_libretranslate_engine_refuses_a_url_it_cannot_send_to(url):
    # The request raised ValueError ("unknown url type") at the first text.
    assert url_problem(url)
    with pytest.raises(EngineError, match="LibreTranslate URL"):
        LibreTranslateEngine(url)


@pytest.mark.parametrize(
    "url", ["http://user:PassW0rdXYZ@127.0.0.1:9/", "http://u:Pass/W0rdXYZ@127.0.0.1:9/"]
)
def test_a_libretranslate_url_with_a_login_is_refused_without_showing_it(url):
    # urllib sent no login (the host was read as "user": "Name or service not known"),
    # and every text's error line, on screen and in translation.json, showed the password.
    with pytest.raises(EngineError) as err:
        LibreTranslateEngine(url)
    assert "W0rdXYZ" not in str(err.value) and "//u" not in str(err.value)
    assert str(err.value).startswith("LibreTranslate URL 'http://127.0.0.1:9/': a login (user:password@)")


@pytest.mark.parametrize(
    "url, shown, says",
    [
        ("user:PassW0rdXYZ@127.0.0.1:1", "127.0.0.1:1", "a login"),  # no scheme: all of it was shown
        ("http://127.0.0.1:1/?api_key=PassW0rdXYZ", "http://127.0.0.1:1/", "a query or fragment"),
        ("http://127.0.0.1:1/#PassW0rdXYZ", "http://127.0.0.1:1/", "a query or fragment"),
        ("http://u:Pass?W0rdXYZ@127.0.0.1:1", "http://127.0.0.1:1", "a login"),  # a "?" in the password
        ("http://u:Pass#W0rdXYZ@127.0.0.1:1", "http://127.0.0.1:1", "a login"),
    ],
)
def test_a_libretranslate_url_hides_a_login_or_a_query_whatever_its_shape(url, shown, says):
    # The query's key was in every text's error line and translation.json, and
    # "/translate" was sent after it.
    with pytest.raises(EngineError) as err:
        LibreTranslateEngine(url)
    assert "W0rdXYZ" not in str(err.value) and "Pass" not in str(err.value)
    assert str(err.value).startswith(f"LibreTranslate URL {shown!r}: {says}")


def test_a_libretranslate_url_with_a_host_is_taken():
    assert url_problem("http://localhost:5000") is None and url_problem("https://lt.example.org/api/") is None


def test_a_build_stopped_by_kill_9_is_cleared_by_the_next_build(libre_server, tmp_path):
    # Its hidden folder (a whole corpus's round trips) stayed beside the corpora for good.
    src = tmp_path / "texts"
    src.mkdir()
    (src / "a.txt").write_text("One line.", encoding="utf-8")
    dead = tmp_path / f"{STAGING_PREFIX}999999999-old-corpus-abc"  # over any pid_max: no such process
    (dead / "originals").mkdir(parents=True)
    running = tmp_path / f"{STAGING_PREFIX}{os.getpid()}-other-corpus-xyz"  # a build still going
    running.mkdir()
    build_translation_corpus(src, tmp_path / "new", ["spa"], LibreTranslateEngine(libre_server))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["texts", "new", running.name])
