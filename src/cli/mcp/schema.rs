//! JSON Schemas of the MCP tools, inside the closed subset DeepSeek Harness accepts, and the
//! two checks the tests and the server rely on.
//!
//! The subset (docs/plugin-compatibility.md, "Tool schemas"): `type` is one string, unions
//! only via `oneOf`, and the only keywords are `type oneOf properties required
//! additionalProperties items enum const` plus the annotations `description title default
//! examples`. `type: ["object","null"]`, `minimum`, `maximum`, `pattern`, `format`, `$ref`,
//! `$defs`, `$schema` make the host refuse to register every tool, so schemas here are written
//! by hand with the builders below instead of being generated (schemars emits all of those).

use serde_json::{Map, Value, json};

/// The keywords a schema may use (validation keywords, then annotations).
pub const ALLOWED_KEYWORDS: [&str; 12] = [
    "type",
    "oneOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "description",
    "title",
    "default",
    "examples",
];

/// The JSON types `type` may name.
pub const JSON_TYPES: [&str; 7] = ["object", "array", "string", "integer", "number", "boolean", "null"];

/// A string with a description.
pub fn string(desc: &str) -> Value {
    json!({ "type": "string", "description": desc })
}

/// An integer with a description.
pub fn integer(desc: &str) -> Value {
    json!({ "type": "integer", "description": desc })
}

/// A number with a description.
pub fn number(desc: &str) -> Value {
    json!({ "type": "number", "description": desc })
}

/// A boolean with a description.
pub fn boolean(desc: &str) -> Value {
    json!({ "type": "boolean", "description": desc })
}

/// An array of `items`.
pub fn array(desc: &str, items: Value) -> Value {
    json!({ "type": "array", "description": desc, "items": items })
}

/// One of the strings `values`.
pub fn one_of_strings(desc: &str, values: &[&str]) -> Value {
    json!({ "type": "string", "description": desc, "enum": values })
}

/// `schema` or `null` (the subset has no type arrays: `oneOf` it is).
pub fn nullable(schema: Value) -> Value {
    json!({ "oneOf": [schema, { "type": "null" }] })
}

/// Adds `default` to a schema.
pub fn with_default(mut schema: Value, default: Value) -> Value {
    schema["default"] = default;
    schema
}

/// An object with `props` (name, schema) of which `required` are required. `closed` adds
/// `additionalProperties: false` (tool arguments); results stay open so that a field added
/// later does not break a client that validates.
pub fn object(desc: &str, props: &[(&str, Value)], required: &[&str], closed: bool) -> Value {
    let mut p = Map::new();
    for (k, v) in props {
        p.insert((*k).to_string(), v.clone());
    }
    let mut o = json!({ "type": "object", "description": desc, "properties": p, "required": required });
    if closed {
        o["additionalProperties"] = Value::Bool(false);
    }
    o
}

/// Every place where `schema` leaves the subset, as `path: reason` lines (empty = inside).
pub fn subset_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, "#", &mut out);
    out
}

fn walk(s: &Value, path: &str, out: &mut Vec<String>) {
    let Value::Object(m) = s else {
        out.push(format!("{path}: a schema must be an object"));
        return;
    };
    for (k, v) in m {
        let here = format!("{path}/{k}");
        if !ALLOWED_KEYWORDS.contains(&k.as_str()) {
            out.push(format!("{here}: keyword {k:?} is outside the subset"));
            continue;
        }
        match k.as_str() {
            "type" => match v.as_str() {
                Some(t) if JSON_TYPES.contains(&t) => {}
                _ => out.push(format!("{here}: type must be one of {JSON_TYPES:?} as a single string, got {v}")),
            },
            "oneOf" => match v.as_array() {
                Some(a) if !a.is_empty() => {
                    for (i, x) in a.iter().enumerate() {
                        walk(x, &format!("{here}/{i}"), out);
                    }
                }
                _ => out.push(format!("{here}: oneOf must be a non-empty array")),
            },
            "properties" => match v.as_object() {
                Some(p) => {
                    for (name, x) in p {
                        walk(x, &format!("{here}/{name}"), out);
                    }
                }
                None => out.push(format!("{here}: properties must be an object")),
            },
            "items" => walk(v, &here, out),
            "additionalProperties" => match v {
                Value::Bool(_) => {}
                Value::Object(_) => walk(v, &here, out),
                _ => out.push(format!("{here}: additionalProperties must be a boolean or a schema")),
            },
            "required" if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) => {
                out.push(format!("{here}: required must be an array of strings"));
            }
            "enum" | "examples" if !v.is_array() => out.push(format!("{here}: {k} must be an array")),
            "description" | "title" if !v.is_string() => out.push(format!("{here}: {k} must be a string")),
            _ => {} // const, default: any value; the others were well-formed
        }
    }
    if let (Some(req), Some(props)) = (m.get("required").and_then(Value::as_array), m.get("properties")) {
        for r in req.iter().filter_map(Value::as_str) {
            if props.get(r).is_none() {
                out.push(format!("{path}/required: {r:?} is not among the properties"));
            }
        }
    }
}

