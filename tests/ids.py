"""Test ids that are the same in every test process: a value's repr without the memory
addresses of objects in it (pytest-xdist's workers must collect identical ids)."""

import re


def stable_id(value) -> str:
    return re.sub(r" (object )?at 0x[0-9a-f]+", "", repr(value))
