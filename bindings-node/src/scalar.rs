//! The scalar helpers of 2.5.2's `scalar.ts`, answered by the core's own
//! scalar grammar (spec §2) so they cannot drift from what the encoders
//! write.

use gcf_core::generic::{self, needs_quote};
use napi_derive::napi;

use crate::{core_fail, fail};

/// Whether a string must be quoted (§2.4).
#[napi(js_name = "needsQuote")]
pub fn needs_quote_js(s: String) -> bool {
    needs_quote(&s)
}

/// The quoted form of a string, always quoted.
#[napi(js_name = "quoteString")]
pub fn quote_string(s: String) -> String {
    generic::quote(&s)
}

/// A key, bare when it can be (§2a.1), else quoted.
#[napi(js_name = "formatKey")]
pub fn format_key(s: String) -> String {
    generic::format_key(&s)
}

/// A scalar (given as JSON) as a cell; a string holding `delimiter` (a
/// character code, 0 for none) is quoted too, as in a row.
#[napi(js_name = "formatScalar")]
pub fn format_scalar(json: String, delimiter: u32) -> napi::Result<String> {
    let value = gcf_bind::value::from_slice(json.as_bytes()).map_err(fail)?;
    if let (generic::Value::String(s), Some(d)) = (&value, char::from_u32(delimiter)) {
        if delimiter != 0 && s.contains(d) && !needs_quote(s) {
            return Ok(generic::quote(s));
        }
    }
    generic::format_scalar(&value)
        .map_err(core_fail)?
        .ok_or_else(|| {
            fail(gcf_bind::Failure::invalid_input(
                "formatScalar takes a scalar (null, boolean, number or string)",
            ))
        })
}

/// The pack-root form of one cell (given as JSON, §10a.3).
#[napi(js_name = "canonicalCell")]
pub fn canonical_cell(json: String) -> napi::Result<String> {
    let value = gcf_bind::value::from_slice(json.as_bytes()).map_err(fail)?;
    generic::canonical_cell(&value).map_err(core_fail)
}
