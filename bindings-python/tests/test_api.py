"""The public surface beyond the fixtures: 2.8.0's names and module paths,
errors with category and position, stream writers, sessions."""

from __future__ import annotations

import importlib
import io
import pickle
from typing import Any, List

import pytest

import gcf
from gcf import Edge, Payload, Symbol


def test_submodule_paths_of_2_8_0() -> None:
    names = {
        "gcf.types": ["Symbol", "Edge", "Payload", "DeltaPayload", "Components"],
        "gcf.encode": ["encode"],
        "gcf.decode": ["decode", "DecodeError"],
        "gcf.delta": ["encode_delta", "decode_delta", "verify_delta"],
        "gcf.session": ["Session", "encode_with_session"],
        "gcf.stream": ["StreamEncoder"],
        "gcf.stream_generic": ["GenericStreamEncoder"],
        "gcf.generic": ["encode_generic", "GenericOptions"],
        "gcf.decode_generic": ["decode_generic"],
        "gcf.constant_grouping": ["encode_generic_grouped"],
        "gcf.generic_delta": ["GenericSet", "GenericDeltaPayload", "GenericDeltaSession", "fixed_n", "size_guard"],
        "gcf.packroot": ["pack_root"],
        "gcf.constants": ["KIND_ABBREV", "KIND_EXPAND"],
    }
    for module, attrs in names.items():
        m = importlib.import_module(module)
        for a in attrs:
            assert hasattr(m, a), f"{module}.{a}"
    for a in gcf.__all__:
        assert hasattr(gcf, a), a
    assert gcf.KIND_EXPAND["fn"] == "function"
    assert gcf.GenericDeltaSession.FIXED_N is gcf.ReanchorMode.FIXED_N


def test_decode_error_has_category_and_position() -> None:
    with pytest.raises(gcf.DecodeError) as info:
        gcf.decode("GCF profile=graph\n## targets\n@0 fn pkg.A notascore lsp\n")
    e = info.value
    assert isinstance(e, ValueError)
    assert e.category == "invalid_score"
    assert str(e).startswith("invalid_score: ")
    assert (e.line, e.column) == (3, 13)
    again = pickle.loads(pickle.dumps(e))
    assert (type(again), again.category, again.line, str(again)) == (gcf.DecodeError, e.category, 3, str(e))


def test_decode_accepts_bytes_and_reports_bad_utf8() -> None:
    assert gcf.decode_generic(b"GCF profile=generic\na=1\n") == {"a": 1}
    with pytest.raises(gcf.DecodeError) as info:
        gcf.decode_generic(b"GCF profile=generic\na=\xff\n")
    assert (info.value.category, info.value.line, info.value.column) == ("invalid_utf8", 2, 3)
    with pytest.raises(gcf.DecodeError) as info:
        gcf.decode_generic("GCF profile=generic\na=\ud800\n")
    assert info.value.category == "invalid_surrogate"


@pytest.mark.parametrize(
    "value, category",
    [(2**63, "out_of_range"), (-(2**63) - 1, "out_of_range"), ({"a": [10**30]}, "out_of_range"),
     (float("nan"), "out_of_range"), (float("inf"), "out_of_range")],
)
def test_encode_refuses_values_outside_the_data_model(value: Any, category: str) -> None:
    with pytest.raises(gcf.GcfError) as info:
        gcf.encode_generic(value)
    assert info.value.category == category


def test_self_containing_value_is_a_limit_not_a_crash() -> None:
    a: List[Any] = []
    a.append(a)
    with pytest.raises(gcf.GcfError) as info:
        gcf.encode_generic(a)
    assert info.value.category == "limit_exceeded"


def test_python_objects_read_as_2_8_0_reads_them() -> None:
    assert gcf.encode_generic(2**63 - 1) == "GCF profile=generic\n=9223372036854775807\n"
    assert gcf.encode_generic(True) == "GCF profile=generic\n=true\n"
    # Anything else is str(obj), 2.8.0's scalar fallback.
    assert gcf.encode_generic({"t": (1, 2)}) == 'GCF profile=generic\nt="(1, 2)"\n'
    assert gcf.encode_generic({1: "a"}) == 'GCF profile=generic\n"1"=a\n'


def test_factoring_is_on_and_grouping_works() -> None:
    rows = [{"id": 1, "type": "file"}, {"id": 2, "type": "file"}]
    assert gcf.encode_generic(rows) == "GCF profile=generic\n## [2]{id,type=file}\n1\n2\n"
    issues = [{"id": 1, "state": "open"}, {"id": 2, "state": "closed"}, {"id": 3, "state": "open"}]
    text = gcf.encode_generic_grouped(issues, "id", "state")
    assert "group=state" in text.split("\n")[1]
    assert sorted(gcf.decode_generic(text), key=lambda r: r["id"]) == issues
    with pytest.raises(gcf.GcfError) as info:
        gcf.encode_generic_grouped(issues, "id", "id")
    assert info.value.category == "invalid_input"


def graph_stream_output(writer: Any) -> None:
    enc = gcf.StreamEncoder(writer, "t", token_budget=10)
    for i in range(3000):
        enc.write_symbol(Symbol(f"pkg.S{i}", "function", 0.5, "lsp", i % 2))
    enc.write_edge(Edge("pkg.S1", "pkg.S0", "calls"))
    enc.write_edge(Edge("pkg.Nope", "pkg.S0", "calls"))  # dropped, as 2.8.0
    assert (enc.symbol_count, enc.edge_count) == (3000, 1)
    enc.close()
    enc.close()


