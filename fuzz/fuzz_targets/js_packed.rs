//! The JS engine's packed routes (`gcf_js_engine::generic_encode_packed`,
//! `graph_encode_packed`, `GenericStream::write_rows_packed`,
//! `GraphStream::write_symbols_packed`), whose
//! arguments are buffers the JS layer fills: arbitrary ops, text and
//! numbers must give GCF text, `""` (take the JSON route) or a failure,
//! never a panic, and any text the encoders give must decode. (The generic
//! stream keeps 2.5.2's loose sequencing, so only "no panic" holds for it;
//! what the graph stream finishes decodes.)
//!
//! Layout: two bytes of ops length, two of text length (both taken modulo
//! what is there), the ops, the text, then one number per remaining byte
//! from a small table of the numbers that matter (integers, fractions,
//! -0, 2^53, NaN, infinities, u32 edges), so that well-formed packed values
//! are common.
#![no_main]

use gcf_core::{generic, graph};
use libfuzzer_sys::fuzz_target;

const SPECIAL: [f64; 12] = [
    -0.0,
    0.5,
    -1.25,
    1e-7,
    9_007_199_254_740_991.0,
    9_007_199_254_740_992.0,
    f64::NAN,
    f64::INFINITY,
    4_294_967_295.0,
    4_294_967_296.0,
    1e300,
    0.1,
];

fn number(b: u8) -> f64 {
    match b {
        0..=199 => f64::from(b) - 20.0,
        _ => SPECIAL[usize::from(b - 200) % SPECIAL.len()],
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let ops_len = usize::from(u16::from_le_bytes([head[0], head[1]])) % (rest.len() + 1);
    let (ops, rest) = rest.split_at(ops_len);
    let text_len = usize::from(u16::from_le_bytes([head[2], head[3]])) % (rest.len() + 1);
    let (text, rest) = rest.split_at(text_len);
    let nums: Vec<f64> = rest.iter().map(|&b| number(b)).collect();
    for flags in [0, gcf_js_engine::NO_FLATTEN | gcf_js_engine::CONSTANT_COLUMNS] {
        if let Ok(out) = gcf_js_engine::generic_encode_packed(ops, text, &nums, flags) {
            if !out.is_empty() {
                generic::decode(&out).expect("a packed value's GCF decodes");
            }
        }
    }
    let mut stream = gcf_js_engine::GenericStream::new();
    if stream.begin_array("t", r#"["a","b"]"#).is_ok() {
        let _ = stream.write_rows_packed(ops, text, &nums);
        let _ = stream.close();
    }
    if let Ok(mut graph_stream) = gcf_js_engine::GraphStream::new("t", 0, 0, false, "", false) {
        if graph_stream.write_symbols_packed(text, &nums).is_ok() {
            if let Ok(out) = graph_stream.finish() {
                graph::decode(&out).expect("a packed symbol batch's stream decodes");
            }
        }
    }
    if let Ok(out) = gcf_js_engine::graph_encode_packed(text, &nums) {
        if !out.is_empty() {
            graph::decode(&out).expect("a packed payload's GCF decodes");
        }
    }
});
