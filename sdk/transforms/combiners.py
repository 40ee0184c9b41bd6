"""Built-in CombineFns and the Beam-style combiner transforms built on them."""

from __future__ import annotations

from panes.transforms import core  # noqa: F401 - Beam code reaches core through combiners
from panes.transforms.combinefn import CombineFn, MaxFn, MinFn, SumFn  # noqa: F401 - Beam's names


class CountFn(CombineFn):
    """The number of elements."""

    def create_accumulator(self):
        return 0

    def add_input(self, accumulator, element):
        return accumulator + 1

    def merge_accumulators(self, accumulators):
        return sum(accumulators)

    def extract_output(self, accumulator):
        return accumulator


class MeanFn(CombineFn):
    """The arithmetic mean; the accumulator is ``(sum, count)``, NaN for no elements (Beam)."""

    def create_accumulator(self):
        return (0, 0)

    def add_input(self, accumulator, element):
        return accumulator[0] + element, accumulator[1] + 1

    def merge_accumulators(self, accumulators):
        sums, counts = zip(*accumulators)
        return sum(sums), sum(counts)

    def extract_output(self, accumulator):
        total, count = accumulator
        return total / count if count else float("nan")


class TopCombineFn(CombineFn):
    """The ``n`` largest elements (by ``key``; smallest with ``reverse=True``), largest first.

    Among equal elements competing for the last places it keeps those Beam keeps: the
    accumulator is Beam's bounded min-heap, fed one element at a time in the elements' order
    (so it ``needs_input_order``), and merged as Beam merges, by feeding the later heaps'
    elements into the first."""

    needs_input_order = True

    def __init__(self, n: int, key=None, reverse: bool = False):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"TopCombineFn needs a non-negative count n, got {n!r}")
        self.n, self.key, self.reverse = n, key, reverse

    def create_accumulator(self):
        return []

    def add_input(self, accumulator, element):
        import heapq

        ranked = _Ranked(element, element if self.key is None else self.key(element), self.reverse)
        if len(accumulator) < self.n:
            heapq.heappush(accumulator, ranked)
        else:
            heapq.heappushpop(accumulator, ranked)
        return accumulator

    def merge_accumulators(self, accumulators):
        accumulators = iter(accumulators)
        merged = next(accumulators)
        for accumulator in accumulators:
            for ranked in accumulator:
                merged = self.add_input(merged, ranked.value)
        return merged

    def extract_output(self, accumulator):
        return [ranked.value for ranked in sorted(accumulator, reverse=True)]

    def default_label(self) -> str:
        return f"Top({self.n})"


class _Ranked:
    """An element in a Top heap, compared by its rank (its key; reversed for the smallest)."""

    __slots__ = ("value", "rank", "reverse")

    def __init__(self, value, rank, reverse: bool):
        self.value, self.rank, self.reverse = value, rank, reverse

    def __lt__(self, other: _Ranked) -> bool:
        return self.rank > other.rank if self.reverse else self.rank < other.rank

    def __reduce__(self):
        return _Ranked, (self.value, self.rank, self.reverse)


class ToListCombineFn(CombineFn):
    """All elements as a list (in no guaranteed order, as in Beam)."""

    def create_accumulator(self):
        return []

    def add_input(self, accumulator, element):
        accumulator.append(element)
        return accumulator

    def merge_accumulators(self, accumulators):
        return [element for accumulator in accumulators for element in accumulator]

    def extract_output(self, accumulator):
        return list(accumulator)


class ToDictCombineFn(CombineFn):
    """``(key, value)`` elements as a dict (a later value of a key wins, in no guaranteed
    order, as in Beam)."""

    def create_accumulator(self):
        return {}

    def add_input(self, accumulator, element):
        key, value = element
        accumulator[key] = value
        return accumulator

    def merge_accumulators(self, accumulators):
        return {key: value for accumulator in accumulators for key, value in accumulator.items()}

    def extract_output(self, accumulator):
        return dict(accumulator)


class ToSetCombineFn(CombineFn):
    """The distinct elements as a set."""

    def create_accumulator(self):
        return set()

    def add_input(self, accumulator, element):
        accumulator.add(element)
        return accumulator

    def merge_accumulators(self, accumulators):
        return set().union(*accumulators)

    def extract_output(self, accumulator):
        return set(accumulator)


# Beam's names for the combiners above.
CountCombineFn = CountFn
MeanCombineFn = MeanFn


