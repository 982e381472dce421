//! Graph and generic delta decode, apply and verify on arbitrary input,
//! against bases built from the input's own prefix: never a panic, and a
//! delta that applies yields a snapshot whose root is the promised one.
#![no_main]

use gcf_core::{generic, graph};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Graph: the delta applied to the empty snapshot and to the snapshot the
    // text itself decodes to (when it is a full payload).
    let _ = graph::decode_delta(text);
    let empty = graph::Snapshot::default();
    if let Ok(s) = graph::apply_delta(&empty, text) {
        assert_eq!(
            s.pack_root().unwrap(),
            graph::decode_delta(text).unwrap().new_root
        );
    }
    if let Ok(p) = graph::decode(text) {
        let base = graph::Snapshot {
            symbols: p.symbols.clone(),
            edges: p.edges.clone(),
        };
        if let Ok(root) = base.pack_root() {
            // A delta from this snapshot to the empty one applies and verifies.
            if let Ok(d) = graph::diff(&base, &empty, "t") {
                let wire = graph::encode_delta(&d).expect("a diff encodes");
                let applied = graph::apply_delta(&base, &wire).expect("a diff applies");
                assert_eq!(applied.pack_root().unwrap(), d.new_root);
                assert_eq!(d.base_root, root);
            }
        }
    }
    // Generic: the delta against an empty keyed set and against the set the
    // text decodes to as a full payload.
    let _ = generic::decode_delta(text);
    let set = generic::KeyedSet {
        name: "t".into(),
        key: "id".into(),
        fields: vec!["id".into()],
        rows: vec![],
    };
    if let Ok(s) = generic::apply_delta(&set, text) {
        assert_eq!(
            generic::pack_root(&s).unwrap(),
            generic::decode_delta(text).unwrap().new_root
        );
    }
    if let Ok(Some(d)) = generic::diff(&set, &set) {
        generic::encode_delta(&d).expect("a diff encodes");
    }
});
