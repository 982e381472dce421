//! Reads a JSON file into a generic value `N` times, for instruction counts
//! under callgrind (repeatable on a loaded machine, unlike wall time):
//!
//! ```text
//! cargo build --release -p gcf-bind --example read_value
//! valgrind --tool=callgrind target/release/examples/read_value bind records.json 10
//! ```
//!
//! Readers: `bind` (`gcf_bind::value::from_slice`, what every generic
//! encode surface uses) and `serde` (serde_json into `serde_json::Value`,
//! the baseline of issue 15).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(reader), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: read_value bind|serde <json file> [times]");
        return ExitCode::from(2);
    };
    let times: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut members = 0;
    for _ in 0..times {
        // The length of the top level, so the parse cannot be optimized out.
        members += match reader.as_str() {
            "bind" => match gcf_bind::value::from_slice(&bytes) {
                Ok(gcf_core::generic::Value::Array(items)) => items.len(),
                Ok(_) => 1,
                Err(f) => {
                    eprintln!("{f}");
                    return ExitCode::FAILURE;
                }
            },
            "serde" => match serde_json::from_slice::<serde_json::Value>(&bytes) {
                Ok(serde_json::Value::Array(items)) => items.len(),
                Ok(_) => 1,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            },
            _ => {
                eprintln!("unknown reader {reader}");
                return ExitCode::from(2);
            }
        };
    }
    println!("{members} top-level items");
    ExitCode::SUCCESS
}
