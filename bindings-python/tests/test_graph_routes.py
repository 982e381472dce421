"""`gcf.encode` gathers a payload's fields in Python (bytecode reads
attributes for less than `getattr` from C) and converts them natively,
lending the strings to the core where the interpreter can (and where every
field is a `str` or `None`) or copying them into an arena; `gcf._gcf.encode`
reads the same attributes from C. All must write the same bytes and raise
the same errors for any payload-like object."""

from __future__ import annotations

import enum
import io
import sys
from types import SimpleNamespace
from typing import Any, Callable, Iterator, List, Tuple

import pytest

import gcf
from conftest import under_both
from gcf import Edge, Payload, Symbol

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/bench")
import bench  # noqa: E402


class Name(str):
    """A str subclass."""


class Shown:
    def __str__(self) -> str:
        return "shown"


class Kind(str, enum.Enum):
    FUNCTION = "function"
    WIDGET = "widget"


class Prov(str, enum.Enum):
    LSP = "lsp_resolved"


def outcome(call: Callable[[], str]) -> Any:
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - compared between routes
        return (type(e), str(e))


def both(p: Any) -> Tuple[Any, Any]:
    """`gcf.encode` with strings lent and with them copied (they must agree),
    and the C-side attribute reader."""
    lent, copied = under_both(gcf._gcf._lend_utf8, lambda: gcf.encode(p))
    if isinstance(lent, tuple) and isinstance(copied, tuple) and lent[0] in (AttributeError, TypeError):
        assert lent[0] is copied[0]
    else:
        assert lent == copied
    return lent, outcome(lambda: gcf._gcf.encode(p))


@pytest.mark.parametrize("n", [0, 1, 10, 100, 1000])
def test_bench_graphs(n: int) -> None:
    gathered, read = both(bench.graph(n, 7))
    assert isinstance(gathered, str), gathered
    assert gathered == read


def sym(**kw: Any) -> SimpleNamespace:
    base = dict(qualified_name="pkg.a", kind="function", score=0.5, provenance="lsp", distance=0)
    base.update(kw)
    return SimpleNamespace(**base)


def edge(**kw: Any) -> SimpleNamespace:
    base = dict(source="pkg.a", target="pkg.b", edge_type="calls", status="")
    base.update(kw)
    return SimpleNamespace(**base)


def payload(symbols: Any, edges: Any, **kw: Any) -> SimpleNamespace:
    base = dict(tool="t", token_budget=0, tokens_used=0, pack_root="", symbols=symbols, edges=edges)
    base.update(kw)
    return SimpleNamespace(**base)


GOOD = [sym(), sym(qualified_name="pkg.b", kind="type", score=1.0, distance=2)]

ODD: List[Any] = [
    payload(GOOD, [edge()]),
    payload(None, None),
    payload(GOOD, None, tool=None, pack_root=None, token_budget=None, tokens_used=None),
    payload(tuple(GOOD), (edge(),)),
    payload((s for s in GOOD), iter([edge()])),
    payload([sym(qualified_name=Name("pkg.a"), kind=Name("function"), provenance=7, score=None, distance=None), GOOD[1]],
            [edge(source=Name("pkg.a"), edge_type=Shown(), status=None)]),
    payload([sym(distance=3.0), GOOD[1]], [edge(status="added")], token_budget=100.0, tokens_used=42),
    payload([sym(qualified_name="café_日本", kind="method"), GOOD[1]], [edge(source="café_日本")]),
    payload([sym(qualified_name=Name("pkg.a"), kind=Name("type"), provenance=Name("lsp")), GOOD[1]],
            [edge(source=Name("pkg.a"), target="pkg.b", edge_type=Name("calls"), status=None)], tool=None),
    payload(GOOD, [edge(target="pkg.missing")]),
    payload([sym(kind=None, provenance=None), sym(qualified_name=None)], [edge(target=None, edge_type=None)]),
    payload([sym(kind=Kind.FUNCTION, provenance=Prov.LSP), sym(qualified_name="pkg.b", kind=Kind.WIDGET)],
            [edge(edge_type=Prov.LSP)]),
    Payload(tool="t", symbols=[Symbol("x", "function", 0.25, "lsp")], edges=[Edge("x", "x", "calls")]),
]

