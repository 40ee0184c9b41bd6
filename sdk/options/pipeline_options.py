"""Pipeline options, as Beam's ``apache_beam.options.pipeline_options``.

Options are command-line flags parsed with ``argparse``. Every subclass of ``PipelineOptions``
adds its flags in ``_add_argparse_args``; all views of one options object (``view_as``) share
one store of values. Flags no options class knows are kept (a pipeline's own flags are often
parsed later) and warned about when the pipeline runs, naming the closest known option.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import logging
import sys

from panes.errors import PipelineConstructionError

_LOGGER = logging.getLogger(__name__)


class _OptionsParser(argparse.ArgumentParser):
    """An ArgumentParser that reports a bad flag value as a construction error instead of
    exiting the process, and accepts Beam's value-provider arguments as plain ones."""

    def __init__(self):
        super().__init__(allow_abbrev=False, add_help=False, conflict_handler="resolve")

    def add_value_provider_argument(self, *args, **kwargs):
        self.add_argument(*args, **kwargs)

    def error(self, message):
        raise PipelineConstructionError(f"pipeline options: {message}")


class _KeyValueAction(argparse.Action):
    """``--spark_conf name=value``, repeatable, into a dict."""

    def __call__(self, parser, namespace, values, option_string=None):
        name, equals, value = values.partition("=")
        if not equals:
            raise PipelineConstructionError(
                f"{option_string} takes name=value, e.g. {option_string} "
                f"spark.executor.memory=4g; got {values!r}"
            )
        setattr(namespace, self.dest, {**(getattr(namespace, self.dest) or {}), name: value})


class _DictUnionAction(argparse.Action):
    """A JSON object per use, merged into one dict (a later name's value wins), as Beam's."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, {**(getattr(namespace, self.dest) or {}), **values})


class _CommaSeparatedListAction(argparse.Action):
    """``--experiments a,b --experiments c`` into ``['a', 'b', 'c']``, as Beam's."""

    def __call__(self, parser, namespace, values, option_string=None):
        current = list(getattr(namespace, self.dest) or [])
        current += [value for value in values.split(",") if value]
        setattr(namespace, self.dest, current)


def _option_classes() -> tuple:
    """Every PipelineOptions subclass defined so far (user ones included), parents first."""
    found, pending = [], list(PipelineOptions.__subclasses__())
    while pending:
        cls = pending.pop(0)
        if cls not in found:
            found.append(cls)
            pending.extend(cls.__subclasses__())
    return tuple(found)


@functools.lru_cache(maxsize=64)
def _parser_for(classes: tuple) -> _OptionsParser:
    """The parser of the flags ``classes`` define (made once per set of classes)."""
    parser = _OptionsParser()
    for cls in classes:
        if "_add_argparse_args" in vars(cls):
            cls._add_argparse_args(parser)
    return parser


def _option_names(parser) -> list[str]:
    return [action.dest for action in parser._actions]


