//! `gcf validate` and `gcf stats`: look at a payload without converting it.

use gcf_core::generic::Value;
use gcf_core::{graph, AnyPayload, Limits};

use crate::args;
use crate::failure::Result;
use crate::io::{Output, Source};

/// `gcf validate`: decode with the decoder the header calls for and summarize.
pub fn validate(input: &Source, limits: &Limits, out: &mut Output) -> Result<()> {
    let bytes = input.read_within(limits.max_input_len)?;
    let text = gcf_core::validate_utf8(&bytes)?;
    let summary = match gcf_core::decode_any_with(text, limits)? {
        AnyPayload::Unchanged {
            profile, pack_root, ..
        } => {
            format!("{} unchanged, pack_root={pack_root}", profile.name())
        }
        AnyPayload::Graph(p) => {
            let mut summary = format!(
                "graph payload, {} symbols, {} edges",
                p.symbols.len(),
                p.edges.len()
            );
            if !p.locations.is_empty() {
                summary.push_str(&format!(", {} locations", p.locations.len()));
            }
            summary
        }
        AnyPayload::GraphDelta(d) => format!(
            "graph delta, {} removed, {} added, {} edges removed, {} edges added",
            d.removed.len(),
            d.added.len(),
            d.removed_edges.len(),
            d.added_edges.len()
        ),
        AnyPayload::Generic(value) => match &value {
            Value::Object(m) => format!("generic payload, object with {} keys", m.len()),
            Value::Array(a) => format!("generic payload, array of {} items", a.len()),
            _ => "generic payload, scalar".to_owned(),
        },
        AnyPayload::GenericDelta(d) => format!(
            "generic delta, {} added, {} changed, {} removed",
            d.added.len(),
            d.changed.len(),
            d.removed.len()
        ),
    };
    out.write_text("ok: ")?;
    out.write_text(&summary)?;
    out.write_text("\n")
}

/// Sizes of one representation.
struct Size {
    bytes: usize,
    tokens: u64,
}

/// What counts a text's tokens for `gcf stats`.
enum Counter {
    /// A BPE tokenizer and its name.
    #[cfg(feature = "tokenizers")]
    Bpe(Box<tiktoken_rs::CoreBPE>, &'static str),
    /// `gcf_core::graph::estimate_tokens`: ceil(bytes / 4), the
    /// tokenizer-free estimate the format itself uses for `tokens=` and
    /// `savings=`, so its saving is always the byte saving.
    Estimate,
}

impl Counter {
    #[cfg(feature = "tokenizers")]
    fn new(tokenizer: args::Tokenizer) -> Result<Counter> {
        let bpe = match tokenizer {
            args::Tokenizer::O200k => tiktoken_rs::o200k_base().map(|b| (b, "o200k_base")),
            args::Tokenizer::Cl100k => tiktoken_rs::cl100k_base().map(|b| (b, "cl100k_base")),
            args::Tokenizer::Estimate => return Ok(Counter::Estimate),
        };
        let (bpe, name) = bpe.map_err(|e| {
            crate::failure::Failure::invalid_input(format!("loading the tokenizer: {e}"))
        })?;
        Ok(Counter::Bpe(Box::new(bpe), name))
    }

    #[cfg(not(feature = "tokenizers"))]
    fn new(tokenizer: args::Tokenizer) -> Result<Counter> {
        match tokenizer {
            args::Tokenizer::Estimate => Ok(Counter::Estimate),
            _ => Err(crate::failure::Failure::invalid_input(
                "this gcf was built without its tokenizers (cargo feature `tokenizers`): use --tokenizer estimate",
            )),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            #[cfg(feature = "tokenizers")]
            Counter::Bpe(_, name) => name,
            Counter::Estimate => "estimate (bytes / 4)",
        }
    }

