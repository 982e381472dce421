//! The packed form of graph payloads: the route the JS layer takes for
//! plain graph payloads instead of JSON, because building and reading JSON
//! (or any text holding numbers) was most of a graph call's time in JS
//! (`bindings-node/BENCH.md`): V8 turns a score into text and back at a few
//! hundred nanoseconds each, and concatenating a megabyte of small strings
//! then flattening the rope costs more than the encode itself.
//!
//! So strings and numbers travel apart. Strings are UTF-8 (no keys, no
//! escapes); numbers are `f64`s, which a JS `Float64Array` holds and this
//! side reads without parsing, exactly.
//!
//! **Encode** ([`graph_encode_packed`]): `strings` is `tool`, `packRoot`,
//! every symbol's `qualifiedName`, every edge's `source` and `target`, then
//! the payload's distinct tokens (kinds, provenances, edge types and
//! statuses, `""` for an edge without one), each once, all back to back.
//! `nums` holds `tokenBudget, tokensUsed, nSymbols, nEdges, nTokens`, the
//! lengths of `tool` and `packRoot`, then per symbol `nameLength, score,
//! distance, kind, provenance`, per edge `sourceLength, targetLength,
//! edgeType, status`, and per token its length. Lengths count UTF-16 code
//! units (JS's `length`, which JS knows without reading the string); tokens
//! go by their place in the list.
//!
//! Two choices cut JS's half of the call, which concatenates the strings a
//! chunk at a time and has `TextEncoder.encodeInto` flatten and write each
//! chunk (most of its time; bindings-node/BENCH.md): a payload's handful of
//! tokens, repeated on every record, go once (and every symbol of a kind
//! hands the core the same `&str`); and no separator is concatenated, so a
//! chunk has half the pieces (at 10,000 symbols and edges, toPacked went
//! from 0.95-1.17 ms to 0.90 with the token list, and the strings' share
//! from 0.48 to 0.30-0.35 ms without separators). This side then slices
//! each string where its length says, without looking for an end: by
//! bytes when the text is ASCII, else by counting UTF-16 units.
//! [`graph_encode_packed_args`] builds these arguments from a payload.
//!
//! **Decode** ([`graph_decode_packed`]): `strings` is a table, every entry
//! *preceded* by a NUL (so JS's `split("\0")` gives `""` at 0 and entry `i`
//! at `i`): `tool` is 1, `packRoot` 2 (`""` when absent), then every
//! distinct symbol name, kind, provenance, edge type and status once. `nums`
//! holds `tokenBudget, tokensUsed, nSymbols, nEdges`, then per symbol
//! `name, kind, score, provenance, distance` and per edge `source, target,
//! edgeType, status` (indices into the table; status 0 for none). Edges
//! name their endpoints by the symbol's own table entry, so JS builds each
//! name's string once and the edges share it.

use gcf_core::graph::{self, Edge, Indexed, Payload, Symbol};

use crate::units::{index, utf16_len, Strings};
use crate::{shape, Result};

/// Whether `text` holds U+FFFD (what `TextEncoder` writes for a lone
/// surrogate). Most packed text is ASCII, which `is_ascii` settles a word at
/// a time; only other text is searched, since `str::contains` with a
/// non-ASCII `char` is a substring search (4 % of a WebAssembly generic
/// encode of 10,000 records when run on every text).
pub(crate) fn has_replacement_char(text: &str) -> bool {
    !text.is_ascii() && text.contains('\u{FFFD}')
}

