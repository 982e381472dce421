"""A payload's locations (the ``## loc`` section of spec 3.6.0, which
gcf-python 2.8.0 predates) round-trip: ``decode`` returns a
``LocatedPayload`` for text with the section and a plain ``Payload``, with
2.8.0's fields, for any other; ``encode`` writes the locations of any payload
that has them."""

import dataclasses

import pytest

import gcf
from gcf import Edge, GcfError, LocatedPayload, Location, Payload, Symbol


def located(n: int, with_ends: bool) -> LocatedPayload:
    symbols = []
    locations = []
    for i in range(n):
        name = f"pkg/m{i % 7}.S{i}"
        symbols.append(Symbol(name, "function", (i % 10) / 10, "lsp", i % 2))
        end = (2 + i, 9) if with_ends and i % 2 == 0 else (None, None)
        locations.append(Location(name, ["a.go", "dir with space/b.go", "ü/c.go"][i % 3], 1 + i, 1 + i % 5, *end))
    edges = [Edge(symbols[i].qualified_name, symbols[i - 1].qualified_name, "calls") for i in range(1, n)]
    return LocatedPayload("where", 5, 100, "", symbols, edges, locations)


def by_name(items):
    return sorted(items, key=lambda x: x.qualified_name)


@pytest.mark.parametrize("n", [1, 5, 3000])
@pytest.mark.parametrize("with_ends", [False, True])
def test_locations_round_trip(n: int, with_ends: bool) -> None:
    p = located(n, with_ends)
    text = gcf.encode(p)
    assert f"\n## loc [{n}]\n" in text
    back = gcf.decode(text)
    assert type(back) is LocatedPayload
    assert by_name(back.locations) == by_name(p.locations)
    assert by_name(back.symbols) == by_name(p.symbols)
    assert gcf.decode(text.encode()) == back
    # Encoding what decode gave writes the same text.
    assert gcf.encode(back) == text


def test_without_locations_a_plain_payload_with_2_8_0_fields() -> None:
    p = located(5, False)
    plain = Payload(p.tool, p.tokens_used, p.token_budget, p.pack_root, p.symbols, p.edges)
    text = gcf.encode(plain)
    assert "## loc" not in text
    assert gcf.encode(dataclasses.replace(p, locations=[])) == text
    back = gcf.decode(text)
    assert type(back) is Payload
    assert [f.name for f in dataclasses.fields(back)] == [
        "tool",
        "tokens_used",
        "token_budget",
        "pack_root",
        "symbols",
        "edges",
    ]


def test_any_object_with_locations_is_encoded_with_them() -> None:
    class Mine:
        def __init__(self) -> None:
            self.tool = "t"
            self.tokens_used = 0
            self.token_budget = 0
            self.pack_root = ""
            self.symbols = [Symbol("a.B", "function", 0.5, "lsp")]
            self.edges = []
            self.locations = [Location("a.B", "a.go", 3, 4)]

    assert gcf.encode(Mine()).endswith("## loc [1]\n@0 a.go 3 4\n")


def test_a_negative_line_is_refused() -> None:
    p = located(2, False)
    p.locations[0].line = -1
    with pytest.raises(GcfError) as e:
        gcf.encode(p)
    assert e.value.category == "out_of_range"



def test_a_location_naming_no_symbol_is_left_out_as_such_an_edge_is() -> None:
    p = located(2, False)
    p.locations[1].qualified_name = "not.a.symbol"
    p.edges.append(Edge("not.a.symbol", p.symbols[0].qualified_name, "calls"))
    back = gcf.decode(gcf.encode(p))
    assert back.locations == [p.locations[0]]
    assert len(back.edges) == 1


def test_session_encode_writes_locations_as_encode_does() -> None:
    p = located(5, True)
    # Listed as written (emission order, edges by source and target), the
    # first payload of a session is the plain one, `session=true` aside (a
    # session numbers new symbols and keeps edges in the payload's order).
    symbols = sorted(p.symbols, key=lambda s: (s.distance, -s.score))
    position = {s.qualified_name: i for i, s in enumerate(symbols)}
    edges = sorted(p.edges, key=lambda e: (position[e.source], position[e.target]))
    ordered = dataclasses.replace(p, symbols=symbols, edges=edges)
    first = gcf.encode_with_session(ordered, gcf.Session())
    assert first.replace(" session=true", "") == gcf.encode(p)
    # Delivered symbols become bare references; the locations of the
    # symbols still declared are written.
    sess = gcf.Session()
    gcf.encode_with_session(dataclasses.replace(p, symbols=p.symbols[:2], edges=[], locations=[]), sess)
    again = gcf.encode_with_session(p, sess)
    assert "## loc [" in again


def test_decode_generic_and_the_cli_keep_locations() -> None:
    import json
    import subprocess
    import sys

    p = located(4, True)
    text = gcf.encode(p)
    d = gcf.decode_generic(text)
    assert len(d["locations"]) == 4
    with_end = [l for l in d["locations"] if "endLine" in l]
    assert len(with_end) == 2 and all(l["endColumn"] == 9 for l in with_end)
    assert "locations" not in gcf.decode_generic(gcf.encode(dataclasses.replace(p, locations=[])))
    # `gcf decode` writes them in the JSON form `gcf encode` reads back.
    r = subprocess.run([sys.executable, "-m", "gcf", "decode"], input=text, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["locations"] == d["locations"]
    r = subprocess.run([sys.executable, "-m", "gcf", "encode"], input=r.stdout, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == text


def test_random_payloads_with_locations_round_trip() -> None:
    import random

    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    files = ["a.go", "src/x.ts", "dir with space/b.go", "ü/c.go", 'q"uote.py', "", "tab\there.rs"]
    kinds = ["function", "type", "method", "interface", "field"]
    for k in range(1000):
        n = rng.randrange(30)
        symbols = [
            Symbol(f"pkg/m{rng.randrange(9)}.S{i}", rng.choice(kinds), rng.randrange(101) / 100, "lsp", rng.randrange(3))
            for i in range(n)
        ]
        edges = [
            Edge(rng.choice(symbols).qualified_name, rng.choice(symbols).qualified_name, "calls")
            for _ in range(rng.randrange(2 * n + 1) if n else 0)
        ]
        locations = []
        for i in range(rng.randrange(2 * n + 2)):
            name = rng.choice(symbols).qualified_name if n and rng.random() < 0.9 else f"no.such{i}"
            line, column = 1 + rng.randrange(5000), 1 + rng.randrange(200)
            end = (line + rng.randrange(50), 1 + rng.randrange(200)) if rng.random() < 0.3 else (None, None)
            locations.append(Location(name, rng.choice(files), line, column, *end))
        p = LocatedPayload("t", 0, 0, "", symbols, edges, locations)
        text = gcf.encode(p)
        named = {s.qualified_name for s in symbols}
        kept = [l for l in locations if l.qualified_name in named]
        back = gcf.decode(text)
        msg = f"seed {seed}, payload {k}"
        key = lambda l: (l.qualified_name, l.file, l.line, l.column, l.end_line or 0, l.end_column or 0)  # noqa: E731
        if kept:
            assert isinstance(back, LocatedPayload), msg
            assert sorted(back.locations, key=key) == sorted(kept, key=key), msg
        else:
            assert type(back) is Payload, msg
        assert gcf.encode(back) == text, msg