BAD: List[Any] = [
    payload([sym(distance=-1)], []),
    payload([sym(distance=1.5)], []),
    payload([sym(distance=2**70)], []),
    payload([sym(distance="2")], []),
    payload([sym(score="x")], []),
    payload([sym(score=float("nan"))], []),
    payload(GOOD, [], token_budget=2.5),
    payload(GOOD, [], tokens_used=2**64),
    payload([SimpleNamespace(qualified_name="a", kind="function", score=0.5, provenance="lsp")], []),
    payload(GOOD, [SimpleNamespace(source="pkg.a", target="pkg.b", edge_type="calls")]),
    payload(5, []),
    payload(GOOD, 5),
    payload([sym(qualified_name="\ud800")], []),
    payload([sym(qualified_name="a b")], []),
    SimpleNamespace(symbols=[], edges=[]),
]


@pytest.mark.parametrize("p", ODD, ids=range(len(ODD)))
def test_odd_payloads(p: Any) -> None:
    if isinstance(p, SimpleNamespace) and not isinstance(p.symbols, (list, tuple, type(None))):
        # A generator is read once: rebuild it for the second route.
        gathered = outcome(lambda: gcf.encode(p))
        p.symbols, p.edges = iter(GOOD), iter([edge()])
        read = outcome(lambda: gcf._gcf.encode(p))
    else:
        gathered, read = both(p)
    assert isinstance(gathered, str), gathered
    assert gathered == read


def test_none_is_written_as_2_8_0_writes_it() -> None:
    # 2.8.0's f-strings write `None` as `None` (a name, kind, provenance,
    # edge type or tool), and its truthiness checks leave out a `None`
    # status or pack root; both pinned to its bytes.
    p = Payload(
        tool=None,  # type: ignore[arg-type]
        pack_root=None,  # type: ignore[arg-type]
        symbols=[Symbol("pkg.A", None, 0.5, None), Symbol(None, "function", 0.25, "x")],  # type: ignore[arg-type]
        edges=[Edge("pkg.A", None, None, None)],  # type: ignore[arg-type]
    )
    assert gcf.encode(p) == (
        "GCF profile=graph tool=None symbols=2 edges=1\n## targets\n@0 None pkg.A 0.50 None\n"
        "@1 fn None 0.25 x\n## edges [1]\n@1<@0 None\n"
    )
    syms = [Symbol("pkg.A", None, 0.5, None, 0), Symbol("pkg.B", "function", 0.25, "x", 1)]  # type: ignore[arg-type]
    edges = [Edge("pkg.A", "pkg.B", None, None)]  # type: ignore[arg-type]
    out = io.StringIO()
    enc = gcf.StreamEncoder(out, None, pack_root=None)  # type: ignore[arg-type]
    for s in syms:
        enc.write_symbol(s)
    enc.write_edge(edges[0])
    enc.close()
    assert out.getvalue() == (
        "GCF profile=graph tool=None\n## targets\n@0 None pkg.A 0.50 None\n## related\n@1 fn pkg.B 0.25 x\n"
        "## edges [?]\n@1<@0 None\n##! summary symbols=2 edges=1 counts=1,1,1\n"
    )
    d = gcf.DeltaPayload(
        tool=None,  # type: ignore[arg-type]
        base_root="sha256:" + "0" * 64,
        new_root="sha256:" + "1" * 64,
        added=syms,
        added_edges=edges,
        removed=[Symbol("pkg.C", None)],  # type: ignore[arg-type]
    )
    assert gcf.encode_delta(d).endswith(
        "## removed\nNone pkg.C\n## added\n@0 None pkg.A 0.50 None 0\n@1 fn pkg.B 0.25 x 1\n"
        "## edges_added\npkg.A -> pkg.B None\n"
    )
    # 2.8.0's root of the same symbols and edges.
    assert gcf.pack_root(syms, edges) == "sha256:cfecb584d7501c854569a88526c52681ec87dc72362159ea06eb1888a3d8cd68"