/// Checks `value` against a schema of the subset; returns the first mismatch as
/// `path: reason`. Used by the tests to hold every tool result to its output schema.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, value, "$")
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

fn check(s: &Value, v: &Value, path: &str) -> Result<(), String> {
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let ok = alts.iter().filter(|a| check(a, v, path).is_ok()).count();
        if ok != 1 {
            return Err(format!("{path}: matches {ok} of the oneOf alternatives, not exactly one"));
        }
    }
    if let Some(t) = s.get("type").and_then(Value::as_str)
        && !type_matches(t, v)
    {
        return Err(format!("{path}: expected {t}, got {v}"));
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        return Err(format!("{path}: {v} is not one of {}", Value::Array(e.clone())));
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        return Err(format!("{path}: expected the constant {c}, got {v}"));
    }
    if let Value::Object(o) = v {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !o.contains_key(r) {
                return Err(format!("{path}: missing required field {r:?}"));
            }
        }
        for (k, x) in o {
            match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                (Some(ps), _) => check(ps, x, &format!("{path}.{k}"))?,
                (None, Some(Value::Bool(false))) => return Err(format!("{path}: unexpected field {k:?}")),
                (None, Some(ap @ Value::Object(_))) => check(ap, x, &format!("{path}.{k}"))?,
                (None, _) => {}
            }
        }
    }
    if let (Value::Array(a), Some(items)) = (v, s.get("items")) {
        for (i, x) in a.iter().enumerate() {
            check(items, x, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subset_check_names_what_is_outside() {
        let bad = json!({
            "type": ["object", "null"],
            "$schema": "x",
            "properties": { "n": { "type": "integer", "minimum": 1 } },
            "required": ["n", "m"]
        });
        let v = subset_violations(&bad);
        assert_eq!(
            v,
            vec![
                "#/$schema: keyword \"$schema\" is outside the subset".to_string(),
                "#/properties/n/minimum: keyword \"minimum\" is outside the subset".to_string(),
                "#/type: type must be one of [\"object\", \"array\", \"string\", \"integer\", \"number\", \"boolean\", \"null\"] as a single string, got [\"object\",\"null\"]".to_string(),
                "#/required: \"m\" is not among the properties".to_string(),
            ]
        );
        assert!(subset_violations(&nullable(string("s"))).is_empty());
    }

    #[test]
    fn validation_follows_the_keywords() {
        let s = object("o", &[("a", integer("a")), ("b", nullable(string("b")))], &["a"], true);
        assert_eq!(validate(&s, &json!({"a": 1, "b": null})), Ok(()));
        assert_eq!(validate(&s, &json!({"a": 1, "b": "x"})), Ok(()));
        assert_eq!(validate(&s, &json!({"a": 1.5})), Err("$.a: expected integer, got 1.5".into()));
        assert_eq!(validate(&s, &json!({"b": "x"})), Err("$: missing required field \"a\"".into()));
        assert_eq!(validate(&s, &json!({"a": 1, "c": 2})), Err("$: unexpected field \"c\"".into()));
        assert_eq!(
            validate(&s, &json!({"a": 1, "b": 3})),
            Err("$.b: matches 0 of the oneOf alternatives, not exactly one".into())
        );
        let e = one_of_strings("m", &["and", "or"]);
        assert_eq!(validate(&e, &json!("xor")), Err("$: \"xor\" is not one of [\"and\",\"or\"]".into()));
    }
}
