"""``gcf.SessionDecoder``: the consumer side of a session (spec 9.2), which
decodes what ``encode_with_session`` writes, bare references included."""

import dataclasses
import threading

import pytest

import gcf
from gcf import DecodeError, Edge, GcfError, LocatedPayload, Location, Payload, Session, SessionDecoder, Symbol


def payload(names, edges=()):
    # A symbol's fields follow from its name: a bare reference stands for
    # the symbol as delivered before, so it must not change between payloads.
    symbols = [Symbol(n, "function", (sum(map(ord, n)) % 100) / 100, "lsp", len(n) % 2) for n in names]
    return Payload("t", 1, 100, "", symbols, [Edge(a, b, "calls") for a, b in edges])


def by_name(p):
    return sorted((s.qualified_name, s.kind, s.score, s.provenance) for s in p.symbols)


def test_bare_references_resolve_to_the_symbols_delivered_before() -> None:
    producer, consumer = Session(), SessionDecoder()
    first = payload(["a.A", "a.B", "a.C"], [("a.A", "a.B")])
    t1 = gcf.encode_with_session(first, producer)
    assert by_name(consumer.decode(t1)) == by_name(first)
    second = payload(["a.B", "a.C", "a.D"], [("a.D", "a.B"), ("a.C", "a.D")])
    t2 = gcf.encode_with_session(second, producer)
    assert "previously transmitted" in t2
    # `decode` has no session: it refuses a bare reference at its line, as
    # 2.8.0's does, rather than dropping the symbol.
    with pytest.raises(DecodeError) as e:
        gcf.decode(t2)
    assert e.value.category == "invalid_node_line"
    assert e.value.line == t2.split("\n").index(next(l for l in t2.split("\n") if "previously" in l)) + 1
    alone = "GCF profile=graph tool=t symbols=2 session=true\n## targets\n@0  # previously transmitted\n@1 fn c 0.50 p\n"
    with pytest.raises(DecodeError) as e:
        gcf.decode(alone)
    assert (e.value.category, e.value.line, e.value.column) == ("invalid_node_line", 3, 1)
    back = consumer.decode(t2)
    assert by_name(back) == by_name(second)
    assert sorted((e.source, e.target) for e in back.edges) == [("a.C", "a.D"), ("a.D", "a.B")]
    assert consumer.size() == 4
    # Bytes too.
    assert by_name(consumer.decode(t2.encode())) == by_name(second)


def test_an_unknown_reference_is_refused_and_nothing_is_remembered() -> None:
    producer = Session()
    gcf.encode_with_session(payload(["a.A"]), producer)
    t2 = gcf.encode_with_session(payload(["a.A", "a.B"]), producer)
    consumer = SessionDecoder()
    with pytest.raises(DecodeError) as e:
        consumer.decode(t2)
    assert e.value.category == "unknown_edge_reference"
    assert e.value.line is not None
    assert consumer.size() == 0


def test_a_payload_without_session_starts_over_and_reset_forgets() -> None:
    consumer = SessionDecoder()
    producer = Session()
    consumer.decode(gcf.encode_with_session(payload(["a.A", "a.B"]), producer))
    assert consumer.size() == 2
    consumer.decode(gcf.encode(payload(["x.X"])))
    assert consumer.size() == 0
    consumer.decode(gcf.encode_with_session(payload(["a.C"]), Session()))
    assert consumer.size() == 1
    consumer.reset()
    assert consumer.size() == 0


def test_max_retained_and_limits() -> None:
    producer = Session()
    consumer = SessionDecoder(max_retained=2)
    consumer.decode(gcf.encode_with_session(payload(["a.A", "a.B", "a.C"]), producer))
    assert consumer.size() == 0
    with pytest.raises(ValueError):
        SessionDecoder(max_retained=-1)
    strict = SessionDecoder(limits=gcf.Limits(max_line_len=20))
    with pytest.raises(GcfError) as e:
        strict.decode(gcf.encode_with_session(payload(["a.very.long.name.Here"]), Session()))
    assert e.value.category == "limit_exceeded"


def test_locations_and_plain_payloads() -> None:
    p = payload(["a.A", "a.B"])
    located = LocatedPayload(p.tool, p.tokens_used, p.token_budget, p.pack_root, p.symbols, p.edges, [Location("a.A", "a.go", 3, 4)])
    consumer = SessionDecoder()
    back = consumer.decode(gcf.encode_with_session(located, Session()))
    assert type(back) is LocatedPayload and back.locations == located.locations
    assert type(consumer.decode(gcf.encode(p))) is Payload


def test_random_sessions_decode_to_every_payload_sent() -> None:
    import random

    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for round_ in range(50):
        producer, consumer = Session(), SessionDecoder()
        pool = [f"pkg/m{i % 5}.S{i}" for i in range(40)]
        for k in range(10):
            names = rng.sample(pool, rng.randrange(1, 15))
            edges = [(rng.choice(names), rng.choice(names)) for _ in range(rng.randrange(2 * len(names)))]
            p = payload(names, edges)
            back = consumer.decode(gcf.encode_with_session(p, producer))
            msg = f"seed {seed}, round {round_}, payload {k}"
            assert by_name(back) == by_name(p), msg
            assert sorted((e.source, e.target) for e in back.edges) == sorted(edges), msg


def test_one_decoder_shared_by_threads() -> None:
    producer = Session()
    texts = [gcf.encode_with_session(payload([f"a.S{i}"]), producer) for i in range(200)]
    consumer = SessionDecoder()
    consumer.decode(texts[0])
    errors = []

    def run(chunk):
        try:
            for t in chunk:
                consumer.decode(t)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(texts[1 + i :: 4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert consumer.size() == 200
