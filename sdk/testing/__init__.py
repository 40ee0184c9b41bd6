"""Testing helpers: TestPipeline, TestStream, assert_that/equal_to, and materializing
windowed values."""

from panes.testing.capture import Materialized, materialize
from panes.testing.test_pipeline import TestPipeline
from panes.testing.test_stream import TestStream
from panes.testing.util import BeamAssertException, assert_that, equal_to, is_empty, is_not_empty
