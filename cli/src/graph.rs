//! The graph subcommands: encode, decode, pack-root, delta. Each converts
//! JSON to core types and back; the format itself lives in `gcf_core::graph`.

use gcf_core::graph;

use gcf_core::detect_profile;
use gcf_core::{Limits, Profile};

use crate::failure::{Failure, Result};
use crate::io::{Output, Source};

/// `gcf encode`: payload JSON -> GCF.
pub fn encode(input: &Source, out: &mut Output) -> Result<()> {
    let bytes = input.read_all()?;
    let payload = gcf_bind::graph::payload_from_slice(&bytes)?;
    out.emit(|sink| graph::encode_to(&payload, sink))
}

/// `gcf decode`: GCF -> pretty payload JSON.
pub fn decode(input: &Source, limits: &Limits, out: &mut Output) -> Result<()> {
    let bytes = input.read_within(limits.max_input_len)?;
    let text = gcf_core::validate_utf8(&bytes)?;
    if detect_profile(text)? == Profile::Generic {
        return Err(wrong_profile("generic", "gcf decode-generic"));
    }
    // A delta is read by the delta decoder first (as `gcf validate` does), so
    // a malformed one gets its own error (`malformed_delta` and its line)
    // rather than the advice to apply it; a sound one gets the advice.
    if gcf_core::payload_kind(text)? == gcf_core::PayloadKind::GraphDelta {
        graph::decode_delta_with(text, limits)?;
    }
    // The JSON written has no place for a bare session reference.
    let payload = graph::Decoder::new()
        .limits(*limits)
        .refuse_references(true)
        .decode(text)?;
    out.write_json(&gcf_bind::graph::DecodedPayloadJson(&payload), true)
}

/// The error for a payload of the other profile, pointing at the right command.
pub fn wrong_profile(profile: &str, command: &str) -> Failure {
    Failure::invalid_input(format!(
        "this is a {profile}-profile payload; decode it with `{command}`"
    ))
    .at_line(1, Some(5))
}

/// `gcf pack-root`: the snapshot's `sha256:...` root.
pub fn pack_root(input: &Source, out: &mut Output) -> Result<()> {
    let bytes = input.read_all()?;
    let snapshot = gcf_bind::graph::snapshot_from_slice(&bytes)?;
    let root = snapshot.pack_root()?;
    out.write_text(&root)?;
    out.write_text("\n")
}

/// `gcf delta`: the spec 10.3 answer for a consumer holding `base`.
///
/// An empty `--echoed-root` means the consumer holds nothing (first call):
/// the answer is then always the full payload.
pub fn delta(
    base: &Source,
    new: &Source,
    echoed_root: Option<&str>,
    out: &mut Output,
) -> Result<()> {
    let (base, new) = (base.read_all()?, new.read_all()?);
    let base = gcf_bind::graph::owned_snapshot(&gcf_bind::graph::snapshot_from_slice(&base)?);
    let current = gcf_bind::graph::payload_from_slice(&new)?.to_owned_payload();
    let base_root;
    let echoed = match echoed_root {
        Some("") => None,
        Some(root) => Some(root),
        None => {
            base_root = base.pack_root()?;
            Some(base_root.as_str())
        }
    };
    let outcome = graph::respond(echoed, Some(&base), &current)?;
    out.write_text(outcome.text())
}
