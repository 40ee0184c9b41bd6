"""Beam's ``PipelineContext`` (``apache_beam.runners.pipeline_context``): what turns a
pipeline's parts into their portable form and back. panes' portable form is its IR; the parts
that ask a context for theirs are triggers (``Trigger.to_runner_api``)."""

from __future__ import annotations

from panes.windowing import trigger_kinds


class PipelineContext:
    """Lowers triggers to the IR and raises them back (Beam's context for a pipeline's Runner
    API components)."""

    @staticmethod
    def trigger_to_ir(trigger):
        return trigger_kinds.to_ir(trigger)

    @staticmethod
    def trigger_from_ir(ir_trigger):
        return trigger_kinds.from_ir(ir_trigger)
