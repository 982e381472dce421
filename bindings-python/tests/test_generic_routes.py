"""The two ways ``encode_generic`` reads a Python value give the same
results: in place (the encoder walks the dicts and lists themselves, no
intermediate tree; taken where the interpreter lends strings, Python 3.10
and later) and through a core value tree (every value Python 3.9 encodes,
and everywhere the objects that only the tree reads: tuples, other objects
written as ``str(obj)``, non-``str`` dict keys, ints beyond int64, lone
surrogates, nesting past the reader's limit).

``gcf._gcf._view_generic(on)`` switches the in-place route and returns the
previous setting; ``gcf._gcf._encode_in_place(obj)`` encodes on the
in-place route alone (``None`` where the tree route would be taken)."""

from __future__ import annotations

import collections
import io
import decimal
import enum
import math
import random
import sys
from typing import Any, Callable, Dict, Iterator, List

import pytest

import gcf
from conftest import under_both

LENT = sys.version_info >= (3, 10) and sys.platform != "win32"


class Name(str):
    """A str subclass: `str(obj)`, its text (the tree reads it)."""


class Shouted(str):
    """A str subclass with its own `__str__`, which is what 2.8.0 writes."""

    def __str__(self) -> str:
        return self.upper() + "!"


class Count(int):
    """An int subclass whose `str()` is its digits: read as its value (the
    tree reads it)."""


class Ratio(float):
    """A float subclass: read as its value."""


class Record(dict):  # type: ignore[type-arg]
    """A dict subclass: read as a dict."""


class Rows(list):  # type: ignore[type-arg]
    """A list subclass: read as a list."""


class Color(enum.IntEnum):
    RED = 1


class Kind(str, enum.Enum):
    FILE = "file"


class Shown:
    def __str__(self) -> str:
        return "shown|here"


@pytest.fixture
def both() -> Iterator[Callable[[Callable[[], Any]], List[Any]]]:
    """Runs a call with the in-place route allowed and then forbidden, and
    returns both results (or the exception types and messages raised)."""
    original = gcf._gcf._view_generic(True)
    try:
        yield lambda call: under_both(gcf._gcf._view_generic, call)
    finally:
        gcf._gcf._view_generic(original)