class PipelineOptions:
    """Flags for a pipeline: ``PipelineOptions(['--runner=spark'])``, ``PipelineOptions()``
    (reads ``sys.argv``), or keyword values, ``PipelineOptions(runner='spark')``. Read one
    group of options through a view: ``options.view_as(StandardOptions).streaming``.

    Define your own options as Beam does::

        class MyOptions(PipelineOptions):
            @classmethod
            def _add_argparse_args(cls, parser):
                parser.add_argument('--input', default='in.txt')
    """

    def __init__(self, flags=None, **kwargs):
        if isinstance(flags, str):
            raise PipelineConstructionError(
                f"PipelineOptions takes a list of flags, not the string {flags!r}: write "
                f"PipelineOptions({flags.split()!r})"
            )
        if isinstance(flags, dict):  # panes: a dict of option values
            kwargs, flags = {**flags, **kwargs}, []
        object.__setattr__(self, "_flags", list(sys.argv[1:] if flags is None else flags))
        parser = _parser_for(_option_classes())
        values, _ = parser.parse_known_args(self._flags)
        names = _option_names(parser)
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            raise PipelineConstructionError(
                f"unknown pipeline option(s) {unknown}{_closest(unknown[0], names)}; define "
                f"your own options in a PipelineOptions subclass (_add_argparse_args)"
            )
        object.__setattr__(self, "_all_options", {**vars(values), **kwargs})

    @classmethod
    def _add_argparse_args(cls, parser) -> None:
        """Subclasses add their flags to ``parser`` (an ``argparse.ArgumentParser``)."""

    @classmethod
    def from_dictionary(cls, options: dict) -> PipelineOptions:
        """Options from ``{name: value}``: True booleans become bare flags, lists repeat."""
        flags = []
        for name, value in options.items():
            if isinstance(value, bool):
                flags += [f"--{name}"] if value else []
            elif isinstance(value, list):
                flags += [f"--{name}={item}" for item in value]
            elif value is not None:
                flags.append(f"--{name}={value}")
        return cls(flags)

    def view_as(self, cls: type) -> PipelineOptions:
        """The same options seen as ``cls``; a change through any view changes them all."""
        if not (isinstance(cls, type) and issubclass(cls, PipelineOptions)):
            raise PipelineConstructionError(
                f"view_as takes a PipelineOptions subclass, got {cls!r}"
            )
        view = object.__new__(cls)
        object.__setattr__(view, "_flags", self._flags)
        object.__setattr__(view, "_all_options", self._all_options)
        if not set(_option_names(_parser_for(cls.__mro__))) <= set(self._all_options):
            # cls was defined after these options were parsed
            for name, value in view._parse(_parser_for(_option_classes())).items():
                self._all_options.setdefault(name, value)
        return view

    def get_all_options(
        self, drop_default=False, retain_unknown_options=False, current_only=False
    ) -> dict:
        """Every option's value by name; ``retain_unknown_options`` adds unknown flags (as
        strings, or True for bare ones)."""
        classes = (type(self),) if current_only else _option_classes()
        parser = _parser_for(classes)
        result = self._parse(parser)
        for name in result:
            if name in self._all_options:
                result[name] = self._all_options[name]
        if drop_default:
            result = {
                name: value for name, value in result.items() if value != parser.get_default(name)
            }
        if retain_unknown_options:
            result.update(_unknown_values(self.unknown_flags()))
        return result

    def unknown_flags(self) -> list[str]:
        """The flags no options class defines (kept for the pipeline's own parsing)."""
        return _parser_for(_option_classes()).parse_known_args(self._flags)[1]

    def warn_unknown_flags(self) -> None:
        """Logs each unknown flag with the closest known option, as Beam does at run()."""
        names = [
            flag
            for action in _parser_for(_option_classes())._actions
            for flag in action.option_strings
        ]
        for flag in self.unknown_flags():
            if flag.startswith("--"):
                _LOGGER.warning(
                    "Unparseable argument: %s%s", flag, _closest(flag.split("=", 1)[0], names)
                )

    def _parse(self, parser) -> dict:
        return vars(parser.parse_known_args(self._flags)[0])

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        options = self.__dict__.get("_all_options", {})
        if name in options:
            return options[name]
        values = self._parse(_parser_for(_option_classes()))
        if name in values:  # defined by an options class made after these options
            return options.setdefault(name, values[name])
        raise AttributeError(
            f"'{type(self).__name__}' has no option {name!r}{_closest(name, list(values))}"
        )

    def __setattr__(self, name, value):
        if name not in self._all_options and name not in self._parse(
            _parser_for(_option_classes())
        ):
            raise AttributeError(f"'{type(self).__name__}' has no option {name!r}")
        self._all_options[name] = value

    def __str__(self):
        shown = _option_names(_parser_for(type(self).__mro__)) or sorted(self._all_options)
        values = ", ".join(f"{name}={self._all_options.get(name)}" for name in shown)
        return f"{type(self).__name__}({values})"


def _closest(name: str, candidates) -> str:
    matches = difflib.get_close_matches(name, candidates, n=1)
    return f". Did you mean '{matches[0]}'?" if matches else ""


