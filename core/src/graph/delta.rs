//! Graph deltas (spec §10, §10.3, §10.4): encode, decode, verified atomic
//! apply, and the three-outcome answer to a consumer's `pack_root`.

use alloc::string::String;
use alloc::vec::Vec;

use crate::hash::{HashMap, HashSet};

use super::decode::{expand_kind_cow, parse_id_prefix, parse_score, split_fields};
use super::encode::write_node;
use super::kind::{abbreviate_kind, expand_kind};
use super::pack_root::pack_root;
use super::token::check_token;
use super::types::{Edge, Payload, Symbol};
use crate::error::{Error, ErrorKind};
use crate::header::{
    check_header_value, graph_tool, parse_count, parse_distance, read_header, Profile,
};
use crate::input::{SourceLine, SourceLines};
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::protocol::{delta_pays_off, estimate_tokens, savings_field, unchanged_answer, Outcome};
use crate::sink::Sink;

/// A symbol identity: what `## removed` lines carry (spec §10.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SymbolRef<S = String> {
    /// Kind in full form.
    pub kind: S,
    /// Qualified name.
    pub qualified_name: S,
}

/// A graph snapshot: the logical content a pack root identifies.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot<S = String> {
    /// Symbols.
    pub symbols: Vec<Symbol<S>>,
    /// Edges.
    pub edges: Vec<Edge<S>>,
}

impl<S: AsRef<str>> Snapshot<S> {
    /// This snapshot's `gcf-pack-root-v1`.
    pub fn pack_root(&self) -> Result<String, Error> {
        pack_root(&self.symbols, &self.edges)
    }
}

/// A delta payload (spec §10.1).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Delta<S = String> {
    /// Producing tool (`tool=`, written empty too, as the reference SDKs write it).
    pub tool: S,
    /// Root of the snapshot the delta applies to.
    pub base_root: S,
    /// Root of the snapshot after applying it.
    pub new_root: S,
    /// Symbols removed, by identity.
    pub removed: Vec<SymbolRef<S>>,
    /// Symbols added, with their distance.
    pub added: Vec<Symbol<S>>,
    /// Edges removed.
    pub removed_edges: Vec<Edge<S>>,
    /// Edges added.
    pub added_edges: Vec<Edge<S>>,
    /// Tokens of the delta payload (`tokens=`, written even when zero).
    pub delta_tokens: u64,
    /// Tokens of the full payload; with `delta_tokens` gives `savings=`
    /// (`savings=0%` when zero, as the reference SDKs write it).
    pub full_tokens: u64,
}

/// Encodes a delta payload.
///
/// Sections come in the order `removed`, `added`, `edges_removed`,
/// `edges_added` (spec §10.5), each only when non-empty. `savings` is
/// `100 * (1 - delta/full)` rounded to a whole percent.
///
/// ```
/// use gcf_core::graph::{encode_delta, Delta, Symbol, SymbolRef};
/// let d = Delta {
///     tool: "ctx", base_root: "aaa111", new_root: "bbb222",
///     removed: vec![SymbolRef { kind: "function", qualified_name: "pkg.Old" }],
///     added: vec![Symbol::new("pkg.New", "function", 0.85, "rwr", 0)],
///     delta_tokens: 30, full_tokens: 200,
///     ..Delta::default()
/// };
/// assert_eq!(encode_delta(&d)?, "GCF profile=graph tool=ctx delta=true base_root=aaa111 new_root=bbb222 \
///     tokens=30 savings=85%\n## removed\nfn pkg.Old\n## added\n@0 fn pkg.New 0.85 rwr 0\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn encode_delta<S: AsRef<str>>(delta: &Delta<S>) -> Result<String, Error> {
    let mut out = Vec::new();
    encode_delta_to(delta, &mut out)?;
    String::from_utf8(out)
        .map_err(|_| Error::new(ErrorKind::InvalidInput, "encoder produced invalid UTF-8"))
}

