import pytest

from dri.extract.sentences import split_sentences


@pytest.mark.parametrize(
    "text, expected",
    [
        ("One sentence. Another one! A third? Yes.", ["One sentence.", "Another one!", "A third?", "Yes."]),
        ("Smith et al. (2003) showed it. It holds.", ["Smith et al. (2003) showed it.", "It holds."]),
        (
            "As shown (Smith et al., 2003), it works. Next.",
            ["As shown (Smith et al., 2003), it works.", "Next."],
        ),
        ("Use tools, e.g. Prolog, i.e. Logic. Done.", ["Use tools, e.g. Prolog, i.e. Logic.", "Done."]),
        ("See Fig. 3 and Eq. 2 for details. Then stop.", ["See Fig. 3 and Eq. 2 for details.", "Then stop."]),
        ("It was shown before [12]. The next one.", ["It was shown before [12].", "The next one."]),
        ("It was shown before.[3, 4] The next one.", ["It was shown before.[3, 4]", "The next one."]),
        ("Written by J. R. Smith in the U.S. military.", ["Written by J. R. Smith in the U.S. military."]),
        ("The answer is no. We stop.", ["The answer is no.", "We stop."]),
        ("See No. 5 on p. 12. Fine.", ["See No. 5 on p. 12.", "Fine."]),
        ("Pi is 3.14 here. Ok.", ["Pi is 3.14 here.", "Ok."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("lower case after a stop. continues here.", ["lower case after a stop. continues here."]),
        ("  spread\n over   lines.\tNext  ", ["spread over lines.", "Next"]),
        ("Wait... What?! Then (yes.) More.", ["Wait...", "What?!", "Then (yes.)", "More."]),
        ("", []),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_long_runs_are_cut_at_white_space():
    text = "word " * 2000
    pieces = split_sentences(text, max_chars=500)
    assert all(len(p) <= 500 for p in pieces)
    assert " ".join(pieces).split() == text.split()


def test_a_long_run_of_full_stops_is_one_boundary_not_a_quadratic_search():
    # A table of contents' leaders or junk: each run is tried once, so 200,000
    # characters of them split at once (the pattern tried from every full stop
    # of a run took minutes here), cut like any other long run.
    text = ("." * 50_000 + " Next. ") * 4
    pieces = split_sentences(text)
    assert pieces[0] == "." * 3000 and all(len(p) <= 3000 for p in pieces)
    assert "".join(pieces).count(".") == text.count(".")
    assert pieces.count("Next.") == 4 and pieces[-1] == "Next."
