"""Pages that are not prose stay within bounds (dri.extract.pdf_layout), on PDFs made here with fpdf2."""

import zlib
from pathlib import Path

import pytest
from fpdf import FPDF
from pdfminer.layout import LAParams, LTLayoutContainer

from dri.extract import DocumentError, pdf_layout, read_document
from dri.extract.pdf_layout import FLOW_MAX_BOXES, MAX_DECODED_BYTES, MAX_PAGE_CHARS


def _scattered_words(path: Path, words: int) -> list[str]:
    """One page of ``words`` numbered words, each a text box of its own; their texts, in order."""
    pdf = FPDF(format=(600, 8000), unit="pt")
    pdf.add_page()
    pdf.set_font("helvetica", size=8)
    names = [f"w{n:05d}" for n in range(words)]
    for n, name in enumerate(names):
        # Far apart on both axes, so no two words share a line or a box.
        pdf.text(20 + (n % 5) * 110, 20 + n * 1.5 * (8000 - 40) / (1.5 * words), name)
    pdf.output(str(path))
    return names


def _merges_counted(monkeypatch) -> list[int]:
    """The sizes of the groups of text boxes pdfminer merges pair by pair from now on."""
    merge_pairs = LTLayoutContainer.group_textboxes
    merged: list[int] = []

    def counted(self, laparams, boxes):
        merged.append(len(boxes))
        return merge_pairs(self, laparams, boxes)

    monkeypatch.setattr(LTLayoutContainer, "group_textboxes", counted)
    return merged


def test_a_page_of_more_boxes_than_the_reading_order_takes_is_read_whole(tmp_path, monkeypatch):
    # Merged pair by pair, 2,500 such boxes took over 5 minutes and 700 MB.
    merged = _merges_counted(monkeypatch)
    path = tmp_path / "index.pdf"
    names = _scattered_words(path, 4 * FLOW_MAX_BOXES)
    words = " ".join(s.text for s in read_document(path).sentences).split()
    assert sorted(words) == names  # every word, once
    assert merged == []  # never merged pair by pair
    # A page within the bound is merged as before.
    _scattered_words(path, 20)
    read_document(path)
    assert merged == [20]


def test_a_page_past_the_character_bound_is_one_line_naming_it(tmp_path):
    pdf = FPDF(format=(600, 800), unit="pt")
    pdf.add_page()
    pdf.add_page()
    pdf.set_font("helvetica", size=1)
    line = "x" * 1000
    for n in range(MAX_PAGE_CHARS // len(line) + 1):
        pdf.text(10, 10 + n * 0.5, line)
    path = tmp_path / "dense.pdf"
    pdf.output(str(path))
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value) == (
        f"{path}: not a PDF of text pages: page 2 holds over {MAX_PAGE_CHARS:,} characters, more than a page of text"
    )


