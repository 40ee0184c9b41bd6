"""Scenarios whose behaviour Beam defines (``beam: true``) give the same panes on Apache Beam's
DirectRunner. Scenarios where panes deliberately differs say why in ``beam:`` and are listed in
docs/semantics.md."""

import contextlib
import signal

import pytest
from harness import load_scenarios, scenario_id

beam_oracle = pytest.importorskip(
    "beam_oracle",
    reason="apache-beam is not installed: pip install -e '.[beam]' to compare with Beam",
)

BEAM_DEFINED = [s for s in load_scenarios() if s.get("beam") is True]


def comparable(rows, scenario):
    """Beam's Python DirectRunner marks a pane last only when its trigger finishes; Beam Java
    and panes also mark the pane of a window's garbage collection last: with allowed lateness 0
    the end-of-window pane, and with lateness the pane of an advance that passes both the
    window's end and its GC time (scenarios marked ``beam_last: differs``). There the ``last``
    flag is left out of the comparison."""
    if scenario.get("lateness", 0) and scenario.get("beam_last") != "differs":
        return sorted(rows)
    return sorted(row.replace(" last", "") for row in rows)


@contextlib.contextmanager
def deadline(seconds):
    """Beam's DirectRunner can stall on a pipeline; fail the test instead of hanging the suite."""

    def expire(signum, frame):
        raise TimeoutError(f"Beam's DirectRunner did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("scenario", BEAM_DEFINED, ids=scenario_id)
def test_beam_gives_the_same_panes(scenario):
    with deadline(30):
        panes_on_beam = beam_oracle.run_on_beam(scenario)
    assert comparable(panes_on_beam, scenario) == comparable(scenario["expected"], scenario), (
        scenario.get("why")
    )
