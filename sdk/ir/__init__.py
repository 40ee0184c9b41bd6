"""The pipeline IR: model, JSON codec, compiler and validator."""

from panes.ir.codec import from_json, to_json
from panes.ir.model import IR_VERSION, Node, PCollectionSpec, PipelineIR
from panes.ir.validate import validate
