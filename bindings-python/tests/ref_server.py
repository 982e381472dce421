"""The reference side of the differential test, run by gcf-python 2.8.0's
interpreter (its own venv: both packages import as ``gcf``).

Reads one JSON array of requests per line on stdin and writes one JSON array
of answers per line: ``{"ok": result}`` or ``{"err": "message"}``.
"""

from __future__ import annotations

import dataclasses
import io
import json
import sys

import gcf


def payload(d):
    return gcf.Payload(
        tool=d["tool"],
        tokens_used=d["tokens_used"],
        token_budget=d["token_budget"],
        pack_root=d["pack_root"],
        symbols=[gcf.Symbol(**s) for s in d["symbols"]],
        edges=[gcf.Edge(**e) for e in d["edges"]],
    )


def delta_session(base, tool, fixed_n, updates):
    """A GenericDeltaSession over `updates` (keyed sets as dicts): per turn
    `[wire, is_full, turn]`, or `[None, error class, turn]` for a failed one."""
    from gcf.generic_delta import GenericDeltaSession, GenericSet, fixed_n as fixed, size_guard

    policy = fixed(fixed_n) if fixed_n is not None else size_guard()
    session = GenericDeltaSession(GenericSet(**base), tool, policy)
    out = [session.current_full()]
    for u in updates:
        try:
            wire, full = session.next(GenericSet(**u))
            out.append([wire, full, session.turn])
        except Exception as e:  # noqa: BLE001 - a failed turn is an answer
            out.append([None, type(e).__name__, session.turn])
    return out


def keyed_sets(base, nxt, tool):
    """The generic-delta functions on two keyed sets given as dicts: the
    full payload and what it decodes to, the delta and what it decodes to."""
    from gcf.generic_delta import GenericSet

    def attempt(f):
        try:
            v = f()
        except Exception as e:  # noqa: BLE001 - a refusal is an answer
            # Its category: the message's prefix.
            return {"err": str(e).split(":", 1)[0]}
        return {"ok": v}

    b, n = GenericSet(**base), GenericSet(**nxt)
    full = gcf.encode_generic_full(b, tool)
    s, root = gcf.decode_generic_full(full)
    d = gcf.diff_generic_sets(b, n)
    wire = gcf.encode_generic_delta(d)
    back = dataclasses.asdict(gcf.decode_generic_delta(wire))
    applied = attempt(lambda: gcf.generic_pack_root(gcf.verify_generic_delta(b, gcf.decode_generic_delta(wire), d.new_root)))
    return [gcf.generic_pack_root(b), full, dataclasses.asdict(s), root, wire, back, applied]


def answer(req):
    op, args = req["op"], req["args"]
    if op == "encode_generic":
        return gcf.encode_generic(args[0])
    if op == "encode_generic_no_flatten":
        return gcf.encode_generic(args[0], gcf.GenericOptions(no_flatten=True))
    if op == "stream":
        # A graph stream: args[0] are the StreamEncoder keywords, args[1] a payload.
        out = io.StringIO()
        p = payload(args[1])
        enc = gcf.StreamEncoder(out, p.tool, **args[0])
        for sym in p.symbols:
            enc.write_symbol(sym)
        for e in p.edges:
            enc.write_edge(e)
        enc.close()
        return out.getvalue()
    if op == "stream_bare":
        # A graph stream where args[2][i] sends symbol i as a bare reference.
        out = io.StringIO()
        p = payload(args[1])
        enc = gcf.StreamEncoder(out, p.tool, **args[0])
        for sym, bare in zip(p.symbols, args[2]):
            if bare:
                enc.write_bare_ref(sym.qualified_name, sym.distance)
            else:
                enc.write_symbol(sym)
        for e in p.edges:
            enc.write_edge(e)
        enc.close()
        return out.getvalue()
    if op == "encode_generic_grouped":
        return gcf.encode_generic_grouped(*args)
    if op == "decode_generic":
        return gcf.decode_generic(args[0])
    if op == "encode":
        return gcf.encode(payload(args[0]))
    if op == "decode":
        return dataclasses.asdict(gcf.decode(args[0]))
    if op == "generic_stream":
        # A GenericStreamEncoder driven by a list of [method, *args] calls.
        out = io.StringIO()
        enc = gcf.GenericStreamEncoder(out)
        for method, *call_args in args[0]:
            getattr(enc, method)(*call_args)
        enc.close()
        return out.getvalue()
    if op == "keyed_sets":
        return keyed_sets(*args)
    if op == "session":
        # One session over a run of payloads: each payload's text.
        sess = gcf.Session()
        return [gcf.encode_with_session(payload(d), sess) for d in args[0]]
    if op == "delta_session":
        return delta_session(*args)
    if op == "scalar":
        # A gcf.scalar helper: args[0] its name, the rest its arguments; the
        # row-cell sentinels answered by name.
        from gcf import scalar

        v = getattr(scalar, args[0])(*args[1:])
        if v is scalar.MISSING or v is scalar.ATTACHMENT:
            return "<" + ("MISSING" if v is scalar.MISSING else "ATTACHMENT") + ">"
        return v
    if op == "surface":
        from api_surface import surface

        return surface()
    if op == "pack_root":
        p = payload(args[0])
        return gcf.pack_root(p.symbols, p.edges)
    raise KeyError(op)


def main() -> None:
    for line in sys.stdin:
        out = []
        for req in json.loads(line):
            try:
                out.append({"ok": answer(req)})
            except Exception as e:  # noqa: BLE001 - every failure is an answer
                out.append({"err": f"{type(e).__name__}: {e}"})
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
