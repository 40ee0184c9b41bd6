"""The runners every runner-agnostic test runs on (conformance, transforms, examples).

``PANES_TEST_RUNNERS=direct`` narrows a local run while iterating; CI runs them all.
"""

import os

RUNNERS = os.environ.get("PANES_TEST_RUNNERS", "direct,spark").split(",")
