"""Streamed rows take one of two routes in the extension: a ``list`` or
``tuple`` of plain scalars (exact ``str``, ``int``, ``float``, ``bool``,
``None``) is written from the objects themselves, anything else is read into
values first. The two must write the same bytes and raise the same errors;
a ``list`` subclass always takes the second route, so each row here is
written both ways and the results compared."""

from __future__ import annotations

import io
import math
from decimal import Decimal
from typing import Any, List, Sequence, Tuple, Union

import pytest

import gcf


class Row(list):  # type: ignore[type-arg]
    """A list subclass: read into values, never in place."""


class Text(str):
    """A str subclass: read into values, never in place."""


class Shown:
    def __str__(self) -> str:
        return "shown|here"


SCALARS: List[Any] = [
    0, -1, 7, 2**63 - 1, -(2**63), 12345678901234,
    0.5, -0.0, 3.0, 1e300, 1e-7, 123456.5, -2.25, 5e-324,
    "", "plain", "a b", "a|b", "c,d", 'say "hi"', "-", "~", "12", "-3.5", "true", "false", "null",
    "café", "日本語", "emoji 🙂 𝔘", "x" * 300, " lead", "trail ", "new\nline", "tab\there",
    True, False, None,
]


Outcome = Union[str, Tuple[type, str]]


def stream(rows: Sequence[Sequence[Any]], fields: Sequence[str], keyed: bool = False) -> Outcome:
    """The rows written into a table (or, `keyed`, a keyed map whose value
    fields are `fields`), or what writing them raised."""
    out = io.StringIO()
    enc = gcf.GenericStreamEncoder(out, tool="t")
    if keyed:
        enc.begin_keyed_map("m", "key", list(fields))
    else:
        enc.begin_array("rows", list(fields))
    try:
        for row in rows:
            enc.write_row(row)
    except Exception as e:  # noqa: BLE001 - compared between routes
        return (type(e), str(e))
    enc.close()
    return out.getvalue()


def both_routes(rows: List[List[Any]], fields: Sequence[str]) -> Tuple[Outcome, Outcome, Outcome]:
    """The rows as lists and as tuples (in place where plain) and as `Row`s."""
    return (stream(rows, fields), stream([tuple(r) for r in rows], fields), stream([Row(r) for r in rows], fields))


def test_plain_rows_match_the_value_route() -> None:
    fields = ["a", "b", "c"]
    rows = [[SCALARS[i % len(SCALARS)], SCALARS[(i * 7 + 3) % len(SCALARS)], SCALARS[(i * 13 + 5) % len(SCALARS)]]
            for i in range(400)]
    as_list, as_tuple, as_row = both_routes(rows, fields)
    assert isinstance(as_list, str), as_list
    assert as_list == as_tuple == as_row
    back = gcf.decode_generic(as_list)["rows"]
    for got, want in zip(back, rows):
        for f, v in zip(fields, want):
            if isinstance(v, float) and v == int(v) and abs(v) < 2**53:
                assert got[f] == v  # 3.0 may come back as 3
            else:
                assert got[f] == v and type(got[f]) is type(v), (got, want)


@pytest.mark.parametrize(
    "bad",
    [2**63, -(2**63) - 1, math.nan, math.inf, -math.inf, "\ud800", "ok\udfff"],
    ids=repr,
)
def test_errors_match_the_value_route(bad: Any) -> None:
    rows = [[1, "ok"], [2, bad], [3, "never"]]
    as_list, as_tuple, as_row = both_routes(rows, ["n", "v"])
    assert isinstance(as_list, tuple), as_list
    assert as_list == as_tuple == as_row


@pytest.mark.parametrize("width", [0, 1, 3])
def test_rows_of_the_wrong_width_fail_alike(width: int) -> None:
    rows = [[1, "a"], list(range(width))]
    as_list, as_tuple, as_row = both_routes(rows, ["n", "v"])
    assert isinstance(as_list, tuple) and as_list[0] is gcf.GcfError, as_list
    assert as_list == as_tuple == as_row


def test_other_objects_are_written_as_the_value_route_writes_them() -> None:
    # A list or dict in a streamed row is its str(), as 2.8.0's scalar
    # formatter writes it (a streamed line has no form for it).
    rows = [[Decimal("1.50"), Shown(), Text("sub|class"), (1,), [1, "a"], {"k": 1}], [True, 2.5, "x", Text(""), [], {}]]
    as_list, as_tuple, as_row = both_routes(rows, ["a", "b", "c", "d", "e", "f"])
    assert isinstance(as_list, str), as_list
    assert as_list == as_tuple == as_row
    assert gcf.decode_generic(as_list)["rows"][0] == {
        "a": "1.50", "b": "shown|here", "c": "sub|class", "d": "(1,)", "e": "[1, 'a']", "f": "{'k': 1}",
    }
    out = io.StringIO()
    enc = gcf.GenericStreamEncoder(out)
    enc.write_kv("k", {"a": [1]})
    enc.write_inline_array("xs", [[1], {"b": 2}, 3])
    enc.close()
    # 2.8.0's bytes.
    assert out.getvalue() == "GCF profile=generic\nk={'a': [1]}\nxs[3]: [1],{'b': 2},3\n"


