"""Trigger state machines, one module per concept; see ``panes.windowing.trigger_machine``."""