class CountingWriter:
    def __init__(self) -> None:
        self.parts: List[str] = []

    def write(self, s: str) -> int:
        self.parts.append(s)
        return len(s)


def test_stream_encoder_text_binary_and_batches() -> None:
    text, binary, counting = io.StringIO(), io.BytesIO(), CountingWriter()
    for w in (text, binary, counting):
        graph_stream_output(w)
    out = text.getvalue()
    assert binary.getvalue().decode() == out == "".join(counting.parts)
    assert out.startswith("GCF profile=graph tool=t budget=10\n## targets\n@0 fn pkg.S0 0.50 lsp\n")
    assert out.endswith("##! summary counts=1500,1500,1\n") or "##! summary" in out.splitlines()[-1]
    # Batched: far fewer write calls than lines.
    assert len(counting.parts) < out.count("\n") // 10



def test_stream_encoder_bare_refs() -> None:
    out = io.StringIO()
    enc = gcf.StreamEncoder(out, "t", session=True)
    enc.write_bare_ref("a.A", 0)
    enc.write_symbol(Symbol("a.B", "function", 0.5, "lsp", 1))
    enc.write_bare_ref("a.C", 4)
    enc.write_edge(Edge("a.C", "a.A", "calls"))
    assert (enc.symbol_count, enc.edge_count) == (3, 1)
    enc.close()
    assert out.getvalue() == (
        "GCF profile=graph tool=t session=true\n## targets\n@0  # previously transmitted\n"
        "## related\n@1 fn a.B 0.50 lsp\n## distance_4\n@2  # previously transmitted\n"
        "## edges [?]\n@0<@2 calls\n##! summary symbols=3 edges=1 counts=1,1,1,1\n"
    )
    enc = gcf.StreamEncoder(io.StringIO(), "t")
    enc.write_symbol(Symbol("a", "function", 0.5, "x", 0))
    enc.write_edge(Edge("a", "a", "calls"))
    with pytest.raises(gcf.GcfError) as info:
        enc.write_bare_ref("b", 0)
    assert info.value.category == "invalid_state"


def test_stream_writer_exception_propagates_and_poisons() -> None:
    class Refusing:
        def write(self, s: str) -> None:
            raise OSError("disk full")

    # The header is written at once (as 2.8.0 writes it), so the writer's
    # error comes from the constructor.
    with pytest.raises(OSError, match="disk full"):
        gcf.StreamEncoder(Refusing(), "t")

    class RefusingLater:
        calls = 0

        def write(self, s: str) -> None:
            self.calls += 1
            if self.calls > 1:
                raise OSError("disk full")

    enc = gcf.StreamEncoder(RefusingLater(), "t")
    enc.write_symbol(Symbol("a", "function", 0.5, "x", 0))
    with pytest.raises(OSError, match="disk full"):
        enc.close()


def test_generic_stream_encoder() -> None:
    out = io.StringIO()
    with gcf.GenericStreamEncoder(out) as enc:
        enc.write_kv("total", 2)
        enc.begin_array("rows", ["id", "name"])
        enc.write_row([1, "a b"])
        enc.write_row([2, None])
        enc.end_array()
        assert enc.row_count == 2
    assert gcf.decode_generic(out.getvalue()) == {"total": 2, "rows": [{"id": 1, "name": "a b"}, {"id": 2, "name": None}]}


def test_generic_stream_encoder_quotes_names() -> None:
    # Names that are not bare keys are quoted (spec §2a), so they read back;
    # gcf-python 2.8.0 writes them raw (`a=b="@"`, `##  s`), which its own
    # decoder misreads (README, "Where the spec and the references differ").
    out = io.StringIO()
    with gcf.GenericStreamEncoder(out) as enc:
        enc.write_kv("a=b", "@")
        enc.write_kv("😀", 1)
        enc.write_inline_array("x y", [1, "a,b"])
        enc.write_section(" s")
        enc.begin_array("#t", ["a b", "id"])
        enc.write_row([1, 2])
        enc.end_array()
    text = out.getvalue()
    assert text.startswith('GCF profile=generic\n"a=b"="@"\n"😀"=1\n"x y"[2]: 1,"a,b"\n## " s"\n## "#t" [?]{"a b",id}\n'), text
    assert gcf.decode_generic(text) == {"a=b": "@", "😀": 1, "x y": [1, "a,b"], " s": {}, "#t": [{"a b": 1, "id": 2}]}
    # A field holding `>` would read as a path column: refused (§8.3), by
    # close() as 2.8.0 reports it.
    enc = gcf.GenericStreamEncoder(io.StringIO())
    enc.begin_array("t", ["a>b"])
    with pytest.raises(ValueError, match="invalid_input: field `a>b` contains `>`"):
        enc.close()


