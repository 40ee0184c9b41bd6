"""Beam's ``apache_beam.portability``: the constants of Beam's portable model that Beam code
reads (``common_urns.constants``)."""