/// Encodes a delta payload into a sink.
pub fn encode_delta_to<S: AsRef<str>, K: Sink + ?Sized>(
    delta: &Delta<S>,
    sink: &mut K,
) -> Result<(), Error> {
    let mut n = itoa::Buffer::new();
    sink.write_bytes(b"GCF profile=graph")?;
    sink.write_bytes(b" tool=")?;
    sink.write_str(graph_tool(delta.tool.as_ref())?)?;
    sink.write_bytes(b" delta=true")?;
    for (key, value) in [
        (" base_root=", delta.base_root.as_ref()),
        (" new_root=", delta.new_root.as_ref()),
    ] {
        if value.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                "a delta needs both base_root and new_root",
            ));
        }
        check_header_value(key.trim(), value)?;
        sink.write_str(key)?;
        sink.write_str(value)?;
    }
    // Always both, `savings=0%` when the full size is unknown: the `gcf`
    // crate, gcf-python and the npm package all write them so, and a
    // reader that looks for them finds them (README, "Where the spec and
    // the references differ").
    sink.write_bytes(b" tokens=")?;
    sink.write_str(n.format(delta.delta_tokens))?;
    match savings_field(delta.delta_tokens, delta.full_tokens).as_str() {
        "" => sink.write_bytes(b" savings=0%")?,
        field => sink.write_str(field)?,
    }
    sink.write_bytes(b"\n")?;
    if !delta.removed.is_empty() {
        sink.write_bytes(b"## removed\n")?;
        for r in &delta.removed {
            check_token("kind", r.kind.as_ref())?;
            check_token("qualified name", r.qualified_name.as_ref())?;
            check_line_start("kind", abbreviate_kind(r.kind.as_ref()))?;
            sink.write_str(abbreviate_kind(r.kind.as_ref()))?;
            sink.write_bytes(b" ")?;
            sink.write_str(r.qualified_name.as_ref())?;
            sink.write_bytes(b"\n")?;
        }
    }
    if !delta.added.is_empty() {
        sink.write_bytes(b"## added\n")?;
        let mut numbers = NumberBuffer::new();
        for (i, s) in delta.added.iter().enumerate() {
            write_node(sink, i as u64, &s.as_borrowed(), &mut numbers)?;
            sink.write_bytes(b" ")?;
            sink.write_str(n.format(s.distance))?;
            sink.write_bytes(b"\n")?;
        }
    }
    for (name, edges) in [
        ("## edges_removed\n", &delta.removed_edges),
        ("## edges_added\n", &delta.added_edges),
    ] {
        if edges.is_empty() {
            continue;
        }
        sink.write_str(name)?;
        for e in edges.iter() {
            for (what, v) in [
                ("source", e.source.as_ref()),
                ("target", e.target.as_ref()),
                ("edge type", e.edge_type.as_ref()),
            ] {
                check_token(what, v)?;
            }
            check_line_start("source", e.source.as_ref())?;
            sink.write_str(e.source.as_ref())?;
            sink.write_bytes(b" -> ")?;
            sink.write_str(e.target.as_ref())?;
            sink.write_bytes(b" ")?;
            sink.write_str(e.edge_type.as_ref())?;
            sink.write_bytes(b"\n")?;
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DeltaSection {
    None,
    Removed,
    Added,
    EdgesRemoved,
    EdgesAdded,
    Loc,
}

/// Decodes a delta payload (spec §10.1). A `## loc` section, which a delta
/// may carry (spec §6b), is accepted and skipped: positions are not part of
/// a snapshot.
///
/// ```
/// use gcf_core::graph::decode_delta;
/// let d = decode_delta("GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn pkg.Old\n")?;
/// assert_eq!(d.removed[0].kind, "function");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn decode_delta(input: &str) -> Result<Delta, Error> {
    decode_delta_with(input, &Limits::default())
}

/// [`decode_delta`] with `limits` in place of the defaults.
///
/// ```
/// use gcf_core::{graph::decode_delta_with, ErrorKind, Limits};
/// let text = "GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn pkg.Old\n";
/// let tight = Limits { max_input_len: 20, ..Limits::default() };
/// assert_eq!(decode_delta_with(text, &tight).unwrap_err().kind(), ErrorKind::LimitExceeded);
/// ```
pub fn decode_delta_with(input: &str, limits: &Limits) -> Result<Delta, Error> {
    decode_delta_at(input, limits, None)
}

/// Where a delta's parts were read (1-based lines, 1-based columns), so
/// that [`apply_delta`] can point at the entry or root the base contradicts.
#[derive(Default)]
struct DeltaPositions {
    base_root: Option<(usize, usize)>,
    new_root: Option<(usize, usize)>,
    removed: Vec<usize>,
    added: Vec<usize>,
    removed_edges: Vec<usize>,
    added_edges: Vec<usize>,
}

impl DeltaPositions {
    /// `error` at the start of the entry's line, when it was read from text.
    fn entry(
        positions: Option<&Self>,
        lines: impl Fn(&Self) -> &[usize],
        index: usize,
        error: Error,
    ) -> Error {
        error.relocated(positions.and_then(|p| Some((*lines(p).get(index)?, 1))))
    }

    /// `error` at a root's value in the header, when it was read from text.
    fn root(
        positions: Option<&Self>,
        root: impl Fn(&Self) -> Option<(usize, usize)>,
        error: Error,
    ) -> Error {
        error.relocated(positions.and_then(root))
    }
}

/// [`decode_delta_with`], recording where each part was read when
/// `positions` is given.
fn decode_delta_at(
    input: &str,
    limits: &Limits,
    mut positions: Option<&mut DeltaPositions>,
) -> Result<Delta, Error> {
    let mut lines = SourceLines::new(input, limits)?;
    let (header_line, header) = read_header(&mut lines)?;
    if header.profile != Profile::Graph {
        return Err(header_line.error_at(ErrorKind::InvalidInput, 4, "not a graph payload"));
    }
    if header.get("delta") != Some("true") {
        return Err(header_line.error_at(
            ErrorKind::MalformedDelta,
            0,
            "a delta payload's header says delta=true",
        ));
    }
    let mut delta = Delta {
        tool: String::from(header.get("tool").unwrap_or("")),
        base_root: String::from(header.get("base_root").unwrap_or("")),
        new_root: String::from(header.get("new_root").unwrap_or("")),
        delta_tokens: parse_count(&header_line, &header, "tokens")?.unwrap_or(0),
        ..Delta::default()
    };
    if let Some(p) = positions.as_deref_mut() {
        // A root the header lacks is the header's error: its first column.
        let value_at = |key: &str| {
            let column = crate::header::value_column(header_line.text, key).unwrap_or(1);
            Some((header_line.number, column))
        };
        p.base_root = value_at("base_root");
        p.new_root = value_at("new_root");
    }
    let mut section = DeltaSection::None;
    let mut count = 0usize;
    while let Some(line) = lines.next() {
        let line = line?;
        if line.is_blank() || line.is_comment() {
            continue;
        }
        if line.indentation()? > 0 {
            return Err(line.error_at(
                ErrorKind::InvalidIndent,
                0,
                "delta payloads are flat: unexpected indentation",
            ));
        }
        if let Some(name) = line.text.strip_prefix("## ") {
            let name = name.split(' ').next().unwrap_or("");
            section = match name {
                "removed" => DeltaSection::Removed,
                "added" => DeltaSection::Added,
                "edges_removed" => DeltaSection::EdgesRemoved,
                "edges_added" => DeltaSection::EdgesAdded,
                "loc" => DeltaSection::Loc,
                _ => {
                    return Err(line.error_at(
                        ErrorKind::MalformedDelta,
                        3,
                        alloc::format!("`## {}` is not a delta section (removed, added, edges_removed, edges_added)", crate::error::excerpt(name)),
                    ))
                }
            };
            continue;
        }
        count += 1;
        if count > limits.max_container_len {
            return Err(line.error_at(ErrorKind::LimitExceeded, 0, "too many delta lines"));
        }
        match section {
            DeltaSection::None => {
                return Err(line.error_at(
                    ErrorKind::MalformedDelta,
                    0,
                    "delta line outside any delta section",
                ))
            }
            DeltaSection::Removed => {
                let [kind, qname] = split_fields::<2>(&alloc::format!(" {}", line.text))
                    .map(|[k, q]| [String::from(k), String::from(q)])
                    .ok_or_else(|| {
                        malformed(&line, "a `## removed` line is `kind qualified_name`")
                    })?;
                delta.removed.push(SymbolRef {
                    kind: String::from(expand_kind_cow(&kind)),
                    qualified_name: qname,
                });
            }
            DeltaSection::Added => delta.added.push(parse_added(&line)?),
            DeltaSection::EdgesRemoved | DeltaSection::EdgesAdded => {
                let edge = parse_delta_edge(&line)?;
                if section == DeltaSection::EdgesRemoved {
                    delta.removed_edges.push(edge);
                } else {
                    delta.added_edges.push(edge);
                }
            }
            DeltaSection::Loc => {}
        }
        if let Some(p) = positions.as_deref_mut() {
            let entries = match section {
                DeltaSection::Removed => &mut p.removed,
                DeltaSection::Added => &mut p.added,
                DeltaSection::EdgesRemoved => &mut p.removed_edges,
                DeltaSection::EdgesAdded => &mut p.added_edges,
                DeltaSection::None | DeltaSection::Loc => continue,
            };
            entries.push(line.number);
        }
    }
    Ok(delta)
}

#[cold]
fn malformed(line: &SourceLine<'_>, msg: &str) -> Error {
    line.error_at(
        ErrorKind::MalformedDelta,
        0,
        alloc::format!("malformed delta line: {msg}"),
    )
}

fn parse_added(line: &SourceLine<'_>) -> Result<Symbol, Error> {
    let shape = "an `## added` line is `@id kind qualified_name score provenance distance`";
    let (_, rest) = parse_id_prefix(line, line.text, ErrorKind::MalformedDelta)
        .map_err(|_| malformed(line, shape))?;
    let [kind, qname, score, provenance, distance] =
        split_fields::<5>(rest).ok_or_else(|| malformed(line, shape))?;
    let score = parse_score(line, score)?;
    let distance = match parse_distance(distance) {
        Some(Some(d)) => d,
        Some(None) => {
            return Err(line.error_at(
                ErrorKind::LimitExceeded,
                line.text.len() - distance.len(),
                "distance does not fit in 32 bits",
            ))
        }
        None => return Err(malformed(line, "the distance must be a decimal")),
    };
    Ok(Symbol {
        qualified_name: String::from(qname),
        kind: String::from(expand_kind_cow(kind)),
        score,
        provenance: String::from(provenance),
        distance,
    })
}

fn parse_delta_edge(line: &SourceLine<'_>) -> Result<Edge, Error> {
    let [source, _arrow, target, edge_type] = split_fields::<4>(&alloc::format!(" {}", line.text))
        .filter(|f| f[1] == "->")
        .map(|f| f.map(String::from))
        .ok_or_else(|| malformed(line, "an edge delta line is `source -> target type`"))?;
    Ok(Edge {
        source,
        target,
        edge_type,
        status: String::new(),
    })
}

/// Applies a delta to `base` atomically and verifies both roots (spec §10.4).
///
/// The base's root must equal the delta's `base_root`, else
/// [`ErrorKind::BaseMismatch`], and the result's must equal `new_root`, else
/// [`ErrorKind::RootMismatch`]. Removing something absent, adding something
/// present, or naming it twice is [`ErrorKind::DeltaInvalid`] (the reference
/// SDKs' categories). On any error `base` is untouched (it is
/// borrowed; the result is a new snapshot). Removed symbols are dropped and
/// added ones appended, so the result keeps the base's order.
///
/// Every error has a position in `delta_text`: a contradiction is at the
/// entry's line, a root the base or the result does not match at that
/// root's value in the header.
///
/// ```
/// use gcf_core::graph::{apply_delta, Snapshot, Symbol};
/// let base: Snapshot = Snapshot { symbols: vec![Symbol::new("a".into(), "function".into(), 0.5, "x".into(), 0)], edges: vec![] };
/// let root = base.pack_root()?;
/// let text = format!("GCF profile=graph delta=true base_root={root} new_root=sha256:00\n## removed\nfn a\n");
/// assert_eq!(apply_delta(&base, &text).unwrap_err().kind(), gcf_core::ErrorKind::RootMismatch);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn apply_delta(base: &Snapshot, delta_text: &str) -> Result<Snapshot, Error> {
    apply_delta_with(base, delta_text, &Limits::DEFAULT)
}

