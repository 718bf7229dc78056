"""Strict validation of tool arguments against the published input schemas.

The low-level MCP server does not check arguments against the schema it publishes, so every call
passes through :func:`validate_arguments`: an unknown argument, a value outside a facet's enum or a
limit out of range becomes an :class:`InvalidArguments` whose message names the field and what is
allowed, so the agent can correct the call in one step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from docs_mcp.core.errors import QueryError
from docs_mcp.server.schema import JsonSchema


class InvalidArguments(QueryError):
    """Tool arguments do not match the tool's input schema; ``field`` names the offending argument."""

    def __init__(self, message: str, field: str | None) -> None:
        super().__init__(message)
        self.field = field


class ArgumentValidator:
    """Validates the arguments of one tool and fills in schema defaults."""

    def __init__(self, tool: str, schema: JsonSchema) -> None:
        Draft202012Validator.check_schema(schema)
        self._tool = tool
        self._schema = schema
        self._validator = Draft202012Validator(schema)

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return the arguments with defaults applied.

        Raises:
            InvalidArguments: the first problem found, naming the field and the allowed values.
        """
        values = dict(arguments or {})
        errors = sorted(self._validator.iter_errors(values), key=_error_order)
        if errors:
            raise self._explain(errors[0], values)
        for name, spec in self._schema.get("properties", {}).items():
            if name not in values and "default" in spec:
                values[name] = spec["default"]
        return values

    def _explain(self, error: ValidationError, values: Mapping[str, Any]) -> InvalidArguments:
        properties: dict[str, JsonSchema] = self._schema.get("properties", {})
        allowed_names = ", ".join(properties)
        field = str(error.path[0]) if error.path else None
        spec = properties.get(field, {}) if field else {}
        prefix = f"Invalid arguments for {self._tool}:"
        if error.validator == "additionalProperties":
            unknown = sorted(set(values) - set(properties))
            return InvalidArguments(
                f"{prefix} unknown argument {', '.join(repr(n) for n in unknown)}. "
                f"Allowed arguments: {allowed_names}.",
                unknown[0] if unknown else None,
            )
        if error.validator == "required":
            missing = [n for n in self._schema.get("required", []) if n not in values]
            name = missing[0] if missing else "?"
            return InvalidArguments(f"{prefix} missing required argument {name!r}.", name)
        shown = repr(error.instance)
        if error.validator == "enum":
            choices = ", ".join(str(v) for v in spec.get("enum", []))
            return InvalidArguments(f"{prefix} {field}={shown} is not allowed; use one of: {choices}.", field)
        if error.validator in ("minimum", "maximum"):
            return InvalidArguments(
                f"{prefix} {field}={shown} is out of range; use an integer from "
                f"{spec.get('minimum')} to {spec.get('maximum')}.",
                field,
            )
        if error.validator == "type":
            return InvalidArguments(f"{prefix} {field}={shown} must be of type {spec.get('type')}.", field)
        if error.validator in ("minLength", "maxLength"):
            bounds = f"{spec.get('minLength', 0)} to {spec.get('maxLength', 'any number of')}"
            return InvalidArguments(f"{prefix} {field} must have {bounds} characters.", field)
        return InvalidArguments(f"{prefix} {field or 'arguments'}: {error.message}.", field)


def _error_order(error: ValidationError) -> tuple[int, str]:
    # Report unknown and missing arguments first: they are the likeliest root cause of other errors.
    rank = {"additionalProperties": 0, "required": 1}.get(str(error.validator), 2)
    return rank, str(list(error.path))
