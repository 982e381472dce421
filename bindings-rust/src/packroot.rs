//! Pack roots (`gcf-pack-root-v1`, spec §10.2), by gcf-core.

use crate::convert::{edges_in, symbols_in};
use crate::types::{Edge, Symbol};

/// The pack root `sha256:<hex>` of a graph snapshot, as the reference crate
/// computes it; `""` for a snapshot gcf-core refuses (a negative distance, a
/// non-finite score), where the crate hashes a record no decoder reads.
pub fn pack_root(symbols: &[Symbol], edges: &[Edge]) -> String {
    symbols_in(symbols)
        .and_then(|s| gcf_core::graph::pack_root(&s, &edges_in(edges)))
        .unwrap_or_default()
}

/// The canonical records a pack root hashes (symbol records, then edge
/// records, each sorted by bytes); `""` where [`pack_root`] is `""`.
pub fn pack_root_canonical_bytes(symbols: &[Symbol], edges: &[Edge]) -> String {
    symbols_in(symbols)
        .and_then(|s| gcf_core::graph::pack_root_canonical_bytes(&s, &edges_in(edges)))
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default()
}