/// [`apply_delta`] with the delta text decoded under `limits`.
///
/// ```
/// use gcf_core::graph::{apply_delta_with, Snapshot};
/// use gcf_core::{ErrorKind, Limits};
/// let base: Snapshot = Snapshot::default();
/// let root = base.pack_root()?;
/// let text = format!("GCF profile=graph delta=true base_root={root} new_root=sha256:00\n## removed\nfn a\n");
/// let e = apply_delta_with(&base, &text, &Limits::default()).unwrap_err();
/// // The entry the base does not hold, where it was read.
/// assert_eq!((e.kind(), e.line(), e.column()), (ErrorKind::DeltaInvalid, Some(3), Some(1)));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn apply_delta_with(
    base: &Snapshot,
    delta_text: &str,
    limits: &Limits,
) -> Result<Snapshot, Error> {
    let mut positions = DeltaPositions::default();
    let delta = decode_delta_at(delta_text, limits, Some(&mut positions))?;
    apply_at(base, &delta, Some(&positions))
}

/// Applies an already decoded delta; see [`apply_delta`]. Its errors have
/// no position: the delta was not read here.
pub fn apply_decoded_delta(base: &Snapshot, delta: &Delta) -> Result<Snapshot, Error> {
    apply_at(base, delta, None)
}

