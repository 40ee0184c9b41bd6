"""Looking records up in batches: ``GroupIntoBatches`` gathers each key's records into lists of
at most 50, so that an expensive lookup (a service call, a database query) runs once per batch,
not once per record — and, on a stream, a batch waits at most 5 seconds of processing time
for company.

Each input line is ``customer,order_id``; each output line is ``customer order_id status``,
the status looked up batch by batch (a stand-in lookup here: ``LookUp.statuses``).

    python examples/batched_lookups.py --input 'orders/*.csv' --output out/statuses
    python examples/batched_lookups.py --runner spark --input ... --output ...
"""

from __future__ import annotations

import argparse

import panes as beam
from panes.io.text import ReadFromText, WriteToText
from panes.metrics import Metrics
from panes.options.pipeline_options import PipelineOptions
from panes.transforms.util import GroupIntoBatches

BATCH_SIZE = 50
MAX_WAIT_SECONDS = 5


class LookUp(beam.DoFn):
    """One lookup per batch of a customer's orders."""

    def setup(self):
        self.calls = Metrics.counter("lookups", "calls")

    def process(self, batch):
        customer, order_ids = batch
        self.calls.inc()
        for order_id, status in zip(order_ids, self.statuses(customer, order_ids)):
            yield f"{customer} {order_id} {status}"

    @staticmethod
    def statuses(customer: str, order_ids: list) -> list:
        """The stand-in for the service: one answer per order, in order."""
        return ["shipped" if int(order_id) % 2 else "pending" for order_id in order_ids]


def build(p, input_pattern: str, output_prefix: str):
    return (
        p
        | "Orders" >> ReadFromText(input_pattern)
        | "Key" >> beam.Map(lambda line: tuple(line.split(",")))
        | "Batch" >> GroupIntoBatches(BATCH_SIZE, max_buffering_duration_secs=MAX_WAIT_SECONDS)
        | "LookUp" >> beam.ParDo(LookUp())
        | "Write" >> WriteToText(output_prefix)
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    known, pipeline_args = parser.parse_known_args(argv)
    with beam.Pipeline(options=PipelineOptions(pipeline_args)) as p:
        build(p, known.input, known.output)


if __name__ == "__main__":
    main()
