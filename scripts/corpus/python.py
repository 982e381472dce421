"""Generic encode of real JSON files: this package against gcf-python 2.8.0;
and graph encode of the graph payloads among them (those of
``scripts/corpus/code_graphs.py``).

Both import as ``gcf``, so each encodes in its own interpreter and the texts
are compared afterwards (run by ``scripts/corpus-diff.sh``)::

    <python> scripts/corpus/python.py encode <listing> <out.jsonl>   # in each venv
    python3 scripts/corpus/python.py compare <ours.jsonl> <2.8.0.jsonl>

``encode`` writes, for each distinct file that parses as JSON, the text of
``encode_generic`` with the default options and with ``no_flatten`` (or the
error's category) and the JSON of ``decode_generic`` of that text; for a
graph payload, also the text of ``encode`` and the decoded payload.
``compare`` requires byte-identical texts, equal decodes of identical texts,
and mutual refusals with the same category; differences the README lists are
counted by class, anything else is printed and fails the run.
"""

import hashlib
import json
import re
import sys
from collections import Counter

OPTIONS = (("default", {}), ("no_flatten", {"no_flatten": True}))


def encode(listing, out_path):
    import gcf

    seen = set()
    with open(out_path, "w", encoding="utf-8") as out:
        for path in filter(None, open(listing, encoding="utf-8").read().split("\n")):
            try:
                text = open(path, encoding="utf-8").read()
                value = json.loads(text)
            except (OSError, ValueError):
                continue
            # Copies of one file count once; a digest keeps memory flat.
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
            if digest in seen:
                continue
            seen.add(digest)
            record = {"file": path}
            if isinstance(value, dict) and isinstance(value.get("symbols"), list):
                record["graph"] = graph(gcf, value)
            for name, kw in OPTIONS:
                try:
                    encoded = gcf.encode_generic(value, gcf.GenericOptions(**kw))
                except ValueError as e:
                    record[name] = {"refused": str(e).split(":", 1)[0]}
                    continue
                try:
                    decoded = json.dumps(gcf.decode_generic(encoded))
                except ValueError as e:
                    decoded = {"refused": str(e).split(":", 1)[0]}
                record[name] = {"text": encoded, "decoded": decoded}
            out.write(json.dumps(record) + "\n")


def graph(gcf, value):
    """The graph encode of a payload's JSON (camelCase, as every package
    reads it), and its decode as plain data."""
    import dataclasses

    from code_graphs import to_payload

    payload = to_payload(gcf, value)
    try:
        text = gcf.encode(payload)
    except ValueError as e:
        return {"refused": str(e).split(":", 1)[0]}
    try:
        decoded = json.dumps(dataclasses.asdict(gcf.decode(text)))
    except ValueError as e:
        decoded = {"refused": str(e).split(":", 1)[0]}
    return {"text": text, "decoded": decoded, "repeated": len({s.qualified_name for s in payload.symbols}) < len(payload.symbols)}


# JSON's number grammar only (`007` stays text).
DECIMAL = re.compile(r"(?<![0-9A-Za-z.+-])(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?![0-9A-Za-z.+-])")


def rounded_apart(ours, theirs):
    """True when the texts differ only in decimal numbers that name doubles
    within half a unit of the 15th significant digit: where 2.8.0
    rounds a double to 15-16 digits (a neighbouring double) or writes one
    below 1e-4 with 17 (listed in the README)."""
    a, b = DECIMAL.split(ours), DECIMAL.split(theirs)
    if len(a) != len(b):
        return False
    for i, (p, q) in enumerate(zip(a, b)):
        if p == q:
            continue
        if i % 2 == 0 or not any(c in p + q for c in ".eE"):
            return False
        x, y = float(p), float(q)
        if abs(x - y) > 1e-14 * max(abs(x), abs(y)):
            return False
    return True


def where(ours, theirs):
    """Where two different texts part, with the text around it in each."""
    at = next((i for i, (p, q) in enumerate(zip(ours, theirs)) if p != q), min(len(ours), len(theirs)))
    return f"at {at}\n  ours:  {ours[max(0, at - 100):at + 100]!r}\n  2.8.0: {theirs[max(0, at - 100):at + 100]!r}"


def compare(ours_path, ref_path):
    ours = [json.loads(line) for line in open(ours_path, encoding="utf-8")]
    ref = [json.loads(line) for line in open(ref_path, encoding="utf-8")]
    assert [r["file"] for r in ours] == [r["file"] for r in ref], "the listings differ"
    counts = Counter()
    unlisted = 0

    def report(path, name, detail):
        nonlocal unlisted
        unlisted += 1
        if unlisted <= 20:
            print(f"DIFF {name} {path}\n  {detail}")

    for a, b in zip(ours, ref):
        if "graph" in a:
            x, y = a["graph"], b["graph"]
            if "refused" in x or "refused" in y:
                report(a["file"], "graph", f"ours: {x.get('refused', 'encoded')}; 2.8.0: {y.get('refused', 'encoded')}")
            elif isinstance(x["decoded"], dict):
                report(a["file"], "graph", f"ours does not read its text back: {x['decoded']['refused']}")
            elif x["text"] == y["text"]:
                if x["decoded"] == y["decoded"]:
                    counts["graph: identical"] += 1
                else:
                    report(a["file"], "graph", "identical texts decode differently")
            elif x["repeated"]:
                # Listed: each copy of a repeated name gets its own id here;
                # 2.8.0 writes every copy with the last one's.
                counts["graph: a repeated name (an id per symbol here)"] += 1
            else:
                report(a["file"], "graph", where(x["text"], y["text"]))
        for name, _ in OPTIONS:
            x, y = a[name], b[name]
            if "refused" in x or "refused" in y:
                if x.get("refused") == y.get("refused"):
                    counts[f"{name}: both refused ({x['refused']})"] += 1
                else:
                    report(a["file"], name, f"ours: {x.get('refused', 'encoded')}; 2.8.0: {y.get('refused', 'encoded')}")
                continue
            if isinstance(x["decoded"], dict):
                report(a["file"], name, f"ours does not read its text back: {x['decoded']['refused']}")
            elif x["text"] == y["text"]:
                if x["decoded"] == y["decoded"]:
                    counts[f"{name}: identical"] += 1
                else:
                    report(a["file"], name, "identical texts decode differently")
            elif rounded_apart(x["text"], y["text"]):
                counts[f"{name}: 2.8.0 rounds doubles to 15-16 digits"] += 1
            else:
                report(a["file"], name, where(x["text"], y["text"]))
    graphs = sum("graph" in r for r in ours)
    print(f"{len(ours)} distinct JSON files, each encoded twice (default, no_flatten); the {graphs} graph payloads among them also as graphs:")
    for what, n in sorted(counts.items()):
        print(f"  {what}: {n}")
    if unlisted:
        print(f"{unlisted} unlisted differences")
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "encode":
        encode(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