fn apply_at(
    base: &Snapshot,
    delta: &Delta,
    positions: Option<&DeltaPositions>,
) -> Result<Snapshot, Error> {
    let base_root = base.pack_root()?;
    if base_root != delta.base_root {
        return Err(DeltaPositions::root(
            positions,
            |p| p.base_root,
            Error::new(
                ErrorKind::BaseMismatch,
                if delta.base_root.is_empty() {
                    alloc::format!("the delta names no base_root; the held snapshot is {base_root}")
                } else {
                    alloc::format!(
                        "the delta applies to {}, but the held snapshot is {base_root}",
                        delta.base_root
                    )
                },
            ),
        ));
    }
    let contradiction = |msg: String| Error::new(ErrorKind::DeltaInvalid, msg);
    // Identity is (kind, name) with the kind in full form: a base may hold
    // `fn` where the wire (and so the decoded delta) says `function`, and
    // the pack root already treats both alike.
    let present: HashSet<(&str, &str)> = base
        .symbols
        .iter()
        .map(|s| (expand_kind(&s.kind), s.qualified_name.as_str()))
        .collect();
    let mut removed: HashSet<(&str, &str)> = HashSet::default();
    for (i, r) in delta.removed.iter().enumerate() {
        let key = (expand_kind(&r.kind), r.qualified_name.as_str());
        if !present.contains(&key) || !removed.insert(key) {
            return Err(DeltaPositions::entry(
                positions,
                |p| &p.removed,
                i,
                contradiction(alloc::format!(
                    "removes {} {}, which does not exist in the base",
                    r.kind,
                    r.qualified_name
                )),
            ));
        }
    }
    let mut added: HashSet<(&str, &str)> = HashSet::default();
    for (i, s) in delta.added.iter().enumerate() {
        let key = (expand_kind(&s.kind), s.qualified_name.as_str());
        if (present.contains(&key) && !removed.contains(&key)) || !added.insert(key) {
            return Err(DeltaPositions::entry(
                positions,
                |p| &p.added,
                i,
                contradiction(alloc::format!(
                    "adds {} {}, which already exists",
                    s.kind,
                    s.qualified_name
                )),
            ));
        }
    }
    type EdgeKey<'e> = (&'e str, &'e str, &'e str);
    fn edge_key(e: &Edge) -> EdgeKey<'_> {
        (e.source.as_str(), e.target.as_str(), e.edge_type.as_str())
    }
    let mut base_edges: HashMap<EdgeKey<'_>, usize> = HashMap::default();
    for e in &base.edges {
        *base_edges.entry(edge_key(e)).or_insert(0) += 1;
    }
    let mut edges_removed: HashSet<EdgeKey<'_>> = HashSet::default();
    for (i, e) in delta.removed_edges.iter().enumerate() {
        let k = edge_key(e);
        if !base_edges.contains_key(&k) || !edges_removed.insert(k) {
            return Err(DeltaPositions::entry(
                positions,
                |p| &p.removed_edges,
                i,
                contradiction(alloc::format!(
                    "removes edge {} -> {} {}, which does not exist in the base",
                    k.0,
                    k.1,
                    k.2
                )),
            ));
        }
    }
    let mut edges_added: HashSet<EdgeKey<'_>> = HashSet::default();
    for (i, e) in delta.added_edges.iter().enumerate() {
        let k = edge_key(e);
        if (base_edges.contains_key(&k) && !edges_removed.contains(&k)) || !edges_added.insert(k) {
            return Err(DeltaPositions::entry(
                positions,
                |p| &p.added_edges,
                i,
                contradiction(alloc::format!(
                    "adds edge {} -> {} {}, which already exists",
                    k.0,
                    k.1,
                    k.2
                )),
            ));
        }
    }
    let mut result = Snapshot {
        symbols: base
            .symbols
            .iter()
            .filter(|s| !removed.contains(&(expand_kind(&s.kind), s.qualified_name.as_str())))
            .cloned()
            .collect(),
        edges: base
            .edges
            .iter()
            .filter(|e| !edges_removed.contains(&edge_key(e)))
            .cloned()
            .collect(),
    };
    result.symbols.extend(delta.added.iter().cloned());
    result.edges.extend(delta.added_edges.iter().cloned());
    let new_root = result.pack_root()?;
    if new_root != delta.new_root {
        return Err(DeltaPositions::root(
            positions,
            |p| p.new_root,
            Error::new(
                ErrorKind::RootMismatch,
                if delta.new_root.is_empty() {
                    alloc::format!("the delta names no new_root; applying it gives {new_root}")
                } else {
                    alloc::format!(
                        "the delta promises {}, but applying it gives {new_root}",
                        delta.new_root
                    )
                },
            ),
        ));
    }
    Ok(result)
}

