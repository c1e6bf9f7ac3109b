"""Pages that are not prose stay within bounds (dri.extract.pdf_layout), on PDFs made here with fpdf2."""

from pathlib import Path

import pytest
from fpdf import FPDF
from pdfminer.layout import LTLayoutContainer

from dri.extract import DocumentError, read_document
from dri.extract.pdf_layout import FLOW_MAX_BOXES, MAX_PAGE_CHARS


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


def test_a_page_of_more_boxes_than_the_reading_order_takes_is_read_whole(tmp_path, monkeypatch):
    # Merged pair by pair, 2,500 such boxes took over 5 minutes and 700 MB.
    merge_pairs = LTLayoutContainer.group_textboxes
    merged: list[int] = []

    def counted(self, laparams, boxes):
        merged.append(len(boxes))
        return merge_pairs(self, laparams, boxes)

    monkeypatch.setattr(LTLayoutContainer, "group_textboxes", counted)
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