@pytest.mark.parametrize("width", [31, 32, 33, 70])
def test_wide_rows(width: int) -> None:
    fields = [f"f{i}" for i in range(width)]
    rows = [[SCALARS[(r + i) % len(SCALARS)] for i in range(width)] for r in range(5)]
    as_list, as_tuple, as_row = both_routes(rows, fields)
    assert isinstance(as_list, str), as_list
    assert as_list == as_tuple == as_row


def test_keyed_rows_match_the_value_route() -> None:
    """Keyed-map members: their values arrive as a list, so the value route
    is taken by turning lent strings off (without them no row is written in
    place)."""

    def keyed(rows: List[List[Any]]) -> Outcome:
        return stream(rows, ["a", "b"], keyed=True)

    plain = [[f"k{i}", SCALARS[i % len(SCALARS)], SCALARS[(i * 5 + 1) % len(SCALARS)]] for i in range(100)]
    for rows in (plain, plain[:3] + [["bad", 1, math.nan]], plain[:2] + [["short", 1]], [["k", Shown(), 2**63]]):
        was = gcf._gcf._lend_utf8(True)
        try:
            lent = keyed(rows)
            gcf._gcf._lend_utf8(False)
            values = keyed(rows)
        finally:
            gcf._gcf._lend_utf8(was)
        assert lent == values
    assert gcf.decode_generic(keyed(plain))["m"]["k1"] == {"a": SCALARS[1], "b": SCALARS[6]}


def test_a_writer_that_drops_the_row_mid_write() -> None:
    """The buffer fills inside a row of long strings, so the writer runs
    while the row is written; it empties the row, which held the only
    reference to its strings. They must stay alive until the row is done."""
    row: List[Any] = []

    class Clearing:
        def __init__(self) -> None:
            self.parts: List[str] = []
            self.junk: List[str] = []

        def write(self, s: str) -> None:
            self.parts.append(s)
            row.clear()
            # Whatever memory the row's strings had is taken and written
            # over, where the allocator kept it rather than unmapping it.
            self.junk = ["Z" * 200_000 for _ in range(8)]

    out = Clearing()
    enc = gcf.GenericStreamEncoder(out)
    enc.begin_array("rows", ["n", "a", "b"])

    def strings(i: int) -> Tuple[str, str]:
        # Long enough that the allocator returns their memory to the system
        # when they are freed.
        return "".join(["a", str(i)]) * 100_000, "".join(["b|", str(i)]) * 50_000

    for i in range(12):
        # Strings made here, referenced only by `row`.
        row[:] = [i, *strings(i)]
        enc.write_row(row)
    enc.close()
    back = gcf.decode_generic("".join(out.parts))["rows"]
    assert back == [{"n": i, "a": strings(i)[0], "b": strings(i)[1]} for i in range(12)]


def test_keyed_map_keys_that_are_not_strings() -> None:
    """A member key is written by the core's rule for keys: a number bare in
    its canonical form, as 2.8.0 writes it (`7|...`, an integral float `1`)
    and read back as that text; a str subclass as its text; null and
    booleans refused (decoders refuse them; 2.8.0 writes `-` and `true`,
    which it reads back as "None" and "True"); an int past int64 is
    out_of_range, as in 2.8.0."""
    ok = stream([[7, 1, 2], [1.0, 3, 4], [-2.5, 5, 6], [Text("12"), 7, 8], ["k", 9, 10]], ["a", "b"], keyed=True)
    assert isinstance(ok, str)
    assert ok.splitlines()[2:7] == ["7|1|2", "1|3|4", "-2.5|5|6", '"12"|7|8', "k|9|10"]
    assert list(gcf.decode_generic(ok)["m"]) == ["7", "1", "-2.5", "12", "k"]
    for key in (None, True, False):
        outcome = stream([[key, 1, 2]], ["a", "b"], keyed=True)
        assert isinstance(outcome, tuple) and issubclass(outcome[0], ValueError), key
        assert outcome[1].startswith("invalid_input: a keyed-map member key"), outcome
    big = stream([[2**64, 1, 2]], ["a", "b"], keyed=True)
    assert isinstance(big, tuple) and big[1].startswith("out_of_range: "), big


def test_stream_names_are_str_of_what_is_given() -> None:
    # Table, section, key and inline-array names as 2.8.0's f-strings write
    # them (`str(x)`: None is `None`, an enum member `Kind.A`), quoted where
    # they are not bare keys (2.8.0 writes `K.A=1` raw); field names and the
    # key label are their text, as 2.8.0 joins them.
    import enum

    class Kind(str, enum.Enum):
        A = "alpha"

    out = io.StringIO()
    enc = gcf.GenericStreamEncoder(out)
    enc.write_kv(None, 1)  # type: ignore[arg-type]
    enc.write_inline_array(Kind.A, [1])
    enc.write_section(Kind.A)
    enc.begin_keyed_map(Kind.A, Kind.A, [Kind.A.value + "2"])
    enc.write_row(["k", 1])
    enc.close()
    assert out.getvalue() == (
        'GCF profile=generic\nNone=1\n"Kind.A"[1]: 1\n## "Kind.A"\n## "Kind.A" [?:]{alpha,alpha2}\nk|1\n'
        "##! summary counts=1\n"
    )
