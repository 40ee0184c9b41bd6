"""Side inputs on Spark: collected on the driver and broadcast to every worker, only when they
are small — their size is measured by the executors before anything is collected, so a large
side input is refused with a clear error instead of running the driver out of memory.

The limit is the Spark setting ``spark.panes.sideInput.maxBytes`` (bytes of the pickled
elements; 64 MiB when not set).
"""

from __future__ import annotations

import pickle

from panes.errors import RunnerError

LIMIT_SETTING = "spark.panes.sideInput.maxBytes"
DEFAULT_LIMIT = 64 << 20


def side_input_values(plan, spec, label: str) -> list:
    """The side input's windowed values, in event-log order, if within the limit."""
    collection = plan.collections[spec.pcollection]
    if collection.held is None:
        limit = int(plan.session.conf.get(LIMIT_SETTING, str(DEFAULT_LIMIT)))
        records = plan.persist(collection.rdd)
        size = plan.action(label, records.map(_pickled_size).sum)
        if size > limit:
            raise RunnerError(
                f"side input '{spec.pcollection}' of transform '{label}' is {size:,} bytes "
                f"pickled, above the {limit:,} bytes a side input may have on Spark (it is "
                f"broadcast from the driver): join the collections instead (key both, Flatten "
                f"them and GroupByKey), or raise the limit with the Spark setting "
                f"{LIMIT_SETTING}"
            )
    return plan.collect_sorted(collection, f"side input {spec.pcollection}").windowed_values


def _pickled_size(record) -> int:
    return len(pickle.dumps(record, pickle.HIGHEST_PROTOCOL))
