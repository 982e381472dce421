"""Deep values on threads with small stacks: a clean error, never a crash.

A musl thread (Alpine Linux) starts with 128 KiB of stack and a program may
ask for less with `threading.stack_size`; the core's walks recurse per
level of nesting, and at the default depth limit (128) a decode into Python
objects needs up to about 170 KiB. Before `gcf_core::stack`, a 127-level
document decoded on a 128 KiB thread killed the interpreter (SIGSEGV). Now
every walk either finishes as it does on a large stack or raises
`limit_exceeded` naming the stack.

Each case runs in a child interpreter, so that a crash fails the test
instead of ending the run.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CHILD = r"""
import json, sys, threading
import gcf

stack_kib, depth = int(sys.argv[1]), int(sys.argv[2])

def deep(shape, levels):
    # A chain `levels` containers deep.
    v, made, i = 1, 0, 0
    while made < levels:
        if shape == "arrays":
            v, made = [v, 1], made + 1
        elif shape == "objects":
            v, made = {"a": v}, made + 1
        elif shape == "mixed":
            v, made = ({"a": v} if i % 2 else [v]), made + 1
        elif made + 2 <= levels and i % 2:  # a one-row table
            v, made = [{"a": v, "b": i}], made + 2
        else:
            v, made = {"k": v, "z": "x"}, made + 1
        i += 1
    return v

def ops(shape):
    # `depth` levels in all, the root object included. The texts are made
    # here, on the main thread's large stack.
    value = {"root": deep(shape, depth - 1)}
    text = gcf.encode_generic(value)
    unflat = gcf.GenericOptions(no_flatten=True)
    flat = gcf.encode_generic(value, unflat)
    return {
        "decode_generic": lambda: gcf.decode_generic(text) == value,
        "decode_generic unflattened": lambda: gcf.decode_generic(flat) == value,
        "encode_generic": lambda: gcf.encode_generic(value) == text,
        "encode_generic unflattened": lambda: gcf.encode_generic(value, unflat) == flat,
    }

cases = {
    f"{shape} {name}": op
    for shape in ("arrays", "objects", "mixed", "tables")
    for name, op in ops(shape).items()
}
results = {}

def run():
    for case, op in cases.items():
        try:
            results[case] = "ok" if op() else "different"
        except gcf.GcfError as e:
            stack = e.category == "limit_exceeded" and "stack" in str(e)
            results[case] = "stack" if stack else f"error {e}"

threading.stack_size(stack_kib * 1024)
t = threading.Thread(target=run)
t.start()
t.join()
print(json.dumps(results))
"""


def run_child(stack_kib: int, depth: int) -> dict:
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(stack_kib), str(depth)],
        capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 0, f"{stack_kib} KiB: exit {p.returncode}\n{p.stderr[-2000:]}"
    return json.loads(p.stdout)


@pytest.mark.parametrize("stack_kib", [64, 96, 128, 192])
def test_deep_values_on_small_stacks_finish_or_raise_limit_exceeded(stack_kib: int) -> None:
    results = run_child(stack_kib, 128)
    assert len(results) == 16
    wrong = {case: r for case, r in results.items() if r not in ("ok", "stack")}
    assert not wrong, wrong
    if stack_kib == 64:
        # The check, not luck, kept this thread alive.
        assert "stack" in results.values()


def test_deep_values_on_a_large_stack_all_finish() -> None:
    results = run_child(8192, 128)
    assert set(results.values()) == {"ok"}, results