/// The payload of `strings` and `nums`, or `None` when they are not a
/// well-formed packed payload.
fn read<'a>(strings: &'a [u8], nums: &[f64]) -> Option<Payload<&'a str>> {
    // JS writes UTF-8 by construction; checked all the same, since any
    // bytes can arrive here.
    let text = core::str::from_utf8(strings).ok()?;
    // TextEncoder writes a lone surrogate as U+FFFD, where the JSON route
    // refuses it: any U+FFFD goes that way (a real one only loses speed).
    if has_replacement_char(text) {
        return None;
    }
    let (head, records) = nums.split_first_chunk::<7>()?;
    let [budget, used, n_symbols, n_edges, n_tokens, tool_len, root_len] = *head;
    let n_symbols = index(n_symbols)?;
    let n_edges = index(n_edges)?;
    let n_tokens = index(n_tokens)?;
    let symbol_nums = n_symbols.checked_mul(5)?;
    let edge_nums = n_edges.checked_mul(4)?;
    // Counts that do not match the numbers are refused before anything is
    // allocated for them.
    if records.len() != symbol_nums.checked_add(edge_nums)?.checked_add(n_tokens)? {
        return None;
    }
    let (per_symbol, rest) = records.split_at(symbol_nums);
    let (per_edge, token_lens) = rest.split_at(edge_nums);
    let mut f = Strings::new(text);
    let tool = f.next(tool_len)?;
    let pack_root = f.next(root_len)?;
    // Names and endpoints come first and the tokens last: the records take
    // their tokens once the list is read.
    let mut symbols = Vec::with_capacity(n_symbols);
    for r in per_symbol.chunks_exact(5) {
        symbols.push(Symbol {
            qualified_name: f.next(r[0])?,
            kind: "",
            // -0 as JSON.stringify (and so the JSON route) writes it: 0.
            score: r[1] + 0.0,
            provenance: "",
            distance: u32::try_from(index(r[2])?).ok()?,
        });
    }
    let mut edges = Vec::with_capacity(n_edges);
    for r in per_edge.chunks_exact(4) {
        edges.push(Edge {
            source: f.next(r[0])?,
            target: f.next(r[1])?,
            edge_type: "",
            status: "",
        });
    }
    let mut tokens = Vec::with_capacity(n_tokens);
    for &len in token_lens {
        tokens.push(f.next(len)?);
    }
    if !f.is_empty() {
        return None;
    }
    let token = |x: f64| tokens.get(index(x)?).copied();
    for (s, r) in symbols.iter_mut().zip(per_symbol.chunks_exact(5)) {
        s.kind = token(r[3])?;
        s.provenance = token(r[4])?;
    }
    for (e, r) in edges.iter_mut().zip(per_edge.chunks_exact(4)) {
        e.edge_type = token(r[2])?;
        e.status = token(r[3])?;
    }
    Some(Payload {
        tool,
        token_budget: count(budget)?,
        tokens_used: count(used)?,
        pack_root,
        symbols,
        edges,
        ..Payload::default()
    })
}

/// The arguments [`graph_encode_packed`] takes for `p`, as the JS layer
/// builds them (see the module docs): for tests, benchmarks and any other
/// host of the engine.
///
/// ```
/// use gcf_core::graph::{Payload, Symbol};
/// let p = Payload {
///     tool: "t",
///     symbols: vec![Symbol::new("a.B", "function", 0.5, "lsp", 0)],
///     ..Payload::default()
/// };
/// let (strings, nums) = gcf_js_engine::graph_encode_packed_args(&p);
/// assert_eq!(strings, b"ta.Bfunctionlsp");
/// assert_eq!(nums, [0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 3.0, 0.5, 0.0, 0.0, 1.0, 8.0, 3.0]);
/// assert_eq!(
///     gcf_js_engine::graph_encode_packed(&strings, &nums).unwrap(),
///     gcf_core::graph::encode(&p).unwrap()
/// );
/// ```
pub fn graph_encode_packed_args<S: AsRef<str>>(p: &Payload<S>) -> (Vec<u8>, Vec<f64>) {
    // The token's place in the list, added at the end when new.
    fn token<'p>(tokens: &mut Vec<&'p str>, t: &'p str) -> f64 {
        let i = tokens.iter().position(|&k| k == t).unwrap_or_else(|| {
            tokens.push(t);
            tokens.len() - 1
        });
        i as f64
    }
    let units = utf16_len;
    let mut tokens: Vec<&str> = Vec::new();
    let mut strings = Vec::new();
    let (tool, root) = (p.tool.as_ref(), p.pack_root.as_ref());
    let mut nums = vec![
        p.token_budget as f64,
        p.tokens_used as f64,
        p.symbols.len() as f64,
        p.edges.len() as f64,
        0.0,
        units(tool),
        units(root),
    ];
    strings.extend_from_slice(tool.as_bytes());
    strings.extend_from_slice(root.as_bytes());
    for s in &p.symbols {
        let name = s.qualified_name.as_ref();
        strings.extend_from_slice(name.as_bytes());
        nums.extend_from_slice(&[
            units(name),
            s.score,
            f64::from(s.distance),
            token(&mut tokens, s.kind.as_ref()),
            token(&mut tokens, s.provenance.as_ref()),
        ]);
    }
    for e in &p.edges {
        let (source, target) = (e.source.as_ref(), e.target.as_ref());
        strings.extend_from_slice(source.as_bytes());
        strings.extend_from_slice(target.as_bytes());
        nums.extend_from_slice(&[
            units(source),
            units(target),
            token(&mut tokens, e.edge_type.as_ref()),
            token(&mut tokens, e.status.as_ref()),
        ]);
    }
    nums[4] = tokens.len() as f64;
    for t in tokens {
        strings.extend_from_slice(t.as_bytes());
        nums.push(units(t));
    }
    (strings, nums)
}