def _raw_pdf(objects: dict[int, bytes]) -> bytes:
    """A PDF of these numbered objects, with its cross-reference table, written byte by byte."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number, body in sorted(objects.items()):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref, size = len(out), max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


TEXT = b"BT /F1 12 Tf 72 720 Td (The sun attracts the planet.) Tj ET"


def _one_page(contents: bytes, references: dict[int, bytes] | None = None) -> bytes:
    """A page of Helvetica whose content stream is object 5, ``contents`` (its dictionary and stream)."""
    return _raw_pdf(
        {
            1: b"<< /Type /Catalog /Pages 2 0 R >>",
            2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
            4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            5: contents,
            **(references or {}),
        }
    )


def _length_through(references: dict[int, bytes]) -> bytes:
    return _one_page(b"<< /Length 6 0 R >>\nstream\n" + TEXT + b"\nendstream", references)


@pytest.mark.timeout(30)
def test_objects_that_refer_to_each_other_in_a_loop_end_the_reading(tmp_path):
    # pdfminer's resolve1 followed 6 0 R -> 7 0 R -> 6 0 R forever, at full CPU.
    path = tmp_path / "loop.pdf"
    path.write_bytes(_length_through({6: b"7 0 R", 7: b"6 0 R"}))
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value).startswith(f"{path}: ") and "\n" not in str(err.value)
    # A chain of references that ends in a value is followed to it.
    path.write_bytes(_length_through({6: b"7 0 R", 7: b"8 0 R", 8: b"58"}))
    assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]


@pytest.mark.parametrize("filters", [1, 2])
def test_a_decompression_bomb_is_one_line_naming_it(tmp_path, filters):
    # pdfminer inflated a stream whole and kept it: 1 GB of spaces in a 1 MB file took 2.1 GB.
    inflate = zlib.compressobj(9)
    stream = inflate.compress(TEXT) + inflate.compress(b" " * (MAX_DECODED_BYTES + 1)) + inflate.flush()
    if filters == 2:
        stream = zlib.compress(stream, 9)
    names = b" ".join([b"/FlateDecode"] * filters)
    path = tmp_path / "bomb.pdf"
    path.write_bytes(
        _one_page(b"<< /Length %d /Filter [%s] >>\nstream\n%s\nendstream" % (len(stream), names, stream))
    )
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value) == (
        f"{path}: not a PDF of text pages: its compressed streams inflate to over "
        f"{MAX_DECODED_BYTES:,} bytes (a decompression bomb?)"
    )
    # Within the bound, and cut short (read as far as it goes), a stream reads as before.
    stream = zlib.compress(TEXT + b" " * 1000)
    for cut in (0, 4):
        data = stream[: len(stream) - cut]
        path.write_bytes(
            _one_page(b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(data), data))
        )
        assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]


def _lzw_run_of_spaces(head: bytes, repeats: int) -> bytes:
    """LZW codes (as pdfminer reads them) for ``head``, then spaces: codes that each
    stand for one more space, up to the table's 4,095th, then that one ``repeats`` times."""
    bits, width, size = [(256, 9)], 9, 258  # a clear-table code first
    widths = {511: 10, 1023: 11, 2047: 12}
    for i, byte in enumerate(head + b" "):
        bits.append((byte, width))
        if i:
            size += 1
            width = widths.get(size, width)
    while size < 4095:  # each code the next entry: the last string and its first byte again
        bits.append((size, width))
        size += 1
        width = widths.get(size, width)
    bits += [(4094, 12)] * repeats
    number = 0
    for code, n in bits:
        number = number << n | code
    total = sum(n for _, n in bits)
    return (number << -total % 8).to_bytes((total + 7) // 8, "big")


def test_an_lzw_bomb_is_one_line_naming_it(tmp_path):
    # 12 bits stood for 3,800 spaces: 51 KB of codes took 15 s for 120 MB, 4.5 MB would take hours.
    path = tmp_path / "lzw.pdf"
    for repeats, bomb in ((10, False), (MAX_DECODED_BYTES // 3800, True)):
        codes = _lzw_run_of_spaces(TEXT + b"\n", repeats)
        path.write_bytes(
            _one_page(b"<< /Length %d /Filter /LZWDecode >>\nstream\n%s\nendstream" % (len(codes), codes))
        )
        if not bomb:  # 7 MB of spaces after the text: read as before
            assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]
            continue
        with pytest.raises(DocumentError, match="its compressed streams inflate to over 100,000,000 bytes"):
            read_document(path)


def test_a_run_length_bomb_is_one_line_naming_it(tmp_path):
    # Two bytes stand for 128; pdfminer decoded 1.6 MB of them into a list of 100 million integers.
    path = tmp_path / "runs.pdf"
    for runs, bomb in ((10, False), (MAX_DECODED_BYTES // 128 + 1, True)):
        data = bytes([len(TEXT)]) + TEXT + b"\n" + b"\x81 " * runs + b"\x80"  # 0x81: 128 spaces
        path.write_bytes(
            _one_page(b"<< /Length %d /Filter /RunLengthDecode >>\nstream\n%s\nendstream" % (len(data), data))
        )
        if not bomb:
            assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]
            continue
        with pytest.raises(DocumentError, match="its compressed streams inflate to over 100,000,000 bytes"):
            read_document(path)


def _plain(contents: bytes) -> bytes:
    return _one_page(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(contents), contents))


def test_a_page_of_more_drawing_than_a_page_of_text_is_one_line_naming_it(tmp_path, monkeypatch):
    # Five million empty "q Q" in a 20 KB file took 56 s; a string of 60 MB in a
    # 59 KB file 314 s, which pdfminer built piece by piece. Smaller bounds here, the same code.
    monkeypatch.setattr(pdf_layout, "MAX_PAGE_TOKENS", 1_000)
    monkeypatch.setattr(pdf_layout, "MAX_STRING_BYTES", 2_000)
    path = tmp_path / "bomb.pdf"
    cases = {
        b"q Q " * 501 + TEXT: "over 1,000 drawing instructions",  # 1,002 tokens
        # Longer than a read of the stream (4,096 bytes): the bound is checked between reads.
        b"BT /F1 12 Tf 72 720 Td (" + b"a " * 5_000 + b") Tj ET": "a token of over 2,000 bytes",
        b"BT /F1 12 Tf 72 720 Td <" + b"41" * 5_000 + b"> Tj ET": "a token of over 2,000 bytes",
        b"q " + b"a" * 10_000 + b" Q " + TEXT: "a token of over 2,000 bytes",
    }
    for contents, holds in cases.items():
        path.write_bytes(_plain(contents))
        with pytest.raises(DocumentError) as err:
            read_document(path)
        assert (
            str(err.value)
            == f"{path}: not a PDF of text pages: page 1 holds {holds}, more than a page of text"
        )
    # Within the bounds, the text is read; the next document starts its count afresh.
    for _ in range(2):
        path.write_bytes(_plain(b"q Q " * 480 + TEXT))
        assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]


def test_lines_and_shapes_are_not_kept(tmp_path):
    # A page of a million rectangles took 1.8 GB: pdfminer kept an object for each.
    path = tmp_path / "shapes.pdf"
    path.write_bytes(_plain(b"0 0 1 1 re f\n" * 200 + b"10 10 m 20 20 l S\n" + TEXT))
    pages = list(pdf_layout.layout_pages(path.read_bytes(), LAParams()))
    assert [type(item).__name__ for item in pages[0]] == ["LTTextBoxHorizontal"]
    assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]


