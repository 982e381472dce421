//! Every graph decoder form on arbitrary bytes: owned, shared and borrowed
//! agree on the payload or on the error's kind, line and column; a decoded
//! payload re-encodes and decodes back to itself; the session decoder and
//! `decode_any` never panic.
#![no_main]

use gcf_core::graph;
use gcf_fuzz::position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let by_bytes = graph::decode_bytes(data);
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(by_bytes.is_err());
        return;
    };
    let owned = graph::decode(text);
    let shared = graph::decode_shared(text);
    let borrowed = graph::decode_borrowed(text);
    match (&owned, &shared, &borrowed, &by_bytes) {
        (Ok(o), Ok(s), Ok(b), Ok(y)) => {
            assert_eq!(&s.to_owned_payload(), o);
            assert_eq!(&b.to_owned_payload(), o);
            assert_eq!(y, o);
            if !o.session && !o.unchanged {
                // What we read we can write, and read back the same.
                let again = graph::encode(o).expect("a decoded payload encodes");
                let back = graph::decode(&again).expect("encoded output decodes");
                assert_eq!(
                    graph::encode(&back).unwrap(),
                    again,
                    "re-encoding is idempotent"
                );
            }
        }
        (Err(o), Err(s), Err(b), Err(y)) => {
            assert_eq!(position(s), position(o), "shared vs owned");
            assert_eq!(position(b), position(o), "borrowed vs owned");
            assert_eq!(position(y), position(o), "bytes vs owned");
        }
        _ => panic!(
            "decoders disagree: owned {:?} shared {:?} borrowed {:?} bytes {:?}",
            owned.as_ref().err(),
            shared.as_ref().err(),
            borrowed.as_ref().err(),
            by_bytes.as_ref().err()
        ),
    }
    let mut session = graph::SessionDecoder::new();
    let first = session.decode(text);
    if first.is_ok() {
        let _ = session.decode(text);
    }
    let _ = gcf_core::decode_any(text);
});