/// A token count: a safe non-negative integer, as the layer checks.
fn count(x: f64) -> Option<u64> {
    index(x).map(|n| n as u64)
}

/// [`graph_encode`](crate::graph_encode) of a packed payload (see the module
/// docs); `""` (which no encode returns) when the arguments are not a
/// well-formed packed payload, for the caller to use the JSON route, which
/// reports the problem.
///
/// ```
/// let gcf = gcf_js_engine::graph_encode_packed(
///     b"ta.Bfunctionlsp",
///     &[0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 3.0, 0.5, 0.0, 0.0, 1.0, 8.0, 3.0],
/// )
/// .unwrap();
/// assert!(gcf.starts_with("GCF profile=graph tool=t"));
/// assert_eq!(gcf_js_engine::graph_encode_packed(b"t\0", &[]).unwrap(), "");
/// ```
pub fn graph_encode_packed(strings: &[u8], nums: &[f64]) -> Result<String> {
    match read(strings, nums) {
        Some(p) => Ok(graph::encode(&p)?),
        None => Ok(String::new()),
    }
}

/// A decoded payload or value in a packed form (see the module docs here
/// for graph payloads, [`generic_decode_packed`](crate::generic_decode_packed)
/// for generic values).
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    /// The strings, starting with a NUL; or (when a string holds a NUL,
    /// which the packed forms cannot carry) the result as JSON (a graph
    /// payload as [`graph_decode`](crate::graph_decode) writes it, a value
    /// as [`generic_decode`](crate::generic_decode) does), which never
    /// starts with one.
    pub strings: String,
    /// The numbers (and, for graphs, table indices); empty with JSON.
    pub nums: Vec<f64>,
}

/// [`graph_decode`](crate::graph_decode) into the packed form.
///
/// ```
/// let text = "GCF profile=graph tool=t\n## targets\n@0 fn a.B 0.50 lsp\n";
/// let p = gcf_js_engine::graph_decode_packed(text).unwrap();
/// assert_eq!(p.strings, "\0t\0\0a.B\0function\0lsp");
/// assert_eq!(p.nums, [0.0, 0.0, 1.0, 0.0, 3.0, 4.0, 0.5, 5.0, 0.0]);
/// ```
pub fn graph_decode_packed(text: &str) -> Result<Packed> {
    let p = graph::Decoder::new()
        .limits(crate::decode_limits())
        .refuse_references(true)
        .decode_indexed(text)?;
    Ok(pack(&p, memchr::memchr(0, text.as_bytes()).is_some()))
}

/// The packed form of `p`, or its JSON form when it has locations (the
/// table has no place for them; rare) or a string may hold a NUL: the
/// decoder refuses NUL in every token today, so this is a guard for a
/// grammar that one day allows it. A NUL can only come from the text
/// (`text_has_nul`) or from an unescaped (owned) string.
fn pack(p: &Payload<Indexed<'_>>, text_has_nul: bool) -> Packed {
    // A numbered name is the input's own text (`text_has_nul` covers it).
    let nul_free = |s: &Indexed<'_>| s.index().is_some() || !s.contains('\0');
    let plain = !text_has_nul
        && p.locations.is_empty()
        && p.symbols.iter().all(|s| nul_free(&s.qualified_name))
        && nul_free(&p.tool)
        && nul_free(&p.pack_root);
    if plain {
        write(p)
    } else {
        Packed {
            strings: shape::payload(p),
            nums: Vec::new(),
        }
    }
}