def test_str_subclasses_are_written_as_str_gives_them() -> None:
    # As gcf-python 2.8.0's f-strings write them: a `(str, Enum)` member is
    # `Prov.LSP`, but a kind whose text is in the spec's table is looked up
    # by that text and abbreviated (`fn`), as 2.8.0's table lookup does. The
    # same through a stream and a session.
    syms = [
        Symbol("pkg.A", Kind.FUNCTION, 0.5, Prov.LSP, 0),  # type: ignore[arg-type]
        Symbol("pkg.B", Kind.WIDGET, 0.4, "x", 1),  # type: ignore[arg-type]
    ]
    edges = [Edge("pkg.A", "pkg.B", Prov.LSP)]  # type: ignore[arg-type]
    body = "## targets\n@0 fn pkg.A 0.50 Prov.LSP\n## related\n@1 Kind.WIDGET pkg.B 0.40 x\n"
    assert gcf.encode(Payload(tool="t", symbols=syms, edges=edges)) == (
        "GCF profile=graph tool=t symbols=2 edges=1\n" + body + "## edges [1]\n@1<@0 Prov.LSP\n"
    )
    out = io.StringIO()
    enc = gcf.StreamEncoder(out, "t")
    for s in syms:
        enc.write_symbol(s)
    enc.write_edge(edges[0])
    enc.close()
    assert out.getvalue() == (
        "GCF profile=graph tool=t\n" + body + "## edges [?]\n@1<@0 Prov.LSP\n##! summary symbols=2 edges=1 counts=1,1,1\n"
    )


@pytest.mark.parametrize("p", BAD, ids=range(len(BAD)))
def test_bad_payloads_fail_alike(p: Any) -> None:
    gathered, read = both(p)
    assert isinstance(gathered, tuple), gathered
    assert gathered[0] is read[0]
    if gathered[0] is not AttributeError and gathered[0] is not TypeError:
        # Python's own messages name the object differently; ours match.
        assert gathered == read


def test_a_score_of_the_wrong_type_is_named_on_every_route() -> None:
    p = payload([sym(), sym(qualified_name="pkg.b", score="0.5")], [])
    gathered, read = both(p)
    for got in (gathered, read):
        assert got == (TypeError, "score: must be real number, not str"), got
    with pytest.raises(TypeError, match="^score: must be real number, not str$"):
        gcf.StreamEncoder(io.StringIO()).write_symbol(Symbol(qualified_name="a.B", kind="function", score="x"))  # type: ignore[arg-type]


def test_properties_are_read_once_per_field() -> None:
    reads: List[str] = []

    class Counted:
        def __init__(self, name: str) -> None:
            self._name = name

        @property
        def qualified_name(self) -> str:
            reads.append(self._name)
            return self._name

        kind = "function"
        score = 0.5
        provenance = "lsp"
        distance = 0

    p = payload([Counted("a"), Counted("b")], [])
    gcf.encode(p)
    assert reads == ["a", "b"]


def test_session_without_a_session_is_encode() -> None:
    p = bench.graph(20, 3)
    assert gcf.encode_with_session(p) == gcf.encode(p) == gcf._gcf.encode(p)


def stream_outcome(items: List[Any], by_object: bool) -> Any:
    """`StreamEncoder` writing `items` (symbols, then edges) through its
    wrapper, which reads the fields in Python, or straight through the
    extension's object reader."""
    import io

    out = io.StringIO()
    enc = gcf.StreamEncoder(out, "t")
    try:
        for item in items:
            is_symbol = hasattr(item, "qualified_name")
            if by_object:
                (enc._native.write_symbol if is_symbol else enc._native.write_edge)(item)
            else:
                (enc.write_symbol if is_symbol else enc.write_edge)(item)
        enc.close()
    except Exception as e:  # noqa: BLE001 - compared between routes
        return (type(e), str(e))
    return out.getvalue()


STREAMS: List[List[Any]] = [
    list(bench.graph(50, 5).symbols) + list(bench.graph(50, 5).edges),
    [sym(), sym(qualified_name=Name("pkg.b"), kind=Name("type"), provenance=7, score=None, distance=2.0),
     edge(), edge(source="pkg.b", target="pkg.a", edge_type=Shown(), status=None), edge(target="pkg.none")],
    [sym(distance=-1)],
    [sym(distance=1.5)],
    [sym(score="x")],
    [sym(qualified_name="a b")],
    [sym(qualified_name="\ud800")],
    [sym(), SimpleNamespace(source="pkg.a", target="pkg.a")],
]