def test_a_document_of_more_drawing_than_its_bound_is_one_line_naming_it(tmp_path, monkeypatch):
    # Pages each just under the page bound took 7 s a page, without end.
    monkeypatch.setattr(pdf_layout, "MAX_DOCUMENT_TOKENS", 500)
    path = tmp_path / "pages.pdf"
    path.write_bytes(_plain(b"q Q " * 300 + TEXT))
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value) == (
        f"{path}: not a PDF of text pages: its pages hold over 500 drawing instructions (by page 1)"
    )


def test_an_inline_image_or_an_objects_token_past_the_bound_is_one_line(tmp_path, monkeypatch):
    # pdfminer copied an inline image's data whole at each byte (1.6 MB in a 2 KB
    # file took 35 s), and a 32 MB string in an object stream took 83 s.
    monkeypatch.setattr(pdf_layout, "MAX_STRING_BYTES", 2_000)
    path = tmp_path / "inline.pdf"
    path.write_bytes(_plain(TEXT + b" BI /W 1 /H 1 /BPC 8 /CS /G ID " + b"E" * 5_000 + b" EI "))
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value) == (
        f"{path}: not a PDF of text pages: page 1 holds an inline image of over 2,000 bytes, more than a page of text"
    )
    path.write_bytes(
        _plain(TEXT + b" BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\x01 EI ")
    )  # a small one is read past
    assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]
    path.write_bytes(
        _one_page(b"<< /Length %d /Junk (%s) >>\nstream\n%s\nendstream" % (len(TEXT), b"A" * 10_000, TEXT))
    )
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value) == f"{path}: not a PDF of text pages: an object holds a token of over 2,000 bytes"


def _page_drawing_forms(forms: dict[int, tuple[bytes, bytes]], page_text: bytes = b"") -> bytes:
    """A page that draws the first of the forms ``number: (its /BBox, its content)``
    after its own text; a form may draw the others by their names ``/X<number>``."""
    names = b" ".join(b"/X%d %d 0 R" % (n, n) for n in forms)
    contents = page_text + b" q /X%d Do Q" % next(iter(forms))
    return _raw_pdf(
        {
            1: b"<< /Type /Catalog /Pages 2 0 R >>",
            2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 4 0 R >> /XObject << " + names + b" >> >> /Contents 5 0 R >>",
            4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            5: b"<< /Length %d >>\nstream\n%s\nendstream" % (len(contents), contents),
            **{
                n: b"<< /Type /XObject /Subtype /Form /BBox %s /Resources << /Font << /F1 4 0 R >> "
                b"/XObject << %s >> >> /Length %d >>\nstream\n%s\nendstream" % (box, names, len(body), body)
                for n, (box, body) in forms.items()
            },
        }
    )


