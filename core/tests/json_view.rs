//! `Decoder::decode_json` builds a `serde_json::Value` straight from the
//! text: the value `to_json` makes of `decode`'s tree (key order included),
//! or the same error at the same place, on random documents, their cuts and
//! one-byte changes.

mod support;

use gcf_core::generic::{self, Value};
use support::{Rng, ValueGen};

/// `decode_json` and `to_json` of `decode` on `text`: the same value, or the
/// same error at the same place.
fn decode_alike(text: &str) -> bool {
    let decoder = generic::Decoder::new();
    let direct = decoder.decode_json(text);
    let via_tree = decoder.decode(text).map(|v| generic::to_json(&v));
    match (direct, via_tree) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{text:?}");
            // Key order too: serde_json's map keeps insertion order here.
            assert_eq!(a.to_string(), b.to_string(), "{text:?}");
            true
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                (a.kind(), a.line(), a.column()),
                (b.kind(), b.line(), b.column()),
                "{text:?}"
            );
            false
        }
        (a, b) => panic!("{text:?}: decode_json {a:?}, decode {b:?}"),
    }
}

#[test]
fn documents_decode_to_json_as_their_trees_convert() {
    let mut rng = Rng::new(0xdec0);
    let (mut decoded, mut refused) = (0, 0);
    for _ in 0..support::cases(3000) {
        let value: Value = ValueGen { rng: &mut rng }.value(4);
        let Ok(text) = generic::encode(&value) else {
            continue;
        };
        assert!(decode_alike(&text));
        decoded += 1;
        // Cuts and one-byte changes: errors at the same place, or values alike.
        let bytes = text.as_bytes();
        for k in 1..4 {
            let at = bytes.len() * k / 4;
            let cut = String::from_utf8_lossy(&bytes[..at]).into_owned();
            refused += usize::from(!decode_alike(&cut));
            let mut changed = bytes.to_vec();
            changed[at.min(bytes.len() - 1)] = b"|=@~^-\n \"#"[rng.below(10) as usize];
            refused += usize::from(!decode_alike(&String::from_utf8_lossy(&changed)));
        }
    }
    assert!(
        decoded > 2000 && refused > 1000,
        "{decoded} decoded, {refused} refused"
    );
}
