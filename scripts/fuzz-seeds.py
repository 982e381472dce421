#!/usr/bin/env python3
"""Builds the fuzz seed corpora from ../shared/conformance (never copied into
the repository): every fixture's GCF text (`input`, `expected` when it is
text, generic encode outputs) goes to the targets that read text, and its
JSON to the C ABI target. The constant-column and value-group seeds come
from the encoder instead (core/tests/constant_group_seeds.rs, which fuzz.sh
runs). Usage: fuzz-seeds.py CONFORMANCE_DIR CORPUS_DIR."""
import hashlib
import json
import os
import sys

src, dst = sys.argv[1], sys.argv[2]
TEXT_TARGETS = ["graph_decode", "generic_decode", "deltas", "c_abi", "constants_groups"]
ALL_TARGETS = TEXT_TARGETS + ["stream_writers", "roundtrip_generic", "roundtrip_graph", "js_packed"]
for t in ALL_TARGETS:
    os.makedirs(os.path.join(dst, t), exist_ok=True)


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(dst, target, name), "wb") as f:
        f.write(data)


def packed(value):
    """A fixture value in the JS layer's packed form, laid out as the
    js_packed target reads it (bindings-js/layer/packed_value.mjs writes
    the same streams; numbers, and each string's length in UTF-16 units
    where the string is read, become the target's one-byte codes)."""
    ops, text, nums, shapes = bytearray(), [], bytearray(), {}

    def code(n):
        # The target reads byte b (below 200) as b - 20; 201 is 0.5, which
        # no length or small integer is.
        return n + 20 if -20 <= n < 180 else 201

    def string(x):
        text.append(x)
        nums.append(code(len(x.encode("utf-16-le", "surrogatepass")) // 2))

    def walk(v, depth):
        if v is None:
            ops.extend(b"n")
        elif isinstance(v, bool):
            ops.extend(b"t" if v else b"f")
        elif isinstance(v, (int, float)):
            ops.extend(b"d")
            nums.append(code(int(v)) if float(v).is_integer() else 201)
        elif isinstance(v, str):
            ops.extend(b"s")
            string(v)
        elif isinstance(v, list):
            ops.extend(b"[")
            for x in v:
                walk(x, depth + 1)
            ops.extend(b".")
        elif isinstance(v, dict):
            at = len(ops)
            ops.extend(b"(")
            for x in v.values():
                walk(x, depth + 1)
            ops.extend(b".")
            keys = list(v.keys())
            if shapes.get(depth) != keys:
                ops[at] = ord("{")
                for k in keys:
                    string(k)
                shapes[depth] = keys

    walk(value, 0)
    t = "".join(text).encode("utf-8", "surrogatepass")
    if len(ops) > 0xFFFF or len(t) > 0xFFFF:
        return None
    return len(ops).to_bytes(2, "little") + len(t).to_bytes(2, "little") + bytes(ops) + t + bytes(nums)


count = 0
for root, _, files in os.walk(src):
    for fn in sorted(files):
        if not fn.endswith(".json"):
            continue
        try:
            with open(os.path.join(root, fn), encoding="utf-8") as f:
                fixture = json.load(f)
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(fixture, dict):
            continue
        texts = [v for k, v in fixture.items() if isinstance(v, str) and v.startswith("GCF")]
        for k in ("expected", "output", "expectedOutput"):
            v = fixture.get(k)
            if isinstance(v, str) and v.startswith("GCF"):
                texts.append(v)
        for t in texts:
            for target in TEXT_TARGETS:
                put(target, t)
            count += 1
        for k in ("input", "expected"):
            v = fixture.get(k)
            if isinstance(v, (dict, list)):
                put("c_abi", json.dumps(v))
                seed = packed(v)
                if seed is not None:
                    put("js_packed", seed)
        # The structured targets read choices from bytes: the fixture's raw
        # bytes are as good a start as any.
        raw = json.dumps(fixture).encode()[:512]
        for target in ("stream_writers", "roundtrip_generic", "roundtrip_graph"):
            put(target, raw)
        # Its structured half: an even first byte.
        put("constants_groups", b"\x00" + raw)
print(f"seeded {count} GCF texts from {src} into {dst}")
