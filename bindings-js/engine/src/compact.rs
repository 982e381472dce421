//! The compact form of graph payloads: fields separated by NUL, no keys, no
//! escapes. Optional fast paths next to the JSON route (the layer uses them
//! when the engine has them), because turning objects into JSON and back is
//! most of a graph call's time in JS (see `bindings-node/BENCH.md`).
//!
//! A payload is `tool, tokenBudget, tokensUsed, packRoot, nSymbols, nEdges`,
//! then per symbol `qualifiedName, kind, score, provenance, distance`, then
//! per edge `source, target, edgeType, status`, every field followed by
//! NUL. Numbers are decimal text (scores as JS's `String(number)` or the
//! shortest round-trip form; Rust reads both exactly).
//!
//! NUL cannot appear in a graph token, so it never needs escaping on the
//! way out; on the way in, a string holding one shifts the field count,
//! which the reader detects and answers with "use the JSON route".

use core::str::Split;

use gcf_core::graph::{self, Edge, Payload, Symbol};

use crate::{shape, Result};

const SEP: char = '\0';

struct Fields<'a>(Split<'a, char>);

impl<'a> Fields<'a> {
    fn text(&mut self) -> Option<&'a str> {
        self.0.next()
    }
    fn number<T: core::str::FromStr>(&mut self) -> Option<T> {
        self.0.next()?.parse().ok()
    }
}

fn read(text: &str) -> Option<Payload<&str>> {
    let mut f = Fields(text.split(SEP));
    let tool = f.text()?;
    let token_budget = f.number()?;
    let tokens_used = f.number()?;
    let pack_root = f.text()?;
    let n_symbols: usize = f.number()?;
    let n_edges: usize = f.number()?;
    // Every field is followed by NUL: the count of separators is exact,
    // so a NUL inside a string is caught here, before anything is read.
    let expected = n_symbols
        .checked_mul(5)?
        .checked_add(n_edges.checked_mul(4)?)?
        .checked_add(6)?;
    if text.bytes().filter(|&b| b == 0).count() != expected || !text.ends_with(SEP) {
        return None;
    }
    let mut symbols = Vec::with_capacity(n_symbols);
    for _ in 0..n_symbols {
        symbols.push(Symbol {
            qualified_name: f.text()?,
            kind: f.text()?,
            score: f.number()?,
            provenance: f.text()?,
            distance: f.number()?,
        });
    }
    let mut edges = Vec::with_capacity(n_edges);
    for _ in 0..n_edges {
        edges.push(Edge {
            source: f.text()?,
            target: f.text()?,
            edge_type: f.text()?,
            status: f.text()?,
        });
    }
    Some(Payload {
        tool,
        token_budget,
        tokens_used,
        pack_root,
        symbols,
        edges,
        ..Payload::default()
    })
}

/// [`graph_encode`](crate::graph_encode) of a compact payload; `""` (which
/// no encode returns) when the text is not a well-formed compact payload,
/// for the caller to use the JSON route, which reports the problem.
pub fn graph_encode_compact(text: &str) -> Result<String> {
    match read(text) {
        Some(p) => Ok(graph::encode(&p)?),
        None => Ok(String::new()),
    }
}

/// [`graph_decode`](crate::graph_decode) into the compact form: a NUL, then
/// the fields as above (an edge without a status has `""`); the JSON form,
/// which starts with `{`, when a string holds a NUL.
pub fn graph_decode_compact(text: &str) -> Result<String> {
    let p = graph::decode(text)?;
    Ok(write(&p).unwrap_or_else(|| shape::payload(&p)))
}

fn write<S: AsRef<str>>(p: &Payload<S>) -> Option<String> {
    let mut out = String::with_capacity(64 + 64 * p.symbols.len() + 48 * p.edges.len());
    out.push(SEP);
    let mut put = |s: &str| -> Option<()> {
        if s.contains(SEP) {
            return None;
        }
        out.push_str(s);
        out.push(SEP);
        Some(())
    };
    let mut n = itoa::Buffer::new();
    put(p.tool.as_ref())?;
    put(n.format(p.token_budget))?;
    put(n.format(p.tokens_used))?;
    put(p.pack_root.as_ref())?;
    put(n.format(p.symbols.len()))?;
    put(n.format(p.edges.len()))?;
    let mut f = ryu::Buffer::new();
    for s in &p.symbols {
        put(s.qualified_name.as_ref())?;
        put(s.kind.as_ref())?;
        put(if s.score.is_finite() {
            f.format_finite(s.score)
        } else {
            "0"
        })?;
        put(s.provenance.as_ref())?;
        put(n.format(s.distance))?;
    }
    for e in &p.edges {
        put(e.source.as_ref())?;
        put(e.target.as_ref())?;
        put(e.edge_type.as_ref())?;
        put(e.status.as_ref())?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{"tool":"t","tokenBudget":5,"tokensUsed":0,
        "symbols":[{"qualifiedName":"a.B","kind":"function","score":0.125,"provenance":"p","distance":0},
                   {"qualifiedName":"c","kind":"type","score":1e-7,"provenance":"p","distance":1}],
        "edges":[{"source":"c","target":"a.B","edgeType":"calls","status":"added"}]}"#;
    const COMPACT: &str =
        "t\u{0}5\u{0}0\u{0}\u{0}2\u{0}1\u{0}a.B\u{0}function\u{0}0.125\u{0}p\u{0}0\u{0}\
        c\u{0}type\u{0}1e-7\u{0}p\u{0}1\u{0}c\u{0}a.B\u{0}calls\u{0}added\u{0}";

    #[test]
    fn compact_and_json_encode_alike() {
        assert_eq!(
            graph_encode_compact(COMPACT).unwrap(),
            crate::graph_encode(JSON).unwrap()
        );
    }

    #[test]
    fn a_nul_inside_a_string_or_a_bad_number_sends_the_caller_to_json() {
        let shifted = COMPACT.replacen("a.B", "a\u{0}B", 1);
        assert_eq!(graph_encode_compact(&shifted).unwrap(), "");
        assert_eq!(
            graph_encode_compact(&COMPACT.replacen("0.125", "x", 1)).unwrap(),
            ""
        );
        assert_eq!(graph_encode_compact("").unwrap(), "");
        let huge = format!(
            "t\u{0}0\u{0}0\u{0}\u{0}{}\u{0}{}\u{0}",
            usize::MAX,
            usize::MAX
        );
        assert_eq!(graph_encode_compact(&huge).unwrap(), "");
        // JS's exponent form reads back exactly.
        let exp = COMPACT.replacen("1e-7", "1.5e+21", 1);
        assert_eq!(
            graph_encode_compact(&exp).unwrap(),
            crate::graph_encode(&JSON.replacen("1e-7", "1.5e+21", 1)).unwrap()
        );
        assert_eq!(
            graph_encode_compact("t\u{0}0\u{0}0\u{0}\u{0}99999999999999999\u{0}0\u{0}").unwrap(),
            ""
        );
    }

    #[test]
    fn decode_round_trips_through_the_compact_form() {
        let text = crate::graph_encode(JSON).unwrap();
        let compact = graph_decode_compact(&text).unwrap();
        let body = compact.strip_prefix(SEP).unwrap();
        assert_eq!(graph_encode_compact(body).unwrap(), text);
    }
}