    /// The sizes of `text` (`what` names it in an error). Special tokens
    /// (`<|endoftext|>`) are ordinary text here, as they are in a tool
    /// result a model reads.
    #[cfg_attr(not(feature = "tokenizers"), allow(unused_variables))]
    fn size(&self, what: &str, text: &str) -> Result<Size> {
        let tokens = match self {
            #[cfg(feature = "tokenizers")]
            Counter::Bpe(bpe, _) => {
                check_whitespace_runs(what, text)?;
                bpe.encode_ordinary(text).len() as u64
            }
            Counter::Estimate => graph::estimate_tokens(text),
        };
        Ok(Size {
            bytes: text.len(),
            tokens,
        })
    }
}

/// The longest run of whitespace the BPE tokenizers are given. Their
/// pre-split (`\s+(?!\S)`, run by fancy-regex's backtracking engine)
/// overflows its stack on a run of between 500,000 and 1,000,000
/// whitespace characters, and tiktoken-rs then panics; no data a tool
/// returns has a run a tenth that long.
#[cfg(feature = "tokenizers")]
const LONGEST_WHITESPACE_RUN: usize = 100_000;

/// Refuses `text` (with where and what to do instead) when it holds a run
/// of more than [`LONGEST_WHITESPACE_RUN`] whitespace characters (`\s`,
/// Unicode's White_Space, as `char::is_whitespace`).
#[cfg(feature = "tokenizers")]
fn check_whitespace_runs(what: &str, text: &str) -> Result<()> {
    let mut run = 0usize;
    let mut start = 0usize;
    for (at, c) in text.char_indices() {
        if !c.is_whitespace() {
            run = 0;
            continue;
        }
        if run == 0 {
            start = at;
        }
        run += 1;
        if run > LONGEST_WHITESPACE_RUN {
            return Err(crate::failure::Failure::invalid_input(format!(
                "the {what} holds a run of more than {LONGEST_WHITESPACE_RUN} whitespace characters \
                 (from byte {start}), longer than the tokenizer reads; count with --tokenizer estimate"
            )));
        }
    }
    Ok(())
}

/// `gcf stats`: compact JSON vs GCF, in bytes and tokens.
pub fn stats(
    input: &Source,
    profile: Option<args::Profile>,
    tokenizer: args::Tokenizer,
    out: &mut Output,
) -> Result<()> {
    let bytes = input.read_all()?;
    let counter = Counter::new(tokenizer)?;
    if bytes.starts_with(b"GCF ") {
        return stats_of_gcf(&bytes, profile, &counter, out);
    }
    let json = gcf_bind::value::from_slice(&bytes)?;
    let profile = profile.unwrap_or(match &json {
        gcf_core::generic::Value::Object(o) if o.contains_key("symbols") => args::Profile::Graph,
        _ => args::Profile::Generic,
    });
    let compact = json_text(&gcf_bind::value::Json(&json))?;
    let gcf = match profile {
        args::Profile::Graph => graph::encode(&gcf_bind::graph::payload_from_slice(&bytes)?)?,
        args::Profile::Generic => gcf_core::generic::encode(&json)?,
    };
    report(profile, &counter, &compact, &gcf, out)
}

/// `gcf stats` of a GCF payload: the text as given against the compact
/// JSON of what it decodes to (what `gcf decode`/`decode-generic` print,
/// on one line).
fn stats_of_gcf(
    bytes: &[u8],
    profile: Option<args::Profile>,
    counter: &Counter,
    out: &mut Output,
) -> Result<()> {
    let text = gcf_core::validate_utf8(bytes)?;
    let (found, compact) = match gcf_core::payload_kind(text)? {
        gcf_core::PayloadKind::Graph => {
            // As `gcf decode` reads it: a bare session reference is refused.
            let payload = graph::Decoder::new().refuse_references(true).decode(text)?;
            (
                args::Profile::Graph,
                json_text(&gcf_bind::graph::DecodedPayloadJson(&payload))?,
            )
        }
        gcf_core::PayloadKind::Generic => {
            let value = gcf_core::generic::decode(text)?;
            (
                args::Profile::Generic,
                json_text(&gcf_bind::value::Json(&value))?,
            )
        }
        _ => {
            return Err(crate::failure::Failure::invalid_input(
                "a delta or an `unchanged` answer has no JSON of its own to compare with; \
                 gcf stats takes a full payload (GCF or JSON)",
            ))
        }
    };
    if profile.is_some_and(|p| p != found) {
        return Err(crate::failure::Failure::invalid_input(format!(
            "the text is a {}-profile payload",
            profile_name(found)
        ))
        .at_line(1, Some(5)));
    }
    report(found, counter, &compact, text, out)
}

fn json_text(value: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string(value).map_err(|e| crate::failure::Failure::invalid_input(e.to_string()))
}

fn profile_name(profile: args::Profile) -> &'static str {
    match profile {
        args::Profile::Graph => "graph",
        args::Profile::Generic => "generic",
    }
}

/// The report: bytes and tokens of the compact JSON and of the GCF text.
fn report(
    profile: args::Profile,
    counter: &Counter,
    compact: &str,
    gcf: &str,
    out: &mut Output,
) -> Result<()> {
    let (j, g) = (
        counter.size("JSON", compact)?,
        counter.size("GCF text", gcf)?,
    );
    let percent = |from: u64, to: u64| {
        if from == 0 {
            0.0
        } else {
            100.0 * (from as f64 - to as f64) / from as f64
        }
    };
    let name = profile_name(profile);
    out.write_text(&format!(
        "profile: {name}\ntokenizer: {}\njson: {} bytes, {} tokens\ngcf: {} bytes, {} tokens\nsaving: {:.1}% tokens, {:.1}% bytes\n",
        counter.name(),
        j.bytes,
        j.tokens,
        g.bytes,
        g.tokens,
        percent(j.tokens, g.tokens),
        percent(j.bytes as u64, g.bytes as u64),
    ))
}
