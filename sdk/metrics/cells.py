"""Metric values, as Beam's ``apache_beam.metrics.cells``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class DistributionData:
    """A distribution's sum, count, min and max; ``mean`` as Beam's ``DistributionResult``."""

    sum: int = 0
    count: int = 0
    min: float | None = None
    max: float | None = None

    def update(self, value) -> None:
        self.sum += value
        self.count += 1
        self.min = value if self.min is None else min(self.min, value)
        self.max = value if self.max is None else max(self.max, value)

    def combine(self, other: DistributionData) -> DistributionData:
        mins = [m for m in (self.min, other.min) if m is not None]
        maxs = [m for m in (self.max, other.max) if m is not None]
        return DistributionData(
            self.sum + other.sum,
            self.count + other.count,
            min(mins) if mins else None,
            max(maxs) if maxs else None,
        )

    @property
    def mean(self):
        return self.sum / self.count if self.count else None
