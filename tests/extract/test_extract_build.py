"""build_graphs: order, graph attributes, empty documents, convenience functions."""

import pytest

from dri.extract import (
    EXTRACTOR_VERSION,
    DocumentError,
    build_graphs,
    document_from_text,
    graph_from_path,
    graph_from_text,
    load_nlp,
)
from dri.graphs import from_json, restrict_to_sections, summary, to_json, triples


@pytest.fixture(scope="module")
def nlp():
    return load_nlp()


def test_load_nlp_is_cached_and_lean():
    nlp = load_nlp()
    assert load_nlp() is nlp
    assert "senter" not in nlp.pipe_names
    assert {"tagger", "parser", "lemmatizer", "ner"} <= set(nlp.pipe_names)


def test_the_tokenizer_is_the_models_own_as_spacy_loads_it(nlp):
    # load_nlp starts from an empty tokenizer that the model's file fills: the
    # result must be what spaCy's own load gives, every setting and special case.
    from spacy.tokenizer import Tokenizer

    from dri.extract.build import EXCLUDED_COMPONENTS, MODEL, import_spacy

    stock = import_spacy().load(MODEL, exclude=list(EXCLUDED_COMPONENTS)).tokenizer
    assert nlp.tokenizer.to_bytes(exclude=["vocab"]) == stock.to_bytes(exclude=["vocab"])
    assert len(nlp.tokenizer.rules) > 1000  # the model's special cases, not an empty table
    assert len(Tokenizer(nlp.vocab).rules) == 0
    text = "Dr. Smith's lab can't test U.S. samples (e.g. 3.5kg) at http://x.org today."
    assert [t.text for t in nlp.tokenizer(text)] == [t.text for t in stock(text)]


def test_graphs_come_out_in_document_order_with_attributes(nlp):
    texts = [
        "The sun attracts the planets.",
        "",  # no sentences: still one (empty) graph, in its place
        "Electrons orbit the nucleus. The nucleus contains protons.",
        "Nothing to see",
    ]
    docs = [document_from_text(t, name=f"d{i}") for i, t in enumerate(texts)]
    graphs = list(build_graphs(iter(docs), nlp=nlp, batch_size=2))
    assert [g.graph["name"] for g in graphs] == ["d0", "d1", "d2", "d3"]
    assert triples(graphs[0]) == [("sun", "attract", "planet")]
    assert graphs[1].number_of_nodes() == 0 and graphs[1].graph["sentences"] == 0
    assert triples(graphs[2]) == [("electron", "orbit", "nucleus"), ("nucleus", "contain", "proton")]
    assert triples(graphs[3]) == []
    g = graphs[2]
    assert g.graph["doc_id"] == docs[2].doc_id and g.graph["graph_id"] == docs[2].graph_id
    assert g.graph["extractor_version"] == EXTRACTOR_VERSION
    assert g.graph["kind"] == "text" and g.graph["path"] == "d2" and g.graph["title"] is None
    assert g.graph["sentences"] == 2
    assert summary(g).triples == 2 and summary(g).sentences == 2
    nucleus = g.nodes["c:nucleus"]
    assert nucleus["sentences"] == [0, 1] and nucleus["pos"] == "n"


def test_batches_are_bounded_by_characters_and_give_the_graphs_of_one_batch(nlp, monkeypatch):
    from dri.extract import build

    texts = [
        "The sun attracts the planets. " * 3,
        "Electrons orbit the nucleus. The nucleus contains protons. " + "A dog chases a cat. " * 8,
        "The heart pumps blood.",
    ]
    docs = [document_from_text(t, name=f"d{i}") for i, t in enumerate(texts)]
    whole = [to_json(g) for g in build_graphs(docs, nlp=nlp)]
    calls: list[list[str]] = []
    real_pipe = nlp.pipe

    def pipe(stream, **kwargs):
        if not kwargs.get("as_tuples"):  # spaCy's own call with the documents made
            return real_pipe(stream, **kwargs)
        batch = list(stream)
        calls.append([text for text, _ in batch])
        return real_pipe(batch, **kwargs)

    monkeypatch.setattr(nlp, "pipe", pipe)
    monkeypatch.setattr(build, "BATCH_CHARS", 100)
    batched = [to_json(g) for g in build_graphs(docs, nlp=nlp, batch_size=4)]
    assert batched == whole
    sentences = [s.text for d in docs for s in d.sentences]
    assert [t for call in calls for t in call] == sentences
    assert len(calls) > 3 and all(len(call) <= 4 for call in calls)
    assert all(sum(map(len, call)) <= 100 or len(call) == 1 for call in calls)


