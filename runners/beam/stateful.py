"""Beam's stateful DoFns (``userstate``: state and timers, ``GroupIntoBatches``) in panes: the
one place that decides how they translate. panes' state and timers are not there yet, so each
is refused, naming the transform and what it uses."""

from __future__ import annotations

from apache_beam.transforms import userstate

from panes.errors import PipelineConstructionError


def translate_stateful_pardo(translation, applied) -> None:
    """Refuses a ParDo whose DoFn declares state or timers."""
    states, timers = userstate.get_dofn_specs(applied.transform.fn)
    uses = [f"state '{spec.name}'" for spec in states] + [f"timer '{spec.name}'" for spec in timers]
    raise PipelineConstructionError(
        f"'{applied.full_label}': {type(applied.transform.fn).__name__} uses Beam's state and "
        f"timers ({', '.join(sorted(uses))}), which panes does not run yet (GroupIntoBatches "
        f"is built on them too); docs/beam-runner.md lists what translates"
    )
