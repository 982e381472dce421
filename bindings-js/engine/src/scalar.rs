//! The scalar helpers of 2.5.2's `scalar.ts`, answered by the core's own
//! scalar grammar (spec §2) so they cannot drift from what the encoders
//! write.

use gcf_bind::Failure;
use gcf_core::generic::{self, write_key};
use gcf_core::number::NumberBuffer;
use gcf_core::text::write_quoted;

use crate::Result;

fn text(out: Vec<u8>) -> String {
    // The core writes UTF-8 only.
    String::from_utf8(out).unwrap_or_default()
}

/// Whether a string must be quoted (§2.4).
pub fn needs_quote(s: &str) -> bool {
    generic::needs_quote(s)
}

/// The quoted form of a string, always quoted.
pub fn quote_string(s: &str) -> Result<String> {
    let mut out = Vec::with_capacity(s.len() + 2);
    write_quoted(&mut out, s)?;
    Ok(text(out))
}

/// A key, bare when it can be (§2a.1), else quoted.
pub fn format_key(s: &str) -> Result<String> {
    let mut out = Vec::with_capacity(s.len() + 2);
    write_key(&mut out, s)?;
    Ok(text(out))
}

/// A scalar (given as JSON) as a cell; a string holding `delimiter` (a
/// character code, 0 for none) is quoted too, as in a row.
pub fn format_scalar(json: &str, delimiter: u32) -> Result<String> {
    let value = gcf_bind::value::from_slice(json.as_bytes())?;
    let mut out = Vec::new();
    write_cell(&mut out, &value, delimiter, &mut NumberBuffer::new())?;
    Ok(text(out))
}

/// Writes `value` as [`format_scalar`] does.
pub(crate) fn write_cell(
    out: &mut Vec<u8>,
    value: &generic::Value,
    delimiter: u32,
    numbers: &mut NumberBuffer,
) -> Result<()> {
    if let (generic::Value::String(s), Some(d)) = (value, char::from_u32(delimiter)) {
        if delimiter != 0 && s.contains(d) && !generic::needs_quote(s) {
            write_quoted(out, s)?;
            return Ok(());
        }
    }
    if !generic::write_scalar(out, value, numbers)? {
        return Err(Failure::invalid_input(
            "formatScalar takes a scalar (null, boolean, number or string)",
        ));
    }
    Ok(())
}

/// The pack-root form of one cell (given as JSON, §10a.3).
pub fn canonical_cell(json: &str) -> Result<String> {
    let value = gcf_bind::value::from_slice(json.as_bytes())?;
    Ok(generic::canonical_cell(&value)?)
}
