//! `gcf validate` and `gcf stats`: look at a payload without converting it.

use gcf_core::graph;
use gcf_core::header::{detect_profile, parse_header_line};
use gcf_core::Profile;

use crate::args;
use crate::failure::Result;
use crate::io::{Output, Source};

/// `gcf validate`: decode with the profile the header names and summarize.
pub fn validate(input: &Source, out: &mut Output) -> Result<()> {
    let bytes = input.read_all()?;
    let text = gcf_core::input::validate_utf8(&bytes)?;
    let summary = match detect_profile(text)? {
        Profile::Graph => validate_graph(text)?,
        Profile::Generic => crate::generic::validate(text)?,
    };
    out.write_text("ok: ")?;
    out.write_text(&summary)?;
    out.write_text("\n")
}

fn is_delta(text: &str) -> Result<bool> {
    let first = text.split('\n').next().unwrap_or("");
    let header = parse_header_line(first.strip_suffix('\r').unwrap_or(first))?;
    Ok(header.get("delta") == Some("true"))
}

fn validate_graph(text: &str) -> Result<String> {
    if is_delta(text)? {
        let d = graph::decode_delta(text)?;
        return Ok(format!(
            "graph delta, {} removed, {} added, {} edges removed, {} edges added",
            d.removed.len(),
            d.added.len(),
            d.removed_edges.len(),
            d.added_edges.len()
        ));
    }
    let p = graph::decode_borrowed(text)?;
    if p.unchanged {
        return Ok(format!("graph unchanged, pack_root={}", p.pack_root));
    }
    let mut summary = format!(
        "graph payload, {} symbols, {} edges",
        p.symbols.len(),
        p.edges.len()
    );
    if !p.locations.is_empty() {
        summary.push_str(&format!(", {} locations", p.locations.len()));
    }
    Ok(summary)
}

/// Sizes of one representation.
struct Size {
    bytes: usize,
    tokens: u64,
}

impl Size {
    /// Tokens by `gcf_core::graph::estimate_tokens`: ceil(bytes / 4), the
    /// tokenizer-free estimate the format itself uses for `tokens=` and
    /// `savings=`. It is crude for any one tokenizer but fair for comparing
    /// two encodings of the same data.
    fn of(text: &str) -> Size {
        Size {
            bytes: text.len(),
            tokens: graph::estimate_tokens(text),
        }
    }
}

/// `gcf stats`: compact JSON vs GCF, in bytes and estimated tokens.
pub fn stats(input: &Source, profile: Option<args::Profile>, out: &mut Output) -> Result<()> {
    let json = input.read_json()?;
    let profile = profile.unwrap_or(match &json {
        serde_json::Value::Object(o) if o.contains_key("symbols") => args::Profile::Graph,
        _ => args::Profile::Generic,
    });
    let compact = serde_json::to_string(&json)
        .map_err(|e| crate::failure::Failure::invalid_input(e.to_string()))?;
    let gcf = match profile {
        args::Profile::Graph => graph::encode(&graph::payload_from_json(&json)?)?,
        args::Profile::Generic => crate::generic::encode_string(&json)?,
    };
    let (j, g) = (Size::of(&compact), Size::of(&gcf));
    let percent = |from: u64, to: u64| {
        if from == 0 {
            0.0
        } else {
            100.0 * (from as f64 - to as f64) / from as f64
        }
    };
    let name = match profile {
        args::Profile::Graph => "graph",
        args::Profile::Generic => "generic",
    };
    out.write_text(&format!(
        "profile: {name}\njson: {} bytes, {} tokens\ngcf: {} bytes, {} tokens\nsaving: {:.1}% tokens, {:.1}% bytes\n",
        j.bytes,
        j.tokens,
        g.bytes,
        g.tokens,
        percent(j.tokens, g.tokens),
        percent(j.bytes as u64, g.bytes as u64),
    ))
}