/// Writes the table and numbers. The decoder numbered every name and label
/// (`Indexed`), so nothing here reads or compares text: a symbol's entry
/// is where its own record put it, and each label's is kept by number.
fn write(p: &Payload<Indexed<'_>>) -> Packed {
    let names: usize = p.symbols.iter().map(|s| s.qualified_name.len() + 1).sum();
    let mut t = Table {
        out: String::with_capacity(names + p.tool.len() + p.pack_root.len() + 64),
        len: 1,
    };
    let mut nums = Vec::with_capacity(4 + 5 * p.symbols.len() + 4 * p.edges.len());
    t.push(&p.tool);
    t.push(&p.pack_root);
    nums.extend_from_slice(&[
        p.token_budget as f64,
        p.tokens_used as f64,
        p.symbols.len() as f64,
        p.edges.len() as f64,
    ]);
    let mut labels = Labels::default();
    for s in &p.symbols {
        nums.extend_from_slice(&[
            t.push(&s.qualified_name),
            labels.get(&mut t, &s.kind),
            s.score,
            labels.get(&mut t, &s.provenance),
            f64::from(s.distance),
        ]);
    }
    // Symbol `i`'s name entry is the first number of its record.
    const SYMBOLS: usize = 4;
    let ns = p.symbols.len();
    let name_entry = |nums: &[f64], s: &Indexed<'_>| {
        s.index()
            .filter(|&i| i < ns)
            .and_then(|i| nums.get(SYMBOLS + 5 * i))
            .copied()
    };
    for e in &p.edges {
        // The decoder names every endpoint by its symbol; an entry of its
        // own keeps this total all the same.
        let source = name_entry(&nums, &e.source).unwrap_or_else(|| t.push(&e.source));
        let target = name_entry(&nums, &e.target).unwrap_or_else(|| t.push(&e.target));
        let edge_type = labels.get(&mut t, &e.edge_type);
        let status = if e.status.is_empty() {
            0.0
        } else {
            labels.get(&mut t, &e.status)
        };
        nums.extend_from_slice(&[source, target, edge_type, status]);
    }
    Packed {
        strings: t.out,
        nums,
    }
}

/// The string table being written.
struct Table {
    out: String,
    /// Entries so far, counting the empty one before the first NUL.
    len: usize,
}

impl Table {
    fn push(&mut self, s: &str) -> f64 {
        self.out.push('\0');
        self.out.push_str(s);
        self.len += 1;
        (self.len - 1) as f64
    }
}

/// Each label's table entry, by the decoder's number for it: a handful of
/// distinct kinds, provenances, edge types and statuses, each written once.
#[derive(Default)]
struct Labels {
    /// Entry of label `n`, or 0 when not written yet (0 is no label's).
    entry: Vec<f64>,
}

impl Labels {
    #[inline]
    fn get(&mut self, t: &mut Table, s: &Indexed<'_>) -> f64 {
        let Some(n) = s.index() else {
            return t.push(s);
        };
        match self.entry.get(n) {
            Some(&e) if e != 0.0 => e,
            _ => self.write(t, s, n),
        }
    }

    #[cold]
    fn write(&mut self, t: &mut Table, s: &str, n: usize) -> f64 {
        if n >= self.entry.len() {
            // Numbers count up from 0 as labels first appear, so they stay
            // below the payload's count of labels.
            self.entry.resize(n + 1, 0.0);
        }
        let e = t.push(s);
        self.entry[n] = e;
        e
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const JSON: &str = r#"{"tool":"t","tokenBudget":5,"tokensUsed":0,
        "symbols":[{"qualifiedName":"a.B","kind":"function","score":0.125,"provenance":"p","distance":0},
                   {"qualifiedName":"c","kind":"type","score":1e-7,"provenance":"p","distance":1}],
        "edges":[{"source":"c","target":"a.B","edgeType":"calls","status":"added"}]}"#;
    // Tool, names, endpoints, then the tokens: function 0, p 1, type 2,
    // calls 3, added 4; back to back, lengths in the numbers.
    const STRINGS: &[u8] = b"ta.Bcca.Bfunctionptypecallsadded";
    const NUMS: &[f64] = &[
        5.0, 0.0, 2.0, 1.0, 5.0, 1.0, 0.0, // budget, used, symbols, edges, tokens, tool, root
        3.0, 0.125, 0.0, 0.0, 1.0, // name length, score, distance, kind, provenance
        1.0, 1e-7, 1.0, 2.0, 1.0, //
        1.0, 3.0, 3.0, 4.0, // source and target lengths, edge type, status
        8.0, 1.0, 4.0, 5.0, 5.0, // token lengths
    ];

