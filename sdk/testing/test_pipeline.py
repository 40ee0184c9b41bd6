"""TestPipeline, as Beam's ``apache_beam.testing.test_pipeline``: a Pipeline whose options
come from the test command line, ``--test-pipeline-options="--runner=spark ..."``."""

from __future__ import annotations

import argparse
import shlex
import unittest

from panes.options.pipeline_options import PipelineOptions
from panes.pipeline import Pipeline
from panes.runners.runner import PipelineState


class TestPipeline(Pipeline):
    """A Pipeline for tests. Its options are ``--test-pipeline-options`` from ``argv`` (by
    default the process's command line) or the class attribute
    ``pytest_test_pipeline_options``, plus ``additional_pipeline_args``. An integration test
    (``is_integration_test=True``) is skipped when no test pipeline options are given."""

    __test__ = False  # not a pytest test class
    pytest_test_pipeline_options = None

    def __init__(
        self,
        runner=None,
        options=None,
        argv=None,
        is_integration_test=False,
        blocking=True,
        additional_pipeline_args=None,
        display_data=None,
        timeout=None,
    ):
        self.is_integration_test = is_integration_test
        self.blocking = blocking
        self.timeout = timeout
        self.options_list = self._parse_test_option_args(argv) + list(
            additional_pipeline_args or []
        )
        if options is None:
            options = PipelineOptions(self.options_list)
        super().__init__(runner, options)

    def run(self, test_runner_api=True):
        result = super().run()
        if self.blocking:
            state = result.wait_until_finish(duration=self.timeout)
            assert state in (PipelineState.DONE, PipelineState.CANCELLED), (
                "Pipeline execution failed."
            )
        return result

    def get_pipeline_options(self) -> PipelineOptions:
        return self.options

    def _parse_test_option_args(self, argv) -> list[str]:
        options = self.get_options_list(argv)
        if self.is_integration_test and not options:
            raise unittest.SkipTest(
                "IT is skipped because --test-pipeline-options is not specified"
            )
        return options

    @classmethod
    def get_options_list(cls, argv=None) -> list[str]:
        """The flags in ``--test-pipeline-options`` (or ``pytest_test_pipeline_options``)."""
        parser = argparse.ArgumentParser(add_help=False)
        parser.add_argument("--test-pipeline-options", type=str, action="store")
        known, _ = parser.parse_known_args(argv)
        options = known.test_pipeline_options or cls.pytest_test_pipeline_options
        return shlex.split(options) if options else []

    def get_full_options_as_args(self, **extra_opts) -> list[str]:
        """The test's flags plus ``--name=value`` for each extra option (True: a bare flag;
        false values are left out)."""
        options = list(self.options_list)
        for name, value in extra_opts.items():
            if value is True:
                options.append(f"--{name}")
            elif value:
                options.append(f"--{name}={value}")
        return options

    def get_option(self, opt_name: str, bool_option: bool = False):
        """A flag's value among the test's flags, or None."""
        parser = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
        name = opt_name.removeprefix("--")
        if bool_option:
            parser.add_argument(f"--{name}", action="store_true")
        else:
            parser.add_argument(f"--{name}", type=str, action="store")
        known, _ = parser.parse_known_args(self.options_list)
        return getattr(known, name, None)
