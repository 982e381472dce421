//! Graph results as JSON in the shapes of the 2.5.2 package's `Payload`:
//! `packRoot` only when the header has one (`gcf_bind::graph::PayloadJson`
//! writes it always, which is what the C ABI documents).

use gcf_core::graph::{Delta, Edge, Location, Payload, Snapshot, Symbol};

fn string(out: &mut Vec<u8>, s: &str) {
    // Writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn float(out: &mut Vec<u8>, f: f64) {
    let _ = serde_json::to_writer(&mut *out, &f);
}

fn uint(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

pub(crate) fn symbol<S: AsRef<str>>(out: &mut Vec<u8>, s: &Symbol<S>) {
    symbol_in_order(out, s, false);
}

/// A symbol of a decoded delta, `kind` first, as 2.5.2's `decodeDelta`
/// builds it (so JSON.stringify gives its bytes).
fn delta_symbol<S: AsRef<str>>(out: &mut Vec<u8>, s: &Symbol<S>) {
    symbol_in_order(out, s, true);
}

/// A symbol's members, `qualifiedName` and `kind` in the order asked for.
fn symbol_in_order<S: AsRef<str>>(out: &mut Vec<u8>, s: &Symbol<S>, kind_first: bool) {
    let name = (&b"qualifiedName"[..], s.qualified_name.as_ref());
    let kind = (&b"kind"[..], s.kind.as_ref());
    let first = if kind_first {
        [kind, name]
    } else {
        [name, kind]
    };
    for (i, (key, value)) in first.into_iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"{\"" } else { b",\"" });
        out.extend_from_slice(key);
        out.extend_from_slice(b"\":");
        string(out, value);
    }
    out.extend_from_slice(b",\"score\":");
    float(out, s.score);
    out.extend_from_slice(b",\"provenance\":");
    string(out, s.provenance.as_ref());
    out.extend_from_slice(b",\"distance\":");
    uint(out, u64::from(s.distance));
    out.push(b'}');
}

pub(crate) fn edge<S: AsRef<str>>(out: &mut Vec<u8>, e: &Edge<S>) {
    out.extend_from_slice(b"{\"source\":");
    string(out, e.source.as_ref());
    out.extend_from_slice(b",\"target\":");
    string(out, e.target.as_ref());
    out.extend_from_slice(b",\"edgeType\":");
    string(out, e.edge_type.as_ref());
    // Always present (2.5.2 has the key, `undefined` when the line has no
    // status): "" here, turned into `undefined` by the JS layer, so every
    // edge object gets one shape.
    out.extend_from_slice(b",\"status\":");
    string(out, e.status.as_ref());
    out.push(b'}');
}

/// A `## loc` line as `{qualifiedName, file, line, column}`, with
/// `endLine` and `endColumn` when it has an end: the form `encode` reads.
fn location<S: AsRef<str>>(out: &mut Vec<u8>, l: &Location<S>) {
    out.extend_from_slice(b"{\"qualifiedName\":");
    string(out, l.qualified_name.as_ref());
    out.extend_from_slice(b",\"file\":");
    string(out, l.file.as_ref());
    out.extend_from_slice(b",\"line\":");
    uint(out, u64::from(l.line));
    out.extend_from_slice(b",\"column\":");
    uint(out, u64::from(l.column));
    if let Some((line, column)) = l.end {
        out.extend_from_slice(b",\"endLine\":");
        uint(out, u64::from(line));
        out.extend_from_slice(b",\"endColumn\":");
        uint(out, u64::from(column));
    }
    out.push(b'}');
}

pub(crate) fn list<T>(out: &mut Vec<u8>, items: &[T], each: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        each(out, item);
    }
    out.push(b']');
}

