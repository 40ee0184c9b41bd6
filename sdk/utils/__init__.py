"""Beam's ``apache_beam.utils`` module paths: ``timestamp`` and ``windowed_value``; and
``sessions``, the interval-merge rule that ``Sessions`` and the windowing engine share."""
