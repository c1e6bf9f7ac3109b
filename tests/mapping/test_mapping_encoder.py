"""The sentence encoder (all-MiniLM-L6-v2 int8 on onnxruntime, from its wheels)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from dri.mapping import encoder as encoder_module
from dri.mapping.encoder import (
    DIMENSION,
    MAX_PIECES,
    EncoderSetupError,
    SentenceEncoder,
    default_files,
    document_vector,
    sentence_encoder,
)


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    return sentence_encoder()


def test_importing_loads_no_model() -> None:
    code = "import sys, dri.mapping.encoder; print('onnxruntime' in sys.modules, 'tokenizers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_stored_vector_needs_no_model() -> None:
    # A search over stored documents keys their vectors by word pieces: the
    # tokenizer is loaded, onnxruntime is not imported and the model not read.
    code = (
        "import sys, numpy as np\n"
        "from dri.mapping.encoder import sentence_encoder\n"
        "e = sentence_encoder()\n"
        "e.remember_document('The sun attracts the planets.', np.ones(384))\n"
        "v = e.encode_document('The sun  attracts the planets.')\n"
        "print('onnxruntime' in sys.modules, round(float(v @ v), 3), e._session is None)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "1.0", "True"]


def test_loading_in_background_loads_the_session_once_per_process() -> None:
    code = (
        "import threading\n"
        "from dri.mapping import encoder as e\n"
        "e.load_in_background(); e.load_in_background()\n"
        "threads = [t for t in threading.enumerate() if t.name == 'dri-encoder-load']\n"
        "assert len(threads) == 1, threads\n"
        "threads[0].join()\n"
        "assert e.sentence_encoder()._session is not None\n"
        "e.load_in_background()\n"
        "assert not any(t.name == 'dri-encoder-load' for t in threading.enumerate())\n"
        "print(e.sentence_encoder().encode(['a cat']).shape)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(1, 384)"


@pytest.mark.parametrize("wait", ["0.05", "0.2", "0.5"])
def test_a_command_that_ends_while_the_encoder_loads_exits_with_its_own_status(wait) -> None:
    # An interrupt or a refused file can end a command while the thread is inside
    # onnxruntime; the process must still exit as the command says, not abort.
    code = (
        "import time\n"
        "from dri.mapping import encoder as e\n"
        "e.load_in_background()\n"
        f"time.sleep({wait})\n"
        "raise SystemExit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert "terminate called" not in done.stderr


def test_loaded_once_per_process(encoder) -> None:
    assert sentence_encoder() is encoder


def test_rows_are_unit_float32_vectors(encoder) -> None:
    rows = encoder.encode(
        ["The cat sat on the mat.", "", "Quantum chromodynamics describes the strong force."]
    )
    assert rows.shape == (3, DIMENSION) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert encoder.encode([]).shape == (0, DIMENSION)
    with pytest.raises(TypeError):
        encoder.encode("one text")


def test_paraphrases_are_closer_than_unrelated_texts(encoder) -> None:
    a, b, c, d = encoder.encode(
        [
            "A man is playing a guitar on the stage.",
            "Someone plays the guitar in front of an audience.",
            "The central bank raised interest rates again.",
            "Interest rates were increased once more by the central bank.",
        ]
    )
    assert a @ b > 0.6 and c @ d > 0.8
    assert a @ b > max(a @ c, a @ d, b @ c, b @ d) + 0.4


def test_a_batch_gives_the_rows_of_single_texts(encoder) -> None:
    texts = [
        "Short.",
        "A somewhat longer sentence about planets orbiting the sun.",
        "Electrons orbit the nucleus.",
    ]
    batch = encoder.encode(texts)
    single = np.vstack([encoder.encode([t]) for t in texts])
    assert np.allclose(batch, single, atol=1e-4)


def test_batches_hold_every_text_once_in_like_lengths() -> None:
    from dri.mapping.encoder import BATCH_SIZE, BATCH_SLACK, _batches

    lengths = [40, 9, 10, 11, 12, 60, 13, 100, 9, *([20] * 70)]
    batches = _batches(lengths)
    assert sorted(n for b in batches for n in b) == list(range(len(lengths)))
    assert all(len(b) <= BATCH_SIZE for b in batches)
    assert all(lengths[b[-1]] <= lengths[b[0]] * BATCH_SLACK + 2 for b in batches)
    assert [lengths[b[0]] for b in batches] == sorted(lengths[b[0]] for b in batches)
    assert [len(b) for b in batches] == [6, 32, 32, 6, 1, 1, 1]
    assert _batches([]) == []


def test_long_text_is_read_in_overlapping_windows(encoder) -> None:
    sentence = "The general divided his army into small groups that attacked the fortress from every side. "
    text = sentence * 60  # about 1,000 word pieces
    pieces = len(encoder._pieces.encode(text, add_special_tokens=False).ids)
    windows = encoder.encode_windows(text)
    step = MAX_PIECES - 2 - encoder_module.WINDOW_OVERLAP
    assert pieces > 3 * MAX_PIECES
    assert len(windows) >= (pieces - MAX_PIECES) // step + 1
    assert np.allclose(np.linalg.norm(windows, axis=1), 1.0, atol=1e-5)
    doc = encoder.encode_document(text)
    assert doc.shape == (DIMENSION,) and np.isclose(np.linalg.norm(doc), 1.0, atol=1e-5)
    assert np.allclose(doc, document_vector(windows))
    # Every window reads the same story, so the document is close to one sentence of it.
    assert float(doc @ encoder.encode([sentence])[0]) > 0.8
    # A short text is one window, the same vector as encode().
    assert np.allclose(encoder.encode_windows(sentence), encoder.encode([sentence]), atol=1e-5)


def test_windows_cover_the_text_start_at_words_and_overlap() -> None:
    tokens = [("##x" if n % 3 == 1 else "w") for n in range(1000)]
    spans = encoder_module._windows(tokens)
    assert spans[0][0] == 0 and spans[-1][1] == len(tokens)
    for (a, b), (c, _) in itertools.pairwise(spans):
        assert b - a <= MAX_PIECES - 2 and c < b and not tokens[c].startswith("##")
    assert encoder_module._windows(["w"] * 10) == [(0, 10)]
    assert encoder_module._windows([]) == [(0, 0)]


def test_a_changed_weight_file_is_a_one_line_error(tmp_path) -> None:
    model, tokenizer = default_files()
    changed = tmp_path / "tokenizer.json"
    changed.write_bytes(tokenizer.read_bytes() + b" ")
    with pytest.raises(EncoderSetupError) as err:
        SentenceEncoder(model=model, tokenizer=changed)
    message = str(err.value)
    assert "\n" not in message and str(changed) in message and "sha256" in message
    with pytest.raises(EncoderSetupError, match="cannot read"):
        SentenceEncoder(model=tmp_path / "missing.onnx", tokenizer=tokenizer)


def test_a_changed_model_is_a_one_line_error_when_it_first_runs(tmp_path) -> None:
    model, tokenizer = default_files()
    changed = tmp_path / "model.onnx"
    changed.write_bytes(model.read_bytes()[:-1])
    encoder = SentenceEncoder(model=changed, tokenizer=tokenizer)  # the tokenizer alone is read
    for _ in range(2):  # and it stays an error, never a session of the changed file
        with pytest.raises(EncoderSetupError) as err:
            encoder.encode(["The sun attracts the planets."])
        message = str(err.value)
        assert "\n" not in message and str(changed) in message and "sha256" in message


def test_a_document_read_twice_is_encoded_once(encoder, monkeypatch) -> None:
    text = "The sun attracts the planets.\nThe planets orbit the sun."
    first = encoder.encode_document(text)
    runs = []
    monkeypatch.setattr(encoder, "_run", lambda sequences: runs.append(sequences) or np.zeros((1, 384)))
    # The same word pieces with other white space: kept, not run again.
    assert np.array_equal(
        encoder.encode_document("The sun  attracts the planets. The planets orbit the sun."), first
    )
    assert runs == []
    encoder.encode_document("Another text altogether.")
    assert len(runs) == 1
    # What is handed out is a copy: changing it does not change what is kept.
    encoder.encode_windows(text)[:] = 0
    assert np.array_equal(encoder.encode_document(text), first)


def _forget_remembered(encoder, monkeypatch) -> None:
    monkeypatch.setattr(encoder, "_known", type(encoder._known)())
    monkeypatch.setattr(encoder, "_by_text", type(encoder._by_text)())
    monkeypatch.setattr(encoder, "_unkeyed", [])


def test_a_remembered_document_vector_is_used_for_texts_of_the_same_word_pieces(encoder, monkeypatch) -> None:
    _forget_remembered(encoder, monkeypatch)
    text = "The nucleus attracts the electrons.\nThe electrons circle the nucleus."
    given = np.zeros(DIMENSION, dtype=np.float32)
    given[:2] = 3.0, 4.0  # not what the model gives: seen only if nothing was encoded
    encoder.remember_document(text, given)
    runs = []
    monkeypatch.setattr(encoder, "_run", lambda sequences: runs.append(sequences) or np.ones((1, DIMENSION)))
    kept = encoder.encode_document("The nucleus  attracts the electrons. The electrons circle the nucleus.")
    assert (
        runs == [] and kept[:2] == pytest.approx([0.6, 0.8]) and not kept[2:].any()
    )  # scaled to unit length
    encoder.encode_document("The nucleus repels the electrons.")
    assert len(runs) == 1  # other word pieces: the model reads them


def test_a_remembered_text_asked_for_as_given_is_found_without_its_word_pieces(encoder, monkeypatch) -> None:
    _forget_remembered(encoder, monkeypatch)
    texts = [f"Story {n}: the army divides to attack the fortress." for n in range(3)]
    for n, text in enumerate(texts):
        given = np.zeros(DIMENSION, dtype=np.float32)
        given[n] = 2.0
        encoder.remember_document(text, given)
    read = []
    keyed = encoder._keyed
    monkeypatch.setattr(encoder, "_keyed", lambda text: read.append(text) or keyed(text))
    # As given, or with other white space (a graph's text against its file's).
    found = [encoder.encode_document(text) for text in [*texts, f"  {texts[2]}\n".replace(" ", "\n\t ")]]
    assert read == [] and [int(np.argmax(v)) for v in found] == [0, 1, 2, 2]
    # Another text of the same word pieces (the tokenizer lowercases): its word
    # pieces, and those of the remembered texts, are read once, and the vector found.
    shouted = encoder.encode_document(texts[1].upper())
    assert sorted(read) == sorted([texts[1].upper(), *texts]) and int(np.argmax(shouted)) == 1
    encoder.encode_document(texts[2].upper())
    assert len(read) == 5  # the remembered texts are not read again


def test_dri_compare_says_in_one_line_that_the_encoder_cannot_load(tmp_path, monkeypatch, capsys) -> None:
    """The installed files made unreadable (a fault, as a broken install has): exit 1, not 70."""
    from dri.cli import main

    _, tokenizer = default_files()
    monkeypatch.setattr(encoder_module, "default_files", lambda: (tmp_path / "missing.onnx", tokenizer))
    monkeypatch.setattr(encoder_module, "_ENCODER", None)
    source, target = tmp_path / "a.txt", tmp_path / "b.txt"
    source.write_text("The sun attracts the planets. The planets orbit the sun.", encoding="utf-8")
    target.write_text(
        "The nucleus attracts the electrons. The electrons orbit the nucleus.", encoding="utf-8"
    )
    assert main(["compare", str(source), str(target)]) == 1
    err = capsys.readouterr().err.strip()
    assert (
        err == f"error: {tmp_path / 'missing.onnx'}: cannot read the encoder file (No such file or directory)"
    )


def test_onnxruntime_is_imported_with_its_telemetry_off(tmp_path) -> None:
    # Where the home folder cannot be written (here /proc), its import printed a
    # coloured warning that it could not keep a telemetry device id.
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    script = (
        "import os\n"
        "from dri.mapping.encoder import import_onnxruntime\n"
        "import_onnxruntime()\n"
        "print(os.environ['ORT_DISABLE_TELEMETRY'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**env, "HOME": "/proc"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    assert "telemetry" not in done.stderr, done.stderr
