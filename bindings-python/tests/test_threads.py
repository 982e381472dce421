"""The package from many threads at once (a server's thread pool): encodes
run the core with the GIL released while it reads the callers' strings in
place, so every call is checked against the same call made alone; a stream
shared between threads takes one call at a time, the others waiting (as
gcf-python 2.8.0's pure-Python stream writes every row), and a stream made
in one thread is written in another."""

import io
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List, Tuple

import pytest

import gcf
from gcf import Edge, Payload, Symbol


def graph(seed: int) -> Payload:
    names = [f"pkg.mod{seed}.S{i}" for i in range(60)]
    symbols = [Symbol(n, "function", (i * 7 % 100) / 100, "lsp", i % 3) for i, n in enumerate(names)]
    edges = [Edge(names[i], names[(i * 13 + seed) % 60], "calls") for i in range(1, 60)]
    return Payload("t", 10, 1000, "", symbols, edges)


def records(seed: int) -> Any:
    return {"rows": [{"id": i, "name": f"user {i + seed}", "score": i / 8, "ok": i % 3 == 0} for i in range(200)]}


def work(seed: int) -> Tuple[Any, ...]:
    text = gcf.encode(graph(seed))
    generic = gcf.encode_generic(records(seed))
    deep = gcf.encode_generic({"a": {"b": {"c": seed}}})
    try:
        gcf.decode_generic(deep, limits=gcf.Limits(max_depth=2))
        limited = "accepted"
    except gcf.GcfError as e:
        limited = e.category
    out = io.StringIO()
    stream = gcf.GenericStreamEncoder(out)
    stream.begin_array("rows", ["a", "b"])
    for i in range(500):
        stream.write_row([i, f"x{i + seed}"])
    stream.close()
    return (
        text,
        len(gcf.decode(text).symbols),
        generic,
        gcf.decode_generic(generic),
        limited,
        gcf.decode_generic(deep),
        out.getvalue(),
    )


def test_calls_from_eight_threads_match_the_same_calls_alone() -> None:
    seeds = list(range(40))
    alone = {seed: work(seed) for seed in seeds[:8]}
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(work, seeds))
    for seed, got in zip(seeds, together):
        if seed in alone:
            assert got == alone[seed]
        assert got[1] == 60
        assert got[4] == "limit_exceeded"
        assert got[5] == {"a": {"b": {"c": seed}}}


class SlowWriter:
    """A text sink whose writes let other threads run in the middle."""

    def __init__(self) -> None:
        self.parts: List[str] = []

    def write(self, s: str) -> int:
        threading.Event().wait(0.0005)
        self.parts.append(s)
        return len(s)


def test_a_stream_shared_between_threads_writes_every_row_whole() -> None:
    # The writer's slow `write` lets the other threads run in the middle of
    # a call; they wait for it (pyo3's borrow check refused them before:
    # `RuntimeError: Already borrowed`, half the rows lost).
    sink = SlowWriter()
    stream = gcf.GenericStreamEncoder(sink)
    stream.begin_array("rows", ["t", "i"])
    failed: List[BaseException] = []

    def rows(t: int) -> None:
        for i in range(3000):
            try:
                stream.write_row([t, i])
            except BaseException as e:  # noqa: BLE001 - counted below
                failed.append(e)

    threads = [threading.Thread(target=rows, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    stream.close()
    assert failed == []
    assert len(sink.parts) > 4, "the writer was called a few times, with other threads waiting"
    written = gcf.decode_generic("".join(sink.parts))["rows"]
    assert sorted((r["t"], r["i"]) for r in written) == [(t, i) for t in range(4) for i in range(3000)]
    # Each thread's rows keep their order.
    for t in range(4):
        mine = [r["i"] for r in written if r["t"] == t]
        assert mine == sorted(mine)
    assert stream.row_count == 4 * 3000


def test_a_write_that_writes_to_its_own_stream_is_refused() -> None:
    class Echo:
        def __init__(self) -> None:
            self.stream: Any = None

        def write(self, s: str) -> int:
            if self.stream is not None:
                self.stream.write_row(["again"])
            return len(s)

    echo = Echo()
    stream = gcf.GenericStreamEncoder(echo)
    stream.begin_array("rows", ["a"])
    # Armed once the header and the table's header are handed over.
    echo.stream = stream
    with pytest.raises(RuntimeError, match="while one of its own calls was running"):
        for i in range(10000):
            stream.write_row([i])


def test_a_stream_made_in_one_thread_is_written_in_another() -> None:
    # As with asyncio's run_in_executor: made on the event loop's thread,
    # written and closed in a worker.
    out, gout = io.StringIO(), io.StringIO()
    stream = gcf.StreamEncoder(out, "t")
    gstream = gcf.GenericStreamEncoder(gout)

    def write() -> None:
        for s in graph(1).symbols[:5]:
            stream.write_symbol(s)
        stream.close()
        gstream.begin_array("rows", ["a"])
        gstream.write_row([1])
        gstream.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(write).result()
    assert len(gcf.decode(out.getvalue()).symbols) == 5
    assert gcf.decode_generic(gout.getvalue()) == {"rows": [{"a": 1}]}


def test_a_delta_session_shared_between_threads_takes_turns() -> None:
    # Each thread's `next` waited for the one running; the native session's
    # borrow check refused them before (`RuntimeError: Already borrowed`,
    # 90 of 120 calls here).
    from gcf.generic_delta import GenericSet, size_guard

    def keyed(shift: int) -> GenericSet:
        return GenericSet("id", ["id", "v"], [{"id": i, "v": (i * 7 + shift) % 13} for i in range(3000)])

    session = gcf.GenericDeltaSession(keyed(0), "t", size_guard())
    failed: List[BaseException] = []
    wires: List[Tuple[str, bool]] = []

    def turns(t: int) -> None:
        for k in range(30):
            try:
                wires.append(session.next(keyed(t * 100 + k + 1)))
                session.current_full()
            except BaseException as e:  # noqa: BLE001 - counted below
                failed.append(e)

    threads = [threading.Thread(target=turns, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert failed == []
    assert session.turn == 120 and len(wires) == 120
    assert all(wire.startswith("GCF profile=generic") for wire, _ in wires)