class ReduceFn(CombineFn):
    """Folds the elements with an associative, commutative binary ``fn`` (Flink's reduce);
    None for no elements."""

    _EMPTY = ("panes.ReduceFn.empty",)

    def __init__(self, fn):
        if not callable(fn):
            raise ValueError(f"ReduceFn needs a binary function, got {fn!r}")
        self.fn = fn

    def create_accumulator(self):
        return self._EMPTY

    def add_input(self, accumulator, element):
        return element if accumulator == self._EMPTY else self.fn(accumulator, element)

    def merge_accumulators(self, accumulators):
        result = self._EMPTY
        for accumulator in accumulators:
            if accumulator != self._EMPTY:
                result = accumulator if result == self._EMPTY else self.fn(result, accumulator)
        return result

    def extract_output(self, accumulator):
        return None if accumulator == self._EMPTY else accumulator


def _globally(fn_factory, name):
    def globally(*args, **kwargs):
        from panes.transforms.core import CombineGlobally

        return CombineGlobally(fn_factory(*args), label=kwargs.get("label", name))

    return globally


def _per_key(fn_factory, name):
    def per_key(*args, **kwargs):
        from panes.transforms.core import CombinePerKey

        return CombinePerKey(fn_factory(*args), label=kwargs.get("label", name))

    return per_key


class Count:
    """``Count.Globally()``, ``Count.PerKey()``, ``Count.PerElement()`` (Beam's)."""

    Globally = staticmethod(_globally(CountFn, "CountGlobally"))
    PerKey = staticmethod(_per_key(CountFn, "CountPerKey"))

    @staticmethod
    def PerElement(label="CountPerElement"):  # noqa: N802 - Beam's name
        """Each distinct element with its number of occurrences: the elements are paired with
        1 and the ones summed per element, as a hand-written word count does (adding is a C
        call per element; counting a Python one)."""
        from panes.transforms.ptransform import PTransform

        class _PerElement(PTransform):
            def expand(self, pcoll):
                from panes.transforms.core import CombinePerKey, Map

                return (
                    pcoll
                    | "PairWithOne" >> Map(lambda element: (element, 1))
                    | "CountPerKey" >> CombinePerKey(SumFn())
                )

        return _PerElement(label=label)


class Mean:
    """``Mean.Globally()``, ``Mean.PerKey()``."""

    Globally = staticmethod(_globally(MeanFn, "MeanGlobally"))
    PerKey = staticmethod(_per_key(MeanFn, "MeanPerKey"))


class Top:
    """``Top.Of(n, key=None, reverse=False)``, ``Top.PerKey(n, ...)``, ``Top.Largest(n)``,
    ``Top.Smallest(n)``, ``Top.LargestPerKey(n)``, ``Top.SmallestPerKey(n)``."""

    @staticmethod
    def Of(n, key=None, reverse=False, label="TopOf"):  # noqa: N802
        from panes.transforms.core import CombineGlobally

        return CombineGlobally(TopCombineFn(n, key, reverse), label=label)

    @staticmethod
    def PerKey(n, key=None, reverse=False, label="TopPerKey"):  # noqa: N802
        from panes.transforms.core import CombinePerKey

        return CombinePerKey(TopCombineFn(n, key, reverse), label=label)

    @staticmethod
    def Largest(n, label="TopLargest"):  # noqa: N802
        return Top.Of(n, label=label)

    @staticmethod
    def Smallest(n, label="TopSmallest"):  # noqa: N802
        return Top.Of(n, reverse=True, label=label)

    @staticmethod
    def LargestPerKey(n, label="TopLargestPerKey"):  # noqa: N802
        return Top.PerKey(n, label=label)

    @staticmethod
    def SmallestPerKey(n, label="TopSmallestPerKey"):  # noqa: N802
        return Top.PerKey(n, reverse=True, label=label)


def _combined_globally(name, fn_class, doc):
    def transform(label=name):
        from panes.transforms.core import CombineGlobally

        return CombineGlobally(fn_class(), label=label)

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return transform


ToList = _combined_globally(
    "ToList", ToListCombineFn, "All elements of each window as one list (Beam's ToList())."
)
ToDict = _combined_globally(
    "ToDict", ToDictCombineFn, "The (key, value) elements of each window as one dict."
)
ToSet = _combined_globally(
    "ToSet", ToSetCombineFn, "The distinct elements of each window as one set."
)