def test_a_page_drawn_whole_as_a_form_is_read(tmp_path):
    # pdfminer leaves a form's characters loose in a figure: the page was "no text
    # outside dropped parts", though pdfminer's own extract_text reads it.
    path = tmp_path / "wrapped.pdf"
    path.write_bytes(_page_drawing_forms({6: (b"[0 0 612 792]", TEXT)}))
    assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]
    # A page wrapped twice (a form drawing a form) is read too.
    inner = b"BT /F1 12 Tf 72 650 Td (The moon circles the earth.) Tj ET"
    path.write_bytes(
        _page_drawing_forms({6: (b"[0 0 612 792]", b"q /X7 Do Q"), 7: (b"[0 0 612 792]", inner)})
    )
    assert [s.text for s in read_document(path).sentences] == ["The moon circles the earth."]


def test_a_small_forms_labels_stay_out_of_the_text_and_a_form_of_text_is_read(tmp_path):
    path = tmp_path / "figure.pdf"
    label = b"BT /F1 8 Tf 100 100 Td (Axis of time) Tj ET"
    path.write_bytes(_page_drawing_forms({6: (b"[90 90 200 200]", label)}, page_text=TEXT))
    assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]
    # A small form holding a page's worth of characters (pages printed several to a sheet) is text.
    words = b" ".join([b"The sun attracts the planet."] * 12)
    column = b"BT /F1 6 Tf 100 150 Td (%s) Tj ET" % words
    path.write_bytes(_page_drawing_forms({6: (b"[90 90 200 200]", column)}))
    assert len(read_document(path).sentences) == 12


def test_a_form_of_more_boxes_than_the_reading_order_takes_is_read_whole(tmp_path, monkeypatch):
    merged = _merges_counted(monkeypatch)
    names = [f"w{n:05d}" for n in range(2 * FLOW_MAX_BOXES)]
    spacing = (8000 - 40) / len(names)
    body = b" ".join(
        b"BT /F1 8 Tf %d %.1f Td (%s) Tj ET" % (20 + (n % 5) * 110, 20 + n * spacing, name.encode())
        for n, name in enumerate(names)
    )
    form = b"<< /Type /XObject /Subtype /Form /BBox [0 0 600 8000] /Resources << /Font << /F1 4 0 R >> >> "
    page = b"q /X6 Do Q"
    path = tmp_path / "index.pdf"
    path.write_bytes(
        _raw_pdf(
            {
                1: b"<< /Type /Catalog /Pages 2 0 R >>",
                2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 8000] "
                b"/Resources << /XObject << /X6 6 0 R >> >> /Contents 5 0 R >>",
                4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                5: b"<< /Length %d >>\nstream\n%s\nendstream" % (len(page), page),
                6: form + b"/Length %d >>\nstream\n%s\nendstream" % (len(body), body),
            }
        )
    )
    words = " ".join(s.text for s in read_document(path).sentences).split()
    assert sorted(words) == names  # every word, once
    assert merged == []  # never merged pair by pair, in the form as on a page


def test_a_form_scaled_up_past_any_print_is_one_line_not_gigabytes(tmp_path):
    # The layout indexes a character in every 50-point cell it covers: a form drawn
    # 10,000 times its size took 4 GB in 20 s for one line of text.
    path = tmp_path / "scaled.pdf"
    path.write_bytes(_page_drawing_forms({6: (b"[0 0 612 792] /Matrix [10000 0 0 10000 0 0]", TEXT)}))
    with pytest.raises(DocumentError) as err:
        read_document(path)
    assert str(err.value) == (
        f"{path}: not a PDF of text pages: page 1 holds characters scaled up past any print, "
        "more than its layout can take"
    )
    # Drawn at twice its size, it is read.
    path.write_bytes(_page_drawing_forms({6: (b"[0 0 612 792] /Matrix [2 0 0 2 -300 -700]", TEXT)}))
    assert [s.text for s in read_document(path).sentences] == ["The sun attracts the planet."]


@pytest.mark.timeout(60)
def test_forms_nested_deeply_are_read_with_each_counted_once(tmp_path):
    # Each level counted the characters of every form below it again: 300 levels
    # over a column of words took minutes.
    depth, first = 150, 6
    words = b" ".join([b"The sun attracts the planet."] * 400)
    forms = {n: (b"[0 0 612 792]", b"q /X%d Do Q" % (n + 1)) for n in range(first, first + depth)}
    forms[first + depth] = (b"[0 0 612 792]", b"BT /F1 2 Tf 10 700 Td (%s) Tj ET" % words)
    path = tmp_path / "nested.pdf"
    path.write_bytes(_page_drawing_forms(forms))
    assert len(read_document(path).sentences) == 400