/// The payload as 2.5.2's `decode` returns it, plus `locations` when the
/// text has a `## loc` section (spec 3.6.0, which 2.5.2 predates: it
/// refuses such text), so that what `encode` wrote decodes back whole.
pub(crate) fn payload<S: AsRef<str>>(p: &Payload<S>) -> String {
    let mut out = Vec::with_capacity(64 + 96 * p.symbols.len() + 64 * p.edges.len());
    out.extend_from_slice(b"{\"tool\":");
    string(&mut out, p.tool.as_ref());
    out.extend_from_slice(b",\"tokenBudget\":");
    uint(&mut out, p.token_budget);
    out.extend_from_slice(b",\"tokensUsed\":");
    uint(&mut out, p.tokens_used);
    out.extend_from_slice(b",\"symbols\":");
    list(&mut out, &p.symbols, symbol);
    out.extend_from_slice(b",\"edges\":");
    list(&mut out, &p.edges, edge);
    // After the edges, where 2.5.2's decoder adds it (its header is read
    // after the payload object is made): JSON.stringify gives its bytes.
    if !p.pack_root.as_ref().is_empty() {
        out.extend_from_slice(b",\"packRoot\":");
        string(&mut out, p.pack_root.as_ref());
    }
    if !p.locations.is_empty() {
        out.extend_from_slice(b",\"locations\":");
        list(&mut out, &p.locations, location);
    }
    out.push(b'}');
    // Only UTF-8 pieces were written.
    String::from_utf8(out).unwrap_or_default()
}

fn plain_edge<S: AsRef<str>>(out: &mut Vec<u8>, e: &Edge<S>) {
    out.extend_from_slice(b"{\"source\":");
    string(out, e.source.as_ref());
    out.extend_from_slice(b",\"target\":");
    string(out, e.target.as_ref());
    out.extend_from_slice(b",\"edgeType\":");
    string(out, e.edge_type.as_ref());
    out.push(b'}');
}

/// A graph delta as 2.5.2's `decodeDelta` returns it, members in its order:
/// removed symbols are whole `Symbol`s with score 0, no provenance and
/// distance 0; every symbol's `kind` comes first.
pub(crate) fn delta<S: AsRef<str>>(d: &Delta<S>) -> String {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"tool\":");
    string(&mut out, d.tool.as_ref());
    out.extend_from_slice(b",\"baseRoot\":");
    string(&mut out, d.base_root.as_ref());
    out.extend_from_slice(b",\"newRoot\":");
    string(&mut out, d.new_root.as_ref());
    out.extend_from_slice(b",\"removed\":");
    list(&mut out, &d.removed, |out, r| {
        out.extend_from_slice(b"{\"kind\":");
        string(out, r.kind.as_ref());
        out.extend_from_slice(b",\"qualifiedName\":");
        string(out, r.qualified_name.as_ref());
        out.extend_from_slice(b",\"score\":0,\"provenance\":\"\",\"distance\":0}");
    });
    out.extend_from_slice(b",\"added\":");
    list(&mut out, &d.added, delta_symbol);
    out.extend_from_slice(b",\"removedEdges\":");
    list(&mut out, &d.removed_edges, plain_edge);
    out.extend_from_slice(b",\"addedEdges\":");
    list(&mut out, &d.added_edges, plain_edge);
    out.extend_from_slice(b",\"deltaTokens\":");
    uint(&mut out, d.delta_tokens);
    out.extend_from_slice(b",\"fullTokens\":");
    uint(&mut out, d.full_tokens);
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

/// A snapshot as 2.5.2's `verifyDelta` returns it: `{symbols, edges}`.
pub(crate) fn snapshot<S: AsRef<str>>(s: &Snapshot<S>) -> String {
    let mut out = Vec::with_capacity(64 + 96 * s.symbols.len() + 64 * s.edges.len());
    out.extend_from_slice(b"{\"symbols\":");
    list(&mut out, &s.symbols, symbol);
    out.extend_from_slice(b",\"edges\":");
    list(&mut out, &s.edges, plain_edge);
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}
