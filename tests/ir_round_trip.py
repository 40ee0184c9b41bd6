"""An IR value through JSON and back, as ``from_json`` reads it."""

import json

from panes.ir.codec import decode, encode


def through_json(value, hint):
    """``value`` (of the IR annotation ``hint``) written as JSON text and read back."""
    return decode(json.loads(json.dumps(encode(value, hint))), hint)
