"""The IR a Beam pipeline's translation builds: its nodes and collections in order, and which
Beam collection each panes collection stands for. Every translator adds to one."""

from __future__ import annotations

from dataclasses import replace

from panes.errors import PipelineConstructionError
from panes.ir.data import Pickled
from panes.ir.model import IR_VERSION, Node, PCollectionSpec, PipelineIR
from panes.ir.windowing import WindowingStrategy
from panes.transforms.core import stateful_payload
from panes.windowing import trigger_kinds

MAIN = "main"


class Translation:
    """The IR being built: nodes and collections in order, and which Beam collection each
    panes collection stands for."""

    def __init__(self, consumed: set):
        self.nodes: dict = {}
        self.pcollections: dict = {}
        self.composites: list = []
        self.consumed = consumed  # id() of every Beam collection some transform reads
        self.side_inputs: dict = {}  # collection id -> its values with their windows, global
        self._ids: dict = {}  # id(Beam PCollection) -> panes collection id

    def input_id(self, pcoll, label: str) -> str:
        """The panes collection that a Beam collection read by ``label`` is."""
        try:
            return self._ids[id(pcoll)]
        except KeyError:
            raise PipelineConstructionError(
                f"'{label}' reads {pcoll}, which no transform panes translated produced"
            ) from None

    def strategy(self, pcollection_id: str) -> WindowingStrategy:
        return self.pcollections[pcollection_id].windowing

    def add(
        self,
        node_id: str,
        kind: str,
        inputs=(),
        outputs=None,
        payload=None,
        side_inputs=(),
    ) -> dict:
        """Adds a node; ``outputs`` maps each tag to ``(Beam collection or None, strategy)``.
        Returns the node's output collection ids by tag."""
        if node_id in self.nodes:
            raise PipelineConstructionError(f"two transforms are labelled '{node_id}'")
        ids = {}
        for tag, (pcoll, strategy) in (outputs or {}).items():
            ids[tag] = f"{node_id}.{tag}"
            self.pcollections[ids[tag]] = PCollectionSpec(ids[tag], node_id, tag, strategy)
            if pcoll is not None:
                self._ids[id(pcoll)] = ids[tag]
        self.nodes[node_id] = Node(
            node_id, kind, tuple(inputs), ids, tuple(side_inputs), dict(payload or {})
        )
        return ids

    def par_do(self, label: str, source: str, fn, pcoll=None, strategy=None) -> str:
        """Adds a one-output par_do of the panes DoFn ``fn`` over ``source``, whose output is
        ``pcoll``'s panes collection (if given) with ``source``'s strategy (unless given);
        returns the output's id."""
        return self.add(
            label,
            "par_do",
            (source,),
            {MAIN: (pcoll, strategy or self.strategy(source))},
            par_do_payload(fn, (), {}, {None: MAIN}),
        )[MAIN]

    def alias(self, pcoll, pcollection_id: str) -> None:
        """``pcoll`` is the panes collection ``pcollection_id`` (a transform that changes
        nothing panes can see)."""
        self._ids[id(pcoll)] = pcollection_id

    def is_consumed(self, pcoll) -> bool:
        return id(pcoll) in self.consumed

    def ir(self) -> PipelineIR:
        kinds = sorted({node.kind for node in self.nodes.values()})
        return PipelineIR(
            IR_VERSION,
            tuple(f"panes:node:{kind}:v1" for kind in kinds),
            self.nodes,
            self.pcollections,
            tuple(self.composites),
        )


def par_do_payload(fn, args, kwargs, tags: dict) -> dict:
    """A par_do's payload: the panes DoFn ``fn`` with ``args`` and ``kwargs``, its outputs
    ``tags`` (``output_tags``), and the state cells and timers of ``fn`` if it has any."""
    return {
        "fn": Pickled.of(fn),
        "args": args,
        "kwargs": kwargs,
        "main_tag": tags[None],
        "output_tags": tuple(tag for beam_tag, tag in tags.items() if beam_tag is not None),
        **stateful_payload(fn),
    }


def downstream(strategy: WindowingStrategy) -> WindowingStrategy:
    """A grouping's output strategy: its trigger's continuation (panes' rule, Beam Java's)."""
    return replace(strategy, trigger=trigger_kinds.continuation(strategy.trigger))


def main_input(translation: Translation, applied) -> str:
    """The panes collection of a transform's one main input."""
    return translation.input_id(applied.main_inputs[_main_input_tag(applied)], applied.full_label)


def _main_input_tag(applied):
    tags = list(applied.main_inputs)
    if len(tags) != 1:
        raise PipelineConstructionError(
            f"'{applied.full_label}' has {len(tags)} main inputs; panes expected one"
        )
    return tags[0]


def output_tags(applied) -> dict:
    """panes' tag for each of Beam's output tags, and for None, Beam's main output, whether
    or not the transform has one (panes' par_do names a main tag)."""
    named = {tag for tag in applied.outputs if tag is not None}
    main = MAIN
    while main in named:
        main = f"{main}_"
    return {None: main, **{tag: tag for tag in named}}