/// Refuses a token that would start a delta line as a comment (`#`) or a
/// section header (`##`): a `## removed` line starts with the kind and an
/// edge line with the source name, and the decoder would read `# x` as a
/// comment and `## x` as a section (found by fuzzing: a full payload may
/// hold a symbol of kind `##`).
fn check_line_start(what: &str, token: &str) -> Result<(), Error> {
    if token == "#" || token == "##" {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            alloc::format!(
                "{what} `{}` cannot start a delta line (it reads as a comment or a section); send the snapshot in full",
                crate::error::excerpt(token)
            ),
        ));
    }
    Ok(())
}

/// Whether every line of `delta` can be written: what [`encode_delta`]
/// refuses, [`diff`] refuses up front and [`respond`] answers in full.
fn delta_lines_fit(delta: &Delta) -> Result<(), Error> {
    for r in &delta.removed {
        check_line_start("kind", abbreviate_kind(&r.kind))?;
    }
    for e in delta.removed_edges.iter().chain(&delta.added_edges) {
        check_line_start("source", &e.source)?;
    }
    Ok(())
}

/// Whether a snapshot repeats a symbol identity (kind in full form, name) or
/// an edge: a multiset, which no delta reproduces, since applying one
/// removes every copy and adds one (spec §10.4 rejects duplicate operations).
fn has_duplicates(snapshot: &Snapshot) -> bool {
    let mut symbols = crate::hash::set_with_capacity(snapshot.symbols.len());
    let mut edges = crate::hash::set_with_capacity(snapshot.edges.len());
    !(snapshot
        .symbols
        .iter()
        .all(|s| symbols.insert((expand_kind(&s.kind), s.qualified_name.as_str())))
        && snapshot
            .edges
            .iter()
            .all(|e| edges.insert((e.source.as_str(), e.target.as_str(), e.edge_type.as_str()))))
}

/// The error for snapshots [`has_duplicates`] finds.
fn multiset_error() -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        "a snapshot repeats a symbol or an edge; no delta reproduces it, so send it in full",
    )
}

