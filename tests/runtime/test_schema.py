"""Tool-schema sanitizing per profile, and client-side defaults."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.capabilities import get_profile
from conformance.exceptions import SchemaError
from conformance.runtime.schema import apply_defaults, sanitize_schema

GEMINI = get_profile("gemini")
ANTHROPIC = get_profile("anthropic")
OPENAI = get_profile("openai")


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def test_gemini_strips_keywords_recursively_and_lists_them() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Args",
        "additionalProperties": False,
        **obj(inner={**obj(x={"type": "integer", "exclusiveMinimum": 0, "examples": [1]}), "title": "Inner"}),
    }
    out = sanitize_schema(schema, GEMINI)
    assert out.schema == obj(inner=obj(x={"type": "integer"}))
    assert set(out.removed) == {
        ("/", "$schema"),
        ("/", "title"),
        ("/", "additionalProperties"),
        ("/properties/inner", "title"),
        ("/properties/inner/properties/x", "exclusiveMinimum"),
        ("/properties/inner/properties/x", "examples"),
    }
    assert schema["title"] == "Args"  # input untouched


def test_properties_named_like_keywords_are_kept() -> None:
    schema = obj(title={"type": "string"}, default={"type": "string"})
    assert sanitize_schema(schema, GEMINI).schema == schema


def test_anthropic_keeps_refs_and_strips_its_keywords() -> None:
    schema = {**obj(a={"$ref": "#/$defs/A", "default": 1}), "$defs": {"A": {"type": "integer"}}}
    out = sanitize_schema(schema, ANTHROPIC)
    assert out.schema == {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"type": "integer"}}}
    assert out.defaults == {"/properties/a": 1}


def test_gemini_inlines_refs_and_drops_definitions() -> None:
    schema = {
        **obj(home={"$ref": "#/$defs/Place"}, work={"$ref": "#/definitions/Place2"}),
        "$defs": {"Place": obj(city={"type": "string"})},
        "definitions": {"Place2": obj(zip={"type": "string"})},
    }
    out = sanitize_schema(schema, GEMINI)
    assert out.schema == obj(home=obj(city={"type": "string"}), work=obj(zip={"type": "string"}))


def test_recursive_ref_is_a_schema_error_naming_the_path() -> None:
    schema = {
        **obj(root={"$ref": "#/$defs/Node"}),
        "$defs": {"Node": obj(child={"$ref": "#/$defs/Node"})},
    }
    with pytest.raises(SchemaError) as info:
        sanitize_schema(schema, GEMINI)
    assert info.value.where == "/properties/root/properties/child/$ref"
    assert "recursive" in str(info.value)


def test_unknown_ref_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="cannot inline"):
        sanitize_schema(obj(a={"$ref": "https://example.com/x.json"}), GEMINI)


def test_any_of_kept_one_of_converted_all_of_merged() -> None:
    schema = obj(
        a={"anyOf": [{"type": "string"}, {"type": "integer"}]},
        b={"oneOf": [{"type": "string"}, {"type": "boolean"}]},
        c={
            "allOf": [
                {**obj(x={"type": "string"}), "required": ["x"]},
                {**obj(y={"type": "integer"}), "required": ["y"]},
            ]
        },
    )
    out = sanitize_schema(schema, GEMINI)
    assert out.schema["properties"]["a"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert out.schema["properties"]["b"] == {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
    assert out.schema["properties"]["c"] == {
        **obj(x={"type": "string"}, y={"type": "integer"}),
        "required": ["x", "y"],
    }
    assert any("oneOf" in w for w in out.warnings)
    assert sanitize_schema(schema, OPENAI).schema == schema


def test_const_becomes_single_value_string_enum() -> None:
    out = sanitize_schema(obj(kind={"type": "string", "const": "circle"}), GEMINI)
    assert out.schema == obj(kind={"type": "string", "enum": ["circle"]})
    assert ("/properties/kind", "const") in out.removed


def test_type_array_becomes_nullable() -> None:
    out = sanitize_schema(obj(a={"type": ["string", "null"]}, b={"type": ["string", "integer"]}), GEMINI)
    assert out.schema["properties"]["a"] == {"type": "string", "nullable": True}
    assert out.schema["properties"]["b"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert sanitize_schema(obj(a={"type": ["string", "null"]}), OPENAI).schema == obj(a={"type": ["string", "null"]})


def test_nullable_enum_keeps_null_out_of_the_enum() -> None:
    # `type: [T, "null"]` with `null` among the enum values: null is said by `nullable` (Gemini's
    # Schema has no null type); left in the enum it would be offered as the string "null"
    schema = obj(unit={"type": ["string", "null"], "enum": ["c", "f", None]}, n={"enum": [1, None]})
    out = sanitize_schema(schema, GEMINI)
    assert out.schema["properties"]["unit"] == {"type": "string", "enum": ["c", "f"], "nullable": True}
    assert out.schema["properties"]["n"] == {"type": "integer", "nullable": True, "description": "One of: 1."}
    assert sanitize_schema(schema, OPENAI).schema == schema


def test_a_nullable_number_enum_keeps_every_type_it_admits() -> None:
    # `type: ["number", "null"]` with an enum admits numbers and null; Gemini's enum holds strings
    # only, so sent as strings it would admit null and strings and never a number
    schema = obj(temp={"type": ["number", "null"], "enum": [1.5, 2.5, None], "description": "Target."})
    out = sanitize_schema(schema, GEMINI)
    assert out.schema["properties"]["temp"] == {
        "type": "number",
        "nullable": True,
        "description": "Target. One of: 1.5, 2.5.",
    }
    assert ("/properties/temp", "enum") in out.removed
    assert any("number enum" in w for w in out.warnings)


def test_typed_enums_keep_their_type_and_mixed_ones_become_strings_with_a_warning() -> None:
    out = sanitize_schema(obj(n={"type": "integer", "enum": [1, 2]}, b={"enum": [True]}), GEMINI)
    assert out.schema == obj(
        n={"type": "integer", "description": "One of: 1, 2."}, b={"type": "boolean", "description": "One of: true."}
    )
    mixed = sanitize_schema(obj(m={"enum": [1, "two"]}), GEMINI)
    assert mixed.schema == obj(m={"type": "string", "enum": ["1", "two"]})
    assert out.warnings and mixed.warnings


def test_unsupported_string_format_dropped_with_a_warning() -> None:
    out = sanitize_schema(
        obj(when={"type": "string", "format": "date-time"}, mail={"type": "string", "format": "email"}), GEMINI
    )
    assert out.schema == obj(when={"type": "string", "format": "date-time"}, mail={"type": "string"})
    assert any("email" in w for w in out.warnings)


def test_property_named_format_is_kept_and_warned_about() -> None:
    out = sanitize_schema(obj(format={"type": "string", "enum": ["png", "jpg"]}), GEMINI)
    assert out.schema == obj(format={"type": "string", "enum": ["png", "jpg"]})
    assert any("/properties/format" in w and "named 'format'" in w for w in out.warnings)


def test_defaults_are_returned_and_applied_client_side_nested_too() -> None:
    schema = obj(
        unit={"type": "string", "default": "C"},
        where=obj(country={"type": "string", "default": "FR"}, city={"type": "string"}),
        days={"type": "array", "items": obj(hour={"type": "integer", "default": 12})},
        opts={**obj(verbose={"type": "boolean", "default": False}), "default": {}},
    )
    out = sanitize_schema(schema, GEMINI)
    assert "default" not in str(out.schema)
    assert out.defaults == {
        "/properties/unit": "C",
        "/properties/where/properties/country": "FR",
        "/properties/days/items/properties/hour": 12,
        "/properties/opts/properties/verbose": False,
        "/properties/opts": {},
    }
    args = {"where": {"city": "Paris"}, "days": [{}, {"hour": 9}], "unit": "F"}
    filled = apply_defaults(args, out)
    assert filled == {
        "unit": "F",
        "where": {"city": "Paris", "country": "FR"},
        "days": [{"hour": 12}, {"hour": 9}],
        "opts": {"verbose": False},
    }
    assert args == {"where": {"city": "Paris"}, "days": [{}, {"hour": 9}], "unit": "F"}


def test_missing_parent_without_default_is_not_created() -> None:
    out = sanitize_schema(obj(where=obj(country={"type": "string", "default": "FR"})), GEMINI)
    assert apply_defaults({}, out) == {}


def test_default_under_any_of_is_reported_not_applied() -> None:
    out = sanitize_schema(obj(a={"anyOf": [obj(x={"type": "string", "default": "d"})]}), GEMINI)
    assert apply_defaults({"a": {}}, out) == {"a": {}}
    assert any("cannot be applied" in w for w in out.warnings)


def test_non_object_schema_is_an_error() -> None:
    with pytest.raises(SchemaError):
        sanitize_schema([], GEMINI)  # type: ignore[arg-type]