def test_session_by_name_api() -> None:
    sess = gcf.Session()
    p = Payload(tool="t", symbols=[Symbol("pkg.A", "function", 0.9, "lsp"), Symbol("pkg.B", "type", 0.5, "lsp", 1)])
    first = gcf.encode_with_session(p, sess)
    assert "@0 fn pkg.A" in first
    assert sess.transmitted("pkg.B") and sess.get_id("pkg.B") == 1 and sess.size() == 2
    assert "@0  # previously transmitted" in gcf.encode_with_session(p, sess)
    sess.record([Symbol("pkg.C", "function", 0.1, "x")])
    assert sess.get_id("pkg.C") == 2
    sess.reset()
    assert sess.size() == 0 and sess.get_id("pkg.A") == -1
    assert gcf.encode_with_session(p) == gcf.encode(p)


def test_graph_delta_round_trip_and_verify() -> None:
    base = [Symbol("pkg.A", "function", 0.9, "lsp"), Symbol("pkg.B", "function", 0.5, "lsp", 1)]
    edges = [Edge("pkg.B", "pkg.A", "calls")]
    new_syms = [base[0], Symbol("pkg.C", "type", 0.7, "lsp", 1)]
    new_root = gcf.pack_root(new_syms, [])
    d = gcf.DeltaPayload(
        tool="t", base_root=gcf.pack_root(base, edges), new_root=new_root,
        removed=[base[1]], added=[new_syms[1]], removed_edges=edges,
    )
    back = gcf.decode_delta(gcf.encode_delta(d))
    syms, es = gcf.verify_delta(base, edges, back.removed, back.added, back.removed_edges, back.added_edges, new_root)
    assert [s.qualified_name for s in syms] == ["pkg.A", "pkg.C"] and es == []
    with pytest.raises(gcf.GcfError) as info:
        gcf.verify_delta(base, edges, back.removed, back.added, [], [], new_root)
    assert info.value.category == "root_mismatch"


def test_verify_delta_returns_the_callers_own_objects() -> None:
    # As 2.8.0: the applied snapshot holds the objects given (signature,
    # components and subclass kept), not new ones made from the snapshot.
    class Mine(Symbol):
        pass

    a = Mine("pkg.A", "function", 0.9, "lsp", 0, "def a(x)", gcf.Components(1, 2, 3, 4))
    b = Symbol("pkg.B", "function", 0.5, "lsp", 1, "def b()")
    edge = Edge("pkg.B", "pkg.A", "calls", "new")
    c = Symbol("pkg.C", "type", 0.7, "lsp", 1, "class C")
    root = gcf.pack_root([a, c], [])
    syms, es = gcf.verify_delta(iter([a, b]), (edge,), [b], [c], [edge], [], root)
    assert sorted(syms, key=lambda s: s.qualified_name) == [a, c]
    assert all(x is y for x, y in zip(sorted(syms, key=lambda s: s.qualified_name), [a, c])) and es == []
    edge2 = Edge("pkg.C", "pkg.A", "uses", "added")
    syms, es = gcf.verify_delta([a], [], [], [c], [], [edge2], gcf.pack_root([a, c], [edge2]))
    assert es[0] is edge2 and {id(s) for s in syms} == {id(a), id(c)}


