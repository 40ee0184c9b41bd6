"""Beam's ``apache_beam.utils`` module paths."""
