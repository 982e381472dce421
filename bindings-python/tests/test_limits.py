"""Decode limits (spec §12; ``gcf.Limits``, not in gcf-python 2.8.0): applied
by ``decode`` and ``decode_generic`` to every kind of payload and input form,
checked by the native core (gcf-bind) as in every binding."""

from __future__ import annotations

from typing import Any, Callable, List

import pytest

import gcf
from gcf import Edge, Limits, Payload, Symbol

GRAPH = gcf.encode(
    Payload(
        tool="t",
        symbols=[Symbol(f"p.{n}", "function", 0.5, "lsp", 0) for n in "abc"],
        edges=[Edge("p.a", "p.b", "calls")],
    )
)
RECORDS = gcf.encode_generic({"rows": [{"id": i, "name": f"n{i}"} for i in range(4)]})


def nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = {"a": v}
    return v


DEEP = gcf.encode_generic(nested(5))
GRAPH_DELTA = "GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn a\nfn b\n"
GENERIC_DELTA = (
    "GCF profile=generic delta=true base_root=sha256:a new_root=sha256:b key=id\n"
    "## removed [2]{@id}\n7\n8\n"
)

DECODES: List[Callable[..., Any]] = [gcf.decode, gcf.decode_generic]


def test_limits_the_input_passes_change_nothing() -> None:
    assert gcf.decode(GRAPH, limits=Limits(max_container_len=3)) == gcf.decode(GRAPH)
    assert gcf.decode_generic(DEEP, limits=Limits(max_depth=5)) == nested(5)
    assert gcf.decode_generic(RECORDS, limits=Limits()) == gcf.decode_generic(RECORDS)
    assert gcf.decode_generic(RECORDS, limits=Limits(max_input_len=len(RECORDS))) == gcf.decode_generic(RECORDS)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_input_past_a_limit_is_limit_exceeded_at_its_line(as_bytes: bool) -> None:
    def form(text: str) -> Any:
        return text.encode() if as_bytes else text

    cases = [
        (gcf.decode, GRAPH, Limits(max_container_len=2)),
        (gcf.decode_generic, GRAPH, Limits(max_container_len=2)),
        (gcf.decode_generic, DEEP, Limits(max_depth=4)),
        (gcf.decode_generic, RECORDS, Limits(max_input_len=len(RECORDS) - 1)),
        (gcf.decode_generic, RECORDS, Limits(max_fields=1)),
        (gcf.decode_generic, RECORDS, Limits(max_line_len=8)),
        # The kinds decode_generic dispatches to other decoders.
        (gcf.decode_generic, GRAPH_DELTA, Limits(max_container_len=1)),
        (gcf.decode_generic, GENERIC_DELTA, Limits(max_container_len=1)),
    ]
    for decode, text, limits in cases:
        with pytest.raises(gcf.DecodeError) as caught:
            decode(form(text), limits=limits)
        e: Any = caught.value
        assert e.category == "limit_exceeded", (text, limits, str(e))
        assert str(e).startswith("limit_exceeded: ")
        # The input's length is over before any line is read.
        if limits.max_input_len is None:
            assert isinstance(e.line, int), str(e)
        else:
            assert e.line is None, str(e)


def test_the_limits_hold_for_one_call() -> None:
    with pytest.raises(gcf.DecodeError):
        gcf.decode_generic(DEEP, limits=Limits(max_depth=2))
    assert gcf.decode_generic(DEEP) == nested(5)


@pytest.mark.parametrize(
    "limits, says",
    [
        (Limits(max_depth=0), "usage: limits: max_depth must be from 1 to 128, not 0"),
        (Limits(max_depth=129), "usage: limits: max_depth must be from 1 to 128, not 129"),
        (Limits(max_fields=0), "usage: limits: max_fields must be at least 1, not 0"),
        (Limits(max_depth=-1), "usage: limits: max_depth must be a whole number, not -1"),
        (Limits(max_depth=2.5), "usage: limits: max_depth must be a whole number, not 2.5"),  # type: ignore[arg-type]
        (Limits(max_depth=True), "usage: limits: max_depth must be a whole number, not true"),
        (Limits(max_input_len="9"), "usage: limits: max_input_len must be a whole number, not a string"),  # type: ignore[arg-type]
    ],
)
def test_limits_that_cannot_be_are_usage_errors(limits: Limits, says: str) -> None:
    for decode in DECODES:
        with pytest.raises(gcf.GcfError) as caught:
            decode(GRAPH, limits=limits)
        e: Any = caught.value
        assert not isinstance(e, gcf.DecodeError)
        assert e.category == "usage"
        assert str(e).startswith(says), str(e)


def test_limits_must_be_a_limits() -> None:
    for decode in DECODES:
        with pytest.raises(TypeError, match="limits must be a gcf.Limits, not dict"):
            decode(GRAPH, limits={"max_depth": 3})


def test_a_limit_past_the_address_space_is_no_limit() -> None:
    for huge in [2**63 - 1, 2**64, 10**40]:
        assert len(gcf.decode(GRAPH, limits=Limits(max_input_len=huge)).symbols) == 3
    assert gcf.decode_generic(RECORDS, limits=Limits(max_expansion=0, max_expansion_ratio=0)) == gcf.decode_generic(RECORDS)


def test_the_delta_decodes_take_limits_too() -> None:
    full = gcf.encode_generic_full(
        gcf.GenericSet(key="id", fields=["id", "total"], rows=[{"id": 1, "total": 2}, {"id": 2, "total": 3}], name="orders")
    )
    runs: List[Callable[..., Any]] = [
        lambda **kw: gcf.decode_delta(GRAPH_DELTA, **kw),
        lambda **kw: gcf.decode_generic_delta(GENERIC_DELTA, **kw),
        lambda **kw: gcf.decode_generic_full(full, **kw),
    ]
    for run in runs:
        whole = run()
        assert run(limits=Limits(max_container_len=2)) == whole
        with pytest.raises(gcf.DecodeError) as caught:
            run(limits=Limits(max_container_len=1))
        e: Any = caught.value
        assert e.category == "limit_exceeded" and isinstance(e.line, int), str(e)
        with pytest.raises(gcf.GcfError, match="^usage: limits: max_depth must be from 1 to 128, not 0"):
            run(limits=Limits(max_depth=0))
        assert run() == whole
