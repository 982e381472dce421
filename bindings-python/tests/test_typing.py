"""The stubs type-check a sample program under ``mypy --strict``, and the
program runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import gcf

SAMPLE = Path(__file__).with_name("typing_sample.py")


def test_package_ships_stubs_and_marker() -> None:
    root = Path(gcf.__file__).parent
    assert (root / "py.typed").exists()
    assert (root / "__init__.pyi").exists()


def test_mypy_strict_on_sample() -> None:
    pytest.importorskip("mypy")
    env = dict(os.environ, MYPY_CACHE_DIR=str(Path(os.environ.get("TMPDIR", "/tmp")) / "gcf-mypy-cache"))
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(SAMPLE)],
        capture_output=True, text=True, env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_catches_a_wrong_call(tmp_path: Path) -> None:
    # The check can fail: a misuse is reported.
    pytest.importorskip("mypy")
    bad = tmp_path / "bad.py"
    bad.write_text("import gcf\nx: int = gcf.encode_generic({})\n")
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(bad)], capture_output=True, text=True)
    assert r.returncode != 0 and "incompatible" in r.stdout.lower()


def test_sample_runs() -> None:
    r = subprocess.run([sys.executable, str(SAMPLE)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "GCF profile=graph tool=search" in r.stdout


def test_console_script_and_module() -> None:
    r = subprocess.run([sys.executable, "-m", "gcf", "encode-generic"], input='{"a": [1, 2]}',
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "GCF profile=generic\na[2]: 1,2\n")
    r = subprocess.run([sys.executable, "-m", "gcf", "decode"], input="GCF profile=graph\n## edges [2]\n",
                       capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error[count_mismatch]: section declares [2]"), r.stderr
    script = Path(sys.executable).with_name("gcf")
    if script.exists():
        r = subprocess.run([str(script), "version"], capture_output=True, text=True)
        assert r.stdout.startswith("gcf ")
