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
ALL_TARGETS = TEXT_TARGETS + ["stream_writers", "roundtrip_generic", "roundtrip_graph"]
for t in ALL_TARGETS:
    os.makedirs(os.path.join(dst, t), exist_ok=True)


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(dst, target, name), "wb") as f:
        f.write(data)


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
        # The structured targets read choices from bytes: the fixture's raw
        # bytes are as good a start as any.
        raw = json.dumps(fixture).encode()[:512]
        for target in ("stream_writers", "roundtrip_generic", "roundtrip_graph"):
            put(target, raw)
        # Its structured half: an even first byte.
        put("constants_groups", b"\x00" + raw)
print(f"seeded {count} GCF texts from {src} into {dst}")
