"""SIGINT and SIGTERM held during a block (dri.signals)."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from dri.errors import Interrupted
from dri.signals import signals_held, signals_ignored, sigterm_interrupts, stopped_by


def test_a_signal_handled_in_python_reaches_its_handler_when_the_block_ends():
    seen: list[str] = []

    def handler(signum: int, frame: object) -> None:
        seen.append(f"handler {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        with signals_held():
            signal.raise_signal(signal.SIGTERM)
            seen.append("block went on")
        assert seen == ["block went on", f"handler {signal.SIGTERM}"]
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_ctrl_c_inside_the_block_is_a_keyboard_interrupt_after_it():
    # Python's own handler, installed here: a CI started in the background ignores SIGINT.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    finished = False
    try:
        with pytest.raises(KeyboardInterrupt), signals_held():
            signal.raise_signal(signal.SIGINT)
            finished = True
        assert finished
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_ignored_signal_stays_ignored():
    # A pool worker ignores Ctrl-C (its parent decides): holding it would deliver it after.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals_held():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sigterm_is_an_interrupt_that_knows_its_signal_while_active():
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with pytest.raises(Interrupted) as stopped, sigterm_interrupts():
        signal.raise_signal(signal.SIGTERM)
    assert Interrupted.status(stopped.value) == 143
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_sigterm_handler_of_its_own_is_left_alone():
    def handler(signum: int, frame: object) -> None: ...

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        with sigterm_interrupts():
            assert signal.getsignal(signal.SIGTERM) is handler
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_process_forked_meanwhile_starts_with_sigterm_at_its_default():
    # Its parent ends it with SIGTERM (a picture worker, the demo's second process).
    with sigterm_interrupts():
        child = os.fork()
        if child == 0:
            os._exit(0 if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL else 1)
        _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_ignored_signals_do_nothing_in_the_block_and_their_handlers_come_back():
    seen: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        with signals_ignored():
            signal.raise_signal(signal.SIGTERM)
        assert seen == []
        signal.raise_signal(signal.SIGTERM)
        assert seen == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_signal_held_in_a_block_that_failed_still_comes_first():
    # The block's error (a FIFO no one read, after 10 s) hid the SIGTERM held meanwhile: exit 1, not 143.
    with pytest.raises(Interrupted), sigterm_interrupts(), signals_held():
        signal.raise_signal(signal.SIGTERM)
        raise OSError("the block's own error")


def test_a_sigterm_taken_is_known_after_code_that_hid_it():
    # matplotlib's C++ turned the interrupt raised in it into "Invalid bounding box": exit 70.
    with sigterm_interrupts():
        assert stopped_by() is None
        with contextlib.suppress(Interrupted):
            signal.raise_signal(signal.SIGTERM)
        assert stopped_by() == signal.SIGTERM
    with sigterm_interrupts():
        assert stopped_by() is None  # each command its own