def _unknown_values(flags) -> dict:
    values, index = {}, 0
    while index < len(flags):
        flag = flags[index]
        index += 1
        if not flag.startswith("--"):
            continue
        name, equals, value = flag[2:].partition("=")
        if not equals and index < len(flags) and not flags[index].startswith("-"):
            value, equals, index = flags[index], "=", index + 1
        values[name] = value if equals else True
    return values


class StandardOptions(PipelineOptions):
    """The runner, and whether the pipeline runs as a streaming job."""

    DEFAULT_RUNNER = "DirectRunner"

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument(
            "--runner",
            default=None,
            help="direct (DirectRunner, FnApiRunner, ...) or spark (SparkRunner); "
            "default DirectRunner",
        )
        parser.add_argument(
            "--streaming",
            default=False,
            action="store_true",
            help="run as a streaming job (the Spark runner: Structured Streaming)",
        )
        parser.add_argument(
            "--auto_unique_labels",
            default=False,
            action="store_true",
            help="append a number to a transform label already in use instead of failing",
        )
        parser.add_argument(
            "--no_wait_until_finish",
            default=False,
            action="store_true",
            help="accepted for Beam compatibility: panes runs to completion",
        )


class SetupOptions(PipelineOptions):
    """How workers get the pipeline's code. Accepted for Beam compatibility: Spark workers
    receive functions by value (cloudpickle) and import modules beside the pipeline file."""

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument("--save_main_session", default=False, action="store_true")
        parser.add_argument("--requirements_file", default=None)
        parser.add_argument("--setup_file", default=None)
        parser.add_argument(
            "--extra_package",
            "--extra_packages",
            dest="extra_packages",
            action="append",
            default=None,
        )
        parser.add_argument(
            "--pickle_library", default="default", choices=["cloudpickle", "default", "dill"]
        )
        parser.add_argument("--sdk_location", default="default")


class DebugOptions(PipelineOptions):
    """Experiments, as Beam's ``--experiments``."""

    experiments: list | None

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument(
            "--experiment",
            "--experiments",
            dest="experiments",
            action=_CommaSeparatedListAction,
            default=None,
        )
        parser.add_argument("--number_of_worker_harness_threads", type=int, default=None)

    def add_experiment(self, experiment: str) -> None:
        if self.experiments is None:
            self.experiments = []
        if experiment not in self.experiments:
            self.experiments.append(experiment)

    def lookup_experiment(self, key: str, default=None):
        """True for ``key``, the value for ``key=value``, else ``default``."""
        for experiment in self.experiments or ():
            if experiment == key:
                return True
            if experiment.startswith(key + "="):
                return experiment.split("=", 1)[1]
        return default


class GoogleCloudOptions(PipelineOptions):
    """Dataflow's options, accepted so that Beam pipelines parse unchanged; panes uses
    ``job_name`` (the Spark application name) and ``temp_location`` (TestPipeline's files)."""

    @classmethod
    def _add_argparse_args(cls, parser):
        for name in (
            "project",
            "job_name",
            "staging_location",
            "temp_location",
            "region",
            "service_account_email",
            "dataflow_endpoint",
            "template_location",
        ):
            parser.add_argument(f"--{name}", default=None)
        parser.add_argument("--label", "--labels", dest="labels", action="append", default=None)


class WorkerOptions(PipelineOptions):
    """Dataflow's worker options, accepted for compatibility (Spark sizes its own cluster), and
    Beam's levels of the log records that user code on workers writes, which the Spark runner
    brings to the driver (docs/spark.md)."""

    @classmethod
    def _add_argparse_args(cls, parser):
        for name in ("num_workers", "max_num_workers", "disk_size_gb"):
            parser.add_argument(f"--{name}", type=int, default=None)
        for name in ("machine_type", "worker_machine_type", "autoscaling_algorithm"):
            parser.add_argument(f"--{name}", default=None)
        parser.add_argument(
            "--default_sdk_harness_log_level",
            default=None,
            help="the level of the log records workers send to the driver (default: INFO)",
        )
        parser.add_argument(
            "--sdk_harness_log_level_overrides",
            type=_json_object,
            action=_DictUnionAction,
            default=None,
            help='levels of named loggers on workers, as JSON: \'{"a.b": "DEBUG"}\'',
        )


