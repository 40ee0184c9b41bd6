"""The stateful DoFns scenarios run in place of a grouping (``stateful: NAME``). They are written
once against Beam's names: ``dofns(beam, userstate, TimeDomain)`` builds them on panes, and on
Apache Beam for the Beam oracle. Each outputs ``(key, value)`` pairs, so their rows read as a
grouping's; a DoFn that uses what only panes has says so (``PANES_ONLY``)."""

from __future__ import annotations

import importlib


def dofns(beam, userstate, TimeDomain) -> dict:  # noqa: N803 - Beam's class name
    coder = beam.coders.PickleCoder()
    count_spec = userstate.ReadModifyWriteStateSpec("count", coder)
    seen_spec = userstate.SetStateSpec("seen", coder)
    sum_spec = userstate.CombiningValueStateSpec("sum", coder, sum)
    buffer_spec = userstate.BagStateSpec("buffer", coder)
    ordered_spec = userstate.OrderedListStateSpec("ordered", coder)
    left_spec = userstate.ReadModifyWriteStateSpec("left", coder)
    flush = userstate.TimerSpec("flush", TimeDomain.WATERMARK)
    flush_unless_cleared = userstate.TimerSpec("flush", TimeDomain.WATERMARK)
    window_end = userstate.TimerSpec("window_end", TimeDomain.WATERMARK)
    tick = userstate.TimerSpec("tick", TimeDomain.WATERMARK)
    timeout = userstate.TimerSpec("timeout", TimeDomain.REAL_TIME)
    held = userstate.TimerSpec("held", TimeDomain.WATERMARK)
    on_timer = userstate.on_timer
    DoFn = beam.DoFn  # noqa: N806

    class Counter(DoFn):
        """Counts each key's elements per window (read-modify-write state)."""

        def process(self, element, count=DoFn.StateParam(count_spec)):
            seen = (count.read() or 0) + 1
            count.write(seen)
            yield element[0], seen

    class Deduplicate(DoFn):
        """Each value of a key once per window (set state)."""

        def process(self, element, seen=DoFn.StateParam(seen_spec)):
            if element[1] not in set(seen.read()):
                seen.add(element[1])
                yield element

    class RunningSum(DoFn):
        """The running sum of each key's values per window (combining state)."""

        def process(self, element, total=DoFn.StateParam(sum_spec)):
            total.add(element[1])
            yield element[0], total.read()

    class FlushAfterQuiet(DoFn):
        """Buffers a key's values until 5 s of event time pass after its latest element: each
        element moves the timer (bag state, an event-time timer set again)."""

        def process(
            self,
            element,
            timestamp=DoFn.TimestampParam,
            buffer=DoFn.StateParam(buffer_spec),
            timer=DoFn.TimerParam(flush),
        ):
            buffer.add(element[1])
            timer.set(timestamp + 5)

        @on_timer(flush)
        def flushed(self, key=DoFn.KeyParam, buffer=DoFn.StateParam(buffer_spec)):
            yield key, sorted(buffer.read())
            buffer.clear()

    class InTimestampOrder(DoFn):
        """A key's values in timestamp order at the end of each window (ordered-list state,
        a timer at the window's last timestamp)."""

        def process(
            self,
            element,
            timestamp=DoFn.TimestampParam,
            window=DoFn.WindowParam,
            ordered=DoFn.StateParam(ordered_spec),
            timer=DoFn.TimerParam(window_end),
        ):
            ordered.add((timestamp, element[1]))
            timer.set(window.max_timestamp())

        @on_timer(window_end)
        def ended(self, key=DoFn.KeyParam, ordered=DoFn.StateParam(ordered_spec)):
            yield key, [value for _, value in ordered.read()]
            ordered.clear()

    class Countdown(DoFn):
        """Counts down from each element's value one second at a time: each firing sets the
        next timer from its callback, so one watermark advance fires a chain of them."""

        def process(
            self,
            element,
            timestamp=DoFn.TimestampParam,
            left=DoFn.StateParam(left_spec),
            timer=DoFn.TimerParam(tick),
        ):
            left.write(element[1])
            timer.set(timestamp + 1)

        @on_timer(tick)
        def ticked(
            self,
            key=DoFn.KeyParam,
            timestamp=DoFn.TimestampParam,
            left=DoFn.StateParam(left_spec),
            timer=DoFn.TimerParam(tick),
        ):
            remaining = left.read()
            yield key, remaining
            if remaining > 1:
                left.write(remaining - 1)
                timer.set(timestamp + 1)
            else:
                left.clear()

    class ClearOnZero(DoFn):
        """Sets a timer 5 s after each element; a value of 0 clears it instead."""

        def process(
            self,
            element,
            timestamp=DoFn.TimestampParam,
            buffer=DoFn.StateParam(buffer_spec),
            timer=DoFn.TimerParam(flush_unless_cleared),
        ):
            if element[1] == 0:
                timer.clear()
                return
            buffer.add(element[1])
            timer.set(timestamp + 5)

        @on_timer(flush_unless_cleared)
        def flushed(self, key=DoFn.KeyParam, buffer=DoFn.StateParam(buffer_spec)):
            yield key, sorted(buffer.read())
            buffer.clear()

    class TimeoutInProcessingTime(DoFn):
        """Buffers a key's values for 5 s of processing time after its first one (a
        processing-time timer, set from the timer's own clock: panes' ``now()``)."""

        def process(
            self,
            element,
            buffer=DoFn.StateParam(buffer_spec),
            timer=DoFn.TimerParam(timeout),
        ):
            if not buffer.read():
                timer.set(timer.now() + 5)
            buffer.add(element[1])

        @on_timer(timeout)
        def timed_out(self, key=DoFn.KeyParam, buffer=DoFn.StateParam(buffer_spec)):
            yield key, sorted(buffer.read())
            buffer.clear()

    class SumAtFirstElement(DoFn):
        """Sums a key's values per window and outputs the sum at the window's end, stamped
        with the first element's timestamp: the timer's output timestamp holds the output
        watermark there until it fires (panes' ``output_timestamp``)."""

        def process(
            self,
            element,
            timestamp=DoFn.TimestampParam,
            window=DoFn.WindowParam,
            total=DoFn.StateParam(sum_spec),
            timer=DoFn.TimerParam(held),
        ):
            if not total.read():
                timer.set(window.max_timestamp(), output_timestamp=timestamp)
            total.add(element[1])

        @on_timer(held)
        def summed(self, key=DoFn.KeyParam, total=DoFn.StateParam(sum_spec)):
            yield key, total.read()
            total.clear()

    index_spec = userstate.CombiningValueStateSpec("index", sum)
    requests_spec = userstate.BagStateSpec("requests", coder)
    pending_spec = userstate.CombiningValueStateSpec("pending", sum)
    expiry = userstate.TimerSpec("expiry", TimeDomain.WATERMARK)

    class IndexAssigning(DoFn):
        """Beam's "Stateful processing" guide: each element gets its key's next index."""

        def process(self, element, index=DoFn.StateParam(index_spec)):
            key, value = element
            current = index.read()
            yield key, (value, current)
            index.add(1)

    class BatchedRequests(DoFn):
        """Beam's "Timely processing" guide: a key's requests go out as one batch once 3 are
        buffered, and the rest when the watermark passes the window's end."""

        def process(
            self,
            element,
            window=DoFn.WindowParam,
            requests=DoFn.StateParam(requests_spec),
            pending=DoFn.StateParam(pending_spec),
            timer=DoFn.TimerParam(expiry),
        ):
            timer.set(window.max_timestamp())
            requests.add(element[1])
            pending.add(1)
            if pending.read() >= 3:
                yield element[0], sorted(requests.read())
                requests.clear()
                pending.clear()

        @on_timer(expiry)
        def expired(
            self,
            key=DoFn.KeyParam,
            requests=DoFn.StateParam(requests_spec),
            pending=DoFn.StateParam(pending_spec),
        ):
            if pending.read():
                yield key, sorted(requests.read())
            requests.clear()
            pending.clear()

    windowed_value = importlib.import_module(f"{beam.__name__}.utils.windowed_value")

    class CountedAtFinishBundle(DoFn):
        """Counts each key's elements (read-modify-write state) as ``Counter`` does, but holds
        each count until ``finish_bundle``, which emits them in their elements' windows."""

        def start_bundle(self):
            self.held = []

        def process(
            self,
            element,
            timestamp=DoFn.TimestampParam,
            window=DoFn.WindowParam,
            count=DoFn.StateParam(count_spec),
        ):
            seen = (count.read() or 0) + 1
            count.write(seen)
            self.held.append(windowed_value.WindowedValue((element[0], seen), timestamp, (window,)))
            return ()

        def finish_bundle(self):
            yield from self.held

    return {
        name: cls
        for name, cls in locals().items()
        if isinstance(cls, type) and issubclass(cls, DoFn) and cls is not DoFn
    }


# What Apache Beam's Python SDK does not have: a timer's now() and output_timestamp.
PANES_ONLY = {"TimeoutInProcessingTime", "SumAtFirstElement"}
