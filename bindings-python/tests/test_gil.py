"""When calls let other threads run (src/gil.rs).

A call that released the GIL for a few microseconds of work would, with a
busy thread beside it, wait for that thread's switch interval to get it back
(5 ms by default: a thousand times the call). Small calls keep the GIL; calls
on a megabyte of text or more release it.

The tests watch a helper thread that counts while it holds the GIL and gives
it up after every count (``time.sleep(0)``), with the interpreter's own
switching pushed out of the way (``sys.setswitchinterval``): the count moves
while the main thread runs a call only if the call released the GIL.
"""

import sys
import threading
import time

import pytest

import gcf
from gcf import _gcf


@pytest.fixture
def watcher():
    count = [0]
    stop = threading.Event()

    def run():
        while not stop.is_set():
            count[0] += 1
            time.sleep(0)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        # Let it start (sleep releases the GIL).
        while count[0] == 0:
            time.sleep(0.001)
        yield count
    finally:
        stop.set()
        sys.setswitchinterval(old)
        thread.join()


def graph(n):
    symbols = [
        gcf.Symbol(qualified_name=f"pkg.mod{i % 97}.Symbol{i}", kind="function", score=0.5, provenance="lsp", distance=i % 3)
        for i in range(n)
    ]
    edges = [gcf.Edge(source=symbols[i].qualified_name, target=symbols[i - 1].qualified_name, edge_type="calls") for i in range(1, n)]
    return gcf.Payload(tool="t", symbols=symbols, edges=edges)


def small_calls():
    p = graph(12)
    text = gcf.encode(p)
    records = [{"id": i, "name": f"n{i}"} for i in range(12)]
    generic_text = gcf.encode_generic(records)
    return [
        lambda: gcf.encode(p),
        lambda: gcf.decode(text),
        lambda: gcf.encode_generic(records),
        lambda: gcf.decode_generic(generic_text),
        lambda: gcf.encode_generic((1, 2, 3)),  # a tuple: the tree route
        lambda: gcf.decode_generic(text),  # a graph payload's dict
        lambda: gcf.pack_root(p.symbols, p.edges),
        lambda: gcf.encode_with_session(p, gcf.Session()),
    ]


def test_small_calls_keep_the_gil(watcher):
    calls = small_calls()
    # Once first: a first call may import a module, which takes the import
    # lock and so lets other threads run.
    for call in calls:
        call()
    before = watcher[0]
    for _ in range(50):
        for call in calls:
            call()
    assert watcher[0] == before, "a small call let another thread run"


def test_calls_on_a_megabyte_release_the_gil(watcher):
    p = graph(30_000)
    assert _gcf._releases_gil(48 * (len(p.symbols) + len(p.edges)))
    assert not _gcf._releases_gil(48 * 1000)
    before = watcher[0]
    for _ in range(3):
        text = gcf.encode(p)
    assert watcher[0] > before, "encoding 30,000 symbols kept the GIL"
    assert len(text) >= 1 << 20
    before = watcher[0]
    for _ in range(3):
        gcf.decode(text)
    assert watcher[0] > before, "decoding a megabyte kept the GIL"
