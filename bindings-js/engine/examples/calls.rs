//! Runs one engine operation on a file, `N` times, for instruction counts
//! under callgrind (repeatable on a loaded machine, unlike wall time):
//!
//! ```text
//! cargo build --release -p gcf-js-engine --example calls
//! valgrind --tool=callgrind target/release/examples/calls graph-encode payload.json 1000
//! ```
//!
//! Operations: `graph-encode`, `graph-decode` (of the encoded file),
//! `graph-encode-packed` (the JSON file's payload in the packed form),
//! `graph-decode-packed` (of the encoded file), `generic-encode`,
//! `generic-decode` (of the encoded file), `generic-decode-packed` (the
//! same into the packed form), `value-read` (the JSON read
//! alone that starts a generic encode, to tell its share),
//! `generic-encode-packed` (the file is a prefix: `<file>.ops`,
//! `<file>.text` and `<file>.nums` hold the JS layer's packed value, the
//! numbers as little-endian doubles).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(op), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: calls <op> <json file> [times]");
        return ExitCode::from(2);
    };
    let times: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let json = match if op == "generic-encode-packed" {
        Ok(String::new())
    } else {
        std::fs::read_to_string(file)
    } {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::from(2);
        }
    };
    let run = || -> Result<usize, gcf_js_engine::Failure> {
        let mut total = 0;
        match op.as_str() {
            "graph-encode" => {
                for _ in 0..times {
                    total += gcf_js_engine::graph_encode(&json)?.len();
                }
            }
            "graph-encode-packed" => {
                let (strings, nums) = packed(&json)?;
                for _ in 0..times {
                    total += gcf_js_engine::graph_encode_packed(&strings, &nums)?.len();
                }
            }
            "graph-decode-packed" => {
                let text = gcf_js_engine::graph_encode(&json)?;
                for _ in 0..times {
                    total += gcf_js_engine::graph_decode_packed(&text)?.strings.len();
                }
            }
            "graph-decode" => {
                let text = gcf_js_engine::graph_encode(&json)?;
                for _ in 0..times {
                    total += gcf_js_engine::graph_decode(&text)?.len();
                }
            }
            "generic-encode" => {
                for _ in 0..times {
                    total += gcf_js_engine::generic_encode(&json, 0)?.len();
                }
            }
            "generic-encode-packed" => {
                let read = |ext: &str| {
                    std::fs::read(format!("{file}.{ext}"))
                        .map_err(|_| gcf_js_engine::Failure::invalid_input("no packed files"))
                };
                let (ops, text) = (read("ops")?, read("text")?);
                let nums: Vec<f64> = read("nums")?
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()))
                    .collect();
                for _ in 0..times {
                    total += gcf_js_engine::generic_encode_packed(&ops, &text, &nums, 0)?.len();
                }
            }
            "value-read" => {
                for _ in 0..times {
                    let v = gcf_bind::value::from_str(&json)?;
                    total += usize::from(v.as_object().is_some());
                }
            }
            "generic-decode-packed" => {
                let text = gcf_js_engine::generic_encode(&json, 0)?;
                for _ in 0..times {
                    total += gcf_js_engine::generic_decode_packed(&text)?.strings.len();
                }
            }
            "generic-decode" => {
                let text = gcf_js_engine::generic_encode(&json, 0)?;
                for _ in 0..times {
                    total += gcf_js_engine::generic_decode(&text)?.len();
                }
            }
            _ => return Err(gcf_js_engine::Failure::invalid_input("unknown operation")),
        }
        Ok(total)
    };
    match run() {
        Ok(n) => {
            println!("{n} bytes");
            ExitCode::SUCCESS
        }
        Err(f) => {
            eprintln!("{}", f.message);
            ExitCode::FAILURE
        }
    }
}

/// The arguments the JS layer builds for `graph_encode_packed` (see the
/// engine's `packed` module), from payload JSON.
fn packed(json: &str) -> Result<(Vec<u8>, Vec<f64>), gcf_js_engine::Failure> {
    let p = gcf_bind::graph::payload_from_slice(json.as_bytes())?;
    Ok(gcf_js_engine::graph_encode_packed_args(&p))
}
