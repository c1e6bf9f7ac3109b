from dri.graphs import add_triple, new_graph, triples
from dri.graphs.export import draw_png, read_graphml, write_graphml


def sample():
    g = new_graph("d", name="sample")
    add_triple(g, "student", "write", "essay", sentence=0, section="abstract")
    add_triple(g, "teacher", "mark", "essay", sentence=1)
    return g


def test_graphml_round_trip(tmp_path):
    path = tmp_path / "g.graphml"
    write_graphml(sample(), path)
    back = read_graphml(path)
    assert triples(back) == triples(sample())
    assert back.nodes["c:essay"]["sentences"] == [0, 1]
    assert back.nodes["c:student"]["sections"] == ["abstract"]


def test_png_is_a_real_image(tmp_path):
    path = tmp_path / "g.png"
    draw_png(sample(), path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    assert matplotlib.image.imread(str(path)).shape[0] > 100
