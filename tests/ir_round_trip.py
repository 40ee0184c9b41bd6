"""An IR value through JSON and back, as ``from_json`` reads it; an edit of IR JSON data."""

import json

from panes.ir.codec import decode, encode


def through_json(value, hint):
    """``value`` (of the IR annotation ``hint``) written as JSON text and read back."""
    return decode(json.loads(json.dumps(encode(value, hint))), hint)


def set_in(path: tuple, value):
    """An edit of IR JSON data: sets the item at ``path`` (keys and indexes) to ``value``."""

    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change
