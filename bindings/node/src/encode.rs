//! `packNative`: encoding by walking the JS value from Rust, one N-API call per value.
//!
//! The package encodes in JS (`lib/encode.js`); this function exists to measure the
//! alternative (see `benches/node`): reading a JS value from native code costs several
//! N-API calls per value (type, then contents, then for objects the property names), which
//! is slower than encoding in JS. It reads the value through napi-rs's serde bridge and
//! writes it with the core crate's `Encoder`; integral numbers become Integers.

use napi::bindgen_prelude::{Buffer, Unknown};
use napi::Env;
use napi_derive::napi;
use packstream::{EncodeError, Encoder};
use serde_json::Value;

/// Encodes a JS value with the core crate's `Encoder`, reading it through N-API (a
/// reference for benchmarks; `pack` is faster). Integral numbers are written as Integers,
/// byte arrays as lists.
#[napi]
pub fn pack_native(env: Env, value: Unknown<'_>) -> napi::Result<Buffer> {
    let v: Value = env.from_js_value(value)?;
    let mut out = Vec::new();
    write(&mut Encoder::new(&mut out), &v).map_err(|e| napi::Error::from_reason(e.to_string()))?;
    Ok(out.into())
}

fn write(enc: &mut Encoder<&mut Vec<u8>>, v: &Value) -> Result<(), EncodeError> {
    match v {
        Value::Null => enc.write_null(),
        Value::Bool(b) => enc.write_bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => enc.write_int(i),
            None => enc.write_float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => enc.write_str(s)?,
        Value::Array(items) => {
            enc.write_list_header(items.len())?;
            for item in items {
                write(enc, item)?;
            }
        }
        Value::Object(entries) => {
            enc.write_map_header(entries.len())?;
            for (k, item) in entries {
                enc.write_str(k)?;
                write(enc, item)?;
            }
        }
    }
    Ok(())
}
