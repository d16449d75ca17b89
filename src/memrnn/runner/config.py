"""Typed run settings: ``--set key=value`` parsing and validation that names the field."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from memrnn.errors import UserError
from memrnn.experiments.config import TrainConfig, choices, describe_choices, field_types

C = TypeVar("C", bound=TrainConfig)
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _shown(text: str) -> str:
    """``text`` as typed, or quoted with escapes where it holds a line break or another
    character that would break the one line of an error."""
    return text if text.isprintable() else repr(text)


def _parse(key: str, raw: str, kind: Any) -> Any:
    """Convert the text ``raw`` to the field's type, or raise a UserError naming ``key``."""
    allowed = choices(kind)
    if allowed is not None:
        for value in allowed:
            if str(value) == raw:
                return value
        raise UserError(f"--set {_shown(f'{key}={raw}')}: expected {describe_choices(allowed)}")
    try:
        if kind is bool:
            if raw.lower() in _TRUE:
                return True
            if raw.lower() in _FALSE:
                return False
            raise ValueError(raw)
        if kind in (int, float, str):
            return kind(raw)
        if typing.get_origin(kind) is tuple:
            item = typing.get_args(kind)[0]
            return tuple(item(part) for part in raw.split(",") if part.strip())
    except ValueError:
        name = getattr(kind, "__name__", str(kind))
        raise UserError(f"--set {_shown(f'{key}={raw}')}: not a valid {name}") from None
    raise TypeError(f"setting {key} has a type the command line cannot parse: {kind}")


def with_overrides(config: C, assignments: Sequence[str]) -> C:
    """A copy of ``config`` with each ``key=value`` applied, validated."""
    types = field_types(type(config))
    changes: dict[str, Any] = {}
    for item in assignments:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise UserError(f"--set {item!r}: expected key=value")
        if key not in types:
            known = ", ".join(sorted(types))
            raise UserError(f"--set {_shown(key)}: unknown setting; the settings are: {known}")
        if key in changes:
            raise UserError(f"--set {_shown(key)}: given twice; give each setting once")
        changes[key] = _parse(key, raw.strip(), types[key])
    new = dataclasses.replace(config, **changes)
    try:
        new.validate()
    except ValueError as error:
        raise UserError(f"--set {error}") from None
    return new


def config_from_mapping(config_type: type[C], values: Mapping[str, Any]) -> C:
    """Build and validate a config from stored values (JSON: lists become tuples)."""
    types = field_types(config_type)
    unknown = sorted(set(values) - set(types))
    if unknown:
        raise UserError(f"{config_type.__name__}: unknown settings {', '.join(unknown)}")
    converted: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) and typing.get_origin(types[k]) is tuple else v
        for k, v in values.items()
    }
    config = config_type(**converted)
    config.validate()
    return config
