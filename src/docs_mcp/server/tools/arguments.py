"""Strict validation of tool arguments against the published input schemas.

The low-level MCP server does not check arguments against the schema it publishes, so every call
passes through :func:`validate_arguments`: an unknown argument, a value outside a facet's enum or a
limit out of range becomes an :class:`InvalidArguments` whose message names the field and what is
allowed, so the agent can correct the call in one step.

Valid arguments are recognised by a direct check of the few keywords our schemas use; jsonschema is
imported and compiled only to explain a rejected call (or for a schema using other keywords). That
keeps its import out of the server's cold start. The direct check only ever says "valid" when
jsonschema would too (a property test holds it to that); anything else goes to jsonschema.

Measured against jsonschema 4.26 in the same run
(``benchmarks/test_replacements.py::test_argument_fast_path_against_jsonschema``, a loaded 2-core
machine): 2,000 valid ``search_docs`` calls took 276 ms through jsonschema and 23 ms here (12x), and
importing jsonschema costs 256 ms of CPU that the first answer does not pay.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from docs_mcp.errors import QueryError
from docs_mcp.server.tools.tool_schema import JsonSchema

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"jsonschema": "4.26", "mcp": "2.3"}

_ROOT_KEYWORDS = {"type", "properties", "required", "anyOf", "additionalProperties", "description", "title"}
_PROPERTY_KEYWORDS = {
    "type",
    "enum",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "default",
    "description",
}
_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    # bool is an int in Python but not an integer in JSON Schema; 5.0 is one there but goes the slow way.
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
}


class InvalidArguments(QueryError):
    """Tool arguments do not match the tool's input schema; ``field`` names the offending argument."""

    def __init__(self, message: str, field: str | None) -> None:
        super().__init__(message)
        self.field = field


class ArgumentValidator:
    """Validates the arguments of one tool and fills in schema defaults."""

    def __init__(self, tool: str, schema: JsonSchema) -> None:
        self._tool = tool
        self._schema = schema
        self._surely_valid = _direct_check(schema)
        self._validator: Draft202012Validator | None = None

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return the arguments with defaults applied.

        Raises:
            InvalidArguments: the first problem found, naming the field and the allowed values.
            jsonschema.SchemaError: the schema itself is not valid JSON Schema (a programming error).
        """
        values = dict(arguments or {})
        if self._surely_valid is None or not self._surely_valid(values):
            errors = sorted(self._jsonschema().iter_errors(values), key=_error_order)
            if errors:
                raise self._explain(errors[0], values)
        for name, spec in self._schema.get("properties", {}).items():
            if name not in values and "default" in spec:
                values[name] = spec["default"]
        return values

    def _jsonschema(self) -> Draft202012Validator:
        if self._validator is None:
            from jsonschema import Draft202012Validator

            Draft202012Validator.check_schema(self._schema)
            self._validator = Draft202012Validator(self._schema)
        return self._validator

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
        if error.validator == "anyOf" and not error.path:  # one of several arguments is required
            names = [n for option in self._schema.get("anyOf", []) for n in option.get("required", [])]
            others = " or ".join(repr(n) for n in names[1:])
            return InvalidArguments(
                f"{prefix} missing required argument {names[0]!r}"
                + (f" (or pass {others})." if others else "."),
                names[0] if names else None,
            )
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
    rank = {"additionalProperties": 0, "required": 1, "anyOf": 1}.get(str(error.validator), 2)
    return rank, str(list(error.path))


def _direct_check(schema: JsonSchema) -> Callable[[Mapping[str, Any]], bool] | None:
    """A check that is True only for arguments ``schema`` accepts (False: let jsonschema decide), or
    None when the schema uses a keyword the check does not know."""
    properties: dict[str, JsonSchema] = schema.get("properties", {})
    alternatives: list[JsonSchema] = schema.get("anyOf", [])
    if (
        schema.get("type") != "object"
        or schema.get("additionalProperties") is not False
        or not set(schema) <= _ROOT_KEYWORDS
        or any(
            not set(spec) <= _PROPERTY_KEYWORDS or spec.get("type") not in _TYPES
            for spec in properties.values()
        )
        or any(set(option) != {"required"} for option in alternatives)  # only "one of these is required"
    ):
        return None
    required = list(schema.get("required", []))
    one_of_each = [list(option["required"]) for option in alternatives]
    checks = {name: _property_check(spec) for name, spec in properties.items()}

    def surely_valid(values: Mapping[str, Any]) -> bool:
        return (
            all(name in values for name in required)
            and (not one_of_each or any(all(n in values for n in names) for names in one_of_each))
            and all(name in checks and checks[name](value) for name, value in values.items())
        )

    return surely_valid


def _property_check(spec: JsonSchema) -> Callable[[Any], bool]:
    is_type = _TYPES[spec["type"]]
    enum = spec.get("enum")
    min_length, max_length = spec.get("minLength", 0), spec.get("maxLength")
    minimum, maximum = spec.get("minimum"), spec.get("maximum")

    def check(value: Any) -> bool:
        if not is_type(value) or (enum is not None and value not in enum):
            return False
        if isinstance(value, str):
            # len() counts code points, as JSON Schema's length keywords do.
            return len(value) >= min_length and (max_length is None or len(value) <= max_length)
        return (minimum is None or value >= minimum) and (maximum is None or value <= maximum)

    return check
