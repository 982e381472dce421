//! Writes the JSON inputs of the JSON-in measurement (`gcf-bench-json`,
//! issue 15's targets) into a directory (default `target/bench-inputs`):
//!
//! - `graph_100k.json`: the 100,000-symbol graph workload of the graph
//!   benches (about 3 edges per symbol), as payload JSON;
//! - `records_10mb.json`: a top-level array of flat employee records (the
//!   generic benches' `employees` rows), just over 10 MB.

use std::io::Write;
use std::path::PathBuf;

use gcf_benches::workload::{self, Employee};

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/bench-inputs"));
    std::fs::create_dir_all(&dir)?;
    let graph = workload::graph(100_000, 42).json();
    let text = serde_json::to_vec(&graph).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("graph_100k.json"), &text)?;
    println!("graph_100k.json: {} bytes", text.len());

    let mut out = Vec::with_capacity(11 << 20);
    out.push(b'[');
    let mut rng = workload::Rng::new(7);
    let mut i = 0;
    while out.len() < 10 << 20 {
        if i > 0 {
            out.push(b',');
        }
        let e: Employee = workload::employee(i, &mut rng);
        serde_json::to_writer(&mut out, &e.json()).map_err(std::io::Error::other)?;
        i += 1;
    }
    out.push(b']');
    std::fs::File::create(dir.join("records_10mb.json"))?.write_all(&out)?;
    println!("records_10mb.json: {} bytes, {i} records", out.len());
    Ok(())
}
