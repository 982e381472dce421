//! The generic decoder on arbitrary bytes: `decode` and `decode_bytes`
//! agree (value, or error kind, line and column); whatever decodes encodes,
//! decodes back to the same value, and re-encodes to the same text; the
//! document decoder (identity fields) never panics. The JS engine's packed
//! decode (both entries) succeeds exactly when the decoder does, and gives
//! the packed form (starting with a NUL), which reads back (as the JS layer
//! reads it) to the decoded value, members in order, or, for a string with a
//! NUL, the tagged JSON of `generic_decode`. `parse_scalar` of the first
//! line reads it as a `key=value` line's value does. `decode_json` gives
//! serde_json's value of what `decode` gives, or its error, and so do
//! `from_value` and `to_value` (feature `serde`).
#![no_main]

use gcf_core::generic;
use gcf_fuzz::{position, same_value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let by_bytes = generic::decode_bytes(data);
    let packed_bytes = gcf_js_engine::generic_decode_bytes_packed(data);
    assert_eq!(packed_bytes.is_ok(), by_bytes.is_ok());
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(by_bytes.is_err());
        return;
    };
    let value = generic::decode(text);
    match gcf_js_engine::generic_decode_packed(text) {
        Ok(p) => {
            assert_eq!(Ok(&p), packed_bytes.as_ref());
            if p.strings.starts_with('\0') {
                let read = gcf_js_engine::read_packed_value(&p);
                assert_eq!(
                    read.as_ref(),
                    value.as_ref().ok(),
                    "the packed form reads back"
                );
            } else {
                assert_eq!(Ok(p.strings), gcf_js_engine::generic_decode(text));
            }
        }
        Err(_) => assert!(value.is_err()),
    }
    match (&value, &by_bytes) {
        (Ok(v), Ok(b)) => {
            assert_eq!(v, b);
            let encoded = generic::encode(v).expect("a decoded value encodes");
            let back = generic::decode(&encoded).expect("encoded output decodes");
            assert!(same_value(&back, v), "decode(encode(v)) == v\n{encoded}");
            assert_eq!(
                generic::encode(&back).unwrap(),
                encoded,
                "re-encoding is idempotent"
            );
        }
        (Err(a), Err(b)) => assert_eq!(position(a), position(b)),
        _ => panic!("decode and decode_bytes disagree"),
    }
    // `decode_json` builds serde_json's value straight from the text: what
    // `to_json` makes of `decode`'s, key order included, or the same error.
    match (generic::Decoder::new().decode_json(text), &value) {
        (Ok(json), Ok(v)) => {
            let tree = generic::to_json(v);
            assert_eq!(json, tree);
            assert_eq!(json.to_string(), tree.to_string(), "key order");
            // The serde route (`from_value`, feature `serde`) reads the tree
            // into serde_json's value alike, and serializes it back.
            let via_serde: serde_json::Value = generic::from_value(v.clone()).unwrap();
            assert_eq!(via_serde.to_string(), tree.to_string());
            // `from_str` builds its own tape from the text: the same value.
            let direct: serde_json::Value = generic::from_str(text).unwrap();
            assert_eq!(direct.to_string(), tree.to_string());
            assert!(generic::to_value(v).unwrap() == *v);
            // `to_string`'s tape route writes what the encoder writes for the tree.
            assert_eq!(
                generic::to_string(v).map_err(|e| e.kind()),
                generic::encode(v).map_err(|e| e.kind())
            );
        }
        (Err(a), Err(b)) => {
            assert_eq!(position(&a), position(b));
            let direct = generic::from_str::<serde_json::Value>(text).unwrap_err();
            assert_eq!(position(&direct), position(b));
        }
        (a, b) => panic!("decode_json {a:?}, decode {b:?}"),
    }
    let _ = generic::Decoder::new()
        .allow_identity_fields(true)
        .decode_with_header(text);
    // `parse_scalar` reads its first line as a `key=value` line's value.
    let token = text.split(['\n', '\r']).next().unwrap_or("");
    let line = generic::decode(&format!("GCF profile=generic\nv={token}\n"));
    match (generic::parse_scalar(token), line) {
        (Ok(v), Ok(generic::Value::Object(m))) => assert_eq!(m.get("v"), Some(&v)),
        (Err(a), Err(b)) => {
            assert_eq!(a.kind(), b.kind());
            assert_eq!(a.column().map(|c| c + 2), b.column());
        }
        (a, b) => panic!("parse_scalar({token:?}): {a:?} vs {b:?}"),
    }
});
