"""Every trigger panes has is one entry of ``trigger_kinds``: each API trigger class has one,
each IR trigger kind has one, and each trigger goes to the IR, through JSON and back to what
it was (Beam's ``from_runner_api(to_runner_api(t)) == t``)."""

import dataclasses

import pytest
from ids import stable_id
from ir_round_trip import through_json

from panes import trigger as api
from panes.ir import triggers as ir
from panes.windowing import trigger_kinds


def _delta(a, b):
    return b - a


# At least one trigger of every kind; a new kind without an example fails the coverage test.
EXAMPLES = [
    api.DefaultTrigger(),
    api.Never(),
    api.AfterWatermark(),
    api.AfterWatermark(early=api.AfterCount(2), late=api.AfterProcessingTime(5)),
    api.AfterCount(3),
    api.AfterProcessingTime(30),
    api.Repeatedly(api.AfterCount(2)),
    api.AfterAll(api.AfterCount(2), api.AfterWatermark()),
    api.AfterAny(api.AfterCount(2), api.AfterProcessingTime(1)),
    api.AfterEach(api.AfterCount(1), api.AfterCount(2)),
    api.OrFinally(api.Repeatedly(api.AfterCount(2)), api.AfterWatermark()),
    api.CountTrigger.of(3),
    api.EventTimeTrigger.create(),
    api.EventTimeTrigger.afterEndOfWindow()
    .withEarlyTrigger(api.CountTrigger.of(2))
    .withLateTrigger(api.CountTrigger.of(1)),
    api.ProcessingTimeTrigger.create().withEarlyTrigger(api.CountTrigger.of(5)),
    api.EventTimeTrigger.afterFirstElement(5),
    api.ProcessingTimeTrigger.afterFirstElement(5),
    api.ContinuousEventTimeTrigger.of(10),
    api.ContinuousProcessingTimeTrigger.of(10),
    api.DeltaTrigger.of(2.5, _delta),
    api.PurgingTrigger.of(api.CountTrigger.of(3)),
    api.All(api.EventTimeTrigger.create(), api.CountTrigger.of(5)),
    api.Any(api.CountTrigger.of(2), api.ContinuousEventTimeTrigger.of(4)),
]


def api_trigger_classes() -> set:
    return {
        value
        for value in vars(api).values()
        if isinstance(value, type)
        and issubclass(value, api.Trigger)
        and dataclasses.is_dataclass(value)
    }


def test_every_api_trigger_and_every_ir_kind_has_one_entry():
    assert {kind.api for kind in trigger_kinds.KINDS} == api_trigger_classes()
    assert {kind.ir for kind in trigger_kinds.KINDS} == set(ir.Trigger.members.values())
    assert len(trigger_kinds.KINDS) == len(api_trigger_classes())


def test_the_examples_cover_every_kind():
    assert {type(example) for example in EXAMPLES} == api_trigger_classes()


@pytest.mark.parametrize("trigger", EXAMPLES, ids=stable_id)
def test_a_trigger_round_trips_through_its_ir_and_json(trigger):
    lowered = trigger_kinds.to_ir(trigger)
    read_back = through_json(lowered, ir.Trigger)
    assert read_back == lowered
    assert trigger_kinds.from_ir(read_back) == trigger


@pytest.mark.parametrize(
    "trigger, shown",
    [
        (api.AfterWatermark(early=api.AfterCount(2)), "AfterWatermark(early=AfterCount(2))"),
        (api.Repeatedly(api.AfterProcessingTime(90)), "Repeatedly(AfterProcessingTime(90s))"),
        (api.OrFinally(api.AfterCount(1), api.Never()), "OrFinally(AfterCount(1), Never())"),
        (api.PurgingTrigger.of(api.CountTrigger.of(3)), "PurgingTrigger.of(CountTrigger.of(3))"),
        (
            api.All(api.EventTimeTrigger.create(), api.CountTrigger.of(5)),
            "All(EventTimeTrigger(), CountTrigger.of(5))",
        ),
    ],
)
def test_a_trigger_is_shown_as_the_api_writes_it(trigger, shown):
    assert trigger_kinds.display(trigger_kinds.to_ir(trigger)) == shown


def test_a_trigger_panes_does_not_know_is_refused_when_lowered():
    class Sometimes(api.Trigger):
        pass

    with pytest.raises(
        Exception, match="is not a panes trigger; custom triggers are not supported"
    ):
        trigger_kinds.to_ir(Sometimes())


@pytest.mark.parametrize(
    "trigger, family, accumulation",
    [
        (api.AfterCount(3), False, None),
        (api.CountTrigger.of(3), True, "accumulating"),
        (api.PurgingTrigger.of(api.CountTrigger.of(3)), True, "discarding"),
    ],
)
def test_a_kind_states_its_family_rules(trigger, family, accumulation):
    kind = trigger_kinds.kind_of(trigger_kinds.to_ir(trigger))
    assert kind.flink is family
    assert (kind.accumulation and kind.accumulation.value) == accumulation


@pytest.mark.parametrize(
    "trigger, waits",
    [
        (api.DefaultTrigger(), False),
        (api.AfterWatermark(early=api.AfterCount(2), late=api.AfterCount(1)), False),
        (api.Repeatedly(api.AfterCount(2)), False),
        (api.EventTimeTrigger.afterFirstElement(5), False),
        (api.ContinuousEventTimeTrigger.of(5), False),
        (api.AfterProcessingTime(30), True),
        (api.AfterWatermark(late=api.AfterProcessingTime(5)), True),
        (api.OrFinally(api.Repeatedly(api.AfterCount(2)), api.AfterProcessingTime(1)), True),
        (api.ProcessingTimeTrigger.create(), True),
        (api.ProcessingTimeTrigger.afterFirstElement(5), True),
        (api.ContinuousProcessingTimeTrigger.of(5), True),
        (
            api.PurgingTrigger.of(
                api.Any(api.CountTrigger.of(3), api.ProcessingTimeTrigger.afterFirstElement(2))
            ),
            True,
        ),
    ],
    ids=stable_id,
)
def test_a_trigger_says_whether_it_waits_on_processing_time(trigger, waits):
    """What a streaming runner asks to know whether it must move processing time while no
    data arrives."""
    assert trigger_kinds.sets_processing_timers(trigger_kinds.to_ir(trigger)) is waits
