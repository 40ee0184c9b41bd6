"""``WithTimestampField``: an element's event time read from one of its fields.

It is the declarative form of ``Map(lambda row: TimestampedValue(row, row[field]))`` for dict
elements (what ``ReadFromParquet`` and ``ReadFromDataFrame`` give): the field's name is
structured data in the IR, not a pickled lambda, so a runner can see where event time comes
from (the Spark runner computes it in Spark SQL, see docs/spark.md). A transform rather than a
read option, so it works after any source of dicts and on every runner, and reads keep to
reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from panes.errors import PipelineConstructionError
from panes.transforms.core import ParDo
from panes.transforms.dofn import StructuredMapFn
from panes.window import TimestampedValue


@dataclass(frozen=True)
class TimestampFromField(StructuredMapFn):
    """The element, at the time its field ``field`` holds: seconds (int or float), a
    ``datetime`` (naive means UTC) or a ``Timestamp`` — as everywhere in panes' API."""

    field: str

    @property
    def fn(self):
        field = self.field

        def timestamped(element):
            try:
                return TimestampedValue(element, element[field])
            except KeyError:
                raise KeyError(f"the element has no field {field!r}") from None
            except TypeError as error:
                if not isinstance(element, dict):
                    raise TypeError(
                        f"WithTimestampField needs dict elements (rows), got "
                        f"{type(element).__name__}"
                    ) from None
                raise TypeError(f"field {field!r}: {error}") from None

        return timestamped


class WithTimestampField(ParDo):
    """Sets each element's event time to its field ``field`` (seconds, ``datetime`` or
    ``Timestamp``); elements are dicts, e.g. from ``ReadFromParquet``."""

    def __init__(self, field: str, label=None):
        if not isinstance(field, str) or not field:
            raise PipelineConstructionError(
                f"WithTimestampField needs the name of the field holding the event time, a "
                f"non-empty string such as WithTimestampField('seconds'), got {field!r}"
            )
        super().__init__(TimestampFromField(field), label=label)

    def default_label(self) -> str:
        return f"WithTimestampField({self.fn.field})"
