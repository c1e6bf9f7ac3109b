"""Property: arbitrary text or bytes never crash the reader or the extractor.

Reading either returns a Document or raises DocumentError; building a graph
from whatever was read always succeeds and yields a well-formed ROS graph.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dri.extract import DocumentError, build_graphs, document_from_text, load_nlp, read_document
from dri.extract.sentences import split_sentences

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

words = st.sampled_from(
    [
        "The",
        "sun",
        "it",
        "they",
        "which",
        "attracts",
        "planets",
        "by",
        "and",
        "is",
        "based",
        "on",
        "e.g.",
        "et al.",
        "Fig.",
        "[12]",
        "(Smith et al., 2003)",
        ".",
        ",",
        "\n",
        "\n\n",
        "References",
        "1 Introduction",
    ]
)
texty = st.one_of(st.text(max_size=400), st.lists(words, max_size=60).map(" ".join))


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


def _check_graph(g, doc):
    assert g.graph["doc_id"] == doc.doc_id
    for node, data in g.nodes(data=True):
        assert data["type"] in ("concept", "relation")
        if data["type"] == "relation":
            # One subject; at most one object (none: a one-argument relation); the
            # arguments of an order-2 relation are relations, those of order 1 concepts.
            subj = [u for u, _, lab in g.in_edges(node, data="label") if lab == "subj"]
            obj = [v for _, v, lab in g.out_edges(node, data="label") if lab == "obj"]
            assert len(subj) == 1 and len(obj) <= 1
            kind = "relation" if data["order"] == 2 else "concept"
            assert all(g.nodes[a]["type"] == kind for a in subj + obj)
            assert data["order"] == 1 or len(obj) == 1
        assert data["lemma"]


@SETTINGS
@given(text=texty)
def test_text_never_crashes(text, nlp):
    doc = document_from_text(text)
    assert [s.id for s in doc.sentences] == list(range(len(doc.sentences)))
    (g,) = build_graphs([doc], nlp=nlp)
    _check_graph(g, doc)


@SETTINGS
@given(data=st.one_of(st.binary(max_size=600), texty.map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_file_bytes_never_crash_the_reader(data, nlp, tmp_path_factory):
    path = tmp_path_factory.mktemp("prop") / "input.txt"
    path.write_bytes(data)
    try:
        doc = read_document(path)
    except DocumentError as err:
        assert str(err).startswith(f"{path}: ") and "\n" not in str(err)
        return
    assert doc.sentences
    (g,) = build_graphs([doc], nlp=nlp)
    _check_graph(g, doc)


@SETTINGS
@given(data=st.binary(max_size=400))
def test_pdf_bytes_never_crash_the_reader(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("prop") / "input.pdf"
    path.write_bytes(b"%PDF-1.4\n" + data)
    with pytest.raises(DocumentError) as info:
        read_document(path)
    assert "\n" not in str(info.value)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=2000))
def test_splitter_keeps_every_word(text):
    assert " ".join(split_sentences(text)).split() == text.split()
