//! The generic decoder on hostile input: every truncation and byte mutation
//! of every conformance fixture text, CRLF and re-indented forms. The
//! fixtures themselves run in `spec-tests`.

use gcf_core::generic;
use gcf_core::ErrorKind;

mod support;
use support::{base64, fixture_paths};

/// Every GCF text in the suite (decode inputs and encoder outputs).
fn fixture_texts() -> Vec<(String, Vec<u8>)> {
    let paths = fixture_paths();
    let mut out = Vec::new();
    for path in &paths {
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let name = path.display().to_string();
        for key in ["input", "expected"] {
            if let Some(text) = fixture[key].as_str().filter(|t| t.starts_with("GCF")) {
                out.push((name.clone(), text.as_bytes().to_vec()));
            }
        }
        if let Some(b64) = fixture["inputBase64"].as_str() {
            out.push((name, base64(b64)));
        }
    }
    out
}

/// Decoding returns (Ok or Err) on every truncation and byte mutation of
/// every fixture text: no panic, no hang. Errors from input carry a line.
#[test]
fn never_panics_on_truncated_or_mutated_input() {
    let texts = fixture_texts();
    assert!(texts.len() > 150);
    let check = |bytes: &[u8]| {
        if let Err(e) = generic::decode_bytes(bytes) {
            if !matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::LimitExceeded) {
                assert!(
                    e.line().is_some(),
                    "{:?}: error without a line: {e:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    };
    let mutations: &[u8] = b"|,\"\\^~-@.#[]{}:=> \t\r\n?0a\xff\xc3";
    for (i, (_, text)) in texts.iter().enumerate() {
        // Every cut of a few inputs, a stride of cuts of the rest.
        let stride = if i % 16 == 0 { 1 } else { 7 };
        for cut in (0..=text.len()).step_by(stride) {
            check(&text[..cut]);
        }
        let mut buf = text.clone();
        for pos in (0..text.len()).step_by(if i % 8 == 0 { 1 } else { 5 }) {
            for &m in mutations {
                let orig = buf[pos];
                buf[pos] = m;
                check(&buf);
                buf[pos] = orig;
            }
            // Deletions and duplications of one byte.
            let mut del = text.clone();
            del.remove(pos);
            check(&del);
            let mut dup = text.clone();
            dup.insert(pos, text[pos]);
            check(&dup);
        }
    }
}

/// Lines of a fixture shifted one indentation level decode or fail cleanly,
/// and a decoded value decodes identically from its CRLF form.
#[test]
fn crlf_and_reindented_fixture_texts() {
    for (name, text) in fixture_texts() {
        let Ok(text) = String::from_utf8(text) else {
            continue;
        };
        if !text.starts_with("GCF profile=generic") || text.contains('\r') {
            continue;
        }
        if let Ok(v) = generic::decode(&text) {
            let crlf = text.replace('\n', "\r\n");
            assert_eq!(
                generic::decode(&crlf).as_ref().ok(),
                Some(&v),
                "{name}: CRLF form differs"
            );
        }
        let shifted: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    format!("{l}\n")
                } else {
                    format!("  {l}\n")
                }
            })
            .collect();
        let _ = generic::decode(&shifted);
    }
}

/// Constant columns and value-grouped tables (spec §7.4.7, §7.4.8) under
/// every truncation and every byte mutation, deletion and duplication: an
/// error with a line or a value, never a panic.
#[test]
fn constant_and_grouped_forms_never_panic() {
    let seeds = [
        "GCF profile=generic\n## [3]{a,b=x}\n1\n2\n3\n",
        "GCF profile=generic\n## rows [2]{k=-,id,s=\"a,b}c\",t=true,c=^{abc,w}\n1|p\n2|q\n",
        "GCF profile=generic\n## m [2:]{key,a,b=on}\nx|1\ny|2\n",
        "GCF profile=generic\n## [2]{id,items}\n1|^\n  .items [2]{sku,qty=1,\"p>q\"}\n    a|5\n    b|6\n2|^\n  .items [1]\n    c|7\n",
        "GCF profile=generic\n## [2]{id,u}\n1|^{name,kind=user,age}\n  Ann|30\n2|^\n  Bob|41\n",
        "GCF profile=generic\n## [3]{@id,dept,x=1,y} group=dept\ndept=Sales [2]\nu1|a\nu3|~\ndept=\"R&D, Labs\" [1]\nu2|c\n",
        "GCF profile=generic\n## s\n  ## t [?]{@k,\"g g\"} group=\"g g\"\n  \"g g\"=- [1]\n  1\n  \"g g\"=a [1] [1]\n  3\n##! summary counts=2\n",
    ];
    for seed in seeds {
        generic::decode(seed).unwrap_or_else(|e| panic!("{seed:?}: {e:?}"));
    }
    let check = |bytes: &[u8]| {
        if let Err(e) = generic::decode_bytes(bytes) {
            if !matches!(e.kind(), ErrorKind::InvalidInput | ErrorKind::LimitExceeded) {
                assert!(
                    e.line().is_some() && e.column().is_some(),
                    "{:?}: error without a position: {e:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
    };
    let mutations: &[u8] = b"|,\"\\^~-@.#[]{}:=> \t\r\n?0a\xff";
    for seed in seeds {
        let text = seed.as_bytes().to_vec();
        for cut in 0..=text.len() {
            check(&text[..cut]);
        }
        let mut buf = text.clone();
        for pos in 0..text.len() {
            for &m in mutations {
                let orig = buf[pos];
                buf[pos] = m;
                check(&buf);
                buf[pos] = orig;
            }
            let mut del = text.clone();
            del.remove(pos);
            check(&del);
            let mut dup = text.clone();
            dup.insert(pos, text[pos]);
            check(&dup);
        }
    }
}

/// A host builder gets exactly what `decode` returns, and the same error
/// where it fails, on every fixture text, its cuts and its byte mutations
/// (`constant_group_seeds.rs` does the same on constants and groups).
#[test]
fn host_builders_see_what_decode_returns() {
    let mut decoded = 0;
    for (_, text) in fixture_texts() {
        decoded += support::host_builder_on_variants(&text, text.len() / 3).0;
    }
    assert!(decoded > 1000, "{decoded}");
}
