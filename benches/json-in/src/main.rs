//! `gcf-bench-json [DIR]`: times JSON in, both sides in one run, on the
//! files `gcf-benches`' `json_inputs` writes (default `target/bench-inputs`).
//!
//! - graph: serde_json into typed structs with owned strings (the baseline)
//!   against `gcf encode`'s work: `gcf_bind::graph::payload_from_slice`
//!   and `graph::encode_to` into a buffer, and the parse alone;
//! - generic: serde_json into `serde_json::Value` against `gcf
//!   encode-generic`'s work: `gcf_bind::value::from_slice` and
//!   `generic::encode_to`, and the parse alone.
//!
//! Each is run `ROUNDS` times interleaved and the minimum and median are
//! printed; the ratio uses the medians. The whole file is in memory first,
//! as the CLI reads it before parsing.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Deserialize;

const ROUNDS: usize = 9;

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Symbol {
    qualified_name: String,
    kind: String,
    score: f64,
    provenance: String,
    distance: u32,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Edge {
    source: String,
    target: String,
    edge_type: String,
    status: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    tool: String,
    token_budget: u64,
    tokens_used: u64,
    pack_root: String,
    symbols: Vec<Symbol>,
    edges: Vec<Edge>,
}

struct Timing(Vec<Duration>);

impl Timing {
    fn median(&self) -> Duration {
        let mut v = self.0.clone();
        v.sort();
        v[v.len() / 2]
    }
    fn min(&self) -> Duration {
        *self.0.iter().min().unwrap()
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A named case: runs once, returns something to keep it from being optimised away.
type Case<'a> = (&'a str, Box<dyn FnMut() -> usize + 'a>);

fn run(cases: &mut [Case<'_>]) -> Vec<Timing> {
    let mut times: Vec<Timing> = cases.iter().map(|_| Timing(Vec::new())).collect();
    for _ in 0..ROUNDS {
        for (i, (_, f)) in cases.iter_mut().enumerate() {
            let t = Instant::now();
            black_box(f());
            times[i].0.push(t.elapsed());
        }
    }
    for ((name, _), t) in cases.iter().zip(&times) {
        println!(
            "  {name:<44} median {:8.1} ms   min {:8.1} ms",
            ms(t.median()),
            ms(t.min())
        );
    }
    times
}

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/bench-inputs"));
    let graph = std::fs::read(dir.join("graph_100k.json")).expect("run json_inputs first");
    let records = std::fs::read(dir.join("records_10mb.json")).expect("run json_inputs first");

    println!("graph_100k.json, {} bytes, {ROUNDS} rounds", graph.len());
    let t = run(&mut [
        (
            "serde_json -> typed structs (baseline)",
            Box::new(|| {
                let p: Payload = serde_json::from_slice(&graph).unwrap();
                p.symbols.len() + p.edges.len()
            }),
        ),
        (
            "gcf_bind payload_from_slice",
            Box::new(|| {
                let p = gcf_bind::graph::payload_from_slice(&graph).unwrap();
                p.symbols.len() + p.edges.len()
            }),
        ),
        (
            "gcf_bind payload_from_slice + encode_to",
            Box::new(|| {
                let p = gcf_bind::graph::payload_from_slice(&graph).unwrap();
                let mut out = Vec::new();
                gcf_core::graph::encode_to(&p, &mut out).unwrap();
                out.len()
            }),
        ),
    ]);
    println!(
        "  ratio encode / baseline: {:.2}x (parse alone {:.2}x)",
        ms(t[2].median()) / ms(t[0].median()),
        ms(t[1].median()) / ms(t[0].median())
    );

    println!(
        "records_10mb.json, {} bytes, {ROUNDS} rounds",
        records.len()
    );
    let t = run(&mut [
        (
            "serde_json -> serde_json::Value (baseline)",
            Box::new(|| {
                let v: serde_json::Value = serde_json::from_slice(&records).unwrap();
                v.as_array().map_or(0, Vec::len)
            }),
        ),
        (
            "gcf_bind value::from_slice",
            Box::new(|| {
                let v = gcf_bind::value::from_slice(&records).unwrap();
                v.as_array().map_or(0, <[_]>::len)
            }),
        ),
        (
            "gcf_bind value::from_slice + encode_to",
            Box::new(|| {
                let v = gcf_bind::value::from_slice(&records).unwrap();
                let mut out = Vec::new();
                gcf_core::generic::encode_to(&v, &mut out).unwrap();
                out.len()
            }),
        ),
    ]);
    println!(
        "  ratio encode-generic / baseline: {:.2}x (parse alone {:.2}x)",
        ms(t[2].median()) / ms(t[0].median()),
        ms(t[1].median()) / ms(t[0].median())
    );
}