class TypeOptions(PipelineOptions):
    """Type checking, and the escape hatch for triggers that may lose data."""

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument(
            "--type_check_strictness",
            default="DEFAULT_TO_ANY",
            choices=["ALL_REQUIRED", "DEFAULT_TO_ANY"],
        )
        parser.add_argument(
            "--no_pipeline_type_check",
            dest="pipeline_type_check",
            action="store_false",
            help="do not check type hints when the pipeline is built",
        )
        parser.add_argument(
            "--runtime_type_check",
            default=False,
            action="store_true",
            help="accepted; panes checks type hints when the pipeline is built",
        )
        parser.add_argument("--performance_runtime_type_check", default=False, action="store_true")
        parser.add_argument(
            "--allow_unsafe_triggers",
            default=False,
            action="store_true",
            help="allow triggers that may drop data (Beam's DataLossReason)",
        )


class DirectOptions(PipelineOptions):
    """Beam's DirectRunner options, accepted; the direct runner runs in one process."""

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument("--direct_num_workers", type=int, default=1)
        parser.add_argument(
            "--direct_running_mode",
            default="in_memory",
            choices=["in_memory", "multi_threading", "multi_processing"],
        )


class TestOptions(PipelineOptions):
    """Options Beam's test pipelines pass."""

    @classmethod
    def _add_argparse_args(cls, parser):
        parser.add_argument("--on_success_matcher", default=None)
        parser.add_argument("--dry_run", default=False)
        parser.add_argument("--wait_until_finish_duration", type=int, default=None)


class SparkRunnerOptions(PipelineOptions):
    """The Spark runner's options (Beam's ``--spark_master_url`` is ``--spark_master``)."""

    @classmethod
    def _add_argparse_args(cls, parser):
        add_spark_arguments(parser, ("--spark_master", "--spark_master_url"))
        parser.add_argument(
            "--spark_session",
            default=None,
            type=_not_a_flag,
            help="a SparkSession object, given in code only",
        )


def add_spark_arguments(parser, master_flags=("--spark_master",)) -> None:
    """The Spark runner's flags, on ``parser`` (panes' own, or Beam's when a Beam pipeline
    runs on panes' runner, where Beam's job-server runner already has ``--spark_master_url``)."""
    parser.add_argument(
        *master_flags,
        dest="spark_master",
        default=None,
        help="a Spark master URL (default: the active session, or local[*, 4]: "
        "all cores, a failed task retried)",
    )
    parser.add_argument(
        "--spark_partitions",
        type=int,
        default=None,
        help="partitions of each source (default: Spark's parallelism)",
    )
    parser.add_argument(
        "--spark_conf",
        action=_KeyValueAction,
        default=None,
        help="a Spark setting name=value for a new session; repeatable",
    )
    parser.add_argument(
        "--spark_log_level", default=None, help="the Spark log level (e.g. WARN, INFO)"
    )
    parser.add_argument(
        "--checkpoint_location", default=None, help="a streaming job's checkpoint directory"
    )
    parser.add_argument(
        "--trigger_interval",
        default=None,
        help="how often a streaming job starts a micro-batch",
    )
    parser.add_argument(
        "--max_files_per_trigger",
        type=int,
        default=None,
        help="files a watched directory hands to one streaming micro-batch",
    )


def _json_object(value):
    try:
        loaded = json.loads(value)
    except json.JSONDecodeError:
        loaded = None
    if not isinstance(loaded, dict):
        raise argparse.ArgumentTypeError('takes a JSON object, e.g. \'{"a.b": "DEBUG"}\'')
    return loaded


def _not_a_flag(value):
    raise argparse.ArgumentTypeError(
        "a SparkSession object is given in code, PipelineOptions(spark_session=spark), "
        "not as a flag"
    )
