"""The reference-Python side of the interop tests: one long-lived process that
answers one JSON request per line on stdin with one JSON answer per line on
stdout, so a test pays the interpreter's start once, not once per value.

Requests (every answer is {"ok": true, ...} or {"ok": false, "error": "..."}):
  {"op": "version"}                                  -> {"version": "2.8.0"}
  {"op": "encode", "value": V, "opts": {...}}        -> {"text": T}  encode_generic(V, GenericOptions(**opts))
  {"op": "encode_grouped", "value": V, "key": K, "group": G}
                                                     -> {"text": T}  encode_generic_grouped(V, K, G)
  {"op": "decode", "text": T}                        -> {"value": V} decode_generic(T)
  {"op": "batch", "requests": [R, ...]}              -> {"answers": [A, ...]}  each R answered as alone,
                                                        so one line carries a value's every request
"""

import importlib.metadata
import json
import sys

import gcf


def answer(req):
    op = req.get("op")
    if op == "version":
        return {"version": importlib.metadata.version("gcf-python")}
    if op == "encode":
        opts = gcf.GenericOptions(**req.get("opts", {}))
        return {"text": gcf.encode_generic(req["value"], opts)}
    if op == "encode_grouped":
        return {"text": gcf.encode_generic_grouped(req["value"], req["key"], req["group"])}
    if op == "decode":
        return {"value": gcf.decode_generic(req["text"])}
    if op == "batch":
        return {"answers": [answer_safely(r) for r in req["requests"]]}
    raise ValueError(f"unknown op {op!r}")


def answer_safely(req):
    try:
        res = answer(req)
        res["ok"] = True
        return res
    except Exception as e:  # every failure is an answer, never a crash
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}


def main():
    out = sys.stdout
    for line in sys.stdin:
        try:
            res = answer_safely(json.loads(line))
            text = json.dumps(res, ensure_ascii=False, allow_nan=False)
        except Exception as e:  # an unreadable request or an unwritable answer
            text = json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}, ensure_ascii=False)
        out.write(text)
        out.write("\n")
        out.flush()


if __name__ == "__main__":
    main()
