"""The two ways the extension reads a ``str``'s UTF-8 text give the same
results: lent in place by the interpreter (``PyUnicode_AsUTF8AndSize``,
stable ABI from Python 3.10, taken there) and read through a temporary
``bytes`` object (the only way under Python 3.9's stable ABI).
``gcf._gcf._lend_utf8(on)`` switches the route and returns the previous
one; the conformance fixtures run under both too."""

from __future__ import annotations

import io
import sys
from typing import Any, Callable, Iterator, List

import pytest

import gcf
from conftest import under_both
from gcf import Edge, Payload, Symbol

STRINGS = [
    "",
    "plain",
    "pkg/mod.Func",
    "a|b,c \"quoted\"",
    "café",
    "naïve señor",
    "日本語の名前",
    "emoji 🙂 and 𝔘",
    "x" * 300,
    "ü" * 200,
    "-",
    "~",
    "12",
    "true",
]


class Name(str):
    """A str subclass: read through the same calls as a str."""


@pytest.fixture
def routes() -> Iterator[Callable[[Callable[[], Any]], List[Any]]]:
    """Runs a call under each route and returns both results (or the
    exception types they raised)."""
    original = gcf._gcf._lend_utf8(True)
    try:
        yield lambda call: under_both(gcf._gcf._lend_utf8, call)
    finally:
        gcf._gcf._lend_utf8(original)


def test_the_lent_route_is_on_where_the_stable_abi_has_it() -> None:
    was = gcf._gcf._lend_utf8(True)
    try:
        expected = sys.version_info >= (3, 10) and sys.platform != "win32"
        assert gcf._gcf._lend_utf8(True) is expected
        assert gcf._gcf._lend_utf8(False) is expected
        assert gcf._gcf._lend_utf8(True) is False
    finally:
        gcf._gcf._lend_utf8(was)


NAMES = [s for s in STRINGS if s and not any(c.isspace() for c in s)]


def graph() -> Payload:
    symbols = [Symbol(qualified_name=Name(s) if i % 2 else s, kind="function", score=0.5,
                      provenance="lsp", distance=i % 3)
               for i, s in enumerate(NAMES)]
    edges = [Edge(source=NAMES[i], target=Name(NAMES[i + 1]), edge_type="calls") for i in range(len(NAMES) - 1)]
    return Payload(tool="t", symbols=symbols, edges=edges)


def test_graph_encode_and_decode_agree(routes: Any) -> None:
    lent, copied = routes(lambda: gcf.encode(graph()))
    assert lent == copied
    assert isinstance(lent, str), lent
    decoded = gcf.decode(lent)
    assert sorted(s.qualified_name for s in decoded.symbols) == sorted(NAMES)
    assert len(decoded.edges) == len(NAMES) - 1
    assert routes(lambda: gcf.decode(lent)) == [decoded] * 2


def test_generic_values_agree(routes: Any) -> None:
    value = {s or "empty": {"v": s, "list": [s, Name(s), 1, None]} for s in STRINGS}
    value["rows"] = [{"name": s, "n": i, Name("k"): s[::-1]} for i, s in enumerate(STRINGS)]
    lent, copied = routes(lambda: gcf.encode_generic(value))
    assert lent == copied
    assert gcf.decode_generic(lent)["rows"][6]["name"] == STRINGS[6]
    assert routes(lambda: gcf.decode_generic(lent)) == [gcf.decode_generic(lent)] * 2
    assert routes(lambda: gcf.decode_generic(lent.encode("utf-8"))) == [gcf.decode_generic(lent)] * 2


def test_streams_agree(routes: Any) -> None:
    def stream() -> str:
        out = io.StringIO()
        enc = gcf.GenericStreamEncoder(out, tool="t")
        enc.begin_array("rows", ["s", "n"])
        for i, s in enumerate(STRINGS):
            enc.write_row([Name(s), i])
        enc.close()
        return out.getvalue()

    lent, copied = routes(stream)
    assert lent == copied
    assert [r["s"] for r in gcf.decode_generic(lent)["rows"]] == STRINGS


