"""Type hints, as Beam's ``apache_beam.typehints``: the hint names and the decorators."""

from panes.typehints.decorators import TypeCheckError, with_input_types, with_output_types
from panes.typehints.typehints import (
    KV,
    Any,
    Collection,
    Dict,
    FrozenSet,
    Generator,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypeVariable,
    Union,
)
