"""The pipeline IR: plain, versioned data (model, windowing, triggers, io, rows) and its JSON
codec. It imports nothing of the API: the API and the windowing engine lower to it, and
``panes.compiler`` compiles pipelines into it."""

from panes.ir.model import IR_VERSION, Node, PCollectionSpec, PipelineIR, from_json, to_json