    /// Numbers at and around every edge the readers test.
    pub(crate) const EDGES: &[f64] = &[
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        1e-300,
        5e-324,
        4294967295.0,
        4294967295.5,
        4294967296.0,
        9007199254740991.0,
        9007199254740992.0,
        -9007199254740991.0,
        -9007199254740992.0,
        4503599627370495.5,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        9.223372036854776e18,
        1.8446744073709552e19,
    ];

    #[test]
    fn index_is_a_whole_number_in_range_as_fract_says() {
        for &x in EDGES {
            let by_fract = ((0.0..=9_007_199_254_740_991.0).contains(&x) && x.fract() == 0.0)
                .then_some(x as usize);
            assert_eq!(index(x), by_fract, "{x}");
        }
    }

    #[test]
    fn replacement_chars_are_found_in_any_text() {
        assert!(!has_replacement_char(""));
        assert!(!has_replacement_char("plain ascii\0text"));
        assert!(!has_replacement_char(
            "caf\u{e9} \u{1F642} \u{FFFC}\u{FFFE}"
        ));
        for text in ["\u{FFFD}", "a\u{FFFD}", "\u{FFFD}b", "\u{e9}x\u{FFFD}y"] {
            assert!(has_replacement_char(text), "{text:?}");
        }
    }

    #[test]
    fn packed_and_json_encode_alike() {
        assert_eq!(
            graph_encode_packed(STRINGS, NUMS).unwrap(),
            crate::graph_encode(JSON).unwrap()
        );
        let p = gcf_bind::graph::payload_from_slice(JSON.as_bytes()).unwrap();
        let (strings, nums) = graph_encode_packed_args(&p);
        assert_eq!((&strings[..], &nums[..]), (STRINGS, NUMS));
    }

