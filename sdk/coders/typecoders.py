"""The coder registry, as Beam's ``apache_beam.coders.typecoders``: which coder a type uses.

``registry.register_coder(Player, PlayerCoder)`` makes groupings whose key type hint is
``Player`` group keys by their encoding (see ``key_coder``)."""

from __future__ import annotations

import typing

from panes.coders import coders


class CoderRegistry:
    """Coders by type: Beam's standard ones, and those users register."""

    def __init__(self):
        self._coders: dict = {
            int: coders.VarIntCoder,
            float: coders.FloatCoder,
            bytes: coders.BytesCoder,
            bool: coders.BooleanCoder,
            str: coders.StrUtf8Coder,
        }
        self.custom_types: list = []

    def register_coder(self, typehint_type, typehint_coder_class) -> None:
        """Makes ``typehint_coder_class`` (a Coder class) the coder of ``typehint_type``."""
        if not isinstance(typehint_coder_class, type) or not issubclass(
            typehint_coder_class, coders.Coder
        ):
            raise TypeError(
                f"register_coder needs a Coder class, e.g. "
                f"register_coder(MyType, MyCoder); got {typehint_coder_class!r}"
            )
        if typehint_type not in self.custom_types:
            self.custom_types.append(typehint_type)
        self._coders[typehint_type] = typehint_coder_class

    def get_coder(self, typehint) -> coders.Coder:
        """The coder for a type hint: a registered one, a TupleCoder of component coders, or
        the fallback (pickle)."""
        coder = self._coders.get(typehint)
        if coder is not None:
            return coder()
        if typing.get_origin(typehint) is tuple:
            args = typing.get_args(typehint)
            if args and Ellipsis not in args:
                return coders.TupleCoder([self.get_coder(arg) for arg in args])
        return coders.FastPrimitivesCoder()

    def custom_coder(self, typehint) -> coders.Coder | None:
        """The user-registered coder of a type hint, or None."""
        return self._coders[typehint]() if typehint in self.custom_types else None


registry = CoderRegistry()
