"""The ``gcf`` console script (also ``python -m gcf``): the commands of
gcf-python 2.8.0's CLI over the native codec."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Dict, List, NoReturn, Optional, Union

from ._errors import GcfError
from .decode import decode
from .decode_generic import decode_generic
from .encode import encode
from .generic import encode_generic
from .types import Edge, Payload, Symbol, _located

USAGE = """gcf - GCF (Graph Compact Format) for LLM tool responses

Usage:
  gcf encode          [file]  JSON graph payload -> GCF (stdin without a file)
  gcf decode          [file]  GCF graph text -> JSON
  gcf encode-generic  [file]  any JSON -> GCF generic profile
  gcf decode-generic  [file]  GCF text -> JSON
  gcf stats           [file]  JSON vs GCF size of a graph payload
  gcf version                 print the version
"""


def _fail(message: str, code: int = 1) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(code)


def _read(args: List[str]) -> bytes:
    """The input's bytes: the named file, or stdin. A file that cannot be
    read is one line on stderr and exit 1 (2.8.0 ends with a traceback
    there), as the Rust CLI reports it."""
    name = args[0] if args and args[0] != "-" else "<stdin>"
    try:
        if name == "<stdin>":
            return sys.stdin.buffer.read()
        with open(name, "rb") as f:
            # Line ends as a text-mode file reads them (2.8.0 reads a file so;
            # stdin it reads as it comes).
            return f.read().replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    except OSError as e:
        _fail(f"error[io]: opening {name}: {e.strerror or e}")


def _text(data: bytes) -> str:
    """The input as text; bytes that are not UTF-8 are an error, not text
    read some other way."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(f"error[invalid_utf8]: the input is not UTF-8 (byte {e.start})")


def _gcf(data: bytes) -> Union[str, bytes]:
    """GCF input for a decoder: as text, or, when it is not UTF-8, the bytes
    themselves, so that the decoder reports the malformed sequence at its
    line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        _fail(f"error: invalid JSON: {e}")


def _payload(obj: Dict[str, Any]) -> Payload:
    try:
        p = Payload(
            tool=obj.get("tool", ""),
            token_budget=obj.get("tokenBudget", 0),
            tokens_used=obj.get("tokensUsed", 0),
            pack_root=obj.get("packRoot", ""),
            symbols=[
                Symbol(s["qualifiedName"], s["kind"], s["score"], s["provenance"], s.get("distance", 0))
                for s in obj.get("symbols", [])
            ],
            edges=[
                Edge(e["source"], e["target"], e["edgeType"], e.get("status", ""))
                for e in obj.get("edges", [])
            ],
        )
        locations = obj.get("locations")
        if not locations:
            return p
        return _located(
            p,
            [
                (l["qualifiedName"], l["file"], l["line"], l["column"], l.get("endLine"), l.get("endColumn"))
                for l in locations
            ],
        )
    except (KeyError, TypeError, AttributeError) as e:
        _fail(f"error: invalid JSON: {e}")  # 2.8.0's line


def _payload_json(p: Payload) -> str:
    return json.dumps(
        {
            "tool": p.tool,
            "tokensUsed": p.tokens_used,
            "tokenBudget": p.token_budget,
            "packRoot": p.pack_root,
            "symbols": [
                {"qualifiedName": s.qualified_name, "kind": s.kind, "score": s.score,
                 "provenance": s.provenance, "distance": s.distance}
                for s in p.symbols
            ],
            "edges": [
                dict({"source": e.source, "target": e.target, "edgeType": e.edge_type},
                     **({"status": e.status} if e.status else {}))
                for e in p.edges
            ],
            **_locations_json(p),
        },
        indent=2,
    )


def _locations_json(p: Payload) -> Dict[str, Any]:
    """``{"locations": [...]}`` for a payload with locations, else ``{}``."""
    locations = getattr(p, "locations", None)
    if not locations:
        return {}
    out = []
    for l in locations:
        o = {"qualifiedName": l.qualified_name, "file": l.file, "line": l.line, "column": l.column}
        if l.end_line is not None or l.end_column is not None:
            o["endLine"] = l.end_line or 0
            o["endColumn"] = l.end_column or 0
        out.append(o)
    return {"locations": out}


def _stats(text: str) -> None:
    p = _payload(_json(text))
    out = encode(p)
    json_tokens = len(text.strip()) // 4
    gcf_tokens = len(out.strip()) // 4
    saved = 100.0 * (1.0 - gcf_tokens / json_tokens) if json_tokens else 0.0
    # 2.8.0's layout, bars included, so scripts reading it keep working.
    width = 30
    filled = gcf_tokens * width // json_tokens if json_tokens else 0
    print(f"Payload: {len(p.symbols)} symbols, {len(p.edges)} edges\n")
    print(f"  JSON  {'█' * width}  {json_tokens} tokens")
    print(f"  GCF   {'█' * filled + '░' * (width - filled)}  {gcf_tokens} tokens")
    print(f"\n  Savings: {saved:.0f}% fewer tokens with GCF")


COMMANDS: Dict[str, Callable[[bytes], None]] = {
    "encode": lambda b: print(encode(_payload(_json(_text(b)))), end=""),
    "decode": lambda b: print(_payload_json(decode(_gcf(b)))),
    "encode-generic": lambda b: print(encode_generic(_json(_text(b))), end=""),
    "decode-generic": lambda b: print(json.dumps(decode_generic(_gcf(b)))),
    "stats": lambda b: _stats(_text(b)),
}


def main(argv: Optional[List[str]] = None) -> None:
    """Run the CLI on ``argv`` (``sys.argv[1:]`` by default)."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        sys.exit(0 if args else 1)
    cmd, rest = args[0], args[1:]
    if cmd == "version":
        from . import __version__

        print(f"gcf {__version__}")
        return
    run = COMMANDS.get(cmd)
    if run is None:
        _fail(f"unknown command: {cmd}\n\n{USAGE}")
    try:
        run(_read(rest))
    except TypeError as e:
        # A field of the wrong type (`"score": "x"`), found by the encoder:
        # one line, as for the other faults of a payload, not a traceback.
        _fail(f"error: invalid JSON: {e}")
    except GcfError as e:
        where = f" (line {e.line}, column {e.column})" if e.line is not None else ""
        detail = str(e)
        # The message leads with its category (2.8.0's form); the line names it once.
        if detail.startswith(e.category + ": "):
            detail = detail[len(e.category) + 2 :]
        _fail(f"error[{e.category}]: {detail}{where}")