@pytest.mark.parametrize("bad", ["\ud800", "a\udfffb", "ok" + "\udc80"])
def test_lone_surrogates_fail_alike(routes: Any, bad: str) -> None:
    for call in (lambda: gcf.encode_generic({"a": bad}),
                 lambda: gcf.encode_generic({bad: 1}),
                 lambda: gcf.encode(Payload(symbols=[Symbol(qualified_name=bad, kind="function", score=1.0)]))):
        lent, copied = routes(call)
        assert lent == copied
        assert isinstance(lent, tuple) and lent[0] is gcf.GcfError, lent
        assert lent[1].startswith("invalid_surrogate: "), lent
    lent, copied = routes(lambda: gcf.decode_generic("GCF profile=generic\na=" + bad + "\n"))
    assert lent == copied
    assert lent[0] is gcf.DecodeError and lent[1].startswith("invalid_surrogate: ")


def test_graph_streams_agree(routes: Any) -> None:
    from types import SimpleNamespace

    def stream() -> str:
        out = io.StringIO()
        enc = gcf.StreamEncoder(out, tool="t")
        for i, name in enumerate(NAMES):
            # Duck-typed symbols and edges: a str subclass, a non-str value
            # (its str()) and None ("") read as the dataclasses are.
            enc.write_symbol(SimpleNamespace(qualified_name=Name(name), kind="function", score=0.25,
                                             provenance="lsp" if i % 2 else 7, distance=0))
        for a, b in zip(NAMES, NAMES[1:]):
            enc.write_edge(SimpleNamespace(source=a, target=Name(b), edge_type="calls", status=None))
        enc.write_edge(Edge(source=NAMES[0], target="not.written", edge_type="calls"))
        enc.close()
        return out.getvalue()

    lent, copied = routes(stream)
    assert lent == copied
    assert isinstance(lent, str), lent
    decoded = gcf.decode(lent)
    assert [s.qualified_name for s in decoded.symbols] == NAMES
    assert {s.provenance for s in decoded.symbols} == {"lsp", "7"}
    assert len(decoded.edges) == len(NAMES) - 1


def surrogate_calls(bad: str) -> List[Callable[[], Any]]:
    """Every call of the public API that writes a caller's text, each given
    ``bad`` in one place."""

    def sym(name: str = "s", kind: str = "function", provenance: str = "lsp") -> Symbol:
        return Symbol(qualified_name=name, kind=kind, score=1.0, provenance=provenance)

    def graph_stream(write: Callable[[gcf.StreamEncoder], Any], **options: Any) -> Callable[[], Any]:
        def run() -> Any:
            enc = gcf.StreamEncoder(io.StringIO(), **options)
            write(enc)
            enc.close()

        return run

    def generic_stream(write: Callable[[gcf.GenericStreamEncoder], Any], tool: str = "") -> Callable[[], Any]:
        def run() -> Any:
            enc = gcf.GenericStreamEncoder(io.StringIO(), tool=tool)
            write(enc)
            enc.close()

        return run

    class Shown:
        def __str__(self) -> str:
            return bad

    keyed = gcf.GenericSet(key="id", fields=["id", "a"], rows=[{"id": 1, "a": bad}])
    plain = gcf.GenericSet(key="id", fields=["id", "a"], rows=[{"id": 1, "a": "x"}])
    return [
        lambda: gcf.encode_generic({"a": bad}),
        lambda: gcf.encode_generic({bad: 1}),
        lambda: gcf.encode_generic([{"a": bad}, {"a": "x"}]),
        lambda: gcf.encode_generic({"a": Shown()}),
        lambda: gcf.encode_generic({"a": [1, bad]}),
        lambda: gcf.encode_generic_grouped([{"k": 1, "g": bad}, {"k": 2, "g": "x"}], "k", "g"),
        lambda: gcf.encode_generic_grouped([{bad: 1, "g": "x"}, {bad: 2, "g": "x"}], bad, "g"),
        lambda: gcf.encode(Payload(symbols=[sym(kind=bad)])),
        lambda: gcf.encode(Payload(symbols=[sym(provenance=bad)])),
        lambda: gcf.encode(Payload(tool=bad, symbols=[sym()])),
        lambda: gcf.encode(Payload(symbols=[sym()], edges=[Edge(source="s", target="s", edge_type=bad)])),
        lambda: gcf.pack_root([sym(bad)], []),
        lambda: gcf.encode_with_session(Payload(symbols=[sym(bad)]), gcf.Session()),
        graph_stream(lambda e: e.write_symbol(sym(bad))),
        graph_stream(lambda e: e.write_bare_ref(bad, 0), session=True),
        graph_stream(lambda e: None, tool=bad),
        graph_stream(lambda e: None, pack_root=bad),
        generic_stream(lambda e: (e.begin_array("r", ["a"]), e.write_row([bad]))),
        generic_stream(lambda e: (e.begin_array("r", ["a", "b"]), e.write_row((1, bad)))),
        generic_stream(lambda e: (e.begin_keyed_map("m", "id", ["a"]), e.write_row([bad, 1]))),
        generic_stream(lambda e: e.write_kv("k", bad)),
        generic_stream(lambda e: e.write_kv(bad, 1)),
        generic_stream(lambda e: e.begin_array(bad, ["a"])),
        generic_stream(lambda e: e.begin_array("r", [bad])),
        generic_stream(lambda e: e.begin_keyed_map("m", bad, ["a"])),
        generic_stream(lambda e: e.write_section(bad)),
        generic_stream(lambda e: e.write_inline_array(bad, [1])),
        generic_stream(lambda e: e.write_inline_array("a", [bad])),
        generic_stream(lambda e: None, tool=bad),
        lambda: gcf.generic_pack_root(keyed),
        lambda: gcf.encode_generic_full(keyed),
        lambda: gcf.encode_generic_full(plain, bad),
        lambda: gcf.GenericDeltaSession(plain, bad, gcf.size_guard()).current_full(),
        lambda: gcf.scalar.format_scalar(bad),
        lambda: gcf.scalar.format_scalar("a", bad),
        lambda: gcf.scalar.needs_quote(bad),
        lambda: gcf.scalar.quote_string(bad),
        lambda: gcf.scalar.is_bare_key(bad),
        lambda: gcf.scalar.format_key(bad),
    ]


