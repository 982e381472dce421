//! Kind abbreviations (spec §5), both ways.

/// `(full form, abbreviation)` pairs of the spec's table.
pub(crate) const KINDS: &[(&str, &str)] = &[
    ("function", "fn"),
    ("type", "type"),
    ("method", "method"),
    ("interface", "iface"),
    ("var", "var"),
    ("const", "const"),
    ("resource", "resource"),
    ("table", "table"),
    ("class", "class"),
    ("selector", "selector"),
    ("field", "field"),
    ("route_handler", "route"),
    ("external", "ext"),
    ("file", "file"),
    ("package", "pkg"),
    ("service", "svc"),
];

/// The wire abbreviation of a kind; unknown kinds pass through unchanged.
///
/// ```
/// use gcf_core::graph::{abbreviate_kind, expand_kind};
/// assert_eq!(abbreviate_kind("function"), "fn");
/// assert_eq!(abbreviate_kind("widget"), "widget");
/// assert_eq!(expand_kind("iface"), "interface");
/// ```
#[inline]
pub fn abbreviate_kind(kind: &str) -> &str {
    // Match on length first: most kinds are short and the table is tiny.
    for &(full, abbrev) in KINDS {
        if full.len() == kind.len() && full == kind {
            return abbrev;
        }
    }
    kind
}

/// Whether `kind` is the full form of a kind in the spec's table (which
/// [`abbreviate_kind`] writes as its abbreviation, or as itself for the
/// kinds whose abbreviation is their name).
///
/// ```
/// use gcf_core::graph::is_known_kind;
/// assert!(is_known_kind("function") && is_known_kind("type"));
/// assert!(!is_known_kind("fn") && !is_known_kind("widget"));
/// ```
#[inline]
pub fn is_known_kind(kind: &str) -> bool {
    KINDS.iter().any(|&(full, _)| full == kind)
}

/// The full form of an abbreviation; unknown abbreviations pass through verbatim (spec §5).
#[inline]
pub fn expand_kind(abbrev: &str) -> &str {
    for &(full, short) in KINDS {
        if short == abbrev {
            return full;
        }
    }
    abbrev
}

/// The `'static` full form if `abbrev` is in the table, so decoders can avoid an allocation.
#[inline]
pub(crate) fn expand_known(abbrev: &str) -> Option<&'static str> {
    KINDS
        .iter()
        .find(|(_, short)| *short == abbrev)
        .map(|&(full, _)| full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_known_kind() {
        for &(full, short) in KINDS {
            assert_eq!(abbreviate_kind(full), short);
            assert_eq!(expand_kind(short), full);
            assert_eq!(expand_known(short), Some(full));
        }
        assert_eq!(expand_known("widget"), None);
        assert_eq!(expand_kind("widget"), "widget");
    }
}