    #[test]
    fn anything_not_well_formed_sends_the_caller_to_json() {
        let nums = |f: &dyn Fn(&mut Vec<f64>)| {
            let mut n = NUMS.to_vec();
            f(&mut n);
            n
        };
        let refused = |s: &[u8], n: &[f64]| graph_encode_packed(s, n).unwrap().is_empty();
        // A byte too many or too few; bad UTF-8.
        assert!(refused(&[STRINGS, b"x"].concat(), NUMS));
        assert!(refused(&STRINGS[..STRINGS.len() - 1], NUMS));
        let one = [
            0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 2.0, 0.5, 0.0, 0.0, 1.0, 8.0, 1.0,
        ];
        assert!(!refused(b"tabfunctionp", &one));
        assert!(refused(b"ta\xfffunctionp", &one));
        assert!(refused(b"", &[]));
        // U+FFFD, which stands for a lone surrogate TextEncoder replaced.
        let fffd = [&STRINGS[..3], "\u{FFFD}".as_bytes(), &STRINGS[3..]].concat();
        assert!(refused(&fffd, NUMS));
        // Counts, distances and token numbers that are not integers of
        // their range; counts that do not match the fields or numbers.
        assert!(refused(STRINGS, &nums(&|n| n[0] = 1.5)));
        assert!(refused(STRINGS, &nums(&|n| n[1] = -1.0)));
        assert!(refused(STRINGS, &nums(&|n| n[0] = f64::NAN)));
        assert!(refused(STRINGS, &nums(&|n| n[0] = 2f64.powi(60))));
        assert!(refused(STRINGS, &nums(&|n| n[9] = 0.5)));
        assert!(refused(STRINGS, &nums(&|n| n[9] = 2f64.powi(32))));
        assert!(refused(STRINGS, &nums(&|n| n[2] = 3.0)));
        assert!(refused(STRINGS, &nums(&|n| n[3] = 1e15)));
        assert!(refused(STRINGS, &nums(&|n| n[2] = f64::INFINITY)));
        assert!(refused(STRINGS, &nums(&|n| n[4] = 4.0)));
        assert!(refused(STRINGS, &nums(&|n| n[4] = 6.0)));
        assert!(refused(STRINGS, &nums(&|n| n[4] = 1e300)));
        assert!(refused(STRINGS, &nums(&|n| n[10] = 5.0)));
        assert!(refused(STRINGS, &nums(&|n| n[11] = -1.0)));
        assert!(refused(STRINGS, &nums(&|n| n[19] = 0.5)));
        assert!(refused(STRINGS, &nums(&|n| n[20] = f64::NAN)));
        assert!(refused(STRINGS, &nums(&|n| n.push(0.0))));
        assert!(refused(STRINGS, &nums(&|n| n.truncate(25))));
        // Lengths that do not add up to the text, or are not whole.
        assert!(refused(STRINGS, &nums(&|n| n[5] = 2.0)));
        assert!(refused(STRINGS, &nums(&|n| n[7] = 2.5)));
        assert!(refused(STRINGS, &nums(&|n| n[25] = 4.0)));
        assert!(refused(STRINGS, &nums(&|n| n[25] = 6.0)));
        assert!(refused(STRINGS, &nums(&|n| n[17] = f64::INFINITY)));
        // Tokens may be shared in any way: another token list, same text.
        let swapped = b"ta.Bcca.Baddedcallstypepfunctionextra";
        let renumbered = nums(&|n| {
            n[4] = 6.0;
            for i in [10, 11, 15, 16, 19, 20] {
                n[i] = 4.0 - n[i];
            }
            n.truncate(21);
            n.extend_from_slice(&[5.0, 5.0, 4.0, 1.0, 8.0, 5.0]);
        });
        assert_eq!(
            graph_encode_packed(swapped, &renumbered).unwrap(),
            crate::graph_encode(JSON).unwrap()
        );
        // -0 scores as 0, as the JSON route reads JSON.stringify(-0).
        let neg = nums(&|n| n[8] = -0.0);
        assert_eq!(
            graph_encode_packed(STRINGS, &neg).unwrap(),
            crate::graph_encode(&JSON.replacen("0.125", "0", 1)).unwrap()
        );
    }

    #[test]
    fn lengths_count_utf16_units_in_any_text() {
        let p = Payload {
            tool: "t",
            pack_root: "r",
            symbols: vec![
                Symbol::new("é.ß\u{7ff}\u{800}\u{ffff}😀", "fünction", 0.5, "p", 0),
                Symbol::new("a😀😀b", "type", 0.25, "p", 1),
                Symbol::new("ascii.Name", "κind", 0.125, "p", 1),
            ],
            edges: vec![Edge::new("a😀😀b", "é.ß\u{7ff}\u{800}\u{ffff}😀", "cälls")],
            ..Payload::default()
        };
        let (strings, nums) = graph_encode_packed_args(&p);
        // 😀 is two units: the name of symbol 1 is 6.
        assert_eq!(nums[7 + 5], 6.0);
        assert_eq!(
            graph_encode_packed(&strings, &nums).unwrap(),
            graph::encode(&p).unwrap()
        );
        // A length that would cut 😀 in half, or count past the text.
        let mut cut = nums.clone();
        cut[7 + 5] = 2.0;
        cut[7 + 10] = 9.0;
        assert_eq!(graph_encode_packed(&strings, &cut).unwrap(), "");
        let mut past = nums.clone();
        *past.last_mut().unwrap() += 1.0;
        assert_eq!(graph_encode_packed(&strings, &past).unwrap(), "");
    }

