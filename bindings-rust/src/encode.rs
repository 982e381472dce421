//! Graph encode (spec §3-§6), by gcf-core's encoder.

use gcf_core::{Error, ErrorKind};

use crate::convert::{drop_unknown_edges, payload_in};
use crate::types::Payload;

/// Encodes a graph payload as GCF text, byte for byte as the reference
/// crate writes it. Edges naming a symbol the payload does not hold are
/// left out, as there.
///
/// The reference crate writes whatever it is given; gcf-core writes only
/// text a strict decoder reads back. A payload it refuses (a name with
/// whitespace, a non-finite score, a negative distance) encodes as `""`
/// here, never as invalid GCF and never a panic: [`encode_checked`] gives
/// the reason.
pub fn encode(p: &Payload) -> String {
    encode_checked(p).unwrap_or_default()
}

/// [`encode`] with the error of a payload gcf-core refuses (an addition to
/// the reference crate's API).
pub fn encode_checked(p: &Payload) -> Result<String, Error> {
    let mut payload = payload_in(p)?;
    match gcf_core::graph::encode(&payload) {
        Err(e) if e.kind() == ErrorKind::UnknownEdgeReference => {
            drop_unknown_edges(&mut payload);
            gcf_core::graph::encode(&payload)
        }
        result => result,
    }
}
