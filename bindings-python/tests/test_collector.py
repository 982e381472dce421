"""Decodes pause the cyclic garbage collector while they make their objects
(`src/collector.rs`): collections set off by a large result's own
allocations visited it over and over (a third of a 1,000-symbol graph
decode) and could free nothing. The pause is taken only when the collector
was enabled and the result can set one off, and it always ends."""

from __future__ import annotations

import gc
import subprocess
import sys
from typing import Callable, Iterator, List

import pytest

import gcf

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/bench")
import bench  # noqa: E402


@pytest.fixture
def collections() -> Iterator[List[int]]:
    """The generation of each collection started while the test runs."""
    started: List[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        yield started
    finally:
        gc.callbacks.remove(seen)


def during(started: List[int], call: Callable[[], object]) -> int:
    """How many collections `call` started."""
    gc.collect()
    before = len(started)
    call()
    return len(started) - before


def test_a_large_graph_decode_sets_off_no_collection_while_it_makes_its_objects(collections: List[int]) -> None:
    text = gcf.encode(bench.graph(2000, 3))
    # About 10,000 tracked objects: without the pause, a collection every
    # 700 of them (more than ten); after it, at most the one its count
    # sets off once the collector is back.
    assert during(collections, lambda: gcf.decode(text)) <= 1
    assert gc.isenabled()
    assert during(collections, lambda: gcf.decode(text.encode())) <= 1
    assert during(collections, lambda: gcf.decode_generic(text)) <= 1
    # The same objects made in Python do set collections off: the count
    # above is the pause's doing, not this interpreter's thresholds.
    d = gcf.decode(text)
    rows = [(s.qualified_name, s.kind, s.score, s.provenance, s.distance) for s in d.symbols]
    assert during(collections, lambda: [gcf.Symbol(*r) for r in rows]) >= 2


def test_a_large_generic_decode_sets_off_no_collection(collections: List[int]) -> None:
    text = gcf.encode_generic({"records": bench.records(3000, 4)})
    assert during(collections, lambda: gcf.decode_generic(text)) <= 1
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    text = gcf.encode(bench.graph(500, 5))
    generic = gcf.encode_generic({"records": bench.records(1000, 5)})
    gc.disable()
    try:
        assert gcf.decode(text) == gcf.decode(text)
        gcf.decode_generic(generic)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_decoded_objects_are_the_same_with_and_without_the_collector() -> None:
    p = bench.graph(800, 6)
    text = gcf.encode(p)
    paused = gcf.decode(text)
    gc.disable()
    try:
        plain = gcf.decode(text)
    finally:
        gc.enable()
    assert paused == plain
    assert gcf.encode(paused) == text


# Run in a fresh interpreter: the decoder checks `gcf.types.Symbol` once per
# process, and calls the class (so its `__init__`, watched here) when it has
# a `__post_init__`.
SEEN_FROM_INIT = r"""
import gc, sys
sys.path.insert(0, sys.argv[1])
import bench, gcf.types
import gcf
large, small = gcf.encode(bench.graph(300, 7)), gcf.encode(bench.graph(20, 7))
Symbol = gcf.types.Symbol
seen = []
fail_at = int(sys.argv[2])
init = Symbol.__init__
def watched(self, *args, **kwargs):
    seen.append(gc.isenabled())
    if len(seen) == fail_at:
        raise RuntimeError("refused")
    init(self, *args, **kwargs)
Symbol.__init__ = watched
# Set after the class was made, so its `__init__` never calls it: it only
# tells the decoder, which checks the class at its first decode, to call
# the class rather than make its objects itself.
Symbol.__post_init__ = lambda self: None
if fail_at:
    try:
        gcf.decode(large)
    except RuntimeError:
        pass
    print(gc.isenabled(), len(seen))
    sys.exit()
gcf.decode(large)
during_large = set(seen)
seen.clear()
gcf.decode(small)
print(sorted(during_large), sorted(set(seen)), gc.isenabled())
"""


def run(fail_at: int) -> List[str]:
    bench_dir = __file__.rsplit("/tests/", 1)[0] + "/bench"
    r = subprocess.run([sys.executable, "-c", SEEN_FROM_INIT, bench_dir, str(fail_at)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.split("\n")[0].split(" ")


def test_objects_of_a_large_result_are_made_with_the_collector_paused_and_it_resumes() -> None:
    # Seen from the class's own `__init__`: paused while a 300-symbol
    # result is made, not for 20 symbols, and enabled after both.
    assert run(0) == ["[False]", "[True]", "True"]


def test_the_collector_resumes_when_making_the_objects_fails() -> None:
    assert run(50) == ["True", "50"]