PLAIN: List[Any] = [
    None,
    True,
    0,
    -(2**63),
    2**63 - 1,
    1.5,
    -0.0,
    "text",
    "naïve 🙂",
    [],
    {},
    [1, "a", None, 2.5, False],
    {"id": 1, "tags": ["a", "b,c"], "owner": {"name": "x", "team": {"id": 2}}},
    [{"id": i, "type": "file", "size": i * 1.25} for i in range(5)],
    {"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}},
    Ratio(0.25),
    Record(a=1, b=Rows([1, 2])),
]

OTHER: List[Any] = [
    # `str(obj)` for a str or int subclass, which may call its `__str__`.
    Name("sub"),
    Shouted("sub"),
    Count(7),
    Color.RED,
    Kind.FILE,
    (1, 2),
    {1: "int key"},
    {Name("k"): "str subclass key"},
    {Kind.FILE: "enum key"},
    2**63,
    -(2**63) - 1,
    "lone \ud800 surrogate",
    {"\udfff": 1},
    decimal.Decimal("1.5"),
    Shown(),
    {"set": {1}},
    [b"bytes"],
]


def nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


@pytest.mark.skipif(not LENT, reason="the in-place route needs strings lent by the interpreter")
@pytest.mark.parametrize("value", PLAIN, ids=repr)
def test_plain_data_is_read_in_place(value: Any) -> None:
    for v in (value, [value, {"k": value}]):
        text = gcf._gcf._encode_in_place(v)
        assert text is not None and text == gcf.encode_generic(v)


@pytest.mark.parametrize("value", OTHER, ids=repr)
def test_other_objects_take_the_tree(value: Any) -> None:
    assert gcf._gcf._encode_in_place(value) is None
    # Anywhere inside a value, and wherever the encoder reads it first.
    assert gcf._gcf._encode_in_place([1, {"a": [value]}]) is None
    assert gcf._gcf._encode_in_place([{"a": 1, "b": value}, {"a": 2, "b": value}]) is None
    assert gcf._gcf._encode_in_place({value if isinstance(value, str) else "k": value}) is None


def test_errors_take_the_tree() -> None:
    # The tree route raises them, with its own messages where they differ.
    assert gcf._gcf._encode_in_place(nested(1001)) is None
    assert gcf._gcf._encode_in_place(nested(129)) is None
    cyclic: List[Any] = []
    cyclic.append(cyclic)
    assert gcf._gcf._encode_in_place(cyclic) is None
    assert gcf._gcf._encode_in_place({"x": math.nan}) is None
    if LENT:
        assert gcf._gcf._encode_in_place(nested(127)) is not None


def test_keys_that_are_not_str_are_written_as_str_and_the_later_wins() -> None:
    # A key's str() may equal another key: the later member's value, in the
    # earlier member's place, for narrow dicts and wide ones alike (a wide
    # dict is deduplicated by hash: a map of a million int ids once took
    # minutes, a scan of the members per key).
    assert gcf.encode_generic({1: "a", "1": "b", 2: "c"}) == 'GCF profile=generic\n"1"=b\n"2"=c\n'
    wide = {i: i for i in range(40)}
    wide["3"] = "x"
    lines = gcf.encode_generic(wide).split("\n")[1:-1]
    assert len(lines) == 40
    assert lines[3] == '"3"=x' and lines[39] == '"39"=39'
    assert gcf.decode_generic(gcf.encode_generic({i: i for i in range(100_000)}))["99999"] == 99999


def test_str_and_int_subclasses_are_written_as_str_gives_them() -> None:
    # As gcf-python 2.8.0 writes them (its scalar formatter's `str(v)`): a
    # `(str, Enum)` member is `Kind.FILE` (json.dumps would write "file"),
    # an `IntEnum` member its number where `str()` gives the digits (Python
    # 3.11 on), a str subclass's own `__str__` its text. A key is its text,
    # as json.dumps writes it and 2.8.0 writes a table column (2.8.0's
    # `key=value` lines write `str(k)` instead: one rule cannot do both).
    rows = [{"k": Kind.FILE, "n": Color.RED, "s": Shouted("ab")}, {"k": "x", "n": 2, "s": Name("cd")}]
    color = "1" if str(Color.RED) == "1" else "Color.RED"
    assert gcf.encode_generic(rows) == f"GCF profile=generic\n## [2]{{k,n,s}}\nKind.FILE|{color}|AB!\nx|2|cd\n"
    assert gcf.encode_generic({Kind.FILE: 1, Shouted("a"): 2}) == "GCF profile=generic\nfile=1\na=2\n"
    assert gcf.encode_generic([{Kind.FILE: 1, "n": 1}, {Kind.FILE: 2, "n": 2}]) == "GCF profile=generic\n## [2]{file,n}\n1|1\n2|2\n"
    out = io.StringIO()
    enc = gcf.GenericStreamEncoder(out)
    enc.write_kv("k", Kind.FILE)
    enc.begin_array("t", ["a", "b"])
    enc.write_row([Kind.FILE, Count(3)])
    enc.close()
    assert out.getvalue() == "GCF profile=generic\nk=Kind.FILE\n## t [?]{a,b}\nKind.FILE|3\n##! summary counts=1\n"


def test_a_keyed_sets_root_verifies_against_its_payload_with_enum_values() -> None:
    # The root hashes what the payload writes (`Kind.FILE`), so a reader of
    # the payload computes the same root (2.8.0's root hashes "file").
    gs = gcf.GenericSet(key="id", fields=["id", "k"], rows=[{"id": 1, "k": Kind.FILE}])
    text = gcf.encode_generic_full(gs)
    back, root = gcf.decode_generic_full(text)
    assert back.rows == [{"id": 1, "k": "Kind.FILE"}]
    assert root == gcf.generic_pack_root(gs) == gcf.generic_pack_root(back)


def test_keys_that_are_not_str_are_written_as_json_dumps_writes_them() -> None:
    # gcf-python 2.8.0 raises TypeError for any of them; json.dumps's text
    # is what a Python caller's JSON data already says.
    assert gcf.encode_generic({1: "a", 1.5: "b", None: "d", False: "f"}) == (
        'GCF profile=generic\n"1"=a\n"1.5"=b\nnull=d\nfalse=f\n'
    )
    color = "1" if str(Color.RED) == "1" else "Color.RED"
    assert gcf.encode_generic({True: "t", "c": Color.RED}) == f"GCF profile=generic\ntrue=t\nc={color}\n"
    assert gcf.encode_generic({Color.RED: "e"}) == 'GCF profile=generic\n"1"=e\n'
    assert gcf.encode_generic({math.nan: 1, -math.inf: 2}) == 'GCF profile=generic\nNaN=1\n"-Infinity"=2\n'
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
        gcf.encode_generic({(1, 2): "a"})


def test_the_switch_turns_the_route_off() -> None:
    original = gcf._gcf._view_generic(False)
    try:
        assert gcf._gcf._encode_in_place({"a": 1}) is None
    finally:
        gcf._gcf._view_generic(original)
    assert (gcf._gcf._encode_in_place({"a": 1}) is not None) == LENT


@pytest.mark.parametrize("value", PLAIN + OTHER, ids=repr)
def test_both_routes_write_the_same(value: Any, both: Callable[[Callable[[], Any]], List[Any]]) -> None:
    for v in (value, [value, value], {"k": value, "rows": [{"a": value}, {"a": value}]}):
        a, b = both(lambda: gcf.encode_generic(v))
        assert a == b


def test_both_routes_raise_the_same(both: Callable[[Callable[[], Any]], List[Any]]) -> None:
    for v in (
        nested(1001),
        nested(200),  # past the encoder's depth limit, within the reader's
        {"x": math.nan},
        [{"a": math.inf}, {"a": 1}],
        [{"a": 2**64}],
    ):
        a, b = both(lambda: gcf.encode_generic(v))
        assert isinstance(a, tuple) and a == b
    cyclic: Dict[str, Any] = {}
    cyclic["self"] = cyclic
    a, b = both(lambda: gcf.encode_generic(cyclic))
    assert isinstance(a, tuple) and a == b


# ------------------------------------------------------------ random values

KEYS = ["id", "name", "type", "a", "b", "x y", "a>b", "key", "_key", "é", "", "k|k", "1"]


def scalar(r: random.Random) -> Any:
    return r.choice(
        [
            None,
            True,
            False,
            r.randrange(-1000, 1000),
            r.choice([2**63 - 1, -(2**63), 2**53 + 1]),
            r.uniform(-1e6, 1e6),
            round(r.uniform(-100, 100), 2),
            r.choice([0.0, -0.0, 1e21, 5e-324, 75.0]),
            r.choice(["", "-", "~", "a,b", "x|y", "true", "12", "café", "}", "🙂"]),
            Ratio(0.5),
        ]
    )


def value(r: random.Random, depth: int = 0) -> Any:
    c = r.randrange(10)
    if depth > 3 or c < 3:
        return scalar(r)
    if c < 6:
        # A table: rows sharing keys, sometimes in another order or missing one.
        keys = r.sample(KEYS, r.randrange(1, 5))
        rows = []
        for _ in range(r.randrange(1, 5)):
            ks = list(keys)
            if r.random() < 0.2:
                r.shuffle(ks)
            if r.random() < 0.2 and len(ks) > 1:
                ks.pop()
            rows.append({k: value(r, depth + 2) if r.random() < 0.2 else scalar(r) for k in ks})
        return rows if r.random() < 0.8 else Rows(rows)
    if c < 8:
        d = {k: value(r, depth + 1) for k in r.sample(KEYS, r.randrange(0, 4))}
        return d if r.random() < 0.9 else Record(d)
    return [value(r, depth + 1) for _ in range(r.randrange(0, 4))]


def test_random_values_write_the_same(both: Callable[[Callable[[], Any]], List[Any]]) -> None:
    r = random.Random(20261124)
    in_place = 0
    for _ in range(3000):
        v = value(r)
        in_place += gcf._gcf._encode_in_place(v) is not None
        for call in (
            lambda: gcf.encode_generic(v),
            lambda: gcf.encode_generic(v, no_flatten=True),
        ):
            a, b = both(call)
            assert a == b, v
    # Most of them are plain data; the route is not a no-op.
    assert in_place > 2000 if LENT else in_place == 0


def test_grouped_tables_write_the_same(both: Callable[[Callable[[], Any]], List[Any]]) -> None:
    r = random.Random(7)
    for _ in range(300):
        rows = [
            {"id": r.choice([i, float(i), str(i)]), "state": r.choice(["open", "closed", None, 1, 1.0]), "repo": "core"}
            for i in range(r.randrange(1, 6))
        ]
        if r.random() < 0.3:
            rows.append({"id": r.randrange(3), "state": "open"})
        if r.random() < 0.1:
            rows.append({"id": 99, "state": "open", "nested": [1]})
        a, b = both(lambda: gcf.encode_generic_grouped(rows, "id", "state"))
        assert a == b, rows
    a, b = both(lambda: gcf.encode_generic_grouped(collections.OrderedDict(a=1), "a", "b"))
    assert isinstance(a, tuple) and a == b


def test_none_in_keyed_set_headers_is_left_out_as_2_8_0_leaves_it() -> None:
    # 2.8.0's generic delta code checks these for truthiness: a None name is
    # the default `rows`, a None tool is no `tool=` (where the graph
    # profile's f-strings write `None`).
    base = gcf.GenericSet(key="id", fields=["id", "v"], rows=[{"id": 1, "v": "a"}], name=None)  # type: ignore[arg-type]
    root = gcf.generic_pack_root(base)
    assert gcf.encode_generic_full(base, tool=None) == (  # type: ignore[arg-type]
        f"GCF profile=generic pack_root={root} key=id\n## rows [1]{{@id,v}}\n1|a\n"
    )
    nxt = gcf.GenericSet(key="id", fields=["id", "v"], rows=[{"id": 1, "v": "b"}])
    d = gcf.diff_generic_sets(base, nxt)
    d.tool = None  # type: ignore[assignment]
    assert gcf.encode_generic_delta(d).startswith("GCF profile=generic delta=true base_root=")
    session = gcf.GenericDeltaSession(base, None, gcf.ReanchorPolicy(mode=gcf.ReanchorMode.FIXED_N, n=3))  # type: ignore[arg-type]
    text, _ = session.next(nxt)
    assert text.startswith("GCF profile=generic delta=true base_root=")
