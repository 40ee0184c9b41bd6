"""Fills in ``expected`` (and ``late``, ``then``, ``counters``) for scenarios that lack them,
from a direct run — a tool for writing new scenarios. Review every filled row against the rule
in ``why`` before committing: the corpus pins semantics, it does not record whatever panes does.

    python tests/conformance/fill.py tests/conformance/scenarios/windows.yaml
"""

import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from harness import run_scenario  # noqa: E402


def filled_block(outcome) -> list[str]:
    lines = []
    for name in ("expected", "late", "then"):
        rows = (
            outcome["rows" if name == "expected" else name]
            if name in ("expected",)
            else outcome.get(name)
        )
        if name == "expected" or rows:
            lines.append(f"  {name}:" + ("" if rows else " []"))
            lines += [f"  - {yaml.safe_dump(r, default_style=chr(39)).strip()}" for r in rows]
    if outcome["counters"]:
        lines.append(
            f"  counters: {yaml.safe_dump(outcome['counters'], default_flow_style=True).strip()}"
        )
    return lines


def main(path):
    path = Path(path)
    scenarios = {s["name"]: s for s in yaml.safe_load(path.read_text())}
    out, current = [], None
    lines = path.read_text().splitlines()

    def flush():
        if current and "expected" not in scenarios[current]:
            while out and not out[-1].strip():
                out.pop()
            out.extend(filled_block(run_scenario(scenarios[current], "direct")))

    for line in lines:
        if line.startswith("- name: "):
            flush()
            current = line[len("- name: ") :].strip()
        out.append(line)
    flush()
    path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