@pytest.mark.parametrize("case", range(len(STREAMS)))
def test_stream_fields_match_the_object_reader(case: int) -> None:
    items = STREAMS[case]
    fields, objects = stream_outcome(items, False), stream_outcome(items, True)
    if case < 2:
        assert isinstance(fields, str), fields
    if isinstance(fields, tuple) and fields[0] in (AttributeError, TypeError):
        assert isinstance(objects, tuple) and fields[0] is objects[0]
    else:
        assert fields == objects


def test_session_turns_match_the_object_reader() -> None:
    from gcf.encode import gather

    gathered, objects = gcf.Session(), gcf.Session()
    turns = [bench.graph(30, 1), bench.graph(40, 1), payload(GOOD, [edge()]), bench.graph(30, 2)]
    for p in turns:
        a = gcf.encode_with_session(p, gathered)
        b = objects._native.encode(p)
        assert a == b
    assert [gathered.get_id(s.qualified_name) for s in turns[1].symbols] == [
        objects.get_id(s.qualified_name) for s in turns[1].symbols
    ]
    bad = payload([sym(distance=-1)], [])
    assert outcome(lambda: gcf.encode_with_session(bad, gathered)) == outcome(lambda: objects._native.encode(bad))


@pytest.mark.parametrize("count", [-1, -5.0, float("nan"), -(2**70), -0.5])
def test_a_negative_header_count_is_written_as_none(count: Any) -> None:
    """2.8.0 writes `budget=`/`tokens=` only for a positive count, so a
    negative (or NaN) one is left out, as there, on every route; a caller's
    -1 for "no budget" keeps its bytes rather than raising."""
    def payload(budget: Any, used: Any) -> Payload:
        return Payload(tool="t", token_budget=budget, tokens_used=used, symbols=[Symbol("p.A", "function", 0.5, "lsp", 0)], edges=[])

    plain = gcf.encode(payload(0, 0))
    assert plain.startswith("GCF profile=graph tool=t symbols=1\n")
    for p in (payload(count, 0), payload(0, count), payload(count, count)):
        assert both(p) == (plain, plain)
    # A positive count beside it is kept.
    assert both(payload(100, count))[0].startswith("GCF profile=graph tool=t budget=100 symbols=1\n")


@pytest.mark.parametrize("count", [1.5, float("inf")])
def test_a_positive_count_that_is_no_integer_is_out_of_range(count: float) -> None:
    """2.8.0 writes `budget=1.5`, which no decoder reads (its own refuses it)."""
    p = Payload(tool="t", token_budget=count, tokens_used=0, symbols=[], edges=[])
    gathered, read = both(p)
    assert gathered == read
    assert gathered[0] is gcf.GcfError and gathered[1].startswith("out_of_range: token_budget"), gathered


def test_decoded_objects_are_what_their_constructors_make() -> None:
    # Symbols and edges are made without running `__init__`: the same
    # attributes, in the same order, a `Components` of their own each.
    p = bench.graph(40, 3)
    d = gcf.decode(gcf.encode(p))
    for s in d.symbols:
        made = Symbol(s.qualified_name, s.kind, s.score, s.provenance, s.distance)
        assert s == made
        assert list(vars(s)) == list(vars(made))
        assert list(vars(s.components)) == list(vars(made.components))
        assert type(s) is Symbol and type(s.components) is type(made.components)
    assert len({id(s.components) for s in d.symbols}) == len(d.symbols)
    for e in d.edges:
        made = Edge(e.source, e.target, e.edge_type, e.status)
        assert e == made and list(vars(e)) == list(vars(made))
    # The decode floor of bench/callgrind.py makes the same objects again.
    again = gcf._gcf._graph_objects_again(d, 2)
    assert again == d and again is not d and again.symbols[0] is not d.symbols[0]
    assert gcf._gcf._graph_objects_again(d, 0) is None
    # The decoded objects are ordinary instances: new attributes, pickling.
    d.symbols[0].extra = 1
    d.symbols[0].components.recency = 0.5
    assert d.symbols[1].components.recency == 0.0
    import pickle

    assert pickle.loads(pickle.dumps(d)) == d


