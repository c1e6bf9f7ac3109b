"""The PDF path on PDFs generated here with fpdf2: layout, sections, bad input."""

import logging
from pathlib import Path

import pytest
from fpdf import FPDF

from dri.extract import DocumentError, build_graphs, load_nlp, read_document
from dri.graphs import triples

HEADER = "Journal of Analogy Research, Vol. 3"


def _paper() -> FPDF:
    pdf = FPDF()
    pdf.set_auto_page_break(True, margin=20)

    def header():
        pdf.set_font("helvetica", "I", 8)
        pdf.cell(0, 5, HEADER, align="C", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)

    def footer():
        pdf.set_y(-15)
        pdf.set_font("helvetica", "", 8)
        pdf.cell(0, 10, f"Page {pdf.page_no()}", align="C")

    pdf.header = header
    pdf.footer = footer
    return pdf


def _para(pdf: FPDF, text: str, size: float = 10, style: str = "") -> None:
    pdf.set_font("helvetica", style, size)
    pdf.multi_cell(0, size / 2, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


@pytest.fixture(scope="module")
def paper_pdf(tmp_path_factory) -> Path:
    pdf = _paper()
    pdf.add_page()
    _para(pdf, "Solar Systems and Atoms", 18, "B")
    _para(pdf, "Jane Smith, University of Nowhere")
    _para(pdf, "Abstract", 12, "B")
    _para(pdf, "The sun attracts the planets. Rutherford compared atoms with solar systems.")
    _para(pdf, "1 Introduction", 12, "B")
    _para(pdf, "Scientists use analogies. The extrac-\ntion of triples needs a parser.")
    _para(pdf, "2 Structure Mapping", 12, "B")
    pdf.set_y(240)
    _para(pdf, "The theory of structure mapping aligns relations and this paragraph continues")
    pdf.add_page()
    _para(pdf, "on the next page without a break. Gentner proposed the theory.")
    _para(pdf, "References", 12, "B")
    _para(
        pdf,
        "[1] D. Gentner. Structure-mapping: A theoretical framework. Cognitive Science, 1983.\n"
        "[2] K. Holyoak and P. Thagard. Mental Leaps. MIT Press, 1995.",
    )
    path = tmp_path_factory.mktemp("pdf") / "paper.pdf"
    pdf.output(str(path))
    return path


def test_pdf_title_sections_and_body(paper_pdf):
    doc = read_document(paper_pdf)
    assert doc.kind == "pdf" and doc.encoding is None
    assert doc.title == "Solar Systems and Atoms"
    by_section = [(s.section, s.text) for s in doc.sentences]
    assert by_section == [
        (None, "Jane Smith, University of Nowhere"),
        ("abstract", "The sun attracts the planets."),
        ("abstract", "Rutherford compared atoms with solar systems."),
        ("introduction", "Scientists use analogies."),
        ("introduction", "The extraction of triples needs a parser."),
        (
            "structure mapping",
            "The theory of structure mapping aligns relations and this paragraph continues"
            " on the next page without a break.",
        ),
        ("structure mapping", "Gentner proposed the theory."),
    ]


def test_pdf_drops_running_headers_page_numbers_and_references(paper_pdf):
    text = " ".join(s.text for s in read_document(paper_pdf).sentences)
    assert "Journal" not in text
    assert "Page" not in text
    assert "Holyoak" not in text and "Cognitive Science" not in text


def test_pdf_graph_keeps_sections(paper_pdf):
    doc = read_document(paper_pdf)
    g = next(build_graphs([doc], nlp=load_nlp()))
    assert ("sun", "attract", "planet") in triples(g)
    assert g.graph["kind"] == "pdf" and g.graph["title"] == "Solar Systems and Atoms"
    sections = {g.nodes[r]["sections"][0] for r, t in g.nodes(data="type") if t == "relation"}
    assert "abstract" in sections and "references" not in sections


def test_inline_abstract_and_magic_without_extension(tmp_path):
    pdf = FPDF()
    pdf.add_page()
    _para(pdf, "Abstract. We study gravity. Planets orbit stars.")
    _para(pdf, "Introduction")
    _para(pdf, "Analogies help reasoning.")
    path = tmp_path / "noext"
    pdf.output(str(path))
    doc = read_document(path)
    assert doc.kind == "pdf"
    assert [(s.section, s.text) for s in doc.sentences] == [
        ("abstract", "We study gravity."),
        ("abstract", "Planets orbit stars."),
        ("introduction", "Analogies help reasoning."),
    ]


def test_pdf_with_owner_password_only_is_readable(tmp_path):
    pdf = FPDF()
    pdf.add_page()
    _para(pdf, "The sun attracts the planets.")
    pdf.set_encryption(owner_password="owner")
    path = tmp_path / "owner.pdf"
    pdf.output(str(path))
    assert read_document(path).sentences[0].text == "The sun attracts the planets."


def _error(path: Path) -> str:
    with pytest.raises(DocumentError) as info:
        read_document(path)
    assert str(info.value) == f"{path}: {info.value.reason}" and "\n" not in str(info.value)
    return info.value.reason


def test_encrypted_pdf(tmp_path):
    pdf = FPDF()
    pdf.add_page()
    _para(pdf, "Secret text.")
    pdf.set_encryption(owner_password="owner", user_password="secret")
    path = tmp_path / "locked.pdf"
    pdf.output(str(path))
    assert _error(path).startswith("encrypted PDF")


def test_corrupt_pdfs(tmp_path):
    pdf = FPDF()
    pdf.add_page()
    _para(pdf, "Some text.")
    data = bytes(pdf.output())
    (tmp_path / "truncated.pdf").write_bytes(data[:200])
    (tmp_path / "garbage.pdf").write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 20)
    (tmp_path / "notpdf.pdf").write_bytes(b"This is plain text with a .pdf name.")
    for name in ("truncated.pdf", "garbage.pdf", "notpdf.pdf"):
        assert _error(tmp_path / name).startswith("corrupt PDF"), name