/// The difference between two snapshots, as a delta with both roots set.
/// Snapshots that repeat a symbol or an edge are refused with
/// [`ErrorKind::InvalidInput`] (no delta reproduces a multiset), and so is a
/// delta whose line would start with a kind or source name `#` or `##`
/// (which reads as a comment or a section): a delta `diff` returns always
/// encodes, applies and verifies.
///
/// ```
/// use gcf_core::graph::{diff, apply_decoded_delta, Snapshot, Symbol};
/// let base: Snapshot = Snapshot { symbols: vec![Symbol::new("a".into(), "function".into(), 0.5, "x".into(), 0)], edges: vec![] };
/// let new: Snapshot = Snapshot { symbols: vec![Symbol::new("b".into(), "type".into(), 0.7, "x".into(), 1)], edges: vec![] };
/// let d = diff(&base, &new, "tool")?;
/// assert_eq!(apply_decoded_delta(&base, &d)?, new);
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn diff(base: &Snapshot, new: &Snapshot, tool: &str) -> Result<Delta, Error> {
    // A delta that applies must verify (issue 21): refuse what it cannot carry.
    if has_duplicates(base) || has_duplicates(new) {
        return Err(multiset_error());
    }
    let delta = diff_sets(base, new, tool)?;
    delta_lines_fit(&delta)?;
    Ok(delta)
}

/// [`diff`] of two sets, before the check that every line can be written.
fn diff_sets(base: &Snapshot, new: &Snapshot, tool: &str) -> Result<Delta, Error> {
    // A symbol is unchanged only if every field that enters the pack root is.
    // In the pack root's terms: the abbreviated kind, and zero of either sign.
    let record = |s: &Symbol| {
        (
            String::from(abbreviate_kind(&s.kind)),
            s.qualified_name.clone(),
            if s.score == 0.0 { 0 } else { s.score.to_bits() },
            s.provenance.clone(),
            s.distance,
        )
    };
    let base_symbols: HashSet<_> = base.symbols.iter().map(record).collect();
    let new_symbols: HashSet<_> = new.symbols.iter().map(record).collect();
    let mut delta = Delta {
        tool: String::from(tool),
        base_root: base.pack_root()?,
        new_root: new.pack_root()?,
        ..Delta::default()
    };
    for s in &base.symbols {
        if !new_symbols.contains(&record(s)) {
            delta.removed.push(SymbolRef {
                kind: s.kind.clone(),
                qualified_name: s.qualified_name.clone(),
            });
        }
    }
    for s in &new.symbols {
        if !base_symbols.contains(&record(s)) {
            delta.added.push(s.clone());
        }
    }
    let edge = |e: &Edge| (e.source.clone(), e.target.clone(), e.edge_type.clone());
    let base_edges: HashSet<_> = base.edges.iter().map(edge).collect();
    let new_edges: HashSet<_> = new.edges.iter().map(edge).collect();
    delta.removed_edges = base
        .edges
        .iter()
        .filter(|e| !new_edges.contains(&edge(e)))
        .map(|e| Edge::new(e.source.clone(), e.target.clone(), e.edge_type.clone()))
        .collect();
    delta.added_edges = new
        .edges
        .iter()
        .filter(|e| !base_edges.contains(&edge(e)))
        .map(|e| Edge::new(e.source.clone(), e.target.clone(), e.edge_type.clone()))
        .collect();
    Ok(delta)
}

