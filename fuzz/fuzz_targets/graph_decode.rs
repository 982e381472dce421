//! Every graph decoder form on arbitrary bytes: owned, shared, borrowed and
//! indexed agree on the payload or on the error's kind, line and column
//! (and the indexed form's numbers name the right symbols and labels); a decoded
//! payload re-encodes and decodes back to itself; the session decoder and
//! `decode_any` never panic.
#![no_main]

use std::collections::HashMap;

use gcf_core::graph::{self, Indexed, Payload};
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
    match graph::decode_indexed(text) {
        Ok(i) => {
            check_numbers(&i);
            assert_eq!(Ok(&i.to_owned_payload()), owned.as_ref());
        }
        Err(i) => assert_eq!(
            Some(position(&i)),
            owned.as_ref().err().map(position),
            "indexed vs owned"
        ),
    }
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
    // A session decoded twice (the second time, any `@id  #` line of the
    // text resolves from the first), in the owned form and the numbered
    // one side by side: they agree on the payload or on the error, and the
    // numbered form keeps its numbers through bare references.
    let mut session = graph::SessionDecoder::new();
    let mut numbered = graph::SessionDecoder::new();
    for _ in 0..2 {
        let owned = session.decode(text);
        let indexed = numbered.decode_indexed_with(text, |p| {
            check_numbers(p);
            p.to_owned_payload()
        });
        match (&owned, &indexed) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(
                (a.kind(), a.line(), a.column()),
                (b.kind(), b.line(), b.column())
            ),
            _ => panic!("session forms disagree: {owned:?} / {indexed:?}"),
        }
        assert_eq!(session.len(), numbered.len());
        if owned.is_err() {
            break;
        }
    }
    let _ = gcf_core::decode_any(text);
});

/// An indexed payload's numbers: every name its symbol's index, and one
/// label number per field and text, both ways.
fn check_numbers(p: &Payload<Indexed<'_>>) {
    let symbol = |s: &Indexed<'_>| {
        let i = s.index().expect("a name has its symbol's index");
        assert_eq!(p.symbols[i].qualified_name.as_str(), s.as_str());
        i
    };
    for (i, s) in p.symbols.iter().enumerate() {
        assert_eq!(symbol(&s.qualified_name), i);
    }
    let mut labels = HashMap::new();
    let mut texts = HashMap::new();
    let mut label = |field: u8, s: &Indexed<'_>| {
        let n = s.index().expect("a label has a number");
        assert_eq!(*labels.entry((field, s.as_str().to_owned())).or_insert(n), n);
        let named = (field, s.as_str().to_owned());
        assert_eq!(*texts.entry(n).or_insert_with(|| named.clone()), named);
    };
    for s in &p.symbols {
        label(0, &s.kind);
        label(1, &s.provenance);
    }
    for e in &p.edges {
        symbol(&e.source);
        symbol(&e.target);
        label(2, &e.edge_type);
        label(3, &e.status);
    }
    for l in &p.locations {
        symbol(&l.qualified_name);
    }
}
