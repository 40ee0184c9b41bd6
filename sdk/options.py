"""Pipeline options: a closed set of names, checked when the pipeline is created."""

from __future__ import annotations

from panes.errors import PipelineConstructionError

KNOWN_OPTIONS = {
    "runner": "direct",
    "allow_unsafe_triggers": False,
    "spark_master": None,
    "spark_partitions": None,
    "spark_conf": None,
    "spark_session": None,
    "job_name": "panes",
    # Streaming (Spark Structured Streaming; see docs/streaming.md).
    "streaming": False,
    "checkpoint_location": None,
    "trigger_interval": None,
    "max_files_per_trigger": None,
}


class PipelineOptions:
    """Options by name; ``PipelineOptions(runner='spark')`` or ``from_args(['--runner=spark'])``."""

    def __init__(self, flags=None, **options):
        values = dict(flags or {}) if not isinstance(flags, (list, tuple)) else _parse_args(flags)
        values.update(options)
        unknown = sorted(set(values) - set(KNOWN_OPTIONS))
        if unknown:
            raise PipelineConstructionError(
                f"unknown pipeline option(s) {unknown}; known options are {sorted(KNOWN_OPTIONS)}")
        self._values = {**KNOWN_OPTIONS, **values}

    @classmethod
    def from_args(cls, argv) -> "PipelineOptions":
        return cls(list(argv))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no pipeline option {name!r}") from None

    def get_all_options(self) -> dict:
        return dict(self._values)

    def with_values(self, **options) -> "PipelineOptions":
        return PipelineOptions({**self._values, **options})


def _parse_args(argv) -> dict:
    values = {}
    for arg in argv:
        if not arg.startswith("--"):
            raise PipelineConstructionError(f"pipeline options look like --name=value, got {arg!r}")
        name, _, raw = arg[2:].partition("=")
        values[name.replace("-", "_")] = _parse_value(raw) if raw else True
    return values


def _parse_value(raw: str):
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(raw)
    except ValueError:
        return raw