def test_a_slowly_parsed_document_reports_its_progress_by_time(nlp, monkeypatch, progress_under_test):
    # Run-on text cut into long pieces parses at seconds a piece: a line every
    # PROGRESS_SECONDS, counted per document, none for a finished one.
    import types

    from dri.extract import build

    clock = iter(range(0, 10_000, 10))  # each look at the clock: 10 s later
    monkeypatch.setattr(build, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    monkeypatch.setattr(build, "PROGRESS_SECONDS", 15.0)
    progress, lines = progress_under_test
    monkeypatch.setattr(build, "progress_log", progress)
    six = " ".join(f"The sun attracts planet number {n}." for n in range(6))
    docs = [
        document_from_text(six, name="long"),
        document_from_text("The cat sat. The dog ran.", name="short"),
    ]
    graphs = list(build_graphs(iter(docs), nlp=nlp, batch_size=2))
    assert len(graphs) == 2
    assert lines == [
        "long: 3 of 6 sentences parsed",
        "long: 5 of 6 sentences parsed",
    ]


def test_empty_input_and_trailing_empty_documents(nlp):
    assert list(build_graphs([], nlp=nlp)) == []
    docs = [
        document_from_text("Dogs chase cats.", "a"),
        document_from_text("", "b"),
        document_from_text("", "c"),
    ]
    assert [g.graph["name"] for g in build_graphs(docs, nlp=nlp)] == ["a", "b", "c"]


def test_graph_round_trips_through_json(nlp):
    g = graph_from_text("The planets orbit the sun. They are attracted by gravity.", nlp=nlp)
    back = from_json(to_json(g))
    assert triples(back) == triples(g)
    assert back.nodes["c:planet"]["mentions"] == ["planets", "They"]


def test_graph_from_path_and_bad_file(tmp_path, nlp):
    path = tmp_path / "doc.txt"
    path.write_text("Bees pollinate flowers.\n", encoding="utf-8")
    g = graph_from_path(path, nlp=nlp)
    assert triples(g) == [("bee", "pollinate", "flower")]
    assert g.graph["name"] == "doc.txt" and g.graph["path"] == str(path)
    (tmp_path / "empty.txt").write_bytes(b"")
    with pytest.raises(DocumentError, match="empty file"):
        graph_from_path(tmp_path / "empty.txt", nlp=nlp)


def test_text_with_a_lone_surrogate_or_not_a_str_is_refused_before_spacy():
    """spaCy's string store raised UnicodeEncodeError mid-parse on ``\\udcff`` (a JSON
    escape, a file name that is not UTF-8); bytes or None an AttributeError ('encode')."""
    with pytest.raises(DocumentError, match=r"^story: holds a lone surrogate \(\\udcff\)"):
        graph_from_text("The sun \udcff attracts the planets.", "story")
    for text in (b"The sun attracts the planets.", None, ["The sun"]):
        with pytest.raises(TypeError, match="the text must be a str"):
            graph_from_text(text)


def test_same_text_gives_same_graph_ids():
    a, b = document_from_text("Same words.", "x"), document_from_text("Same words.", "y")
    assert a.graph_id == b.graph_id and a.doc_id == b.doc_id


def _lemmas(g) -> set[str]:
    return {d["lemma"] for _, d in g.nodes(data=True)}


def test_sections_restrict_the_graphs(tmp_path):
    doc = tmp_path / "paper.txt"
    doc.write_text(
        "Abstract\n\nThe sun attracts the planets.\n\nMethods\n\nThe farmer feeds the cows.\n",
        encoding="utf-8",
    )
    whole = graph_from_path(doc)
    part = restrict_to_sections(whole, ("abstract",))
    assert {"sun", "planet", "farmer", "cow"} <= _lemmas(whole)
    assert {"sun", "planet"} <= _lemmas(part) and not {"farmer", "cow"} & _lemmas(part)
