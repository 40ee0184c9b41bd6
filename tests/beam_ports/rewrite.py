"""The port of a Beam file: its import lines changed, and nothing else.

``import apache_beam as beam`` becomes ``import panes as beam``, ``from apache_beam.x import y``
becomes ``from panes.x import y``. Imports of Beam's example modules (``apache_beam.examples``)
are imports of the user's own code, so they point at the package the ported files are in.

    python tests/beam_ports/rewrite.py ORIGINAL.py > PORTED.py
"""

from __future__ import annotations

import re
import sys

_IMPORT = re.compile(
    r"^(?P<indent>\s*)(?P<keyword>from|import)\s+apache_beam(?P<path>[\w.]*)"
    r"(?P<rest>.*)$",
    re.DOTALL,
)


def port_source(source: str, sdk: str = "panes", package: str | None = None) -> str:
    """``source`` with every import of ``apache_beam`` made an import of ``sdk``; imports of
    ``apache_beam.examples...`` become ``package.examples...`` when ``package`` is given."""
    return "".join(_port_line(line, sdk, package) for line in source.splitlines(keepends=True))


def _port_line(line: str, sdk: str, package: str | None) -> str:
    match = _IMPORT.match(line)
    if not match:
        return line
    path, rest = match["path"], match["rest"]
    if path != "" and not path.startswith("."):  # e.g. apache_beam_foo: another module
        return line
    root = f"{package}" if package and path.startswith(".examples") else sdk
    if match["keyword"] == "import" and not rest.lstrip().startswith("as") and not path:
        rest = f" as apache_beam{rest}"  # `import apache_beam` keeps the name the code uses
    elif match["keyword"] == "import" and not rest.lstrip().startswith("as"):
        raise ValueError(
            f"cannot port {line.strip()!r} by its import line alone: "
            f"write `import apache_beam.x as x` or `from apache_beam import x`"
        )
    return f"{match['indent']}{match['keyword']} {root}{path}{rest}"


if __name__ == "__main__":
    sys.stdout.write(port_source(open(sys.argv[1], encoding="utf-8").read()))
