"""Beam's ``apache_beam.utils`` module paths: ``timestamp`` and ``windowed_value``."""
