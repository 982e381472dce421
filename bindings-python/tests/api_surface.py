"""The public surface of the ``gcf`` package importable here: every module's
public names, what each is (class, function, value) and the parameters of
functions, classes and their methods. Run by both interpreters of the
differential test (ref_server.py's ``surface`` op, and ours in process), so
that the two packages' surfaces can be compared."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Dict, List, Optional

import gcf

# The FastMCP middleware needs its optional dependency (tested on its own).
SKIP_MODULES = {"gcf.fastmcp", "gcf.__main__"}


def params(obj: Any) -> Optional[List[Any]]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, p.default is not inspect.Parameter.empty] for p in sig.parameters.values()]


def describe(obj: Any) -> List[Any]:
    if inspect.isclass(obj):
        members: Dict[str, Any] = {}
        for n, m in vars(obj).items():
            if n.startswith("_"):
                continue
            if isinstance(m, property):
                members[n] = ["property"]
            elif isinstance(m, (staticmethod, classmethod)):
                members[n] = ["method", params(m.__func__)]
            elif callable(m):
                members[n] = ["method", params(m)]
            else:
                members[n] = ["value"]
        return ["class", params(obj), members]
    if callable(obj):
        return ["function", params(obj)]
    return ["value", type(obj).__name__]


def surface() -> Dict[str, Dict[str, Any]]:
    names = ["gcf"] + [
        m.name for m in pkgutil.walk_packages(gcf.__path__, "gcf.") if not m.name.split(".")[-1].startswith("_")
    ]
    out: Dict[str, Dict[str, Any]] = {}
    for modname in names:
        if modname in SKIP_MODULES:
            continue
        mod = importlib.import_module(modname)
        entries: Dict[str, Any] = {}
        for n in dir(mod):
            obj = getattr(mod, n)
            if n.startswith("_") or n == "annotations" or inspect.ismodule(obj):
                continue
            home = getattr(obj, "__module__", None) or ""
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and not home.startswith("gcf"):
                continue  # typing names, dataclass, Enum, ... imported by the module
            entries[n] = describe(obj)
        out[modname] = entries
    return out
