"""A benchmark's measurement in a fresh process: ``python -m benchmarks.<module> --one ...``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def fresh(module: str, *args: str) -> dict:
    """Runs ``benchmarks.<module> --one args`` from the repository's root; returns the JSON
    object of the last line it printed that holds one. A failed run raises with the end of its
    standard error."""
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{module}", "--one", *args],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise RuntimeError(f"benchmarks.{module} {args}: {done.stderr[-2000:]}")
    return json.loads(lines[-1])