FALLBACK = r"""
import sys
sys.path.insert(0, sys.argv[1])
import bench, gcf.types
Symbol = gcf.types.Symbol
calls = []
init = Symbol.__init__
def counted(self, *args, **kwargs):
    calls.append(1)
    init(self, *args, **kwargs)
Symbol.__init__ = counted
if sys.argv[2] == "post_init":
    # Defined after the class is made, so its __init__ never calls it; the
    # decoder cannot tell, and calls the class instead.
    Symbol.__post_init__ = lambda self: None
import gcf
p = bench.graph(30, 2)
text = gcf.encode(p)
calls.clear()
d = gcf.decode(text)
decoded_calls = len(calls)
assert gcf.encode(d) == text
assert d.symbols == [init_made for init_made in (gcf.Symbol(s.qualified_name, s.kind, s.score, s.provenance, s.distance) for s in d.symbols)]
print(len(d.symbols), decoded_calls)
"""


@pytest.mark.parametrize("mode,calls", [("plain", 0), ("post_init", 30)])
def test_symbols_of_a_changed_class_are_made_by_calling_it(mode: str, calls: int) -> None:
    # The types are looked up once per process: a fresh one, whose Symbol
    # counts its `__init__` calls (and has a `__post_init__` or not) before
    # the first decode. Made without `__init__` when the class is 2.8.0's.
    import subprocess

    bench_dir = __file__.rsplit("/tests/", 1)[0] + "/bench"
    r = subprocess.run([sys.executable, "-c", FALLBACK, bench_dir, mode], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["30", str(calls)]


def test_decoded_labels_are_kept_across_decodes_and_always_right() -> None:
    # Kinds, provenances, edge types and statuses are kept between decodes
    # (a small cache of their `str`s): the same object again, and the right
    # text whatever collides in it.
    text = gcf.encode(bench.graph(20, 5))
    a, b = gcf.decode(text), gcf.decode(text)
    assert a == b
    assert a.symbols[0].kind is b.symbols[0].kind
    assert a.symbols[0].provenance is b.symbols[0].provenance
    assert a.edges[0].edge_type is b.edges[0].edge_type
    # Many distinct labels, some longer than the cache keeps, some sharing
    # length, first and last byte, decoded in turn: every one comes back.
    kinds = [f"k{i:03d}x" for i in range(150)] + ["kind" + "y" * 40, "kq", "ka"]
    p = Payload(
        tool="t",
        symbols=[Symbol(f"p.S{i}", kinds[i % len(kinds)], 0.5, f"prov{i % 70}z", 0) for i in range(300)],
        edges=[Edge(f"p.S{i}", f"p.S{(i * 7) % 300}", f"t{i % 90}e", "added" if i % 3 else "") for i in range(300)],
    )
    for _ in range(3):
        d = gcf.decode(gcf.encode(p))
        assert [s.kind for s in d.symbols] == [kinds[i % len(kinds)] for i in range(300)]
        assert [s.provenance for s in d.symbols] == [f"prov{i % 70}z" for i in range(300)]
        assert sorted(e.edge_type for e in d.edges) == sorted(f"t{i % 90}e" for i in range(300))
        assert sorted(e.status for e in d.edges) == sorted("added" if i % 3 else "" for i in range(300))


@pytest.mark.parametrize(
    "gathered,error",
    [
        (([("a.A", "function", 0.5, "lsp", 0, "extra")], [], "t", 0, 0, None), ValueError),
        (([("a.A", "function", 0.5, "lsp")], [], "t", 0, 0, None), ValueError),
        (([], [("a.A", "a.A", "calls")], "t", 0, 0, None), ValueError),
        (([], [("a.A", "a.A", "calls", None, None)], "t", 0, 0, None), ValueError),
        (([["a.A", "function", 0.5, "lsp", 0]], [], "t", 0, 0, None), TypeError),
        (([], [], "t", 0, 0), ValueError),
        (((), [], "t", 0, 0, None), TypeError),
    ],
)
def test_the_gathered_reader_refuses_rows_of_another_shape(gathered: Any, error: type) -> None:
    # The extension reads a gathered row's items without a bounds check, on
    # the strength of the width check made when the rows are read: any other
    # shape must be refused there, not read past.
    with pytest.raises(error):
        gcf._gcf._encode_gathered(gathered, None)
