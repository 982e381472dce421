"""A stream dropped without ``close()``: 2.8.0 writes each line at once, so
its writer holds every line (and no trailer). Ours batches, and hands what
it holds to the writer when the encoder is freed, as Python's own buffered
files do; a failing ``write`` then goes to ``sys.unraisablehook``."""

from __future__ import annotations

import gc
import io
import sys
from typing import Any, List

import gcf
from gcf import Symbol


def test_an_abandoned_graph_stream_hands_over_its_lines() -> None:
    out = io.StringIO()
    enc = gcf.StreamEncoder(out, "t")
    for i in range(5):
        enc.write_symbol(Symbol(f"pkg.A{i}", "function", 0.5, "lsp"))
    before = out.getvalue()
    del enc
    gc.collect()
    text = out.getvalue()
    assert text.count("fn pkg.A") == 5 and before.count("fn pkg.A") < 5, (before, text)
    assert "##!" not in text  # no trailer: the stream did not end


def test_an_abandoned_generic_stream_hands_over_its_rows() -> None:
    out = io.BytesIO()
    enc = gcf.GenericStreamEncoder(out, tool="t")
    enc.begin_array("rows", ["id", "name"])
    for i in range(3):
        enc.write_row([i, f"n{i}"])
    del enc
    gc.collect()
    text = out.getvalue().decode()
    assert "\n2|n2\n" in text and "##!" not in text, text


def test_a_closed_stream_writes_nothing_more_when_freed() -> None:
    out = io.StringIO()
    enc = gcf.StreamEncoder(out, "t")
    enc.write_symbol(Symbol("pkg.A", "function", 0.5, "lsp"))
    enc.close()
    closed = out.getvalue()
    del enc
    gc.collect()
    assert out.getvalue() == closed


class Failing:
    def __init__(self) -> None:
        self.calls = 0

    def write(self, s: Any) -> int:
        self.calls += 1
        if self.calls > 1:  # the header goes through
            raise OSError("disk full")
        return len(s)


def test_a_failing_write_of_an_abandoned_stream_is_unraisable() -> None:
    seen: List[BaseException] = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        enc = gcf.StreamEncoder(Failing(), "t")
        enc.write_symbol(Symbol("pkg.A", "function", 0.5, "lsp"))
        del enc
        gc.collect()
    finally:
        sys.unraisablehook = old
    assert len(seen) == 1 and isinstance(seen[0], OSError), seen


def test_write_bare_ref_refuses_a_bad_distance_as_write_symbol_does() -> None:
    import pytest

    enc = gcf.StreamEncoder(io.StringIO(), "t", session=True)
    for bad in (-1, 1.5, 2**40):
        for call in (
            lambda: enc.write_bare_ref("q", bad),
            lambda: enc.write_symbol(Symbol("pkg.A", "function", 0.5, "lsp", bad)),
        ):
            with pytest.raises(gcf.GcfError) as e:
                call()
            assert e.value.category == "out_of_range", (bad, e.value)
    enc.close()
