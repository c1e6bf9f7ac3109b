"""mapping/blas: a product on one BLAS thread, within float32 rounding of the exact product."""

from __future__ import annotations

import numpy as np
import pytest

from dri.mapping.blas import THREADED_ABOVE, one_blas_thread, product


@pytest.mark.parametrize("rows, columns", [(300, 300), (400, 37), (5, 4), (121, 399)])
def test_float32_product_is_one_threads_and_within_float32_rounding(rows, columns):
    # Sentence vectors are float32 unit rows (mapping.content); the whole-paper pair's
    # 300 x 300 product is past OpenBLAS's threading size, the 5 x 4 one is not.
    rng = np.random.default_rng(rows * columns)
    a = rng.standard_normal((rows, 384)).astype(np.float32)
    b = rng.standard_normal((columns, 384)).astype(np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    with one_blas_thread():
        one_thread = a @ b.T
    got = product(a, b.T)
    assert got.dtype == np.float32 and got.shape == (rows, columns)
    assert np.array_equal(got, one_thread) and np.array_equal(product(a, b.T), got)
    # Whatever the threads: on the machines of 2026-11-26 to 28 the same float as BLAS's
    # own threads give; on an AMD EPYC, 7-14 % of the entries one unit in the last place apart.
    exact = a.astype(np.float64) @ b.T.astype(np.float64)
    assert np.abs(got - exact).max() <= 4 * np.finfo(np.float32).eps
    assert (rows * columns * 384 > THREADED_ABOVE) == (rows > 5)