def test_pdf_without_text_layer(tmp_path):
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")
    pdf.line(10, 10, 150, 200)
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    assert _error(path).startswith("PDF has no text layer")


def test_empty_and_too_large_pdf(tmp_path, paper_pdf):
    (tmp_path / "empty.pdf").write_bytes(b"")
    assert _error(tmp_path / "empty.pdf") == "empty file"
    with pytest.raises(DocumentError, match="too large"):
        read_document(paper_pdf, max_bytes=100)


def test_a_pdf_without_pages_says_so(tmp_path):
    # A well-formed PDF of no pages was called "corrupt PDF (no pages found)".
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    data, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(data)
    data += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    data += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    (tmp_path / "no-pages.pdf").write_bytes(data)
    assert _error(tmp_path / "no-pages.pdf") == "a PDF without pages (empty, or damaged)"


def test_two_columns_read_in_order_with_justified_lines_rejoined(tmp_path):
    pdf = FPDF()
    pdf.add_page()
    _para(pdf, "Two Column Paper", 16, "B")
    _para(pdf, "Abstract. This abstract spans the full width of the page above both columns.")
    top = pdf.get_y() + 5
    pdf.set_font("helvetica", "", 10)
    pdf.set_xy(10, top)
    pdf.multi_cell(90, 5, " ".join(f"Left sentence number {i} describes the sun." for i in range(1, 25)))
    pdf.set_xy(110, top)
    pdf.multi_cell(90, 5, " ".join(f"Right sentence number {i} describes the atom." for i in range(1, 25)))
    path = tmp_path / "two.pdf"
    pdf.output(str(path))
    doc = read_document(path)
    assert doc.title == "Two Column Paper"
    assert [s.text for s in doc.sentences] == (
        ["This abstract spans the full width of the page above both columns."]
        + [f"Left sentence number {i} describes the sun." for i in range(1, 25)]
        + [f"Right sentence number {i} describes the atom." for i in range(1, 25)]
    )


def test_pdfminers_warnings_name_the_file_once(tmp_path, caplog):
    pdf = FPDF()
    for text in ("The sun attracts the planets.", "The nucleus attracts the electrons."):
        pdf.add_page()
        _para(pdf, text)
    data = bytes(pdf.output())
    assert b"/MediaBox" in data
    path = tmp_path / "no-media-box.pdf"
    path.write_bytes(data.replace(b"/MediaBox", b"/MediaBoz"))  # same length: offsets hold
    with caplog.at_level("WARNING"):
        doc = read_document(path)
    assert [s.text for s in doc.sentences] == [
        "The sun attracts the planets.",
        "The nucleus attracts the electrons.",
    ]
    # pytest's capture hangs on pdfminer's logger too, so its own records are seen here;
    # the console's handlers (the root's) never see them.
    assert not logging.getLogger("pdfminer").propagate
    assert [(r.name, r.getMessage()) for r in caplog.records if r.name.startswith("dri")] == [
        (
            "dri.extract.pdf",
            f"{path}: pdfminer: MediaBox missing from /Page (and not inherited), defaulting to US Letter (2 times)",
        )
    ]


def test_a_pdf_far_over_the_text_limit_stops_where_its_lines_pass_twice_the_limit(tmp_path):
    # Laid out whole, 3,000 pages of text took a minute in pdfminer, then were refused as too long.
    pdf = FPDF()
    for page in range(1, 41):
        pdf.add_page()
        # Names of letters: lines that differ only in their digits are running headers.
        names = ["".join(chr(97 + int(d)) for d in str(page * 100 + n)) for n in range(1, 21)]
        _para(pdf, " ".join(f"Planet {name} orbits its star." for name in names))
    path = tmp_path / "book.pdf"
    pdf.output(str(path))
    reason = _error_with(path, max_chars=1000)
    assert (
        reason.startswith("too long: over 2,")
        and ", where its reading stopped, the limit is 1,000 " in reason
    )
    page = int(reason.split(" by page ")[1].split(",")[0])
    assert 2 <= page <= 10  # about 500 characters a page
    # Within twice the limit the whole text is read and counted, as before.
    assert _error_with(path, max_chars=15_000).startswith("too long: 2")


def _error_with(path: Path, **limits: int) -> str:
    with pytest.raises(DocumentError) as info:
        read_document(path, **limits)
    return info.value.reason
