"""Differential test against gcf-python 2.8.0.

Both packages import as ``gcf``, so the reference runs in its own
interpreter (``GCF_REF_PYTHON``, set by scripts/test-python.sh) as one
long-lived process speaking JSON lines (ref_server.py). Every run draws
fresh seeded values (``GCF_DIFF_SEED`` reproduces one) and requires
byte-identical encodings and equal decodes.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import gcf

N_VALUES = int(os.environ.get("GCF_DIFF_VALUES", "10000"))
N_GRAPHS = int(os.environ.get("GCF_DIFF_GRAPHS", "10000"))
# A fixed seed in CI (CI set), so a run is reproducible; a fresh one per run
# elsewhere, so local runs keep exploring. GCF_DIFF_SEED picks one.
SEED = int(
    os.environ.get(
        "GCF_DIFF_SEED",
        "20261123" if os.environ.get("CI") else str(random.SystemRandom().randrange(2**32)),
    )
)
BATCH = 500


class Reference:
    """The gcf-python 2.8.0 process."""

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).with_name("ref_server.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            # Its own cwd, so it imports the installed 2.8.0, never a checkout.
            cwd="/",
        )

    def ask(self, requests: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(requests) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "reference process died"
        answers: List[Dict[str, Any]] = json.loads(line)
        assert len(answers) == len(requests)
        return answers

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def ref() -> Iterator[Reference]:
    python = os.environ.get("GCF_REF_PYTHON")
    if not python:
        pytest.fail("GCF_REF_PYTHON must name an interpreter with gcf-python 2.8.0 (scripts/ref-python.sh)")
    r = Reference(python)
    check = r.ask([{"op": "encode_generic", "args": [{"a": 1}]}])
    assert check == [{"ok": "GCF profile=generic\na=1\n"}]
    yield r
    r.close()


# ---------------------------------------------------------------- generators

PIECES = [
    "a", "Z", "q", "0", "7", " ", "|", ",", '"', "\\", "\n", "\t", "\r", "=", "@", "#", "-", "~", "{", "}",
    "[", "]", ":", ">", "^", ".", "é", "日本", "😀", "\u00a0", "\x01", "true", "null", "1.5", "1e5", "+",
]
TOKENS = ["", "-", "~", "true", "false", "null", "0", "01", "-1", "1.0", "1e3", "a b", " x", "x ", "@x", "#", "##"]
KEYS = ["id", "name", "type", "status", "a", "b", "c", "x y", "a>b", "@id", "key", "_key", "é", "1", "-", "#c",
        "a.b", "customer", "total", "tags", "meta", "", "k|k", "k,k", "k=v", "constructor", "prototype", "__proto__"]


def text(r: random.Random) -> str:
    if r.random() < 0.2:
        return r.choice(TOKENS)
    return "".join(r.choice(PIECES) for _ in range(r.randrange(0, 5)))


def number(r: random.Random) -> Any:
    c = r.randrange(10)
    if c == 0:
        return r.choice([0, 1, -1, 2**63 - 1, -(2**63), 2**53, 2**53 + 1, -(2**53) - 1, 10**15])
    if c < 4:
        return r.randrange(-1000, 100000)
    if c == 4:
        return r.choice([0.0, -0.0, 0.5, 1.0, 2.0**53, 2.0**63, 1e-6, 1e-7, 1e21, 1e300, 5e-324, 0.1, 1 / 3])
    if c == 5:
        return float(r.randrange(-100, 100))
    if c == 6:
        return r.uniform(-1, 1) * 10 ** r.randrange(-12, 25)
    return round(r.uniform(-1000, 1000), r.randrange(0, 4))


def scalar(r: random.Random) -> Any:
    c = r.randrange(8)
    if c == 0:
        return None
    if c == 1:
        return r.random() < 0.5
    if c < 4:
        return number(r)
    return text(r)


def record_set(r: random.Random, depth: int) -> List[Any]:
    fields = r.sample(KEYS, r.randrange(1, 6))
    constants = {f: scalar(r) for f in fields if r.random() < 0.3}
    nested = [f for f in fields if r.random() < 0.15]
    rows = []
    for i in range(r.randrange(1, 7)):
        row: Dict[str, Any] = {}
        for f in fields:
            if r.random() < 0.08:
                continue  # a missing cell
            if f in constants:
                row[f] = constants[f]
            elif f in nested and depth < 4:
                row[f] = {"x": scalar(r), "y": {"z": scalar(r)}} if r.random() < 0.8 else value(r, depth + 1)
            elif f == "id":
                row[f] = i if r.random() < 0.9 else scalar(r)
            else:
                row[f] = scalar(r) if r.random() < 0.9 else value(r, depth + 1)
        rows.append(row)
    return rows


def value(r: random.Random, depth: int = 0) -> Any:
    c = r.randrange(10) if depth < 4 else 0
    if c < 3:
        return scalar(r)
    if c < 5:
        return {r.choice(KEYS) + (str(r.randrange(3)) if r.random() < 0.3 else ""): value(r, depth + 1)
                for _ in range(r.randrange(0, 5))}
    if c < 7:
        return [value(r, depth + 1) for _ in range(r.randrange(0, 5))]
    if c < 9:
        return record_set(r, depth)
    # A keyed-map shape: an object of objects with one schema.
    inner = r.sample(KEYS[:8], r.randrange(1, 4))
    return {text(r) or "k": {f: scalar(r) for f in inner} for _ in range(r.randrange(1, 5))}


KINDS = ["function", "type", "method", "interface", "var", "const", "class", "package", "service",
         "route_handler", "external", "file", "field", "widget", "fn", "iface"]


def graph(r: random.Random) -> Dict[str, Any]:
    n = r.randrange(0, 12)
    names = [f"pkg{r.randrange(3)}.Sym{i}" + r.choice(["", ".Method", "_x", "é"]) for i in range(n)]
    symbols = [
        {
            "qualified_name": name,
            "kind": r.choice(KINDS),
            "score": r.choice([round(r.random(), r.randrange(1, 4)), 0.125, 0.375, 0.005, 1.0, 0.0, r.random(),
                               -0.5, 2.675, 99.999, 1e-9, 1e20]),
            "provenance": r.choice(["lsp", "lsp_resolved", "ast_inferred", "rwr"]),
            "distance": r.choice([0, 0, 1, 1, 2, 3, 7]),
            "signature": "",
            "components": {"blast_radius": 0.0, "confidence": 0.0, "recency": 0.0, "distance": 0.0},
        }
        for name in names
    ]
    edges = []
    pool = names + ["pkg.Unknown"]
    for _ in range(r.randrange(0, 2 * n + 1)):
        edges.append({
            "source": r.choice(pool),
            "target": r.choice(pool),
            "edge_type": r.choice(["calls", "imports", "implements", "references"]),
            "status": r.choice(["", "", "added", "removed", "unchanged", "renamed"]),
        })
    return {
        "tool": r.choice(["context_for_task", "search", "t", ""]),
        "tokens_used": r.choice([0, r.randrange(1, 10**6)]),
        "token_budget": r.choice([0, r.randrange(1, 10**6)]),
        "pack_root": r.choice(["", "", "sha256:abc"]),
        "symbols": symbols,
        "edges": edges,
    }


def native_payload(d: Dict[str, Any]) -> gcf.Payload:
    return gcf.Payload(
        tool=d["tool"], tokens_used=d["tokens_used"], token_budget=d["token_budget"], pack_root=d["pack_root"],
        symbols=[gcf.Symbol(**{k: v for k, v in s.items() if k != "components"}) for s in d["symbols"]],
        edges=[gcf.Edge(**e) for e in d["edges"]],
    )


# ---------------------------------------------------------------- comparison

def ours(call: Any) -> Dict[str, Any]:
    try:
        return {"ok": call()}
    except gcf.GcfError as e:
        return {"err": f"{e.category}"}


def same_outcome(mine: Dict[str, Any], theirs: Dict[str, Any]) -> bool:
    if "err" in mine or "err" in theirs:
        return "err" in mine and "err" in theirs
    return bool(mine["ok"] == theirs["ok"])


def has_path_name(v: Any) -> bool:
    if isinstance(v, dict):
        return any(">" in k or has_path_name(x) for k, x in v.items())
    if isinstance(v, list):
        return any(has_path_name(x) for x in v)
    return False


def header_paths(text: str) -> int:
    return sum(line.count(">") for line in text.split("\n") if line.lstrip().startswith("## "))


def has_small_double(v: Any) -> bool:
    if isinstance(v, float):
        return 0 < abs(v) < 1e-4 and "e" in repr(v)
    if isinstance(v, dict):
        return any(has_small_double(x) for x in v.values())
    if isinstance(v, list):
        return any(has_small_double(x) for x in v)
    return False


NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def past_double(token: str) -> bool:
    """A number literal beyond a double's range (`1e507`): refused here
    (`out_of_range`), read as infinity by 2.8.0 (README, "Where the spec and
    the references differ")."""
    return NUMBER.fullmatch(token) is not None and math.isinf(float(token))


def roundtrip_json(v: Any) -> Any:
    # What the reference receives: the value through JSON (exact ints, repr floats).
    return json.loads(json.dumps(v))


def ordered(v: Any) -> Any:
    """``v`` with every dict as its list of items: equal only in the same key order."""
    if isinstance(v, dict):
        return [(k, ordered(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [ordered(x) for x in v]
    return v


CLASSES = ["lossy", "reordered", "path_names", "null_inline", "flatten_choice", "small_doubles"]


def classify(v: Any, mine_text: str, theirs_text: str) -> str:
    """Why ours and 2.8.0's texts for ``v`` differ: one of CLASSES, where
    the core follows the spec and 2.8.0 does not (README, "Where the spec
    and the references differ"), or "" for an unexplained difference."""
    back = ours(lambda: gcf.decode_generic(theirs_text))
    # 2.8.0's text does not decode back to the value under the spec (rule 5
    # of section 7.4.6.2 reads an all-null path group as a null object,
    # which 2.8.0's own decoder does not).
    if back != {"ok": v}:
        return "lossy"
    # 2.8.0 flattens objects holding the same keys in different orders into
    # one set of path columns, so every row reads back in the first row's
    # order; section 7.4.6.1 rule 1 forbids it (and 7.4.6.3 asks for the key
    # order back). The core and the gcf 3.1.0 crate write attachments, which
    # keep each object's order: the two texts decode to the same members in
    # other orders. (Row keys themselves come back in column order from
    # either text: README, "A table writes every record's fields in its
    # column order".)
    if ordered(back["ok"]) != ordered(gcf.decode_generic(mine_text)):
        return "reordered"
    # The core leaves `f` unflattened when the same table has a literal
    # `f>...` key (gcf-core table.rs, keep_paths_apart).
    if has_path_name(v):
        return "path_names"
    # An inline schema for a field that is null in some row, which section
    # 7.4.5.1 rules out and 2.8.0 writes.
    if theirs_text.count("^{") > mine_text.count("^{"):
        return "null_inline"
    # 2.8.0 declines to flatten an object whose member has the object's own
    # name and holds null ({"k": {"x": {..}, "k": null}}); both texts
    # round-trip, the core flattens (section 7.4.6.1).
    if header_paths(mine_text) > header_paths(theirs_text):
        return "flatten_choice"
    # 2.8.0 writes doubles below 1e-4 with 20 decimals, not the shortest
    # round-trip form the spec asks for (section 2.3.1).
    if has_small_double(v):
        return "small_doubles"
    return ""


def compare_generic(ref: Reference, op: str, encode: Any, seed: int) -> None:
    """Byte-identical with 2.8.0's ``op`` except in the counted CLASSES;
    ours must round-trip every value."""
    r = random.Random(seed)
    failures: List[str] = []
    counts = {c: 0 for c in CLASSES}
    compared = 0
    for start in range(0, N_VALUES, BATCH):
        values = [roundtrip_json(value(r)) for _ in range(min(BATCH, N_VALUES - start))]
        theirs = ref.ask([{"op": op, "args": [v]} for v in values])
        texts = []
        for v, t in zip(values, theirs):
            mine = ours(lambda: encode(v))
            compared += 1
            if "ok" in mine:
                texts.append(mine["ok"])
                back = ours(lambda: gcf.decode_generic(mine["ok"]))
                if back != {"ok": v}:
                    failures.append(f"ours does not round-trip {v!r}: {mine['ok']!r} -> {back!r}")
            if same_outcome(mine, t):
                continue
            why = classify(v, mine["ok"], t["ok"]) if "ok" in mine and "ok" in t else ""
            if why:
                counts[why] += 1
            else:
                failures.append(f"{op}({v!r}): ours {mine!r}, 2.8.0 {t!r}")
        # Equal decode of the same text.
        decoded = ref.ask([{"op": "decode_generic", "args": [t]} for t in texts])
        for t, d in zip(texts, decoded):
            mine = ours(lambda: gcf.decode_generic(t))
            if not same_outcome(mine, d):
                failures.append(f"decode_generic({t!r}): ours {mine!r}, 2.8.0 {d!r}")
    assert compared == N_VALUES
    print(f"seed {seed}, {op}: {compared} values; " + ", ".join(f"{c}: {n}" for c, n in counts.items()))
    assert sum(counts.values()) < compared // 10
    assert counts["flatten_choice"] < compared // 1000
    assert not failures, f"seed {seed}: {len(failures)} differences, first: " + "\n".join(failures[:5])


def test_generic_values(ref: Reference) -> None:
    compare_generic(ref, "encode_generic", gcf.encode_generic, SEED)


def test_generic_values_no_flatten(ref: Reference) -> None:
    opts = gcf.GenericOptions(no_flatten=True)
    compare_generic(ref, "encode_generic_no_flatten", lambda v: gcf.encode_generic(v, opts), SEED + 2)


def test_rows_with_one_key_set_in_two_orders(ref: Reference) -> None:
    # Seed 2941204312's difference, kept as a fixed case: 2.8.0 flattens
    # (k>a, k>x y) and reads row 1 back as {"a": .., "x y": ..}; we write
    # attachments, which keep each row's order.
    v = [{"k": {"a": 1, "x y": None}}, {"k": {"x y": False, "a": "7"}}]
    mine = gcf.encode_generic(v)
    assert mine == ('GCF profile=generic\n## [2]{k}\n@0 ^\n.k {}\n    a=1\n    "x y"=-\n'
                    '@1 ^\n.k {}\n    "x y"=false\n    a="7"\n')
    assert ordered(gcf.decode_generic(mine)) == ordered(v)
    [theirs] = ref.ask([{"op": "encode_generic", "args": [v]}])
    assert '"k>a"' in theirs["ok"]
    assert classify(v, mine, theirs["ok"]) == "reordered"


def test_graph_payloads(ref: Reference) -> None:
    r = random.Random(SEED + 1)
    failures: List[str] = []
    cut_scores = 0
    compared = 0
    for start in range(0, N_GRAPHS, BATCH):
        graphs = [graph(r) for _ in range(min(BATCH, N_GRAPHS - start))]
        theirs = ref.ask([{"op": "encode", "args": [g]} for g in graphs])
        roots = ref.ask([{"op": "pack_root", "args": [g]} for g in graphs])
        texts = []
        for g, t, root in zip(graphs, theirs, roots):
            p = native_payload(g)
            mine = ours(lambda: gcf.encode(p))
            compared += 1
            if not same_outcome(mine, t):
                failures.append(f"encode({g!r}): ours {mine!r}, 2.8.0 {t!r}")
            if "ok" in mine:
                texts.append(mine["ok"])
            mine_root = ours(lambda: gcf.pack_root(p.symbols, p.edges))
            if not same_outcome(mine_root, root):
                if any(0 < abs(s.score) < 1e-4 and "e" in repr(s.score) for s in p.symbols):
                    # 2.8.0 writes such scores cut to 20 decimals in the
                    # canonical record; the core writes every digit.
                    cut_scores += 1
                    continue
                failures.append(f"pack_root({g!r}): ours {mine_root!r}, 2.8.0 {root!r}")
        decoded = ref.ask([{"op": "decode", "args": [t]} for t in texts])
        for t, d in zip(texts, decoded):
            mine = ours(lambda: dataclasses.asdict(gcf.decode(t)))
            if not same_outcome(mine, d):
                failures.append(f"decode({t!r}): ours {mine!r}, 2.8.0 {d!r}")
    assert compared == N_GRAPHS
    print(f"seed {SEED}: {compared} graphs; pack roots over scores 2.8.0 cuts: {cut_scores}")
    assert cut_scores < compared // 100
    assert not failures, f"seed {SEED}: {len(failures)} differences, first: " + "\n".join(failures[:5])



def test_stream_encoder_bare_refs(ref: Reference) -> None:
    """write_bare_ref, mixed with write_symbol over every distance group,
    writes 2.8.0's bytes; edges may name the references."""
    r = random.Random(SEED + 5)
    graphs = [graph(r) for _ in range(300)]
    for g in graphs:
        g["symbols"].sort(key=lambda s: s["distance"])
    bare = [[r.random() < 0.4 for _ in g["symbols"]] for g in graphs]
    options = [{"session": r.random() < 0.7, "labeled_trailer_counts": r.random() < 0.3} for _ in graphs]
    theirs = ref.ask([{"op": "stream_bare", "args": [o, g, b]} for o, g, b in zip(options, graphs, bare)])
    failures = []
    for o, g, b, t in zip(options, graphs, bare, theirs):
        p = native_payload(g)
        out = io.StringIO()
        enc = gcf.StreamEncoder(out, p.tool, **o)
        for s, is_bare in zip(p.symbols, b):
            if is_bare:
                enc.write_bare_ref(s.qualified_name, s.distance)
            else:
                enc.write_symbol(s)
        for e in p.edges:
            enc.write_edge(e)
        enc.close()
        if {"ok": out.getvalue()} != t:
            failures.append(f"stream_bare({o!r}, {g!r}, {b!r}): ours {out.getvalue()!r}, 2.8.0 {t!r}")
    assert not failures, f"{len(failures)} differences, first: " + "\n".join(failures[:3])
    assert sum(map(sum, bare)) > 0


def test_small_doubles_keep_every_digit() -> None:
    # Where 2.8.0 cuts digits (below 1e-4 it formats with 20 decimals), the
    # core writes the shortest exact decimal, so the value round-trips.
    for f in [1.9656092333009134e-05, -1.7773149948677381e-06, 1.5e-05]:
        text = gcf.encode_generic({"v": f})
        assert gcf.decode_generic(text) == {"v": f}, text


def test_stream_encoder_options(ref: Reference) -> None:
    """StreamEncoder with 2.8.0's header options (pack_root=, session=True)
    writes 2.8.0's bytes."""
    r = random.Random(SEED + 3)
    graphs = [graph(r) for _ in range(300)]
    # Symbols by distance, as a breadth-first producer writes them: with a
    # distance group interrupted and resumed, 2.8.0's trailer counts each
    # group once (summed), the core once per header (section 8.4 counts
    # "per non-empty group in group-header order" and does not say).
    for g in graphs:
        g["symbols"].sort(key=lambda s: s["distance"])
    options = [
        {"pack_root": r.choice(["", "sha256:" + "ab" * 32]), "session": r.random() < 0.5,
         "token_budget": r.choice([0, 5000]), "tokens_used": r.choice([0, 120]),
         "labeled_trailer_counts": r.random() < 0.3}
        for _ in graphs
    ]
    theirs = ref.ask([{"op": "stream", "args": [o, g]} for o, g in zip(options, graphs)])
    failures = []
    for o, g, t in zip(options, graphs, theirs):
        p = native_payload(g)
        out = io.StringIO()
        enc = gcf.StreamEncoder(out, p.tool, **o)
        for s in p.symbols:
            enc.write_symbol(s)
        for e in p.edges:
            enc.write_edge(e)
        enc.close()
        if {"ok": out.getvalue()} != t:
            failures.append(f"stream({o!r}, {g!r}): ours {out.getvalue()!r}, 2.8.0 {t!r}")
    assert not failures, f"{len(failures)} differences, first: " + "\n".join(failures[:3])
    assert any(o["pack_root"] and o["session"] for o in options)


def delta_session_runs(r: random.Random, runs: int) -> List[List[Any]]:
    """Random runs of a generic delta session: rows renamed, added and
    removed, the schema widened and narrowed (a full payload the cadence did
    not ask for), and now and then an update both refuse (a repeated key)."""
    calls = []
    for run in range(runs):
        fixed = [1, 2, 3, 5, None][run % 5]
        rows = [{"id": i, "name": f"n{i}", "city": r.choice(["Oslo", "Lima"])} for i in range(1, 2 + r.randrange(10))]
        wide = False
        next_id = 100

        def keyed(rows: List[Dict[str, Any]], wide: bool) -> Dict[str, Any]:
            fields = ["id", "name", "city"] + (["note"] if wide else [])
            return {"key": "id", "fields": fields, "name": "users",
                    "rows": [dict(row, note="x") if wide else dict(row) for row in rows]}

        base = keyed(rows, wide)
        updates = []
        for turn in range(12):
            widened = False
            step = r.randrange(6)
            if step == 0:
                rows.append({"id": next_id, "name": "new", "city": "Oslo"})
                next_id += 1
            elif step == 1 and len(rows) > 1:
                rows.pop(r.randrange(len(rows)))
            elif step == 2:
                wide, widened = not wide, True
            else:
                rows[r.randrange(len(rows))]["name"] = f"n{run}.{turn}"
            sent = list(rows)
            # Not with a schema change: 2.8.0 then writes a full payload
            # whose identities repeat, which §10a.1 has every decoder reject
            # and which is refused here (README, "Where the spec and the
            # references differ").
            if not widened and r.random() < 0.08:
                sent.append(dict(rows[0]))
            elif not widened and r.random() < 0.05:
                # A value both refuse (out_of_range), in a set the native
                # session cannot even read: still a turn. (Not with a schema
                # change: the held set would keep the old schema, and the next
                # turn's repeated key would reach the case above.)
                sent[0] = dict(sent[0], name=2**64)
            updates.append(keyed(sent, wide))
        calls.append([base, "t", fixed, updates])
    return calls


def our_delta_session(base: Dict[str, Any], tool: str, fixed_n: Any, updates: List[Dict[str, Any]]) -> List[Any]:
    from gcf.generic_delta import GenericSet, fixed_n as fixed, size_guard

    policy = fixed(fixed_n) if fixed_n is not None else size_guard()
    session = gcf.GenericDeltaSession(GenericSet(**base), tool, policy)
    out: List[Any] = [session.current_full()]
    for u in updates:
        try:
            wire, full = session.next(GenericSet(**u))
            out.append([wire, full, session.turn])
        except ValueError as e:
            out.append([None, type(e).__name__, session.turn])
    return out


def test_generic_delta_sessions(ref: Reference) -> None:
    # Both re-anchor on turns n, 2n, ... counted from the start (a schema
    # change's full payload does not restart the count) and count a failed
    # turn; the native session once restarted the count at every full payload.
    r = random.Random(0x5E551)
    calls = delta_session_runs(r, int(os.environ.get("GCF_DIFF_SESSIONS", "200")))
    answers = ref.ask([{"op": "delta_session", "args": c} for c in calls])
    failed = fulls = 0
    for c, theirs in zip(calls, answers):
        mine = our_delta_session(*c)
        assert "ok" in theirs, theirs
        for turn, (a, b) in enumerate(zip(mine, theirs["ok"])):
            if turn == 0 or a[0] is not None:
                assert a == b, f"{c[2]=} turn {turn}:\n{a}\n{b}"
                fulls += turn > 0 and a[1]
            else:
                # 2.8.0 raises ValueError, ours GcfError (a ValueError).
                assert b[0] is None and b[1] == "ValueError" and a[2] == b[2], (a, b)
                failed += 1
    assert failed > 0 and fulls > 0


def session_runs(r: random.Random, runs: int, emission_order: bool) -> List[List[Dict[str, Any]]]:
    """Runs of graph payloads for one session each: new symbols and ones
    delivered before (bare references), names that keep their kind (§9.1
    identifies a symbol by kind and name, 2.8.0 by name alone), edges among
    known symbols in any order (2.8.0 drops an unknown one's line but counts
    it in its header). With `emission_order`, each payload lists its symbols
    as they are written (distance, then descending score)."""
    out = []
    for run in range(runs):
        delivered: List[Dict[str, Any]] = []
        calls = []
        for call in range(4):
            d = graph(r)
            renamed = {}
            for i, s in enumerate(d["symbols"]):
                renamed[s["qualified_name"]] = s["qualified_name"] = f"{s['qualified_name']}.r{run}c{call}i{i}"
            fresh = list(d["symbols"])
            d["edges"] = [dict(e, source=renamed[e["source"]], target=renamed[e["target"]])
                          for e in d["edges"] if e["source"] in renamed and e["target"] in renamed]
            for s in delivered:
                if r.random() < 0.3:
                    d["symbols"].append(dict(s, score=r.choice([0.5, 0.125, r.random()]), distance=r.randrange(3)))
            if emission_order:
                d["symbols"].sort(key=lambda s: (s["distance"], -s["score"]))
            else:
                r.shuffle(d["symbols"])
            names = [s["qualified_name"] for s in d["symbols"]]
            for _ in range(r.randrange(0, 4)) if names else ():
                d["edges"].append({"source": r.choice(names), "target": r.choice(names), "edge_type": "calls", "status": ""})
            r.shuffle(d["edges"])
            calls.append(d)
            delivered.extend(fresh)
        out.append(calls)
    return out


def our_session(calls: List[Dict[str, Any]]) -> List[str]:
    sess = gcf.Session()
    return [gcf.encode_with_session(native_payload(d), sess) for d in calls]


def test_sessions(ref: Reference) -> None:
    # Every payload of a session byte for byte: new ids in the payload's
    # order, edges in the payload's order, `session=true` before `pack_root=`
    # (the native session once numbered symbols in emission order, sorted the
    # edges and wrote the pack root first).
    r = random.Random(0x5E55)
    runs = session_runs(r, int(os.environ.get("GCF_DIFF_SESSIONS", "200")), emission_order=True)
    answers = ref.ask([{"op": "session", "args": [calls]} for calls in runs])
    bare = 0
    for calls, theirs in zip(runs, answers):
        mine = our_session(calls)
        assert {"ok": mine} == theirs
        bare += sum(t.count("# previously transmitted") for t in mine)
    assert bare > 50


def test_sessions_of_unordered_symbols(ref: Reference) -> None:
    # Symbols in any order: the first payload of each session is 2.8.0's
    # byte for byte (written in emission order, ids in the payload's). 2.8.0
    # then records the new symbols' ids in emission order, not the ids it
    # wrote, so its later bare references can name other symbols
    # (`@0  # previously transmitted` for what it declared as `@1`); ours
    # keep the ids they declared, which the session decoder checks here.
    r = random.Random(0x5E56)
    runs = session_runs(r, int(os.environ.get("GCF_DIFF_SESSIONS", "200")), emission_order=False)
    answers = ref.ask([{"op": "session", "args": [calls]} for calls in runs])
    for calls, theirs in zip(runs, answers):
        mine = our_session(calls)
        assert mine[0] == theirs["ok"][0]
        decoder = gcf.SessionDecoder()
        for d, text in zip(calls, mine):
            back = decoder.decode(text)
            assert sorted(s.qualified_name for s in back.symbols) == sorted({s["qualified_name"] for s in d["symbols"]})


def keyed_set(r: random.Random, ids: List[int], fields: List[str], name: str) -> Dict[str, Any]:
    rows = []
    for i in ids:
        row: Dict[str, Any] = {"id": i}
        for f in fields[1:]:
            # A declared field a row lacks: written `-`, as 2.8.0 writes it.
            if r.random() < 0.85:
                row[f] = r.choice([None, True, False, 0, -3, 2.5, 1e-7, "", "-", "1", "a|b", "x y", "é", '"q"'])
        rows.append(row)
    return {"key": "id", "fields": fields, "rows": rows, "name": name}


def our_keyed_sets(base: Dict[str, Any], nxt: Dict[str, Any], tool: str) -> List[Any]:
    import dataclasses

    from gcf.generic_delta import GenericSet

    b, n = GenericSet(**base), GenericSet(**nxt)
    full = gcf.encode_generic_full(b, tool)
    s, root = gcf.decode_generic_full(full)
    d = gcf.diff_generic_sets(b, n)
    wire = gcf.encode_generic_delta(d)
    back = dataclasses.asdict(gcf.decode_generic_delta(wire))
    try:
        applied: Dict[str, Any] = {
            "ok": gcf.generic_pack_root(gcf.verify_generic_delta(b, gcf.decode_generic_delta(wire), d.new_root))
        }
    except ValueError as e:
        applied = {"err": str(e).split(":", 1)[0]}
    return [gcf.generic_pack_root(b), full, dataclasses.asdict(s), root, wire, back, applied]


def test_keyed_sets(ref: Reference) -> None:
    # Pack roots, full payloads and their decode (fields from the
    # declaration), diffs, delta wires and their decode, verified apply:
    # 2.8.0's, rows lacking declared fields included (once written `~`).
    r = random.Random(0x4E75)
    calls = []
    for _ in range(int(os.environ.get("GCF_DIFF_SETS", "500"))):
        fields = ["id"] + r.sample(["v", "w", "name", "k"], r.randrange(0, 4))
        ids = r.sample(range(30), r.randrange(0, 8))
        nxt_ids = [i for i in ids if r.random() < 0.7] + r.sample(range(30, 40), r.randrange(0, 3))
        name = r.choice(["rows", "t", "users"])
        calls.append([keyed_set(r, ids, fields, name), keyed_set(r, nxt_ids, fields, name), r.choice(["", "tool"])])
    answers = ref.ask([{"op": "keyed_sets", "args": c} for c in calls])
    lacking = 0
    for c, theirs in zip(calls, answers):
        mine = our_keyed_sets(*c)
        # A refused apply compares by category (`delta_invalid`, ...), as
        # callers match on it; the messages' wording differs.
        assert {"ok": mine} == theirs, c
        lacking += any(len(row) < len(c[0]["fields"]) for row in c[0]["rows"])
    assert lacking > 50


def stream_calls(r: random.Random) -> List[List[Any]]:
    """A GenericStreamEncoder's calls as servers make them: key=value lines
    and inline arrays first, then tables and keyed maps, some after a
    section line. Left out, as what 2.8.0 writes for them no decoder reads
    back (README): a line after a table in the same object with no section
    line between them, a key label that
    is also a value field, a keyed map's null or boolean key (refused here;
    number keys are written bare, as 2.8.0 writes them); and an empty inline
    array (2.8.0 writes `name[0]: ` with a trailing space, this package
    `## name [0]` as its buffered encoder does)."""
    values = [None, True, False, 0, -7, 2.5, 1e-7, 1e21, "", "-", "~", "^", "1", "a|b", "a,b", "x y", "é", '"q"', "true", "#c"]
    calls: List[List[Any]] = []
    for i in range(r.randrange(0, 3)):
        calls.append(["write_kv", f"k{i}", r.choice(values)])
    for i in range(r.randrange(0, 2)):
        calls.append(["write_inline_array", f"a{i}", [r.choice(values) for _ in range(r.randrange(1, 4))]])
    for t in range(r.randrange(0, 4)):
        if r.random() < 0.4:
            calls.append(["write_section", f"s{t}"])
            # After a section line, as after no table (2.8.0's own
            # test_write_section writes one after a table and a section).
            if r.random() < 0.5:
                calls.append(["write_kv", f"after{t}", r.choice(values)])
        fields = r.sample(["id", "name", "v", "x y"], r.randrange(1, 4))
        if r.random() < 0.3:
            label = r.choice(["key", "k", "_id"])
            calls.append(["begin_keyed_map", f"m{t}", label, fields])
            for j in range(r.randrange(0, 4)):
                # Keys as servers have them: names, and numeric ids (an
                # integral float too, which both write as the integer).
                key = r.choice([f"m{j}", j, 1000 + j, j + 0.5, float(j + 7), -j - 1])
                calls.append(["write_row", [key] + [r.choice(values) for _ in fields]])
        else:
            calls.append(["begin_array", f"t{t}", fields])
            for _ in range(r.randrange(0, 5)):
                calls.append(["write_row", [r.choice(values) for _ in fields]])
        if r.random() < 0.7:
            calls.append(["end_array"])
    return calls


def test_generic_streams(ref: Reference) -> None:
    # Byte for byte (a section line no longer indents what follows, a stream
    # with no table has no trailer, a keyed map keeps its caller's key label:
    # each once differed from 2.8.0).
    import io

    r = random.Random(0x57E4)
    runs = [stream_calls(r) for _ in range(int(os.environ.get("GCF_DIFF_STREAMS", "500")))]
    answers = ref.ask([{"op": "generic_stream", "args": [calls]} for calls in runs])
    sections = 0
    for calls, theirs in zip(runs, answers):
        out = io.StringIO()
        enc = gcf.GenericStreamEncoder(out)
        for method, *args in calls:
            getattr(enc, method)(*args)
        enc.close()
        assert {"ok": out.getvalue()} == theirs, calls
        sections += any(c[0] == "write_section" for c in calls)
    assert sections > 50


def test_the_console_scripts_stats(ref: Reference) -> None:
    # `gcf stats` prints 2.8.0's report, bars and wording included (it once
    # printed its own), so scripts reading it keep working.
    import json
    import sys

    r = random.Random(0x57A7)
    python = os.environ["GCF_REF_PYTHON"]
    for i in range(10):
        d = graph(r)
        text = json.dumps({
            "tool": d["tool"], "tokenBudget": d["token_budget"], "tokensUsed": d["tokens_used"],
            "symbols": [{"qualifiedName": s["qualified_name"], "kind": s["kind"], "score": s["score"],
                         "provenance": s["provenance"], "distance": s["distance"]} for s in d["symbols"]],
            "edges": [{"source": e["source"], "target": e["target"], "edgeType": e["edge_type"]} for e in d["edges"]],
        }, indent=2 if i % 2 else None)
        mine, theirs = (
            subprocess.run([py, "-m", "gcf", "stats"], input=text, capture_output=True, text=True, cwd="/")
            for py in (sys.executable, python)
        )
        assert (mine.returncode, mine.stdout) == (theirs.returncode, theirs.stdout), text
        assert "Savings: " in mine.stdout


def test_scalar_helpers(ref: Reference) -> None:
    """gcf.scalar's helpers against 2.8.0's on random strings and scalars:
    the same text, the same values, or both refusing. Where 2.8.0 reads a
    token otherwise than the spec (whitespace around it, an inline schema
    marker, a number past a double's range), the README says so and this
    test leaves the token out."""
    from gcf import scalar as ours_scalar

    r = random.Random(SEED ^ 0x5CA1A5)
    calls: List[List[Any]] = []
    for _ in range(N_VALUES // 5):
        s = text(r)
        calls += [["needs_quote", s], ["quote_string", s], ["format_key", s], ["is_bare_key", s],
                  ["format_scalar", s], ["format_scalar", s, r.choice(["|", ",", "=", ":", "ab"])]]
        if s == s.strip(" \t") and not (s.startswith("^{") and s.endswith("}")) and not past_double(s):
            calls += [["parse_scalar", s], ["parse_scalar", s, True]]
        calls += [["parse_scalar", ours_scalar.quote_string(s)], ["parse_quoted_string", ours_scalar.quote_string(s)]]
        # 2.8.0 drops digits of some small doubles (README; has_small_double).
        v = scalar(r)
        if not has_small_double(v):
            calls.append(["format_scalar", v])
        x = float(number(r))
        if not has_small_double(x):
            calls.append(["format_number", x])
    checked = 0
    for start in range(0, len(calls), BATCH):
        batch = calls[start : start + BATCH]
        theirs = ref.ask([{"op": "scalar", "args": c} for c in batch])
        for call, t in zip(batch, theirs):
            name, *args = call
            try:
                got = getattr(ours_scalar, name)(*args)
                mine: Dict[str, Any] = {"ok": got}
                if got is ours_scalar.MISSING or got is ours_scalar.ATTACHMENT:
                    mine = {"ok": "<" + ("MISSING" if got is ours_scalar.MISSING else "ATTACHMENT") + ">"}
            except gcf.GcfError as e:
                mine = {"err": e.category}
            if "err" in t:
                # 2.8.0 raises ValueError("category: detail") (or a bare category).
                assert "err" in mine, (call, mine, t)
                category = t["err"].split(": ", 1)[1].split(":", 1)[0] if ": " in t["err"] else t["err"]
                # A token with two faults (an unterminated quote holding a
                # raw control character) may be reported by either.
                assert mine["err"] == category or name.startswith("parse_"), (call, mine, t)
            else:
                assert mine == t, (call, mine, t)
                assert type(mine["ok"]) is type(t["ok"]), (call, mine, t)
            checked += 1
    assert checked == len(calls)


# 2.8.0 names not provided here (README, "Python"): its splitters of rows and
# field declarations read a quote inside a token otherwise than the spec, and
# the rest are steps of its encoder and decoder.
NOT_PROVIDED = {
    "gcf.constant_grouping": {"FieldEntry", "decode_constant_array", "decode_grouped_array", "format_const_value",
                              "parse_const_value", "parse_field_entries", "split_respecting_quotes"},
    "gcf.decode_generic": {"decode_constant_array", "decode_grouped_array", "keyed_rows_to_map",
                           "parse_field_entries", "split_field_decl", "split_respecting_quotes"},
    "gcf.generic": {"format_const_value", "keyed_map_eligible"},
    "gcf.generic_delta": {"split_respecting_quotes"},
    "gcf.keyed_map": {"keyed_map_eligible", "keyed_rows_to_map"},
    "gcf.scalar": {"split_field_decl", "split_respecting_quotes"},
}


def test_public_surface_is_2_8_0s(ref: Reference) -> None:
    """Every public name of every gcf-python 2.8.0 module imports from the
    same module here, as the same kind of thing, with its parameters (same
    names, kinds and order, defaults where 2.8.0 has them; more only with
    defaults), and every public method of its classes likewise, but for the
    names listed as not provided."""
    from api_surface import surface

    [answer] = ref.ask([{"op": "surface", "args": []}])
    theirs: Dict[str, Dict[str, Any]] = answer["ok"]
    ours = surface()

    def fit(mine: Any, their: Any, where: str) -> List[str]:
        if mine is None or their is None:
            return []
        problems = []
        for i, (name, kind, has_default) in enumerate(their):
            if i >= len(mine) or mine[i][:2] != [name, kind]:
                problems.append(f"{where}: parameter {i} is {name} ({kind}) in 2.8.0, here {mine[i] if i < len(mine) else None}")
            elif has_default and not mine[i][2]:
                problems.append(f"{where}: {name} has no default here")
        problems += [f"{where}: extra parameter {n} without a default" for n, k, d in mine[len(their):]
                     if not d and k not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
        return problems

    problems: List[str] = []
    missing: Dict[str, set] = {}
    for module, names in theirs.items():
        for name, what in names.items():
            mine = ours.get(module, {}).get(name)
            if mine is None:
                missing.setdefault(module, set()).add(name)
                continue
            where = f"{module}.{name}"
            if mine[0] != what[0]:
                problems.append(f"{where}: a {what[0]} in 2.8.0, a {mine[0]} here")
                continue
            if what[0] in ("function", "class"):
                problems += fit(mine[1], what[1], where)
            if what[0] == "class":
                for member, m in what[2].items():
                    ours_m = mine[2].get(member)
                    if ours_m is None:
                        problems.append(f"{where}.{member}: missing")
                    elif ours_m[0] != m[0]:
                        problems.append(f"{where}.{member}: a {m[0]} in 2.8.0, a {ours_m[0]} here")
                    elif m[0] == "method":
                        problems += fit(ours_m[1], m[1], f"{where}.{member}")
    assert missing == NOT_PROVIDED
    assert problems == []


def test_a_number_past_a_doubles_range_is_refused_where_2_8_0_reads_infinity(ref: Reference) -> None:
    # The difference the scalar test leaves out, held here both ways.
    from gcf import scalar as ours_scalar

    for token in ["1e507", "-1e400", "9e999", "1.5e309"]:
        assert past_double(token)
        with pytest.raises(gcf.GcfError) as e:
            ours_scalar.parse_scalar(token)
        assert e.value.category == "out_of_range"
        with pytest.raises(gcf.GcfError):
            gcf.decode_generic(f"GCF profile=generic\nx={token}\n")
        (theirs,) = ref.ask([{"op": "scalar", "args": ["parse_scalar", token]}])
        assert theirs == {"ok": math.inf if token[0] != "-" else -math.inf}, theirs
    assert not past_double("1e308") and not past_double("1e-400") and not past_double("1e5x")
