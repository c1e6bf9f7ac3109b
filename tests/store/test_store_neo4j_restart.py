"""Neo4j stops and restarts in the middle of a batch of writes.

Runs its own server instance (``scripts/neo4j`` on
``DRI_TEST_NEO4J_RESTART_PORT``, default the suite's port + 200, with fresh
data), so the server the other tests use is never disturbed; it runs in the
background of the session (``tests/background.py``). The batch is written the way
the flows write it: skip what the store already has, carry on past a failed
item. The checks: a write while the server is down fails after bounded
retries with one line naming the server; the batch, re-run after the
restart, leaves exactly what an undisturbed run leaves (no duplicates, no
losses).
"""

from __future__ import annotations

import random
import socket
import threading
import time

import pytest
from neo4j_server import extra_port, neo4j_script

from dri.graphs import to_json
from dri.store import ComparisonRecord, StoreError, open_store
from dri.store.neo4j_store import Neo4jSettings, Neo4jStore

PORT = extra_port("store-restart", setting="DRI_TEST_NEO4J_RESTART_PORT")
URI = f"bolt://127.0.0.1:{PORT}"


def _wait_until_bolt_refuses(port: int, timeout: float = 120) -> None:
    """Poll until the server stops accepting Bolt connections (it is shutting down)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return
        time.sleep(0.05)
    raise AssertionError(f"Neo4j on port {port} still accepts connections after {timeout} s")


def _start_fresh_server() -> None:
    neo4j_script("wipe", PORT)
    started = neo4j_script("start", PORT)
    if started.returncode != 0:
        pytest.fail(
            f"`scripts/neo4j start` on port {PORT} failed: {(started.stderr or started.stdout)[-500:]}",
            pytrace=False,
        )


def _batch(documents: int = 24, nodes: int = 120):
    from dri.mapping.random_graphs import random_ros_graph

    rng = random.Random(4)
    graphs = []
    for i in range(documents):
        g = random_ros_graph(nodes, rng, name=f"doc-{i:03d}.txt")
        g.graph.update(doc_id=f"doc-{i:03d}", graph_id=f"graph-{i:03d}", extractor_version="1.0", kind="text")
        graphs.append(g)
    comparisons = []
    for i in range(documents - 1):
        a, b = graphs[i], graphs[i + 1]
        pairs = [
            {
                "source": u,
                "target": v,
                "kind": a.nodes[u]["type"],
                "source_lemma": a.nodes[u]["lemma"],
                "target_lemma": b.nodes[v]["lemma"],
                "lin": 0.5,
                "generic": f"generic.n.{k % 7:02d}",
            }
            for k, (u, v) in enumerate(zip(list(a)[:20], list(b)[:20]))
        ]
        comparisons.append(
            ComparisonRecord(
                a.graph["doc_id"],
                b.graph["doc_id"],
                "run-1",
                {"i": i},
                {"analogy_similarity": i / documents},
                pairs,
            )
        )
    return graphs, comparisons


def _write(store, graphs, comparisons, *, pause_after: int | None = None, paused=None, resume=None):
    """Write like the flows: skip what is there, carry on past failures."""
    failures, written_at = [], []
    for i, g in enumerate(graphs):
        if i == pause_after:
            paused.set()
            resume.wait(60)
        try:
            if not store.has_graph(g.graph["graph_id"]):
                store.put_document("restart", g)
            written_at.append(time.monotonic())
        except StoreError as err:
            failures.append(str(err))
    for c in comparisons:
        try:
            if not store.has_comparison(c.source_id, c.target_id, c.run_id):
                store.put_comparison(c)
            written_at.append(time.monotonic())
        except StoreError as err:
            failures.append(str(err))
    return failures, written_at


def _snapshot(store, graphs):
    return (
        store.counts(),
        [to_json(store.get_graph(g.graph["doc_id"])) for g in graphs],
        store.comparisons(pairs=True),
    )


@pytest.mark.slow
@pytest.mark.background
def test_a_restart_in_the_middle_of_a_batch_loses_nothing_and_duplicates_nothing():
    _start_fresh_server()
    try:
        _restart_in_the_middle_of_a_batch()
    finally:
        neo4j_script("wipe", PORT)


def _restart_in_the_middle_of_a_batch() -> None:
    graphs, comparisons = _batch()

    # What an undisturbed run leaves, on the same server before it is disturbed.
    with open_store(URI) as reference:
        _write(reference, graphs, comparisons)
        expected = _snapshot(reference, graphs)
        reference.clear()
    assert [j == to_json(g) for j, g in zip(expected[1], graphs)] == [True] * len(graphs)

    patient = Neo4jStore(Neo4jSettings(URI, retry_seconds=120))
    impatient = Neo4jStore(Neo4jSettings(URI, retry_seconds=2, connection_timeout=2))
    paused, resume, outcome = threading.Event(), threading.Event(), {}
    writer = threading.Thread(
        target=lambda: outcome.update(
            result=_write(patient, graphs, comparisons, pause_after=8, paused=paused, resume=resume)
        )
    )
    writer.start()
    assert paused.wait(120), "the writer did not get through its first eight documents"

    stopping = threading.Thread(target=lambda: outcome.update(stop=neo4j_script("stop", PORT)))
    stopping.start()
    _wait_until_bolt_refuses(PORT)  # the rest of the batch meets a server going down
    resume.set()
    stopping.join(120)
    stopped_at = time.monotonic()
    assert outcome["stop"].returncode == 0, outcome["stop"].stderr

    # While it is down, a store with a short retry budget fails with one clear line.
    t0 = time.monotonic()
    with pytest.raises(StoreError) as err:
        impatient.put_document("restart", graphs[0])
    assert str(err.value).startswith(f"Neo4j at {URI}: unavailable after retrying for up to 2 s")
    assert "\n" not in str(err.value) and time.monotonic() - t0 < 30

    restarted = neo4j_script("start", PORT)
    assert restarted.returncode == 0, restarted.stderr
    writer.join(300)
    assert not writer.is_alive()
    failures, written_at = outcome["result"]
    # Bolt refused every write from before the writer resumed until the restart,
    # so a write done after the stop waited for the restart. (Not "after the
    # start script returned": the patient writer may get through as soon as Bolt
    # answers, before the script has checked the rest and returned.)
    assert any(t > stopped_at for t in written_at), "no write of the batch waited for the restart"
    assert all(f.startswith(f"Neo4j at {URI}: ") for f in failures)

    # The re-run completes the work; nothing is there twice, nothing is missing.
    _write(patient, graphs, comparisons)
    got = _snapshot(patient, graphs)
    assert got[0] == expected[0]
    assert got[1] == expected[1]
    assert [(c.source_id, c.target_id, c.run_id, c.scores, c.pairs) for c in got[2]] == [
        (c.source_id, c.target_id, c.run_id, c.scores, c.pairs) for c in expected[2]
    ]
    patient.close()
    impatient.close()