def test_generic_delta_session_and_full_payloads() -> None:
    base = gcf.GenericSet(key="id", fields=["id", "v"], rows=[{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], name="t")
    nxt = gcf.GenericSet(key="id", fields=["id", "v"], rows=[{"id": 1, "v": "a"}, {"id": 3, "v": "c"}], name="t")
    full = gcf.encode_generic_full(base, "tool")
    s, root = gcf.decode_generic_full(full)
    assert root == gcf.generic_pack_root(base) and s.rows == base.rows and s.key == "id"
    d = gcf.diff_generic_sets(base, nxt)
    assert (d.added, d.removed) == ([{"id": 3, "v": "c"}], [2])
    applied = gcf.verify_generic_delta(base, gcf.decode_generic_delta(gcf.encode_generic_delta(d)), d.new_root)
    assert gcf.generic_pack_root(applied) == gcf.generic_pack_root(nxt)
    sess = gcf.GenericDeltaSession(base, "tool", gcf.fixed_n(2))
    assert sess.current_full() == full
    assert sess.next(nxt)[1] is False
    assert sess.next(base)[1] is True
    assert sess.turn == 2


def test_a_full_payload_that_repeats_an_identity_is_refused() -> None:
    # Spec §10a.1: a decoder rejects duplicate identity values (2.8.0's
    # decode_generic_full returns both rows; README, "Where the spec and the
    # references differ"). 1 and 1.0 are one identity.
    one = gcf.GenericSet(key="id", fields=["id", "v"], rows=[{"id": 1, "v": "a"}])
    full = gcf.encode_generic_full(one, "t").replace("[1]", "[2]")
    for extra in ["1|b\n", "1.0|b\n"]:
        with pytest.raises(gcf.DecodeError) as info:
            gcf.decode_generic_full(full + extra)
        assert (info.value.category, info.value.line, info.value.column) == ("duplicate_key", 4, 1)
        assert "spec §10a.1" in str(info.value)
    s, _ = gcf.decode_generic_full(full + '"1"|b\n')
    assert [r["id"] for r in s.rows] == [1, "1"]


def test_generic_stream_keyed_map_and_rows_outside_a_table() -> None:
    out = io.BytesIO()
    enc = gcf.GenericStreamEncoder(out)
    enc.write_row([1, 2])  # no table open: ignored, as in 2.8.0
    enc.begin_keyed_map("users", "key", ["name", "age"])
    enc.write_row(["u1", "Ann", 30])
    enc.write_row(["u2", "Bo", None])
    enc.begin_array("events", ["id"])
    enc.write_row([7])
    enc.close()
    assert enc.row_count == 3
    assert gcf.decode_generic(out.getvalue()) == {
        "users": {"u1": {"name": "Ann", "age": 30}, "u2": {"name": "Bo", "age": None}},
        "events": [{"id": 7}],
    }


def test_stream_encoder_pack_root_and_session_header() -> None:
    for w in (io.StringIO(), io.BytesIO(), CountingWriter()):
        enc = gcf.StreamEncoder(w, "t", token_budget=5, pack_root="sha256:ab", session=True)
        for i in range(3000):  # past one batch: the header is spliced into the first only
            enc.write_symbol(Symbol(f"pkg.S{i}", "function", 0.5, "lsp", 0))
        enc.close()
        out = w.getvalue() if not isinstance(w, CountingWriter) else "".join(w.parts)
        if isinstance(out, bytes):
            out = out.decode()
        assert out.startswith("GCF profile=graph tool=t budget=5 pack_root=sha256:ab session=true\n## targets\n")
        assert out.count("pack_root=") == 1
        back = gcf.decode(out)
        assert back.pack_root == "sha256:ab" and len(back.symbols) == 3000
    # One header token or nothing: a space would end the field.
    with pytest.raises(gcf.GcfError, match="invalid_input"):
        gcf.StreamEncoder(io.StringIO(), "t", pack_root="a b")


def test_no_flatten_writes_attachments_and_keeps_constants() -> None:
    rows = [{"id": i, "kind": "file", "c": {"a": i, "b": "x"}} for i in range(3)]
    flat = gcf.encode_generic(rows)
    assert '"c>a"' in flat
    plain = gcf.encode_generic(rows, gcf.GenericOptions(no_flatten=True))
    assert ">" not in plain and ".c" in plain and "kind=file" in plain
    assert gcf.decode_generic(plain) == rows


def test_fields_made_on_the_fly_are_read_one_by_one() -> None:
    # Strings cached by object identity must not be confused when a
    # property builds a fresh str per read (freed right after, so CPython
    # may hand its address to the next one).
    class Lazy:
        def __init__(self, i: int) -> None:
            self.i = i

        @property
        def qualified_name(self) -> str:
            return "pkg.S" + str(self.i)

        @property
        def kind(self) -> str:
            return ["function", "method", "type"][self.i % 3] + ""

        score = 0.5
        provenance = "lsp"
        distance = 0

    lazy = gcf.Payload(tool="t", symbols=[Lazy(i) for i in range(300)])  # type: ignore[misc]
    plain = gcf.Payload(
        tool="t",
        symbols=[Symbol("pkg.S" + str(i), ["function", "method", "type"][i % 3], 0.5, "lsp", 0) for i in range(300)],
    )
    assert gcf.encode(lazy) == gcf.encode(plain)


def test_encode_reads_str_subclasses_other_values_and_any_iterable() -> None:
    # The reader converts each distinct str object once into one arena:
    # str subclasses, values that are not str (their str()), None (empty)
    # and one str object in many fields must all read as plain strings,
    # and symbols/edges may be any iterable.
    class Name(str):
        pass

    shared = "pkg." + "A"
    odd = [Symbol(Name("pkg.A"), 7, 0.5, Name("lsp"), 1), Symbol("pkg.B", "type", 0.25, shared, 2)]  # type: ignore[arg-type]
    plain = [Symbol("pkg.A", "7", 0.5, "lsp", 1), Symbol("pkg.B", "type", 0.25, "pkg.A", 2)]
    odd_edges = [Edge(shared, Name("pkg.B"), "calls", None), Edge("pkg.B", shared, 3)]  # type: ignore[arg-type]
    plain_edges = [Edge("pkg.A", "pkg.B", "calls"), Edge("pkg.B", "pkg.A", "3")]
    want = gcf.encode(Payload(tool="t", symbols=plain, edges=plain_edges))
    assert gcf.encode(Payload(tool=Name("t"), symbols=odd, edges=odd_edges)) == want
    assert gcf.encode(Payload(tool="t", symbols=iter(odd), edges=tuple(odd_edges))) == want  # type: ignore[arg-type]
    assert "pkg.A" in want and "@0" in want


def test_encode_reads_each_field_once() -> None:
    # A field that is not a str is converted from the value already read:
    # a property runs once per encode, as in a plain attribute read.
    calls: List[str] = []

    class Counted:
        qualified_name = "pkg.A"
        score = 0.5
        provenance = "lsp"
        distance = 0

        @property
        def kind(self) -> int:
            calls.append("kind")
            return 7

    out = gcf.encode(gcf.Payload(tool="t", symbols=[Counted()]))  # type: ignore[list-item]
    assert calls == ["kind"]
    assert out == gcf.encode(gcf.Payload(tool="t", symbols=[Symbol("pkg.A", "7", 0.5, "lsp", 0)]))


def test_encode_reads_attributes_as_python_does() -> None:
    # Fields are read by getattr: slots, and a property of a subclass that
    # shadows a value its dataclass __init__ stored, read as Python reads
    # them (not from the instance dict); reading changes no object.
    class Slotted:
        __slots__ = ("qualified_name", "kind", "score", "provenance", "distance")

        def __init__(self) -> None:
            self.qualified_name, self.kind, self.score, self.provenance, self.distance = "pkg.A", "type", 0.5, "lsp", 1

    class Shadowed(Symbol):
        @property  # type: ignore[override]
        def kind(self) -> str:
            return "method"

        @kind.setter
        def kind(self, value: str) -> None:
            self.__dict__["kind"] = value

    plain = gcf.encode(Payload(tool="t", symbols=[Symbol("pkg.A", "type", 0.5, "lsp", 1),
                                                  Symbol("pkg.B", "method", 0.25, "lsp", 2)]))
    odd = Payload(tool="t", symbols=[Slotted(), Shadowed("pkg.B", "function", 0.25, "lsp", 2)])  # type: ignore[list-item]
    assert gcf.encode(odd) == plain
    fresh = Symbol("pkg.C", "type", 0.5, "lsp", 0)
    gcf.encode(Payload(tool="t", symbols=[fresh]))
    assert fresh.__dict__ == {"qualified_name": "pkg.C", "kind": "type", "score": 0.5, "provenance": "lsp",
                              "distance": 0, "signature": "", "components": gcf.types.Components()}


def test_decoded_keys_and_names_are_shared_objects() -> None:
    rows = [{"id": i, "name": f"n{i}"} for i in range(3)]
    back = gcf.decode_generic(gcf.encode_generic(rows))
    assert back == rows
    assert [next(iter(r)) for r in back][0] is [next(iter(r)) for r in back][2]
    p = gcf.decode("GCF profile=graph symbols=2 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n@1 fn pkg.B 0.40 lsp\n"
                   "## edges [1]\n@0<@1 calls\n")
    assert p.edges[0].source is p.symbols[1].qualified_name


def test_decoded_instances_are_independent_dataclasses() -> None:
    # Decode builds edges and payloads without `__init__` (`object.__new__`
    # with a cached `(cls,)`) and symbols by calling the class: each object
    # must still be its own, of the exact class, equal to a constructed one.
    p = Payload(tool="t", symbols=[Symbol("a", "function", 0.5, "x", 1), Symbol("b", "type", 0.25, "x", 2)],
                edges=[Edge("a", "b", "calls")])
    out = gcf.decode(gcf.encode(p))
    a, b = out.symbols
    assert type(out) is Payload and type(a) is Symbol and type(out.edges[0]) is Edge
    assert a.components is not b.components
    a.components.recency = 1.0
    a.distance = 9
    assert b.components == gcf.types.Components() and b.distance == 2
    assert out.symbols[1] == Symbol("b", "type", 0.25, "x", 2)
    assert out.edges == [Edge("a", "b", "calls")]


# Forms only a decoder meets (constants in keyed maps and inline schemas,
# groups nested in a section), which decode_generic builds straight into
# Python objects, from str and from bytes alike.
DECODER_FORMS = [
    (
        "GCF profile=generic\n## m [2:]{key,a,b=on}\nx|1\ny|2\n",
        {"m": {"x": {"a": 1, "b": "on"}, "y": {"a": 2, "b": "on"}}},
    ),
    (
        "GCF profile=generic\n## [2]{id,u}\n1|^{name,kind=user,age}\n  Ann|30\n2|^\n  Bob|41\n",
        [
            {"id": 1, "u": {"name": "Ann", "kind": "user", "age": 30}},
            {"id": 2, "u": {"name": "Bob", "kind": "user", "age": 41}},
        ],
    ),
    (
        "GCF profile=generic\n## s\n  ## t [3]{@k,g,r=core,v} group=g\n"
        "  g=x [2]\n  1|a\n  2|~\n  g=- [1]\n  3|[]\n",
        {
            "s": {
                "t": [
                    {"k": 1, "g": "x", "r": "core", "v": "a"},
                    {"k": 2, "g": "x", "r": "core"},
                    {"k": 3, "g": None, "r": "core", "v": "[]"},
                ]
            }
        },
    ),
    ("GCF profile=generic\ntags[3]: a,-,2.5\n", {"tags": ["a", None, 2.5]}),
    ("GCF profile=generic\n=-7\n", -7),
    ("GCF profile=generic\n", {}),
]


@pytest.mark.parametrize("text,expected", DECODER_FORMS)
def test_decode_generic_builds_decoder_forms(text: str, expected: Any) -> None:
    assert gcf.decode_generic(text) == expected
    assert gcf.decode_generic(text.encode()) == expected


def test_decode_generic_errors_keep_their_position() -> None:
    # The direct build stops at the first error, placed as the core places it.
    text = "GCF profile=generic\n## [2]{id,u}\n1|^{name,kind=user,age}\n  Ann|30\n2|x|y\n"
    for given in (text, text.encode()):
        with pytest.raises(gcf.DecodeError) as info:
            gcf.decode_generic(given)
        assert (info.value.category, info.value.line) == ("row_width_mismatch", 5)


def test_stream_headers_reach_the_writer_at_once() -> None:
    # 2.8.0 writes a stream's header, and a table's, when they begin.
    buf = io.StringIO()
    enc = gcf.StreamEncoder(buf, "t")
    assert buf.getvalue().startswith("GCF profile=graph tool=t")
    g = io.StringIO()
    genc = gcf.GenericStreamEncoder(g)
    assert g.getvalue() == "GCF profile=generic\n"
    genc.begin_array("rows", ["id", "v"])
    assert g.getvalue().endswith("## rows [?]{id,v}\n")
    enc.close()
    genc.close()


def test_stream_path_field_name_is_reported_at_close() -> None:
    # As 2.8.0: `>` in a streamed field name is raised by close(), the
    # table is not opened and its rows are dropped.
    buf = io.StringIO()
    enc = gcf.GenericStreamEncoder(buf)
    enc.begin_array("rows", ["id", "a>b"])
    enc.write_row([1, 2])
    enc.begin_array("more", ["x"])
    with pytest.raises(gcf.GcfError, match=">"):
        enc.close()
    with pytest.raises(gcf.GcfError):
        enc.close()
    assert buf.getvalue() == "GCF profile=generic\n"
    # Any other refused declaration still raises where it happens.
    with pytest.raises(gcf.GcfError):
        gcf.GenericStreamEncoder(io.StringIO()).begin_array("rows", ["id", "id"])


def test_a_closed_stream_refuses_lines_and_closes_once() -> None:
    # Stricter than 2.8.0, which writes such lines after its trailer and the
    # trailer twice (see the README): a GcfError with its category.
    sym = Symbol(qualified_name="a", kind="fn", score=0.5, provenance="p", distance=0)
    buf = io.StringIO()
    enc = gcf.StreamEncoder(buf, "t")
    enc.close()
    text = buf.getvalue()
    for call in (lambda: enc.write_symbol(sym), lambda: enc.write_edge(Edge(source="a", target="a", edge_type="calls")), lambda: enc.write_bare_ref("a", 0), enc.flush):
        with pytest.raises(gcf.GcfError, match="^invalid_state: the stream is closed$") as e:
            call()
        assert e.value.category == "invalid_state"
    enc.close()
    assert buf.getvalue() == text
    g = io.StringIO()
    genc = gcf.GenericStreamEncoder(g)
    genc.begin_array("rows", ["a"])
    genc.write_row([1])
    genc.close()
    text = g.getvalue()
    assert text.endswith("1\n##! summary counts=1\n")
    for call in (lambda: genc.write_kv("k", 1), lambda: genc.write_section("s"), lambda: genc.write_inline_array("a", [1]), lambda: genc.begin_array("t", ["x"]), lambda: genc.begin_keyed_map("m", "k", ["v"])):
        with pytest.raises(gcf.GcfError) as e:
            call()
        assert e.value.category == "invalid_state"
    genc.write_row([2])  # dropped, as any row outside a table
    genc.close()
    assert g.getvalue() == text


def test_graph_delta_header_always_has_tokens_and_savings() -> None:
    d = gcf.DeltaPayload(tool="t", base_root="x", new_root="y", delta_tokens=10, full_tokens=0)
    assert gcf.encode_delta(d) == "GCF profile=graph tool=t delta=true base_root=x new_root=y tokens=10 savings=0%\n"


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("INVALID header\n", "invalid header"),
        ("GCF profile=graph symbols=1\n## targets\n@abc fn a.A 0.90 x\n", "invalid symbol id"),
        ("GCF profile=graph symbols=1\n## targets\n@0 fn a.A notanumber x\n", "invalid score"),
        ("GCF profile=graph symbols=1\n## targets\n@0 fn a.A\n", "at least 5 fields"),
        ("GCF profile=graph symbols=2\n## targets\n@0 fn a.A 0.90 x\n@1 fn b.B 0.80 x\n## edges [1]\n@0@1 calls\n",
         "missing '<' separator"),
        ("GCF profile=graph symbols=1\n## targets\n@0 fn a.A 0.90 x\n## edges [1]\n@0<@99 calls\n", "unknown symbol id"),
    ],
)
def test_decode_messages_use_the_reference_wording(text: str, phrase: str) -> None:
    # The phrases gcf-python 2.8.0 (and the npm package) put in these messages.
    with pytest.raises(gcf.DecodeError, match=phrase):
        gcf.decode(text)


