//! Generic encode (spec §7), by gcf-core's encoder.

use serde_json::Value;

/// Options of a generic encode, as in the reference crate.
#[derive(Debug, Clone, Default)]
pub struct GenericOptions {
    /// Nested objects of fixed shape stay attachments instead of becoming
    /// `parent>child` path columns (spec §7.4.6).
    pub no_flatten: bool,
}

/// Encodes any JSON value in the generic profile, byte for byte as the
/// reference crate writes it (constant columns factored, §7.4.7).
///
/// An integer outside int64 is an `out_of_range` error, as there; so is a
/// value gcf-core refuses for another reason (nesting past the depth
/// limit), each as `category: message`.
pub fn encode_generic(data: &Value) -> Result<String, String> {
    encode_generic_with_options(data, &GenericOptions::default())
}

/// [`encode_generic`] with options.
pub fn encode_generic_with_options(data: &Value, opts: &GenericOptions) -> Result<String, String> {
    // Through gcf-core's value, whose numbers are read once: read in place
    // (a `View` over the document), each number's literal (when the program
    // turns on serde_json's `arbitrary_precision`) would be parsed at every
    // read, which is slower on number-heavy records.
    let value = gcf_core::generic::from_json(data).map_err(|e| crate::error_text(&e))?;
    gcf_core::generic::Encoder::new()
        .flatten(!opts.no_flatten)
        .encode(&value)
        .map_err(|e| crate::error_text(&e))
}
