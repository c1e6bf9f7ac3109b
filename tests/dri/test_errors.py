"""dri.errors: the one line of a failure."""

from dri.errors import Failure, one_line
from dri.extract.document import DocumentError


def test_a_failure_of_a_path_with_a_line_break_names_it_once():
    # one_line folds the path's line break into a space, so the message's head was not
    # seen as the path: "error: c/x\u000aforged.pdf: c/x forged.pdf: encrypted PDF (…)".
    path = "c/x\nforged.pdf"
    error = DocumentError(path, "encrypted PDF (a password is needed to read it)")
    failure = Failure.of(path, "extract", one_line(error))
    assert failure.reason == "encrypted PDF (a password is needed to read it)"
    assert str(failure) == "c/x\nforged.pdf: encrypted PDF (a password is needed to read it)"
    assert Failure.of("c/a.pdf", "extract", "c/a.pdf: corrupt").reason == "corrupt"
    assert Failure.of("c/a.pdf", "extract", "corrupt").reason == "corrupt"