def test_generic_delta_messages_and_private_canonical_cell() -> None:
    from gcf.generic_delta import GenericSet, _canonical_cell

    dup = GenericSet(key="id", name="o", fields=["id", "v"], rows=[{"id": 1, "v": 1}, {"id": 1, "v": 2}])
    with pytest.raises(gcf.GcfError, match="delta_invalid: duplicate identity"):
        gcf.diff_generic_sets(dup, dup)
    other = GenericSet(key="id", name="o", fields=["id"], rows=[{"id": 1}])
    with pytest.raises(gcf.GcfError, match="delta_invalid: schema change"):
        gcf.diff_generic_sets(dup, other)
    assert [_canonical_cell(v) for v in (None, True, "true", 59.98, "a\tb", 3)] == [
        "-", "true", '"true"', "59.98", '"a\\tb"', "3"]
    assert _canonical_cell([1, 2]) == '"[1, 2]"'


@pytest.mark.parametrize("key", ["id", "it's"])
def test_repeated_identity_names_the_key_as_a_repr(key: str) -> None:
    # 2.8.0's words, from diff_generic_sets and from a session's next alike:
    # the key as Python's repr writes it (double quotes around a quote).
    from gcf.generic_delta import GenericDeltaSession, GenericSet, fixed_n

    base = GenericSet(key=key, name="o", fields=[key, "v"], rows=[{key: 1, "v": 1}])
    dup = GenericSet(key=key, name="o", fields=[key, "v"], rows=[{key: 1, "v": 1}, {key: 1, "v": 2}])
    want = f"delta_invalid: duplicate identity 1 for key {key!r}"
    for call in (lambda: gcf.diff_generic_sets(base, dup), lambda: GenericDeltaSession(base, "t", fixed_n(5)).next(dup)):
        with pytest.raises(gcf.GcfError) as raised:
            call()
        assert str(raised.value) == want


