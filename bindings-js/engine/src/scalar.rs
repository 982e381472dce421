//! The scalar helpers of 2.5.2's `scalar.ts`, answered by the core's own
//! scalar grammar (spec §2) so they cannot drift from what the encoders
//! write.

use gcf_bind::Failure;
use gcf_core::generic::{self, ScalarWriter};

use crate::Result;

/// Whether a string must be quoted (§2.4).
pub fn needs_quote(s: &str) -> bool {
    generic::needs_quote(s)
}

/// The quoted form of a string, always quoted.
pub fn quote_string(s: &str) -> Result<String> {
    Ok(generic::quote(s))
}

/// A key, bare when it can be (§2a.1), else quoted.
pub fn format_key(s: &str) -> Result<String> {
    Ok(generic::format_key(s))
}

/// A scalar (given as JSON) as a cell; a string holding `delimiter` (a
/// character code, 0 for none) is quoted too, as in a row.
pub fn format_scalar(json: &str, delimiter: u32) -> Result<String> {
    let value = gcf_bind::value::from_str(json)?;
    let mut out = Vec::new();
    write_cell(&mut out, &value, delimiter, &mut ScalarWriter::new())?;
    // The core writes UTF-8 only.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// Writes `value` as [`format_scalar`] does.
pub(crate) fn write_cell(
    out: &mut Vec<u8>,
    value: &generic::Value,
    delimiter: u32,
    scalars: &mut ScalarWriter,
) -> Result<()> {
    let mut buf = [0u8; 4];
    let delimiter = match char::from_u32(delimiter) {
        Some(d) if delimiter != 0 => &*d.encode_utf8(&mut buf),
        _ => "",
    };
    if !scalars.scalar_in(out, value, delimiter)? {
        return Err(Failure::invalid_input(
            "formatScalar takes a scalar (null, boolean, number or string)",
        ));
    }
    Ok(())
}

/// One token's value (§2.1, as a `key=value` line reads it) as tagged JSON
/// (see the crate docs), for 2.5.2's `parseScalar`.
pub fn parse_scalar(token: &str) -> Result<String> {
    Ok(crate::tagged::to_string(&generic::parse_scalar(token)?))
}

/// One token as a table row cell holds it: `~` for the absent marker, `^`
/// and its declaration for an attachment marker (`^`, `^{a,b}`), else `=`
/// and the value's tagged JSON, for 2.5.2's `parseScalar(s, true)`.
pub fn parse_cell(token: &str) -> Result<String> {
    Ok(match generic::parse_cell_token(token)? {
        generic::CellToken::Missing => String::from("~"),
        generic::CellToken::Attachment(decl) => format!("^{}", decl.unwrap_or("")),
        generic::CellToken::Value(v) => format!("={}", crate::tagged::to_string(&v)),
    })
}

/// The pack-root form of one cell (given as JSON, §10a.3).
pub fn canonical_cell(json: &str) -> Result<String> {
    let value = gcf_bind::value::from_str(json)?;
    Ok(generic::canonical_cell(&value)?)
}
