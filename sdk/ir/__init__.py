"""The pipeline IR: its vocabulary (model, windowing, triggers, io, rows), JSON codec, compiler
and validator."""

from panes.ir.model import IR_VERSION, Node, PCollectionSpec, PipelineIR, from_json, to_json
from panes.ir.validate import validate
