"""Models made as validation leaves them, without validating (`trusted`).

Read-back makes thousands of `hvnet.results` models from figures the core
has checked (migrations, passes, series, utilisation); validating them again
would be most of its time. `trusted` sets what `model_construct` sets,
without its pass over the fields.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["trusted"]

_Model = TypeVar("_Model", bound=BaseModel)
_new, _set = object.__new__, object.__setattr__
#: BaseModel's slots, set as `model_construct` sets them, past the frozen models' `__setattr__`.
_fields_set, _extra, _private = (
    BaseModel.__dict__[f"__pydantic_{name}__"].__set__ for name in ("fields_set", "extra", "private")
)


#: Each model's fields as one set, which the models `trusted` makes with every field share: the models
#: are frozen, so nothing adds to it (a copy, `model_copy`, copies it first).
_ALL_FIELDS: dict[type[BaseModel], set[str]] = {}


def trusted(cls: type[_Model], values: dict[str, Any]) -> _Model:
    """A `cls` of `values`: every field, in the model's order, as validation leaves it (read-back's
    figures, which the core checked). What `model_construct` makes, without its pass over the fields:
    read-back makes thousands of these."""
    model = _new(cls)
    _set(model, "__dict__", values)
    fields = _ALL_FIELDS.get(cls)
    if fields is None:
        fields = _ALL_FIELDS[cls] = set(cls.model_fields)
    _fields_set(model, fields if len(values) == len(fields) else set(values))
    _extra(model, None)
    _private(model, None)
    return model
