"""The fault matrix runs in the background of the session (``fault_matrix_pool.py``).

Its cells are slow (real ``dri`` subprocesses, Neo4j restarts) and
independent, so they start in a thread pool before the first test of the
session, and the matrix's own tests are moved to the end of the session,
where they check the outcomes that are ready by then.
"""

from __future__ import annotations

import pytest
from fault_matrix_pool import CellPool, cell_order

_POOL = pytest.StashKey[CellPool]()
_MATRIX = "test_fault_matrix"


def _is_cell(item: pytest.Item) -> bool:
    return getattr(item, "originalname", None) == _MATRIX and hasattr(item, "callspec")


def _cell(item: pytest.Item) -> tuple[str, str]:
    params = item.callspec.params  # type: ignore[attr-defined]
    return params["command"], params["fault"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Stable: every other test in its order, then the cells in the pool's order,
    # so that each waits for its own cell rather than for the queue before it.
    items.sort(key=lambda item: (1, *cell_order(_cell(item))) if _is_cell(item) else (0, 0, 0))


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    cells = [_cell(item) for item in session.items if _is_cell(item)]
    if cells and not session.config.option.collectonly:
        session.config.stash[_POOL] = CellPool(cells)


def pytest_sessionfinish(session: pytest.Session) -> None:
    pool = session.config.stash.get(_POOL, None)
    if pool is not None:
        pool.close()


@pytest.fixture
def fault_cells(request: pytest.FixtureRequest) -> CellPool:
    """The session's pool of fault matrix cells."""
    return request.config.stash[_POOL]