/// Chooses unchanged, delta or full (spec §10.3) for `current`, given the
/// root the consumer echoed and, if the producer still holds it, the snapshot
/// with that root.
///
/// A delta is sent only when it is smaller than 60% of the full payload in
/// bytes (spec §10.1); `tokens=` and `savings=` use [`estimate_tokens`].
///
/// ```
/// use gcf_core::graph::{respond, Outcome, Payload, Snapshot, Symbol};
/// let current: Payload = Payload { tool: "t".into(), symbols: vec![Symbol::new("a".into(), "function".into(), 0.5, "x".into(), 0)], ..Payload::default() };
/// let first = respond(None, None, &current)?;
/// assert!(matches!(first, Outcome::Full(_)));
/// let root = Snapshot { symbols: current.symbols.clone(), edges: vec![] }.pack_root()?;
/// assert!(matches!(respond(Some(&root), None, &current)?, Outcome::Unchanged(_)));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn respond(
    echoed_root: Option<&str>,
    held: Option<&Snapshot>,
    current: &Payload,
) -> Result<Outcome, Error> {
    let snapshot = Snapshot {
        symbols: current.symbols.clone(),
        edges: current.edges.clone(),
    };
    let root = snapshot.pack_root()?;
    let tool = current.tool.as_str();
    if echoed_root == Some(root.as_str()) {
        return unchanged_answer("graph", tool, &root, "symbols", current.symbols.len())
            .map(Outcome::Unchanged);
    }
    let full_payload = Payload {
        tool,
        token_budget: current.token_budget,
        tokens_used: current.tokens_used,
        pack_root: root.as_str(),
        symbols: current.symbols.iter().map(Symbol::as_borrowed).collect(),
        edges: current.edges.iter().map(Edge::as_borrowed).collect(),
        locations: current
            .locations
            .iter()
            .map(|l| super::Location {
                qualified_name: l.qualified_name.as_str(),
                file: l.file.as_str(),
                line: l.line,
                column: l.column,
                end: l.end,
            })
            .collect(),
        ..Payload::default()
    };
    let full = super::encode(&full_payload)?;
    let Some(base) =
        held.filter(|b| echoed_root.is_some_and(|r| b.pack_root().is_ok_and(|br| br == r)))
    else {
        return Ok(Outcome::Full(full));
    };
    if has_duplicates(base) || has_duplicates(&snapshot) {
        return Ok(Outcome::Full(full));
    }
    let mut delta = diff_sets(base, &snapshot, tool)?;
    if delta_lines_fit(&delta).is_err() {
        return Ok(Outcome::Full(full));
    }
    let draft = encode_delta(&delta)?;
    delta.delta_tokens = estimate_tokens(&draft);
    delta.full_tokens = estimate_tokens(&full);
    let text = encode_delta(&delta)?;
    if delta_pays_off(text.len(), full.len()) {
        Ok(Outcome::Delta(text))
    } else {
        Ok(Outcome::Full(full))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(q: &str, kind: &str, score: f64, d: u32) -> Symbol {
        Symbol::new(q.into(), kind.into(), score, "x".into(), d)
    }

    fn snapshot(n: usize) -> Snapshot {
        Snapshot {
            symbols: (0..n)
                .map(|i| sym(&alloc::format!("pkg.S{i}"), "function", 0.5, (i % 3) as u32))
                .collect(),
            edges: (1..n)
                .map(|i| {
                    Edge::new(
                        alloc::format!("pkg.S{i}"),
                        String::from("pkg.S0"),
                        String::from("calls"),
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn header_always_has_tokens_and_savings() {
        // What the crate, gcf-python 2.8.0 and the npm package write.
        for (delta_tokens, full_tokens, fields) in [
            (0, 0, "tokens=0 savings=0%"),
            (10, 0, "tokens=10 savings=0%"),
            (0, 100, "tokens=0 savings=100%"),
            (150, 100, "tokens=150 savings=-50%"),
        ] {
            let d: Delta<&str> = Delta {
                tool: "t",
                base_root: "x",
                new_root: "y",
                delta_tokens,
                full_tokens,
                ..Delta::default()
            };
            let text = encode_delta(&d).unwrap();
            assert_eq!(
                text,
                alloc::format!(
                    "GCF profile=graph tool=t delta=true base_root=x new_root=y {fields}\n"
                )
            );
            assert_eq!(decode_delta(&text).unwrap().delta_tokens, delta_tokens);
        }
    }

    #[test]
    fn diff_encode_apply_round_trip() {
        let base = snapshot(30);
        let mut new = base.clone();
        new.symbols.remove(3);
        new.symbols[5].score = 0.9;
        new.symbols.push(sym("pkg.New", "type", 0.7, 2));
        new.edges.retain(|e| e.source != "pkg.S3");
        new.edges
            .push(Edge::new("pkg.New".into(), "pkg.S1".into(), "uses".into()));
        let d = diff(&base, &new, "t").unwrap();
        assert_eq!(d.removed.len(), 2);
        assert_eq!(d.added.len(), 2);
        let text = encode_delta(&d).unwrap();
        let applied = apply_delta(&base, &text).unwrap();
        assert_eq!(applied.pack_root().unwrap(), new.pack_root().unwrap());
    }

    #[test]
    fn contradictions_are_invalid_and_bad_lines_malformed() {
        let base = snapshot(3);
        let root = base.pack_root().unwrap();
        let apply = |body: &str| {
            apply_delta(
                &base,
                &alloc::format!("GCF profile=graph delta=true base_root={root} new_root=x\n{body}"),
            )
            .unwrap_err()
            .kind()
        };
        assert_eq!(apply("## removed\nfn pkg.Nope\n"), ErrorKind::DeltaInvalid);
        assert_eq!(
            apply("## removed\nfn pkg.S1\nfn pkg.S1\n"),
            ErrorKind::DeltaInvalid
        );
        assert_eq!(
            apply("## added\n@0 fn pkg.S1 0.50 x 1\n"),
            ErrorKind::DeltaInvalid
        );
        assert_eq!(
            apply("## edges_removed\npkg.S0 -> pkg.S1 calls\n"),
            ErrorKind::DeltaInvalid
        );
        assert_eq!(
            apply("## edges_added\npkg.S1 -> pkg.S0 calls\n"),
            ErrorKind::DeltaInvalid
        );
        assert_eq!(
            apply("## added\n@0 fn pkg.S9 0.50 x\n"),
            ErrorKind::MalformedDelta
        );
        assert_eq!(
            apply("## edges_added\npkg.S1 pkg.S0 calls\n"),
            ErrorKind::MalformedDelta
        );
        // Fields with whitespace or control characters (spec §4), which no
        // encoder writes: a removal that would otherwise apply, an addition,
        // an edge.
        for body in [
            "## removed\nfn pkg.S1\t\n",
            "## removed\nf\u{7f}n pkg.S1\n",
            "## added\n@0 fn pkg.S\u{a0}9 0.50 x 1\n",
            "## edges_added\npkg.S1 -> pkg.S2 ca\u{1}lls\n",
        ] {
            let text =
                alloc::format!("GCF profile=graph delta=true base_root=a new_root=b\n{body}");
            let error = decode_delta(&text).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::MalformedDelta, "{body:?}");
            assert_eq!(apply(body), ErrorKind::MalformedDelta, "{body:?}");
        }
        assert_eq!(apply("## whatever\n"), ErrorKind::MalformedDelta);
        assert_eq!(apply("fn a\n"), ErrorKind::MalformedDelta);
        assert_eq!(
            apply("## added\n@0 fn pkg.S9 0.50 x 1\n"),
            ErrorKind::RootMismatch
        );
        let wrong_base = apply_delta(
            &base,
            "GCF profile=graph delta=true base_root=sha256:00 new_root=x\n",
        )
        .unwrap_err();
        assert_eq!(wrong_base.kind(), ErrorKind::BaseMismatch);
    }

    /// An error of `apply_delta` points at what the base contradicts: the
    /// entry's line (blank lines, comments and `## loc` counted), or the
    /// root's value in the header; `apply_decoded_delta` has no text to
    /// point into.
    #[test]
    fn apply_errors_point_at_the_entry_or_the_root() {
        let base = snapshot(3);
        let root = base.pack_root().unwrap();
        let head =
            alloc::format!("GCF profile=graph tool=t delta=true base_root={root} new_root=x\n");
        let at = |body: &str| {
            let e = apply_delta(&base, &alloc::format!("{head}{body}")).unwrap_err();
            (e.kind(), e.line(), e.column())
        };
        let invalid = ErrorKind::DeltaInvalid;
        assert_eq!(
            at("## removed\nfn pkg.S1\n\n# c\nfn pkg.Nope\n"),
            (invalid, Some(6), Some(1))
        );
        assert_eq!(
            at("## removed\nfn pkg.S1\nfn pkg.S1\n"),
            (invalid, Some(4), Some(1))
        );
        assert_eq!(
            at("## loc\n@0 a.rs:1\n## added\n@0 fn pkg.S9 0.50 x 1\n@1 fn pkg.S2 0.50 x 1\n"),
            (invalid, Some(6), Some(1))
        );
        assert_eq!(
            at("## removed\nfn pkg.S1\n## edges_removed\npkg.S0 -> pkg.S1 calls\n"),
            (invalid, Some(5), Some(1))
        );
        assert_eq!(
            at("## edges_added\npkg.S0 -> pkg.S1 calls\npkg.S1 -> pkg.S0 calls\n"),
            (invalid, Some(4), Some(1))
        );
        // The promised root, at its value: `new_root=` is the header's
        // sixth pair, after a root of 71 characters.
        let column = head.find(" new_root=").unwrap() + " new_root=".len() + 1;
        assert_eq!(
            at("## added\n@0 fn pkg.S9 0.50 x 1\n"),
            (ErrorKind::RootMismatch, Some(1), Some(column))
        );
        let e = apply_delta(
            &base,
            "GCF profile=graph delta=true base_root=sha256:00 new_root=x\n",
        )
        .unwrap_err();
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (ErrorKind::BaseMismatch, Some(1), Some(40))
        );
        // Decoded apart, the same contradiction has no position.
        let d = decode_delta(&alloc::format!("{head}## removed\nfn pkg.Nope\n")).unwrap();
        let e = apply_decoded_delta(&base, &d).unwrap_err();
        assert_eq!((e.kind(), e.line()), (invalid, None));
    }

    #[test]
    fn three_outcomes() {
        let base = snapshot(200);
        let current_snapshot = {
            let mut s = base.clone();
            s.symbols[0].score = 0.99;
            s
        };
        let current = Payload {
            tool: String::from("t"),
            symbols: current_snapshot.symbols.clone(),
            edges: current_snapshot.edges.clone(),
            ..Payload::default()
        };
        let base_root = base.pack_root().unwrap();
        match respond(Some(&base_root), Some(&base), &current).unwrap() {
            Outcome::Delta(text) => {
                assert!(text.contains("savings="));
                assert_eq!(
                    apply_delta(&base, &text).unwrap().pack_root().unwrap(),
                    current_snapshot.pack_root().unwrap()
                );
            }
            other => panic!("expected a delta, got {other:?}"),
        }
        // A total rewrite is not worth a delta.
        let unrelated = snapshot(2);
        let r = respond(
            Some(&unrelated.pack_root().unwrap()),
            Some(&unrelated),
            &current,
        )
        .unwrap();
        assert!(matches!(r, Outcome::Full(ref t) if t.contains("pack_root=sha256:")));
        let root = current_snapshot.pack_root().unwrap();
        let u = respond(Some(&root), None, &current).unwrap();
        assert_eq!(
            u.text(),
            alloc::format!(
                "GCF profile=graph tool=t unchanged=true pack_root={root} symbols=200\n"
            )
        );
        assert!(crate::graph::decode(u.text()).unwrap().unchanged);
    }
}
