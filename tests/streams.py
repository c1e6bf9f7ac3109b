"""Output streams as a command meets them in the tests."""

from __future__ import annotations

import io

__all__ = ["ClosedPipe"]


class ClosedPipe(io.TextIOBase):
    """A stream whose reader went away (``| head``, ``2>&1 | head``): every write
    fails, as on a pipe with no reader; ``fileno`` names a real file, which a
    command may point at /dev/null."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        return self._fd
