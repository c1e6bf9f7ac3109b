"""BLAS on one thread for products where OpenBLAS's threads cost more CPU than they save.

OpenBLAS runs a product of more than a few hundred thousand multiply-adds on
every core, and its idle threads then spin on for a while: a product of a few
hundred rows costs several times its CPU on two threads, and the spinning
slows whatever runs next. :func:`one_blas_thread` limits BLAS to one thread
for a block (``threadpoolctl``, imported when first needed).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["THREADED_ABOVE", "one_blas_thread", "product"]


@lru_cache(maxsize=1)
def _blas() -> Any:
    from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

    return ThreadpoolController()


def one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread: OpenBLAS's idle threads spin on,
    and a product of a few rows then costs several times its CPU (measured: a
    stage-1 query of a story 33 ms of CPU with one thread, 80 ms with two)."""
    return _blas().limit(limits=1, user_api="blas")


#: OpenBLAS runs a product on one thread up to this many multiply-adds (m x n x k) anyway.
THREADED_ABOVE = 4 * 65_536


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b``, on one BLAS thread when it is big enough for OpenBLAS to use more.

    Smaller products never load ``threadpoolctl``. For float32 rows the result is
    the same float either way on the machines of 2026-11-26 to 28 (checked on
    the whole-paper pair and random shapes), while on an AMD EPYC 7-14 % of the
    entries differ from the threaded product by one unit in the last place
    (about 1e-7; every validity headline the same to its last digit); float64
    products may differ in the last place (4 of the whole-paper pair's 139,346
    label meanings, by 1e-16). On one machine the result is the same every time.
    """
    if a.shape[0] * b.shape[-1] * a.shape[-1] <= THREADED_ABOVE:
        out: np.ndarray = a @ b
        return out
    with one_blas_thread():
        out = a @ b
    return out