    #[test]
    fn decode_shares_names_and_labels_and_round_trips() {
        let text = crate::graph_encode(JSON).unwrap();
        let p = graph_decode_packed(&text).unwrap();
        let table: Vec<&str> = p.strings.split('\0').collect();
        assert_eq!(table[..3], ["", "t", ""]);
        let ns = p.nums[2] as usize;
        let ne = p.nums[3] as usize;
        assert_eq!((ns, ne, p.nums.len()), (2, 1, 4 + 5 * 2 + 4));
        // Both endpoints are their symbols' own entries.
        let edge = &p.nums[4 + 5 * ns..];
        let names: Vec<f64> = (0..ns).map(|k| p.nums[4 + 5 * k]).collect();
        assert!(names.contains(&edge[0]) && names.contains(&edge[1]));
        assert_eq!(table[edge[3] as usize], "added");
        // Every distinct string once.
        let mut sorted = table.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len() + 1, table.len(), "{table:?}"); // two empties
                                                                // Back to the packed encode form, which encodes the same text.
        let s = |i: f64| table[i as usize];
        let payload = Payload {
            tool: s(1.0),
            pack_root: s(2.0),
            token_budget: p.nums[0] as u64,
            tokens_used: p.nums[1] as u64,
            symbols: (0..ns)
                .map(|k| {
                    let r = &p.nums[4 + 5 * k..];
                    Symbol::new(s(r[0]), s(r[1]), r[2], s(r[3]), r[4] as u32)
                })
                .collect(),
            edges: (0..ne)
                .map(|k| {
                    let r = &p.nums[4 + 5 * ns + 4 * k..];
                    let status = if r[3] == 0.0 { "" } else { s(r[3]) };
                    Edge {
                        source: s(r[0]),
                        target: s(r[1]),
                        edge_type: s(r[2]),
                        status,
                    }
                })
                .collect(),
            ..Payload::default()
        };
        let (strings, nums) = graph_encode_packed_args(&payload);
        assert_eq!(graph_encode_packed(&strings, &nums).unwrap(), text);
    }

    #[test]
    fn a_string_that_may_hold_a_nul_gives_the_json_form() {
        let text = crate::graph_encode(JSON).unwrap();
        let p = graph::decode_indexed(&text).unwrap();
        assert!(!pack(&p, false).nums.is_empty());
        let json = pack(&p, true);
        assert!(json.nums.is_empty());
        assert_eq!(json.strings, crate::graph_decode(&text).unwrap());
        let mut odd = p.clone();
        odd.symbols[0].qualified_name =
            Indexed::from(std::borrow::Cow::Owned(String::from("a\0b")));
        let json = pack(&odd, false);
        assert!(json.nums.is_empty() && json.strings.starts_with('{'));
        // The decoder itself refuses a NUL in a token.
        assert!(
            graph_decode_packed("GCF profile=graph tool=t\n## targets\n@0 fn a\0b 0.50 lsp\n")
                .is_err()
        );
    }

    /// A small deterministic generator (no dependency): xorshift64.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn mangled_arguments_never_panic_and_never_encode_other_text() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let good = graph_encode_packed(STRINGS, NUMS).unwrap();
        let specials = [
            0.0,
            -0.0,
            0.5,
            1.0,
            2.0,
            3.0,
            -1.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
            4294967296.0,
        ];
        for _ in 0..20_000 {
            let mut strings = STRINGS.to_vec();
            let mut nums = NUMS.to_vec();
            for _ in 0..1 + rng.below(3) {
                match rng.below(6) {
                    0 if !strings.is_empty() => {
                        let at = rng.below(strings.len());
                        strings[at] = [0u8, 0xff, 0xc3, b'x', 0xbd, 0xef][rng.below(6)];
                    }
                    1 => strings.truncate(rng.below(strings.len() + 1)),
                    2 => {
                        let at = rng.below(strings.len() + 1);
                        strings.insert(at, [0u8, b' ', 0x80][rng.below(3)]);
                    }
                    3 if !nums.is_empty() => {
                        let at = rng.below(nums.len());
                        nums[at] = specials[rng.below(specials.len())];
                    }
                    4 => nums.truncate(rng.below(nums.len() + 1)),
                    _ => nums.push(specials[rng.below(specials.len())]),
                }
            }
            // Refused ("" or a spec error), or a payload the engine read
            // whole: never a panic, and the unchanged input encodes as before.
            if let Ok(text) = graph_encode_packed(&strings, &nums) {
                assert!(
                    text.is_empty() || text.starts_with("GCF profile=graph"),
                    "{text}"
                );
            }
            if strings == STRINGS && nums == NUMS {
                assert_eq!(graph_encode_packed(&strings, &nums).unwrap(), good);
            }
        }
    }

    #[test]
    fn decoding_mangled_text_never_panics() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let text = crate::graph_encode(JSON).unwrap();
        for _ in 0..5_000 {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len());
                bytes[at] = [b' ', b'\n', b'@', b'0', b'<', b'#', b'x'][rng.below(7)];
            }
            let Ok(t) = core::str::from_utf8(&bytes) else {
                continue;
            };
            if let Ok(p) = graph_decode_packed(t) {
                // Every index the numbers hold is an entry of the table.
                let entries = p.strings.split('\0').count() as f64;
                let ns = p.nums[2] as usize;
                for (k, x) in p.nums.iter().enumerate().skip(4) {
                    let j = k - 4;
                    let is_index = if j < 5 * ns {
                        matches!(j % 5, 0 | 1 | 3)
                    } else {
                        true
                    };
                    assert!(!is_index || *x < entries, "{t:?}");
                }
            }
        }
    }

    /// The payload JSON the JS layer's `fromPacked` builds from `p` (as the
    /// JSON route writes it: `status` "" for none, `packRoot` when set).
    fn unpack(p: &Packed) -> serde_json::Value {
        use serde_json::{json, Value};
        if !p.strings.starts_with('\0') {
            return serde_json::from_str(&p.strings).unwrap();
        }
        let table: Vec<&str> = p.strings.split('\0').collect();
        let s = |x: f64| Value::from(table[x as usize]);
        let f = &p.nums;
        let (ns, ne) = (f[2] as usize, f[3] as usize);
        assert_eq!(f.len(), 4 + 5 * ns + 4 * ne);
        let symbols: Vec<Value> = f[4..4 + 5 * ns]
            .chunks(5)
            .map(|r| {
                json!({"qualifiedName": s(r[0]), "kind": s(r[1]), "score": r[2],
                       "provenance": s(r[3]), "distance": r[4] as u64})
            })
            .collect();
        let edges: Vec<Value> = f[4 + 5 * ns..]
            .chunks(4)
            .map(|r| {
                let status = if r[3] == 0.0 {
                    Value::from("")
                } else {
                    s(r[3])
                };
                json!({"source": s(r[0]), "target": s(r[1]), "edgeType": s(r[2]), "status": status})
            })
            .collect();
        let mut out = json!({"tool": s(1.0), "tokenBudget": f[0] as u64,
                             "tokensUsed": f[1] as u64, "symbols": symbols, "edges": edges});
        if !table[2].is_empty() {
            out["packRoot"] = s(2.0);
        }
        out
    }

    /// The packed decode of `text` read back, against the JSON route: the
    /// same payload or the same failure. Whether it decoded.
    fn packed_agrees(text: &str) -> bool {
        match (graph_decode_packed(text), crate::graph_decode(text)) {
            (Ok(p), Ok(json)) => {
                let want: serde_json::Value = serde_json::from_str(&json).unwrap();
                assert_eq!(unpack(&p), want, "{text:?}");
                true
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{text:?}");
                false
            }
            (a, b) => panic!("{text:?}: {a:?} vs {b:?}"),
        }
    }

    #[test]
    fn fixture_texts_and_their_variants_decode_as_the_json_route_does() {
        let texts = crate::packed_decode::tests::fixture_texts("GCF profile=graph");
        assert!(texts.len() > 30, "{} texts", texts.len());
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut decoded, mut variants) = (0, 0);
        for text in &texts {
            decoded += usize::from(packed_agrees(text));
            // Cuts and one-byte changes: other payloads and other failures.
            for _ in 0..64 {
                let mut bytes = text.clone().into_bytes();
                let at = rng.below(bytes.len().max(1));
                if rng.below(4) == 0 {
                    bytes.truncate(at);
                } else if let Some(b) = bytes.get_mut(at) {
                    *b = [b' ', b'\n', b'@', b'0', b'<', b'#', b'x', b'"'][rng.below(8)];
                }
                if let Ok(t) = core::str::from_utf8(&bytes) {
                    variants += usize::from(packed_agrees(t));
                }
            }
        }
        // (The fixtures' session payloads, with bare references, are
        // refused by both routes.)
        assert!(
            decoded >= 20 && variants > 300,
            "{decoded} decoded, {variants} variants"
        );
    }
}
