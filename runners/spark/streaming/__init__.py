"""The Spark runner's streaming mode: a pipeline as one Spark Structured Streaming query
(``--streaming``). ``runner`` plans it; docs/streaming.md explains the mapping."""
