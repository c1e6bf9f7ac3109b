"""mapping/blas: a product on one BLAS thread is the product BLAS gives on its own."""

from __future__ import annotations

import numpy as np
import pytest

from dri.mapping.blas import THREADED_ABOVE, product


@pytest.mark.parametrize("rows, columns", [(300, 300), (400, 37), (5, 4), (121, 399)])
def test_float32_product_on_one_thread_is_the_same_float(rows, columns):
    # Sentence vectors are float32 unit rows (mapping.content); the whole-paper pair's
    # 300 x 300 product is past OpenBLAS's threading size, the 5 x 4 one is not.
    rng = np.random.default_rng(rows * columns)
    a = rng.standard_normal((rows, 384)).astype(np.float32)
    b = rng.standard_normal((columns, 384)).astype(np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    expected = a @ b.T
    got = product(a, b.T)
    assert got.dtype == np.float32 and got.shape == (rows, columns)
    assert np.array_equal(got, expected)
    assert (rows * columns * 384 > THREADED_ABOVE) == (rows > 5)