@pytest.mark.parametrize("bad", ["\ud800", "a\udc80b"])
def test_every_writer_refuses_a_lone_surrogate_with_its_category(routes: Any, bad: str) -> None:
    # A lone surrogate (a file name decoded with `surrogateescape`, say) has
    # no UTF-8 form: gcf.GcfError `invalid_surrogate` wherever the caller's
    # text goes, as the JS packages raise it, not the interpreter's bare
    # UnicodeEncodeError; the interpreter's error is kept as its cause.
    for i, call in enumerate(surrogate_calls(bad)):
        lent, copied = routes(call)
        assert lent == copied, i
        assert isinstance(lent, tuple) and lent[0] is gcf.GcfError, (i, lent)
        assert lent[1] == (
            "invalid_surrogate: a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF code point), "
            "which UTF-8 cannot carry"
        ), (i, lent)
    with pytest.raises(gcf.GcfError) as e:
        gcf.encode_generic({"a": bad})
    assert e.value.category == "invalid_surrogate"
    assert isinstance(e.value.__cause__, UnicodeEncodeError)
    # The same calls write the text once the surrogate is gone.
    for i, call in enumerate(surrogate_calls(bad.replace("\ud800", "x").replace("\udc80", "y"))):
        call()


def test_a_writers_own_unicode_error_is_left_alone() -> None:
    # A text file that cannot take the output raises its own error, which is
    # not the caller's surrogate.
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    enc = gcf.GenericStreamEncoder(out)
    with pytest.raises(UnicodeEncodeError):
        enc.write_kv("k", "café")
        enc.close()


@pytest.mark.parametrize("token, column", [("a\ud800", 2), ("\"x\udc80\"", 3)])
def test_the_scalar_parsers_place_a_lone_surrogate(routes: Any, token: str, column: int) -> None:
    # GCF text, as the decoders read it: `DecodeError` at the surrogate.
    for parse in (gcf.scalar.parse_scalar, lambda t: gcf.scalar.parse_scalar(t, True),
                  gcf.scalar.parse_quoted_string):
        if parse is gcf.scalar.parse_quoted_string and not token.startswith('"'):
            continue
        lent, copied = routes(lambda: parse(token))
        assert lent == copied
        with pytest.raises(gcf.DecodeError) as e:
            parse(token)
        assert (e.value.category, e.value.line, e.value.column) == ("invalid_surrogate", 1, column)