def test_stream_header_counts_read_as_encode_reads_them() -> None:
    """A negative count is no count (left out, as `gcf.encode` leaves it out);
    an integral float is its integer; a fractional one is out_of_range."""
    def header(**counts: Any) -> str:
        out = io.StringIO()
        gcf.StreamEncoder(out, "t", **counts).close()
        return out.getvalue().split("\n")[0]

    assert header(token_budget=-1, tokens_used=-3) == header() == "GCF profile=graph tool=t"
    assert header(token_budget=float("nan")) == "GCF profile=graph tool=t"
    assert header(token_budget=2.0, tokens_used=5) == "GCF profile=graph tool=t budget=2 tokens=5"
    with pytest.raises(gcf.GcfError) as e:
        gcf.StreamEncoder(io.StringIO(), "t", token_budget=1.5)
    assert str(e.value).startswith("out_of_range: token_budget")


def test_scalar_helpers_and_the_names_2_8_0_modules_share() -> None:
    from gcf import scalar
    from gcf.decode import KIND_EXPAND, Edge, Symbol
    from gcf.decode_generic import ATTACHMENT, MISSING, parse_scalar
    from gcf.delta import pack_root
    from gcf.encode import KIND_ABBREV
    from gcf.generic import format_key, format_scalar
    from gcf.packroot import format_number

    assert (Symbol, Edge) == (gcf.Symbol, gcf.Edge) and pack_root is gcf.pack_root
    assert KIND_ABBREV["function"] == "fn" and KIND_EXPAND["fn"] == "function"
    assert (MISSING, ATTACHMENT) == (scalar.MISSING, scalar.ATTACHMENT) and parse_scalar is scalar.parse_scalar
    assert format_key("a b") == '"a b"' and format_key("ab") == "ab"
    assert [format_scalar(v) for v in (None, True, 3, 2.50, "12", "x", [1, 2])] == \
        ["-", "true", "3", "2.5", '"12"', "x", '"[1, 2]"']
    assert format_scalar("a=b", "=") == '"a=b"' and format_scalar("a=b") == "a=b"
    assert format_number(1e-7) == "1e-7" and format_number(-0.0) == "0" and format_number(2.0**53) == "9.007199254740992e+15"
    assert scalar.parse_scalar(" 12 ") == 12 and scalar.parse_scalar("-") is None
    assert scalar.parse_scalar("~", True) is MISSING and scalar.parse_scalar("^{a,b,c}", True) is ATTACHMENT
    assert scalar.parse_quoted_string('"a\\u00e9"') == "a\u00e9"
    with pytest.raises(gcf.GcfError) as nan:
        format_number(float("nan"))
    assert nan.value.category == "out_of_range"
    with pytest.raises(gcf.GcfError) as big:
        format_scalar(2**63)
    assert big.value.category == "out_of_range"
    for token, category in [("~", "invalid_missing"), ("^", "invalid_attachment_marker"), ('"ab', "unterminated_quote"),
                            ('"a"b', "trailing_characters"), ("99999999999999999999", "out_of_range")]:
        with pytest.raises(gcf.DecodeError) as bad:
            scalar.parse_scalar(token)
        assert (bad.value.category, bad.value.line) == (category, 1), token
    with pytest.raises(gcf.DecodeError) as unquoted:
        scalar.parse_quoted_string("ab")
    assert unquoted.value.category == "unterminated_quote"


