"""Loading rated pairs (CSV) and multiple-choice items (JSONL) for the validity evaluations."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dri.corpora.judgements import load_choice, load_judgements, load_ranking, side_text, write_documents
from dri.corpora.manifest import read_manifest
from dri.corpora.text import CorpusError
from dri.settings import PROJECT_ROOT


def test_judgements_texts_and_paths(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "sun.txt").write_text("The sun attracts the planets.", encoding="utf-8")
    csv_file = tmp_path / "pairs.csv"
    csv_file.write_text(
        "a,b,score,rater\n"
        "The cat chased the mouse.,The dog chased the cat.,3.5,r1\n"
        'docs/sun.txt,"The nucleus attracts the electrons, like a sun.",4,r2\n',
        encoding="utf-8",
    )
    data = load_judgements(csv_file)
    assert not data.problems and len(data.pairs) == 2
    first, second = data.pairs
    assert first.a == "The cat chased the mouse." and first.score == 3.5 and first.extra == {"rater": "r1"}
    assert second.a == (tmp_path / "docs" / "sun.txt").resolve() and second.line == 3
    assert side_text(second.a) == "The sun attracts the planets."


def test_judgements_bad_rows_are_one_line_problems_and_the_rest_loads(tmp_path: Path):
    csv_file = tmp_path / "bad.csv"
    csv_file.write_text(
        "a,b,score\n"
        "one text,another text,2\n"
        "one text,another text,high\n"
        "one text,missing.txt,1\n"
        ",empty side,1\n"
        "too,few\n",
        encoding="utf-8",
    )
    data = load_judgements(csv_file)
    assert len(data.pairs) == 1
    assert [p.split(": ", 1)[1].split(":")[0] for p in data.problems] == [
        "line 3",
        "line 4",
        "line 5",
        "line 6",
    ]
    assert all(p.startswith(str(csv_file)) and "\n" not in p for p in data.problems)
    assert "'high' is not a number" in data.problems[0]
    assert "no such document 'missing.txt'" in data.problems[1]
    assert data.problems[2] == f"{csv_file}: line 5: empty text in column a"  # was "line 5: empty text"


def test_judgements_header_and_empty_files_fail_with_one_line(tmp_path: Path):
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("x,y,z\n1,2,3\n", encoding="utf-8")
    with pytest.raises(
        CorpusError, match=r"wrong\.csv: line 1: the header lacks the column\(s\) a, b, score"
    ):
        load_judgements(wrong)
    nothing = tmp_path / "nothing.csv"
    nothing.write_text("a,b,score\nx,y,notanumber\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="no usable rows"):
        load_judgements(nothing)
    with pytest.raises(CorpusError, match="absent.csv: no such CSV file"):
        load_judgements(tmp_path / "absent.csv")
    twice = tmp_path / "twice.csv"
    twice.write_text("a,b,score,score,note,note\nx,y,1,2,p,q\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        load_judgements(twice)
    assert str(err.value) == f"{twice}: line 1: the header names the column(s) score, note more than once"


def test_an_unclosed_quote_is_an_error_at_its_line_not_rows_merged(tmp_path: Path):
    # Read leniently, the open quote of line 3 ran its field on to the next
    # quote, a line on, and two rows became one pair of mangled texts.
    path = tmp_path / "quotes.csv"
    path.write_text(
        'a,b,score\n"The sun shines.","The sun glows.",4\n"The moon,The night.,3\n"A cat sat.","A dog ran.",1\n',
        encoding="utf-8",
    )
    with pytest.raises(CorpusError) as err:
        load_judgements(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line 3: not valid CSV (") and "\n" not in message
    assert 'with its own quotes doubled ("")' in message
    # Quotes inside a field, doubled, and line breaks inside a quoted field are CSV.
    path.write_text('a,b,score\n"He said ""stop"".","Two\nlines.",2\n', encoding="utf-8")
    assert [(p.a, p.b) for p in load_judgements(path).pairs] == [('He said "stop".', "Two\nlines.")]


def test_a_cell_holding_a_long_text_is_read(tmp_path: Path):
    # Over the csv module's default 131,072 characters, the file was refused as "not valid CSV".
    text = "The sun attracts the planets. " * 7000
    csv_file = tmp_path / "long.csv"
    csv_file.write_text(f"a,b,score\n{text},The moon.,1\n", encoding="utf-8")
    data = load_judgements(csv_file)
    assert not data.problems and data.pairs[0].a == text


def test_choice_items_both_field_spellings(tmp_path: Path):
    jsonl = tmp_path / "items.jsonl"
    lines = [
        {"query": "q one", "options": ["a", "b", "c"], "answer": 1, "types": ["noun", "target", "random"]},
        {
            "id": "sa-1",
            "query": "q two",
            "candidates": ["x", "y"],
            "answer": 0,
            "candidate_types": ["target", "noun"],
        },
        {"query": "q three", "options": ["x", "y"], "answer": 1, "variant": "S10"},
    ]
    jsonl.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    data = load_choice(jsonl)
    assert not data.problems and data.typed
    assert [i.id for i in data.items] == ["line-1", "sa-1", "line-3"]
    assert data.items[1].options == ["x", "y"] and data.items[1].types == ["target", "noun"]
    assert data.items[2].group == "S10" and data.items[2].types is None


def test_choice_malformed_lines(tmp_path: Path):
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text(
        "\n".join(
            [
                json.dumps({"query": "q", "options": ["a", "b"], "answer": 0}),
                "{not json",
                json.dumps({"query": "q", "options": ["a", "b"], "answer": 2}),
                json.dumps({"query": "q", "options": ["a"], "answer": 0}),
                json.dumps({"query": "q", "options": ["a", "b"]}),
                json.dumps(["a list"]),
                json.dumps({"query": "q", "options": ["a", "b"], "answer": 0, "types": ["t"]}),
                # Shown as "None" and "{'t': 1}" in the report's table of picked types before.
                json.dumps({"query": "q", "options": ["a", "b"], "answer": 0, "types": [None, {"t": 1}]}),
                json.dumps({"query": "q", "options": ["a", "b"], "answer": 0, "group": {"g": 1}}),
                json.dumps({"query": "q", "options": ["a", " "], "answer": 0}),
                json.dumps({"query": "", "options": ["a", "b"], "answer": 0}),
            ]
        ),
        encoding="utf-8",
    )
    data = load_choice(jsonl)
    assert len(data.items) == 1
    assert [p.split(": ")[1] for p in data.problems] == [f"line {n}" for n in range(2, 12)]
    assert "one label (a string) per option" in data.problems[6]
    assert '"group" must be a string or a whole number, not {"g": 1}' in data.problems[7]
    assert "not valid JSON" in data.problems[0] and "option index 0-1, not 2" in data.problems[1]
    assert data.problems[8].endswith("line 10: empty text in option 1")  # was "empty text"
    assert data.problems[9].endswith('line 11: empty text in "query"')
    empty = tmp_path / "empty.jsonl"
    empty.write_text("{oops\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"empty\.jsonl: no usable items .*line 1: not valid JSON"):
        load_choice(empty)


def test_choice_lines_json_reads_but_python_cannot_are_problems(tmp_path: Path):
    # Each of these made `dri evaluate choice` crash (exit 70) before it wrote a thing.
    good = json.dumps({"query": "q", "options": ["a", "b"], "answer": 0})
    jsonl = tmp_path / "edges.jsonl"
    jsonl.write_text(
        "\n".join(
            [
                good,
                '{"query": "q", "options": ["a", "b"], "answer": ' + "9" * 5000 + "}",
                "[" * 100_000,
                '{"query": "a \\ud800 b", "options": ["a", "b"], "answer": 0}',
                '{"query": "q", "options": ["a", "\\udfff"], "answer": 0}',
                # Each of these lost the whole evaluation (exit 2, naming the internal manifest) before.
                '{"query": "q", "options": ["a", "b"], "answer": 0, "types": ["a\\u0000b", "c"]}',
                '{"query": "q", "options": ["a", "b"], "answer": 0, "group": "g\\u0000"}',
                '{"query": "q", "options": ["a", "b"], "answer": 0, "types": ["  ", "noun"]}',
                '{"query": "q\\u0000", "options": ["a", "b"], "answer": 0}',
            ]
        ),
        encoding="utf-8",
    )
    data = load_choice(jsonl)
    assert len(data.items) == 1
    assert [p.split(": ", 1)[1] for p in data.problems] == [
        "line 2: a number too long to read (over 4,300 digits)",
        "line 3: nested too deeply to read",
        'line 4: "query" holds a lone surrogate (\\ud800), which is not text',
        'line 5: "options" holds a lone surrogate (\\udfff), which is not text',
        'line 6: "types" holds a NUL character, which is not text',
        'line 7: "group" holds a NUL character, which is not text',
        'line 8: "types" holds an empty label',
        'line 9: "query" holds a NUL character, which is not text',
    ]


def test_write_documents_writes_each_text_once_with_a_manifest(tmp_path: Path):
    doc = tmp_path / "given.txt"
    doc.write_text("A given document.", encoding="utf-8")
    folder = tmp_path / "corpus"
    pairs, problems, names = write_documents(
        [("same text", "other text", "g1", {"human": "1"}), ("same text", doc, "g2", {"human": "2"})],
        folder,
        Path("r.csv"),
        [2, 3],
    )
    assert problems == []
    # A copy is told by what the user wrote: its file, or a text's first line of the file.
    assert names == {
        str(pairs[0].source): "r.csv: line 2",
        str(pairs[0].target): "r.csv: line 2",
        str(pairs[1].target): str(doc),
    }
    assert len({p.source for p in pairs}) == 1
    # A document named by path is a document of the folder too, which is all the corpus flow reads.
    assert pairs[1].target.parent == folder.resolve() and pairs[1].target.read_bytes() == doc.read_bytes()
    assert len(list(folder.glob("*.txt"))) == 3
    again = read_manifest(folder / "manifest.csv")
    assert [(p.source, p.target, p.group) for p in again] == [(p.source, p.target, p.group) for p in pairs]
    assert again[1].extra["human"] == "2"


def test_write_documents_writes_again_a_kept_document_changed_since(tmp_path: Path):
    # The folder outlives the run (data/validity-corpora); a copy edited, cut short or
    # emptied since was read as the text its name promises, and its pairs scored on it.
    doc = tmp_path / "given.txt"
    doc.write_text("A given document.", encoding="utf-8")
    folder = tmp_path / "corpus"
    rows = [("a text", doc, "g", {})]
    pairs = write_documents(rows, folder, Path("r.csv"), [2]).pairs
    for damage in (b"A giv", b"", b"A given document, edited."):
        pairs[0].source.write_bytes(damage)
        pairs[0].target.write_bytes(damage)
        again = write_documents(rows, folder, Path("r.csv"), [2]).pairs
        assert again == pairs
        assert (again[0].source.read_bytes(), again[0].target.read_bytes()) == (b"a text", doc.read_bytes())


def test_write_documents_leaves_out_the_rows_of_a_document_gone_since_loading(tmp_path: Path):
    kept, gone = tmp_path / "kept.txt", tmp_path / "gone.txt"
    kept.write_text("A kept document.", encoding="utf-8")
    folder = tmp_path / "corpus"
    pairs, problems, _ = write_documents(
        [(kept, gone, "g", {}), ("a text", kept, "g", {}), (gone, "a text", "g", {})],
        folder,
        Path("r.csv"),
        [2, 3, 4],
    )
    assert [p.extra for p in pairs] == [{}] and pairs[0].target.read_bytes() == kept.read_bytes()
    assert problems == [
        f"r.csv: line {n}: cannot read the document {gone} (no such file); left out" for n in (2, 4)
    ]
    assert len(read_manifest(folder / "manifest.csv")) == 1
    # Only copies of whole documents are left in the folder.
    assert sorted(p.read_bytes() for p in folder.glob("*.txt")) == [b"A kept document.", b"a text"]
    with pytest.raises(
        CorpusError, match=r"^r\.csv: no usable rows \(r\.csv: line 2: cannot read the document"
    ):
        write_documents([(gone, kept, "g", {})], folder, Path("r.csv"), [2])


def test_write_documents_lists_a_pair_rated_twice_once_in_the_manifest(tmp_path: Path, caplog):
    # Two lines rating one pair are two rows of the evaluation; the manifest's repeat
    # warned of "line 3 repeats line 2" in a file the user never wrote.
    rows = [
        ("a text", "b text", "g", {"human": "1"}),
        ("a text", "b text", "g", {"human": "2"}),
        ("c", "d", "g", {}),
    ]
    written = write_documents(rows, tmp_path / "corpus", Path("r.csv"), [2, 3, 4])
    assert [p.extra.get("human") for p in written.pairs] == ["1", "2", None]
    again = read_manifest(tmp_path / "corpus" / "manifest.csv")
    assert [(p.source, p.target, p.extra["human"]) for p in again] == [
        (written.pairs[0].source, written.pairs[0].target, "1"),
        (written.pairs[2].source, written.pairs[2].target, ""),
    ]
    assert "repeats" not in caplog.text


def test_write_documents_names_a_copy_of_several_files_by_the_first(tmp_path: Path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    for doc in (first, second):
        doc.write_text("The same words.", encoding="utf-8")
    written = write_documents(
        [(first, "x", "g", {}), ("y", second, "g", {})], tmp_path / "corpus", Path("r.csv"), [2, 3]
    )
    assert written.pairs[0].source == written.pairs[1].target
    assert written.names == {
        str(written.pairs[0].source): f"{first} (the same bytes as {second})",
        str(written.pairs[0].target): "r.csv: line 2",
        str(written.pairs[1].source): "r.csv: line 3",
    }


def test_ranking_pools_by_query_and_facet(tmp_path: Path):
    csv_file = tmp_path / "pools.csv"
    csv_file.write_text(
        "a,b,score,query,facet,candidate\n"
        "q text,first candidate,3,p1,method,c1\n"
        "q text,second candidate,0,p1,method,c2\n"
        "other text,first candidate,1,p1,result,c1\n"
        "other text,third candidate,2,p1,result,c3\n",
        encoding="utf-8",
    )
    data = load_ranking(csv_file)
    assert not data.problems and data.queries == ["p1/method", "p1/result"]
    first = data.pairs[0]
    assert (first.a, first.b, first.score, first.query) == ("q text", "first candidate", 3.0, "p1/method")
    assert first.extra == {"query": "p1", "facet": "method", "candidate": "c1"}
    plain = tmp_path / "plain.csv"
    plain.write_text("query,a,b,score\nq1,x,y,1\nq1,x,z,0\n", encoding="utf-8")
    assert load_ranking(plain).queries == ["q1"]


def test_ranking_pools_whose_keys_read_alike_stay_two(tmp_path: Path):
    # "p/q" with facet "r" and "p" with facet "q/r" both read "p/q/r": one pool of four, before.
    csv_file = tmp_path / "pools.csv"
    csv_file.write_text(
        "a,b,score,query,facet\n"
        "sun,nucleus,3,p/q,r\nsun,dog,0,p/q,r\n"
        "heart,pump,2,p,q/r\nheart,bread,0,p,q/r\n"
        "sun,cat,1,p/q,r\n",
        encoding="utf-8",
    )
    data = load_ranking(csv_file)
    assert data.queries == ["p/q/r", "p/q/r #2"]
    assert [p.query for p in data.pairs] == ["p/q/r", "p/q/r", "p/q/r #2", "p/q/r #2", "p/q/r"]
    assert [p.b for p in data.pairs if p.query == "p/q/r #2"] == ["pump", "bread"]


def test_ranking_bad_rows_are_one_line_problems(tmp_path: Path):
    csv_file = tmp_path / "bad.csv"
    csv_file.write_text(
        "a,b,score,query,facet\n"
        "q,c1,2,p1,method\n"
        "q,c2,0,p1,method\n"
        "q,c3,-1,p1,method\n"
        "q,c4,1,,method\n"
        "q,c5,1,p1,\n"
        "q,c6,high,p1,method\n"
        "q,c7\n"
        "q,c8,1,p2,method\n",
        encoding="utf-8",
    )
    data = load_ranking(csv_file)
    assert [p.b for p in data.pairs] == ["c1", "c2"]
    assert data.problems == [
        f"{csv_file}: line 4: relevance '-1' is below 0",
        f"{csv_file}: line 5: empty query",
        f"{csv_file}: line 6: empty facet",
        f"{csv_file}: line 7: score 'high' is not a number",
        f"{csv_file}: line 8: 2 fields, the header has 5",
        f"{csv_file}: query 'p2/method': one candidate, nothing to rank; left out",
    ]
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("a,b,score\nx,y,1\n", encoding="utf-8")
    with pytest.raises(
        CorpusError, match=r"line 1: the header lacks the column\(s\) query \(need a,b,score,query\)"
    ):
        load_ranking(wrong)
    single = tmp_path / "single.csv"
    single.write_text("a,b,score,query\nx,y,1,q\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="no query with two or more usable candidates"):
        load_ranking(single)
    # The first problem alone hid the one that mattered (an empty facet behind an empty query).
    facets = tmp_path / "facets.csv"
    facets.write_text("a,b,score,query,facet\nx,y,1,,\nx,z,0,,\nx,y,1,q,\nx,w,3,q,\n", encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        load_ranking(facets)
    assert str(caught.value).endswith(f"({facets}: line 2: empty query; and 3 more)")


def test_ranking_reads_csfcube_fold1_as_it_is():
    data = load_ranking(PROJECT_ROOT.parent / "shared" / "validity" / "csfcube" / "csfcube_fold1.csv")
    assert not data.problems and len(data.pairs) == 2549
    queries = data.queries
    assert len(queries) == 24 and {q.split("/")[1] for q in queries} == {"background", "method", "result"}
    # The paper id alone is not unique: some papers are queried by two facets.
    assert len({q.split("/")[0] for q in queries}) < 24
    assert {p.score for p in data.pairs} == {0.0, 1.0, 2.0, 3.0}


def test_a_side_naming_something_that_is_not_a_regular_file_is_a_row_problem(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    (tmp_path / "a.txt").write_text("The sun attracts the planets.", encoding="utf-8")
    csv_file = tmp_path / "rated.csv"
    csv_file.write_text("a,b,score\na.txt,pipe.txt,1\nzero.txt,a.txt,2\na.txt,a.txt,3\n", encoding="utf-8")
    data = load_judgements(csv_file)
    assert len(data.pairs) == 1
    assert [p.split(": ", 2)[2] for p in data.problems] == [
        "the document 'pipe.txt' is not a regular file",
        "the document 'zero.txt' is not a regular file",
    ]


def test_a_side_that_cannot_be_a_path_is_a_row_problem_and_the_rest_loads(tmp_path: Path):
    # "~user" of no user made expanduser raise RuntimeError (exit 70); a name over
    # 255 bytes made is_file raise OSError, which ended the whole file.
    long_name = "a" * 300 + ".txt"
    items = [
        {"query": "~nosuchuser-dri/a.txt", "options": ["x", "y"], "answer": 0},
        {"query": "q", "options": ["x", long_name], "answer": 0},
        {"query": "The sun attracts the planets.", "options": ["x", "y"], "answer": 1},
    ]
    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    data = load_choice(jsonl)
    assert len(data.items) == 1
    assert data.problems == [
        f"{jsonl}: line 1: no such document '~nosuchuser-dri/a.txt' (Could not determine home directory)",
        f"{jsonl}: line 2: no such document '{long_name}' (File name too long)",
    ]
    csv_file = tmp_path / "rated.csv"
    csv_file.write_text(f"a,b,score\n~nosuchuser-dri/a.txt,b,1\na,{long_name},2\na,b,3\n", encoding="utf-8")
    assert [p.split(": ")[1] for p in load_judgements(csv_file).problems] == ["line 2", "line 3"]


def test_numbers_at_the_edge_are_one_problem_per_row(tmp_path):
    # inf, nan, beyond float range (1e999 reads as inf) and beyond what the statistics can square (1e308).
    ranking = tmp_path / "pools.csv"
    ranking.write_text(
        "a,b,score,query\nq,x1,1e308,q\nq,x2,1e999,q\nq,x3,2,q\nq,x4,nan,q\nq,x5,-inf,q\nq,x6,1e99,q\n",
        encoding="utf-8",
    )
    pools = load_ranking(ranking)
    assert [p.score for p in pools.pairs] == [2.0, 1e99]
    assert [p.split(": ")[1] for p in pools.problems] == ["line 2", "line 3", "line 5", "line 6"]
    assert "out of range" in pools.problems[0] and "not a finite number" in pools.problems[1]
    choice = tmp_path / "items.jsonl"
    lines = [
        f'{{"query": "a", "options": ["b", "c"], "answer": {v}}}'
        for v in ("1e999", "NaN", "Infinity", "1e308", "1")
    ]
    choice.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = load_choice(choice)
    assert [i.answer for i in items.items] == [1] and len(items.problems) == 4
    assert all("must be an option index" in p for p in items.problems)


def test_choice_items_of_one_id_are_not_merged(tmp_path: Path):
    # A later item of the same id took the earlier one's place, without a word: items lost.
    item = {"query": "The wind pushes the hail.", "options": ["A push.", "A coin."], "answer": 0}
    lines = [{**item, "id": "i1"}, {**item, "id": "i1"}, item, {**item, "id": "line-3"}]
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    data = load_choice(jsonl)
    # An item without an id is named line-N unless an item's own id is that: the item
    # with its own id "line-3" was left out as a repeat of the one that had none.
    assert [(i.line, i.id) for i in data.items] == [(1, "i1"), (3, "line-3 (no id)"), (4, "line-3")]
    assert data.problems == [f"{jsonl}: line 2: the id 'i1' is line 1's too; left out"]


def test_an_own_id_that_is_a_later_items_line_name_leaves_out_nothing(tmp_path: Path):
    # "line-2" on line 1 left out line 2's item, which had no id.
    item = {"query": "The wind pushes the hail.", "options": ["A push.", "A coin."], "answer": 0}
    lines = [{**item, "id": "line-2"}, item, {**item, "id": "line-2 (no id)"}, {**item, "id": [1]}]
    lines.append({**item, "candidates": ["A push.", "A coin."]})
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    data = load_choice(jsonl)
    assert [(i.line, i.id) for i in data.items] == [
        (1, "line-2"),
        (2, "line-2 (no id 2)"),
        (3, "line-2 (no id)"),
    ]
    assert data.problems == [
        f'{jsonl}: line 4: "id" must be a string or a whole number, not [1]',
        f'{jsonl}: line 5: both "options" and "candidates"; give the options once',
    ]


def test_ranking_rows_that_contradict_their_pool_are_left_out(tmp_path: Path):
    # A candidate twice in one pool with relevances 3 and 0, and a second query text
    # under one query id, were ranked as given.
    csv_file = tmp_path / "r.csv"
    csv_file.write_text(
        "a,b,score,query\n"
        "Nets learn images.,Conv nets classify.,3,q1\n"
        "Nets learn images.,Conv nets classify.,0,q1\n"
        "Nets learn images.,Conv nets classify.,3,q1\n"
        "Nets learn images.,Birds migrate.,0,q1\n"
        "Another query text.,Fish swim.,1,q1\n",
        encoding="utf-8",
    )
    data = load_ranking(csv_file)
    assert [p.line for p in data.pairs] == [2, 4, 5]  # the same candidate, the same relevance: kept
    assert data.problems == [
        f"{csv_file}: line 3: the candidate of line 2 again, in the pool of query 'q1', "
        "with relevance 0, not 3; left out",
        f"{csv_file}: line 6: query 'q1' has another text on line 2; left out",
    ]


def test_a_document_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path):
    # A 1 GB file was read whole and copied into the data folder, then refused.
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as fh:
        fh.truncate(25_000_000)  # sparse: no disk or memory
    folder = tmp_path / "corpus"
    written = write_documents(
        [(huge, "a text", "g", {}), ("b text", "a text", "g", {})], folder, Path("r.csv"), [2, 3]
    )
    assert len(written.pairs) == 1 and len(written.problems) == 1
    assert written.problems[0].startswith(f"r.csv: line 2: cannot read the document {huge} (too large")
    assert not [p for p in folder.iterdir() if p.stat().st_size > 1000]


@pytest.mark.parametrize("content", [b"", b"\n\n\n", b" \r\n,,\r\n"])
def test_an_empty_judgement_file_is_called_empty(tmp_path: Path, content: bytes):
    # It was "the header lacks the column(s) a, b, score", blank lines too.
    empty = tmp_path / "e.csv"
    empty.write_bytes(content)
    with pytest.raises(CorpusError, match=r"an empty file; it needs the header a,b,score and a row a pair$"):
        load_judgements(empty)


def test_a_header_after_blank_lines_is_the_header(tmp_path: Path):
    csv_file = tmp_path / "j.csv"
    csv_file.write_text("\n\na,b,score\none text,another,0.5\n", encoding="utf-8")
    assert [j.score for j in load_judgements(csv_file).pairs] == [0.5]
    csv_file.write_text("\n\na,b\nx,y\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"line 3: the header lacks the column\(s\) score"):
        load_judgements(csv_file)


def test_the_columns_are_named_in_any_case(tmp_path: Path):
    # "A,B,Score" was refused: "the header lacks the column(s) a, b, score".
    csv_file = tmp_path / "j.csv"
    csv_file.write_text("A,B,Score,Note\nA dog runs.,A dog is running.,4,x\n", encoding="utf-8")
    data = load_judgements(csv_file)
    assert [(p.a, p.b, p.score, p.extra) for p in data.pairs] == [
        ("A dog runs.", "A dog is running.", 4.0, {"Note": "x"})
    ]
    csv_file.write_text("a,A,b,score\nx,y,z,1\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"the header names the column\(s\) a more than once"):
        load_judgements(csv_file)


def test_a_null_choice_id_is_no_id_and_a_space_does_not_make_another_ranking_cell(tmp_path: Path):
    item = {"query": "The wind pushes the hail.", "options": ["A push.", "A coin."], "answer": 0, "id": None}
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text(json.dumps(item) + "\n" + json.dumps(item) + "\n", encoding="utf-8")
    data = load_choice(jsonl)
    assert [i.id for i in data.items] == ["line-1", "line-2"] and data.problems == []
    csv_file = tmp_path / "r.csv"
    csv_file.write_text(
        "a,b,score,query\nS.,N.,3,q1\nS. ,D.,0,q1\nS.,N. ,0,q1\nS.,C.,1,q1\n", encoding="utf-8"
    )
    ranked = load_ranking(csv_file)
    assert [p.line for p in ranked.pairs] == [2, 3, 5]
    assert ranked.problems == [
        f"{csv_file}: line 4: the candidate of line 2 again, in the pool of query 'q1', "
        "with relevance 0, not 3; left out"
    ]


def test_an_empty_choice_file_is_called_empty(tmp_path: Path):
    empty = tmp_path / "c.jsonl"
    empty.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(CorpusError, match="an empty file; it needs one item a line"):
        load_choice(empty)


def test_a_json_lines_item_holding_a_unicode_line_separator_is_one_item(tmp_path: Path):
    # str.splitlines cut it at U+2028 into two lines of broken JSON, and every
    # later line's number was one off; json's own words read "starting at at".
    jsonl = tmp_path / "c.jsonl"
    first = json.dumps(
        {"query": "Heat flows.\u2028More.", "options": ["Current.", "Cats."], "answer": 0}, ensure_ascii=False
    )
    jsonl.write_text(f'{first}\r\n{{"query": "unterminated\n', encoding="utf-8")
    data = load_choice(jsonl)
    assert [item.query for item in data.items] == ["Heat flows.\u2028More."]
    assert data.problems == [f"{jsonl}: line 2: not valid JSON (Unterminated string starting at column 11)"]


def test_a_choice_whose_answer_is_repeated_by_another_option_is_left_out(tmp_path: Path):
    # Every score ties the two, and a tie counts as wrong: the item could not be won.
    jsonl = tmp_path / "c.jsonl"
    items = [
        {"query": "q", "options": ["X", "Y", "X"], "answer": 0},
        {"query": "q", "options": ["X", "X", "Y"], "answer": 2},  # the repeat is not the answer: it stays
        # Blanks alone apart: each score read them alike, and the tie was silent.
        {"query": "q", "options": ["The cat  sat.\n", "Y", " The cat sat."], "answer": 0},
        {"query": "q", "options": ["The cat sat.", "Thecat sat."], "answer": 0},  # a word apart: it stays
    ]
    jsonl.write_text("\n".join(json.dumps(i) for i in items), encoding="utf-8")
    data = load_choice(jsonl)
    assert [item.line for item in data.items] == [2, 4]
    assert data.problems == [
        f"{jsonl}: line 1: option 2 repeats the answer, option 0: no score can pick it alone",
        f"{jsonl}: line 3: option 2 repeats the answer, option 0: no score can pick it alone",
    ]


def test_columns_without_a_name_are_named_by_their_place(tmp_path: Path):
    # Two unnamed columns were one column "" holding the second's value; the first's was lost.
    csv_file = tmp_path / "j.csv"
    csv_file.write_text("a,b,score,,note,,\nx,y,1,first,n,last\n", encoding="utf-8")
    (pair,) = load_judgements(csv_file).pairs
    assert pair.extra == {"column 4": "first", "note": "n", "column 6": "last", "column 7": ""}


def test_a_document_that_is_a_link_to_nothing_is_called_so(tmp_path: Path):
    (tmp_path / "gone.txt").symlink_to(tmp_path / "missing.txt")
    csv_file = tmp_path / "j.csv"
    csv_file.write_text("a,b,score\ngone.txt,text,1\nx,y,2\n", encoding="utf-8")
    data = load_judgements(csv_file)
    assert len(data.pairs) == 1
    assert data.problems == [
        f"{csv_file}: line 2: no such document 'gone.txt' "
        f"(a symbolic link to {tmp_path / 'missing.txt'}, which is not there)"
    ]


def test_a_document_named_by_a_link_keeps_the_links_suffix(tmp_path: Path):
    # Followed to its target, "plain" had no suffix: its copy was "not a .txt or .pdf
    # document", named by the target rather than by the link.txt the user wrote.
    (tmp_path / "plain").write_text("The moon orbits the earth.", encoding="utf-8")
    (tmp_path / "link.txt").symlink_to("plain")
    csv_file = tmp_path / "j.csv"
    csv_file.write_text("a,b,score\nlink.txt,The sun orbits nothing.,1\n", encoding="utf-8")
    (pair,) = load_judgements(csv_file).pairs
    assert pair.a == tmp_path / "link.txt"
    written = write_documents([(pair.a, pair.b, "g", {})], tmp_path / "corpus", csv_file, [2])
    assert written.problems == [] and written.pairs[0].source.suffix == ".txt"
    assert written.names[str(written.pairs[0].source)] == str(tmp_path / "link.txt")


def test_a_choice_whose_answer_is_another_options_document_is_left_out(tmp_path: Path):
    # A copy of the answer's file, or a text of its bytes, is one document: a tie, counted wrong.
    (tmp_path / "a.txt").write_text("The cat sat on the mat.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("The cat sat on the mat.", encoding="utf-8")
    (tmp_path / "c.txt").write_text("A dog ran.", encoding="utf-8")
    jsonl = tmp_path / "c.jsonl"
    items = [
        {"query": "q", "options": ["a.txt", "b.txt", "c.txt"], "answer": 0},
        {"query": "q", "options": ["c.txt", "The cat sat on the mat.", "a.txt"], "answer": 1},
        {"query": "q", "options": ["c.txt", "a.txt"], "answer": 1},
    ]
    jsonl.write_text("\n".join(json.dumps(i) for i in items), encoding="utf-8")
    data = load_choice(jsonl)
    assert [item.line for item in data.items] == [3]
    assert [p.split(": ", 2)[2] for p in data.problems] == [
        "option 1 repeats the answer, option 0: no score can pick it alone",
        "option 2 repeats the answer, option 1: no score can pick it alone",
    ]


def test_write_documents_copies_each_distinct_text_and_path_once(tmp_path: Path, monkeypatch):
    from dri.corpora import judgements

    doc = tmp_path / "given.txt"
    doc.write_text("A given document.", encoding="utf-8")
    made: list[str | Path] = []
    real = judgements._document
    monkeypatch.setattr(judgements, "_document", lambda side, folder: made.append(side) or real(side, folder))
    rows = [("same text", doc if i % 2 else "other text", "g", {}) for i in range(500)]
    pairs, problems, _ = write_documents(rows, tmp_path / "corpus", Path("r.csv"), list(range(2, 502)))
    assert problems == [] and len(pairs) == 500
    # 1,000 sides, three distinct: a text, another, and a path (not the text "given.txt").
    assert sorted(map(str, made)) == sorted(["same text", "other text", str(doc)])
    assert {p.target for p in pairs[1::2]} == {real(doc, tmp_path / "corpus")}
    assert {p.target for p in pairs[::2]} == {real("other text", tmp_path / "corpus")}
