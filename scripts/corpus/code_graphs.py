"""Graph payloads from real code, for ``scripts/corpus-diff.sh``.

For each Python module under the roots given (by default this interpreter's
standard library), writes ``OUT_DIR/<n>.json``: a graph payload (the
camelCase JSON every package reads) of the module's functions, classes and
methods, as a code-intelligence tool returns them:

- names are real qualified names (``json.decoder.JSONDecoder.decode``,
  ``pkg.outer.<locals>.inner``), in the order the source defines them;
- kinds ``function``/``class``/``method``, provenances by how the symbol was
  found, distances by nesting depth, scores with four decimals (a fixed
  function of the name, so runs repeat);
- edges ``contains`` (class to method), ``inherits`` (class to a base defined
  in the module) and ``calls`` (a body calling a name the module defines),
  in source order; a module that defines one name twice (``try: def f``,
  ``except: def f``) keeps both symbols, as a tool would report them.

    python3 scripts/corpus/code_graphs.py OUT_DIR [ROOT...]
"""

import ast
import hashlib
import json
import os
import sys
import sysconfig

# A payload this size is already far past what a tool returns in one call.
MAX_SYMBOLS = 3000


def score(name):
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:4], "little") % 10000 / 10000


class Module(ast.NodeVisitor):
    def __init__(self, module):
        self.module = module
        self.scope = [module]
        self.symbols = []
        self.edges = []
        self.defined = {}  # simple name -> qualified name (the last definition)
        self.calls = []  # (caller, callee simple name)
        self.bases = []  # (class, base simple name)
        self.classes = []

    def add(self, node, kind):
        name = ".".join(self.scope + [node.name])
        self.symbols.append(
            {
                "qualifiedName": name,
                "kind": kind,
                "score": score(name),
                "provenance": ("ast_inferred", "lsp_resolved", "text_match")[len(name) % 3],
                "distance": min(len(self.scope) - 1, 3),
            }
        )
        self.defined[node.name] = name
        return name

    def visit_ClassDef(self, node):
        name = self.add(node, "class")
        for base in node.bases:
            if isinstance(base, ast.Name):
                self.bases.append((name, base.id))
        if self.classes:
            self.edges.append({"source": self.classes[-1], "target": name, "edgeType": "contains"})
        self.scope.append(node.name)
        self.classes.append(name)
        self.generic_visit(node)
        self.classes.pop()
        self.scope.pop()

    def visit_FunctionDef(self, node):
        in_class = len(self.classes) > 0 and self.scope[-1] == self.classes[-1].rsplit(".", 1)[-1]
        name = self.add(node, "method" if in_class else "function")
        if in_class:
            self.edges.append({"source": self.classes[-1], "target": name, "edgeType": "contains"})
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                callee = call.func
                simple = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", None)
                if simple:
                    self.calls.append((name, simple))
        self.scope.extend([node.name, "<locals>"])
        saved = self.classes
        self.classes = []
        self.generic_visit(node)
        self.classes = saved
        del self.scope[-2:]

    visit_AsyncFunctionDef = visit_FunctionDef

    def payload(self):
        for cls, base in self.bases:
            if base in self.defined:
                self.edges.append({"source": cls, "target": self.defined[base], "edgeType": "inherits"})
        for caller, callee in self.calls:
            if callee in self.defined:
                self.edges.append({"source": caller, "target": self.defined[callee], "edgeType": "calls"})
        return {
            "tool": "context_for_task",
            "tokenBudget": 8000,
            "tokensUsed": 40 * len(self.symbols),
            "symbols": self.symbols[:MAX_SYMBOLS],
            "edges": self.edges[: 3 * MAX_SYMBOLS],
        }


def to_payload(gcf, value):
    """A graph payload's JSON (camelCase, as every package reads it) as the
    ``gcf`` Python package's ``Payload`` (ours or gcf-python 2.8.0's)."""
    return gcf.Payload(
        tool=value.get("tool", ""),
        tokens_used=value.get("tokensUsed", 0),
        token_budget=value.get("tokenBudget", 0),
        symbols=[
            gcf.Symbol(
                qualified_name=s["qualifiedName"],
                kind=s["kind"],
                score=s["score"],
                provenance=s["provenance"],
                distance=s.get("distance", 0),
            )
            for s in value["symbols"]
        ],
        edges=[
            gcf.Edge(source=e["source"], target=e["target"], edge_type=e["edgeType"], status=e.get("status", ""))
            for e in value.get("edges", [])
        ],
    )


def modules(roots):
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "site-packages", "test", "tests"))
            for filename in sorted(filenames):
                if filename.endswith(".py"):
                    path = os.path.join(dirpath, filename)
                    relative = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                    yield path, relative.removesuffix(".__init__")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    roots = sys.argv[2:] or [sysconfig.get_paths()["stdlib"]]
    os.makedirs(out, exist_ok=True)
    written = 0
    for path, module in modules(roots):
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        visitor = Module(module)
        visitor.visit(tree)
        payload = visitor.payload()
        if not payload["symbols"]:
            continue
        with open(os.path.join(out, f"{written}.json"), "w", encoding="utf-8") as f:
            json.dump(payload, f)
        written += 1
    print(f"code_graphs: {written} graph payloads in {out}")


if __name__ == "__main__":
    main()
