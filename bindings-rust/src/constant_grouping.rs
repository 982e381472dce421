//! Value-grouped tables (the fleet's §7.4.8), by gcf-core's encoder.

use serde_json::Value;

/// Encodes an array of records as one value-grouped table keyed by
/// `key_field` and clustered by `group_field`, other constant columns
/// factored (§7.4.7), byte for byte as the reference crate writes it.
///
/// Errors (`category: message`) where the records are no keyed set the
/// grouped form can hold: not a non-empty array of objects, a key field
/// missing or repeated, the group field missing (the crate files a record
/// without it under a `null` group, which decodes to a different record),
/// the two fields the same, a value that needs an attachment.
pub fn encode_generic_grouped(
    data: &Value,
    key_field: &str,
    group_field: &str,
) -> Result<String, String> {
    let value = gcf_core::generic::from_json(data).map_err(|e| crate::error_text(&e))?;
    gcf_core::generic::encode_grouped(&value, key_field, group_field)
        .map_err(|e| crate::error_text(&e))
}