def test_the_cli_reports_unreadable_input_in_one_line(tmp_path: Any) -> None:
    import json
    import subprocess
    import sys

    missing = tmp_path / "missing.json"
    r = subprocess.run([sys.executable, "-m", "gcf", "encode", str(missing)], capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == f"error[io]: opening {missing}: No such file or directory\n", r.stderr
    latin1 = tmp_path / "latin1.gcf"
    latin1.write_bytes(b"GCF profile=generic\na=\xe9\n")
    r = subprocess.run([sys.executable, "-m", "gcf", "decode-generic", str(latin1)], capture_output=True, text=True)
    want = "error[invalid_utf8]: malformed UTF-8 (byte 0xE9) (line 2, column 3)\n"
    assert (r.returncode, r.stderr) == (1, want), r.stderr
    r = subprocess.run([sys.executable, "-m", "gcf", "encode-generic"], input=b'{"a":"\xe9"}', capture_output=True)
    assert (r.returncode, r.stderr) == (1, b"error[invalid_utf8]: the input is not UTF-8 (byte 6)\n"), r.stderr
    r = subprocess.run([sys.executable, "-m", "gcf", "decode"], input=b"GCF profile=generic\n", capture_output=True)
    assert r.stderr.startswith(b"error[invalid_input]: this is a generic-profile payload"), r.stderr
    ok = tmp_path / "ok.gcf"
    ok.write_text("GCF profile=generic\na=1\n")
    r = subprocess.run([sys.executable, "-m", "gcf", "decode-generic", str(ok)], capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout) == {"a": 1}, (r.stdout, r.stderr)
    # A payload with a missing member or a field of the wrong type: 2.8.0's
    # one line, never a traceback.
    for payload, line in [
        ('{"symbols":[{"kind":"function","score":0.5,"provenance":"p"}]}', "error: invalid JSON: 'qualifiedName'\n"),
        ('{"symbols":[{"qualifiedName":"a","kind":"function","score":"x","provenance":"p"}]}', None),
    ]:
        r = subprocess.run([sys.executable, "-m", "gcf", "encode"], input=payload, capture_output=True, text=True)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("error: invalid JSON: "), r.stderr
        assert line is None or r.stderr == line, r.stderr


def test_session_record_reads_names_only() -> None:
    # As 2.8.0's record: by name, nothing else read or checked (a symbol
    # without a kind takes its id), and later ids follow, never collide.
    sess = gcf.Session()
    sess.record([Symbol("pkg.A")])
    sess.record([Symbol("pkg.A", "function")])
    assert (sess.get_id("pkg.A"), sess.size()) == (0, 1)
    assert sess.get_id(5) == -1 and sess.transmitted(None) is False
    text = gcf.encode_with_session(Payload(symbols=[Symbol("n", "function", 0.5, "p")]), sess)
    assert "\n@1 fn n 0.50 p\n" in text and sess.get_id("n") == 1


def test_a_name_twice_in_a_session_payload_is_declared_twice() -> None:
    # 2.8.0 writes both lines under one id (text no strict decoder reads);
    # here each occurrence is declared under its own id, as `encode` does,
    # and nothing is lost.
    twice = Payload(symbols=[Symbol("a", "function", 0.5, "p"), Symbol("a", "function", 0.6, "p")])
    sess = gcf.Session()
    text = gcf.encode_with_session(twice, sess)
    assert text.endswith("symbols=2 session=true\n## targets\n@1 fn a 0.60 p\n@0 fn a 0.50 p\n"), text
    assert [s.score for s in gcf.decode(text).symbols] == [0.6, 0.5]
    assert sess.get_id("a") == 0 and sess.size() == 1


def test_keyed_set_rows_are_their_declared_fields() -> None:
    # As 2.8.0 (and every reference SDK): a member outside `fields` is not
    # part of the set, so rows taken from wider records are not refused.
    wide = gcf.GenericSet("id", ["id", "name"], [{"id": 1, "name": "x", "extra": 5, "n": {"a": [1]}}])
    narrow = gcf.GenericSet("id", ["id", "name"], [{"id": 1, "name": "x"}])
    root = "sha256:c5dbd46d54738d73a1b755c9ddfbc6cea13ceb2d2366d5e690aa3a0397a205fc"  # 2.8.0's
    assert gcf.generic_pack_root(wide) == gcf.generic_pack_root(narrow) == root
    assert gcf.encode_generic_full(wide, "t") == gcf.encode_generic_full(narrow, "t")
    changed = gcf.GenericSet("id", ["id", "name"], [{"id": 1, "name": "y", "extra": 6}])
    d = gcf.diff_generic_sets(wide, changed)
    assert "1|y" in gcf.encode_generic_delta(d)
    session = gcf.GenericDeltaSession(wide, "t", gcf.size_guard())
    assert session.current_full() == gcf.encode_generic_full(narrow, "t")
    session.next(changed)


def test_a_lone_surrogate_in_text_is_refused_at_its_line_and_column() -> None:
    # Every decoder, as for the same surrogate in UTF-8 bytes (the delta
    # decoders raised a bare UnicodeEncodeError, the others had no place).
    text = "GCF profile=generic\nx=a\ud800\n"
    for decode in (gcf.decode, gcf.decode_generic, gcf.decode_delta, gcf.decode_generic_delta):
        with pytest.raises(gcf.GcfError) as e:
            decode(text)
        assert (e.value.category, e.value.line, e.value.column) == ("invalid_surrogate", 2, 4), decode


def test_a_dict_changed_while_it_is_read_is_a_runtime_error() -> None:
    d = {"a": 1}

    class Grows:
        def __str__(self) -> str:
            d["z"] = 1
            return "e"

    d["b"] = Grows()
    with pytest.raises(RuntimeError, match="changed size"):
        gcf.encode_generic(d)


def test_falsy_pack_root_and_status_are_left_out_as_2_8_0_leaves_them() -> None:
    base = Payload(tool="t", symbols=[Symbol("a", "function", 0.5, "p"), Symbol("b", "function", 0.4, "p")])
    plain = gcf.encode(Payload(tool="t", symbols=base.symbols, edges=[Edge("a", "b", "calls")]))
    for falsy in (None, 0, False, ""):
        p = Payload(tool="t", symbols=base.symbols, edges=[Edge("a", "b", "calls", falsy)], pack_root=falsy)  # type: ignore[arg-type]
        assert gcf.encode(p) == plain, falsy
    truthy = gcf.encode(Payload(tool="t", symbols=base.symbols, edges=[Edge("a", "b", "calls", 1)], pack_root="sha256:ab"))  # type: ignore[arg-type]
    assert "pack_root=sha256:ab" in truthy and " calls 1\n" in truthy, truthy
