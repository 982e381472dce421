//! In-place parsers for the two line shapes that make up almost all of a
//! graph payload: node lines (`@id kind name score provenance`) and edge
//! lines (`@target<@source type [status]`).
//!
//! They work on the raw bytes of the input that remain, find the line's end
//! themselves (so a line is read once, not once to split it and again to
//! parse it), and accept only the plain canonical shape: ASCII delimiters, no
//! `\r`, ids of at most 19 digits, scores of at most 15 digits. Anything else
//! (and every malformed line) returns `None`, and the decoder hands that line
//! to its general path, which accepts or rejects it exactly as before and
//! reports the error with its position. So these parsers only ever have to
//! agree with the general path on the lines they accept; the tests below
//! check that on many inputs.

/// A node line's fields, as byte ranges of the slice it was parsed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct NodeLine {
    pub id: u64,
    pub kind: (usize, usize),
    pub name: (usize, usize),
    pub score: f64,
    pub provenance: (usize, usize),
    /// Length of the line without its terminator (for the line-length limit).
    pub len: usize,
    /// Offset just past the line's `\n` (or the end of input).
    pub next: usize,
}

/// An edge line's fields, as byte ranges of the slice it was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct EdgeLine {
    pub target: u64,
    pub source: u64,
    pub edge_type: (usize, usize),
    /// `(p, p)` when the line has no status.
    pub status: (usize, usize),
    /// Length of the line without its terminator.
    pub len: usize,
    /// Offset just past the line's `\n` (or the end of input).
    pub next: usize,
}

/// `text[at + start..at + end]`, for a field range `(start, end)` that
/// [`node_line`] or [`edge_line`] returned on `text[at..]`, without the two
/// char-boundary checks (and the panic paths) of `str` indexing, which cost
/// more than the rest of building a borrowed symbol or edge.
///
/// # Safety
///
/// `at` is a char boundary of `text`, and `(start, end)` is a field range
/// that [`node_line`] or [`edge_line`] returned for `text[at..]`. Such a
/// range lies within that slice, starts just after an ASCII delimiter (a
/// space) and ends at an ASCII byte (`<= 0x20`) or at the end of the slice;
/// an ASCII byte is never inside a multi-byte UTF-8 sequence, so both ends
/// are char boundaries of `text`. The debug assertions check this in every
/// debug test run, and `field_ranges_are_char_boundaries` checks it on
/// inputs full of multi-byte characters.
#[inline(always)]
pub(super) unsafe fn field_str(text: &str, at: usize, (start, end): (usize, usize)) -> &str {
    let (start, end) = (at + start, at + end);
    debug_assert!(start <= end && end <= text.len());
    debug_assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
    // SAFETY: the caller's contract above: in bounds, on char boundaries.
    unsafe { text.get_unchecked(start..end) }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The offset of the first byte at or after `p` that is not printable ASCII
/// (`0x21..=0x7e`), or `b.len()`: a space or a control character (the field
/// separator, `\n`, `\r`, `\t`, ...), DEL, or a byte of a non-ASCII
/// character. Fields are separated by single spaces, so this finds a field's
/// end; the caller then looks at which byte stopped it, and anything but the
/// separator or the line's end sends the line to the general path, which
/// decides non-ASCII text character by character (a Unicode space or a C1
/// control is no more allowed in a field than a tab).
///
/// Eight bytes at a time: `(!(x + 0x5f..) | (x + 0x01..) | x) & 0x80..`
/// flags the bytes below 0x21, at or above 0x7f, and non-ASCII; a carry out
/// of a byte only comes from a flagged byte (`>= 0xa1`, or `0xff`) and only
/// reaches the bytes above it, so the lowest flag is exact.
///
/// On x86-64, sixteen bytes at a time first (SSE2, part of the baseline):
/// names are most of a node line's bytes and usually longer than 32.
#[inline(always)]
pub(super) fn field_end(b: &[u8], mut p: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
    while let Some(chunk) = b.get(p..p + 16) {
        let mask = field_stops16(chunk);
        if mask != 0 {
            return p + mask.trailing_zeros() as usize;
        }
        p += 16;
    }
    while let Some(chunk) = b.get(p..p + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let hits = (!x.wrapping_add(ONES.wrapping_mul(0x5f)) | x.wrapping_add(ONES) | x) & HIGHS;
        if hits != 0 {
            return p + (hits.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    while p < b.len() && matches!(b[p], 0x21..=0x7e) {
        p += 1;
    }
    p
}

/// A bit per byte of `chunk` (16 bytes), set where the byte is not
/// printable ASCII (see [`field_end`]): adding 0x5f moves `0x21..=0x7e` to
/// `0x80..=0xdd`, which as signed bytes are exactly those below -34.
#[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
#[inline(always)]
fn field_stops16(chunk: &[u8]) -> u32 {
    use core::arch::x86_64::{
        _mm_add_epi8, _mm_cmplt_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x,
    };
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&chunk[..8]);
    hi.copy_from_slice(&chunk[8..16]);
    // SAFETY: SSE2 is part of the x86-64 baseline, so every intrinsic here
    // is available; none of them touches memory.
    unsafe {
        let x = _mm_set_epi64x(i64::from_le_bytes(hi), i64::from_le_bytes(lo));
        let shifted = _mm_add_epi8(x, _mm_set1_epi8(0x5f));
        let printable = _mm_cmplt_epi8(shifted, _mm_set1_epi8(-34));
        !(_mm_movemask_epi8(printable) as u32) & 0xffff
    }
}

/// Parses the digits of an id starting at `p` (just after its `@`): 1 to 19
/// digits, which always fit in a `u64`. Returns the id and the offset after
/// its digits. Longer runs (leading zeros, overflow) go to the general path.
///
/// Ids of 1 to 7 digits followed by a non-digit (nearly all of them) are read
/// eight bytes at a time when eight bytes remain: one compare finds the end
/// of the digits and three multiply-add steps sum them (instead of a
/// compare, a multiply and an add per digit). Others take the byte loop.
#[inline(always)]
fn id_digits(b: &[u8], start: usize) -> Option<(u64, usize)> {
    if let Some(chunk) = b.get(start..start + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let n = (non_digits(x).trailing_zeros() / 8) as usize;
        if n < 8 {
            if n == 0 {
                return None;
            }
            return Some((
                eight_digits(x.wrapping_sub(ONES * u64::from(b'0')), n),
                start + n,
            ));
        }
    }
    id_digits_bytes(b, start)
}

/// Flags (with `0x80`) the bytes of `x` that are not ASCII digits; only the
/// lowest flag is exact (a borrow or carry out of a flagged byte can flag
/// the bytes above it), which is the one callers use.
///
/// A byte `c` below `0x80` is a digit unless `c + 0x46` (from `0x3a`) or
/// `c - 0x30` (below `0x30`) has its top bit set; bytes from `0x80` have it
/// set already. Below the first non-digit there is no carry or borrow, so
/// every digit byte reads clear.
#[inline(always)]
fn non_digits(x: u64) -> u64 {
    (x.wrapping_add(ONES * 0x46) | x.wrapping_sub(ONES * 0x30) | x) & HIGHS
}

/// The value of the first `n` (1 to 7) bytes of `d`, each a digit value 0-9
/// (`x - '0'` per byte), the first byte the most significant.
///
/// Shifting left drops the bytes past the digits and leaves zero digits in
/// front; then neighbouring digits are combined in pairs, pairs into
/// fours and fours into eight (each step `high * 10^k + low` in every lane).
#[inline(always)]
fn eight_digits(d: u64, n: usize) -> u64 {
    let d = d << (8 * (8 - n));
    let d = (d.wrapping_mul(10).wrapping_add(d >> 8)) & 0x00ff_00ff_00ff_00ff;
    let d = (d.wrapping_mul(100).wrapping_add(d >> 16)) & 0x0000_ffff_0000_ffff;
    (d.wrapping_mul(10_000).wrapping_add(d >> 32)) & 0xffff_ffff
}

/// [`id_digits`] a byte at a time.
#[inline(always)]
fn id_digits_bytes(b: &[u8], start: usize) -> Option<(u64, usize)> {
    let mut p = start;
    let mut value: u64 = 0;
    while let Some(&c) = b.get(p) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        p += 1;
    }
    let n = p - start;
    (1..=19).contains(&n).then_some((value, p))
}

/// Parses a score field `[-]DIGITS.DD` with 1 to 13 integer digits.
///
/// The result equals `str::parse::<f64>`: the field is exactly the decimal
/// `m / 100` with an integer `m < 2^53`, both `m` and `100.0` are exact
/// doubles, and IEEE division rounds correctly, so `m as f64 / 100.0` is the
/// double nearest that decimal, as `parse` returns. (`-0.00` gives `-0.0`,
/// like `parse`.)
#[inline(always)]
pub(super) fn score(field: &[u8]) -> Option<f64> {
    let (negative, digits) = match field.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, field),
    };
    let n = digits.len();
    if !(4..=16).contains(&n) || digits[n - 3] != b'.' {
        return None;
    }
    let mut m: u64 = 0;
    for (i, &c) in digits.iter().enumerate() {
        if i == n - 3 {
            continue;
        }
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        m = m * 10 + u64::from(d);
    }
    let value = m as f64 / 100.0;
    Some(if negative { -value } else { value })
}

/// The full forms of the known kinds, indexed by [`kind_index`].
pub(super) const KNOWN_KINDS: [&str; 16] = {
    // The spec's table (`kind.rs`), in its order.
    assert!(super::kind::KINDS.len() == 16);
    let mut full = [""; 16];
    let mut i = 0;
    while i < full.len() {
        full[i] = super::kind::KINDS[i].0;
        i += 1;
    }
    full
};

/// The index in [`KNOWN_KINDS`] of a known kind abbreviation's full form, by
/// a `match` the compiler turns into a switch on length and a word compare
/// (the table in `kind.rs` is a linear scan of string compares); an index
/// lets shared decoding keep one string per known kind in an array. Tested
/// equal to `expand_known`.
#[inline]
pub(super) fn kind_index(abbrev: &[u8]) -> Option<usize> {
    Some(match abbrev {
        b"fn" => 0,
        b"type" => 1,
        b"method" => 2,
        b"iface" => 3,
        b"var" => 4,
        b"const" => 5,
        b"resource" => 6,
        b"table" => 7,
        b"class" => 8,
        b"selector" => 9,
        b"field" => 10,
        b"route" => 11,
        b"ext" => 12,
        b"file" => 13,
        b"pkg" => 14,
        b"svc" => 15,
        _ => return None,
    })
}

/// The full form of a known kind abbreviation.
#[cfg(test)]
fn expand_kind(abbrev: &[u8]) -> Option<&'static str> {
    kind_index(abbrev).map(|i| KNOWN_KINDS[i])
}

/// Ends a line at `p`: the end of input or a `\n`. Returns the offset after
/// the terminator. A `\r`, a second space or any other byte is not the plain
/// shape (`None`).
#[inline(always)]
fn line_end(b: &[u8], p: usize) -> Option<usize> {
    match b.get(p) {
        None => Some(p),
        Some(b'\n') => Some(p + 1),
        Some(_) => None,
    }
}

/// Parses the node line at the start of `b`, in its plain shape.
///
/// Always inlined: called out of line, it returned its fields through
/// memory, written a word at a time and read back 16 bytes at a time by the
/// caller, a store-forwarding stall on every line (a fifth of the samples
/// in `perf` at 10,000 symbols); inlined, the fields stay in registers.
#[inline(always)]
pub(super) fn node_line(b: &[u8]) -> Option<NodeLine> {
    if b.first() != Some(&b'@') {
        return None;
    }
    let (id, p) = id_digits(b, 1)?;
    // Each field is non-empty and ends at a single space.
    let field = |start: usize| -> Option<(usize, usize)> {
        let end = field_end(b, start);
        (end > start).then_some((start, end))
    };
    if b.get(p) != Some(&b' ') {
        return None;
    }
    let kind = field(p + 1)?;
    if b.get(kind.1) != Some(&b' ') {
        return None;
    }
    let name = field(kind.1 + 1)?;
    if b.get(name.1) != Some(&b' ') {
        return None;
    }
    let score_at = field(name.1 + 1)?;
    if b.get(score_at.1) != Some(&b' ') {
        return None;
    }
    let score = score(&b[score_at.0..score_at.1])?;
    let provenance = field(score_at.1 + 1)?;
    let next = line_end(b, provenance.1)?;
    Some(NodeLine {
        id,
        kind,
        name,
        score,
        provenance,
        len: provenance.1,
        next,
    })
}

/// Parses the edge line at the start of `b`, in its plain shape.
///
/// Always inlined: called out of line, it returned its fields through
/// memory, written a word at a time and read back 16 bytes at a time by the
/// caller, a store-forwarding stall on every line (a fifth of the samples
/// in `perf` at 10,000 symbols); inlined, the fields stay in registers.
#[inline(always)]
pub(super) fn edge_line(b: &[u8]) -> Option<EdgeLine> {
    if b.first() != Some(&b'@') {
        return None;
    }
    let (target, p) = id_digits(b, 1)?;
    if b.get(p..p + 2) != Some(b"<@") {
        return None;
    }
    let (source, p) = id_digits(b, p + 2)?;
    if b.get(p) != Some(&b' ') {
        return None;
    }
    let type_end = field_end(b, p + 1);
    if type_end == p + 1 {
        return None;
    }
    let edge_type = (p + 1, type_end);
    let (status, end) = if b.get(type_end) == Some(&b' ') {
        let status_end = field_end(b, type_end + 1);
        if status_end == type_end + 1 {
            return None;
        }
        ((type_end + 1, status_end), status_end)
    } else {
        ((type_end, type_end), type_end)
    };
    let next = line_end(b, end)?;
    Some(EdgeLine {
        target,
        source,
        edge_type,
        status,
        len: end,
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::decode::{parse_edge_line, parse_id_prefix, parse_score, split_fields};
    use crate::graph::kind::expand_known;
    use crate::input::SourceLine;
    use crate::ErrorKind;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    /// The general path's reading of a node line (None if it rejects it or
    /// it is a bare reference).
    fn general_node(text: &str) -> Option<(u64, String, String, f64, String)> {
        let line = SourceLine { number: 1, text };
        let (id, rest) = parse_id_prefix(&line, text, ErrorKind::InvalidNodeLine).ok()?;
        if rest.starts_with("  #") {
            return None;
        }
        let [kind, name, score, prov] = split_fields::<4>(rest)?;
        let score = parse_score(&line, score).ok()?;
        Some((id, kind.into(), name.into(), score, prov.into()))
    }

    fn general_edge(text: &str) -> Option<(u64, u64, String, String)> {
        let line = SourceLine { number: 1, text };
        let e = parse_edge_line(&line).ok()?;
        Some((e.target, e.source, e.edge_type.into(), e.status.into()))
    }

    /// Checks the fast parser on `text` alone, followed by `\n`, and followed
    /// by `\nmore`: whenever it accepts, the general path (on the line as the
    /// line splitter gives it) must accept with the same fields.
    fn check_node(text: &str) -> bool {
        let mut accepted = false;
        for suffix in ["", "\n", "\n@1 fn b 0.50 x\n", "\r\n"] {
            let input = format!("{text}{suffix}");
            let Some(fast) = node_line(input.as_bytes()) else {
                continue;
            };
            accepted = true;
            let line = input.split('\n').next().unwrap();
            let line = line.strip_suffix('\r').unwrap_or(line);
            let general = general_node(line).unwrap_or_else(|| panic!("fast accepted {input:?}"));
            let s = |r: (usize, usize)| &input[r.0..r.1];
            assert_eq!(general.0, fast.id, "{input:?}");
            assert_eq!(general.1, s(fast.kind), "{input:?}");
            assert_eq!(general.2, s(fast.name), "{input:?}");
            assert_eq!(general.3.to_bits(), fast.score.to_bits(), "{input:?}");
            assert_eq!(general.4, s(fast.provenance), "{input:?}");
            assert_eq!(fast.len, line.len(), "{input:?}");
            let next = if suffix.is_empty() {
                text.len()
            } else {
                text.len() + 1
            };
            assert_eq!(fast.next, next, "{input:?}");
        }
        accepted
    }

    fn check_edge(text: &str) -> bool {
        let mut accepted = false;
        for suffix in ["", "\n", "\n@1<@2 calls\n", "\r\n"] {
            let input = format!("{text}{suffix}");
            let Some(fast) = edge_line(input.as_bytes()) else {
                continue;
            };
            accepted = true;
            let line = input.split('\n').next().unwrap();
            let line = line.strip_suffix('\r').unwrap_or(line);
            let general = general_edge(line).unwrap_or_else(|| panic!("fast accepted {input:?}"));
            let s = |r: (usize, usize)| &input[r.0..r.1];
            assert_eq!(
                general,
                (
                    fast.target,
                    fast.source,
                    s(fast.edge_type).into(),
                    s(fast.status).into()
                ),
                "{input:?}"
            );
            assert_eq!(fast.len, line.len(), "{input:?}");
            let next = if suffix.is_empty() {
                text.len()
            } else {
                text.len() + 1
            };
            assert_eq!(fast.next, next, "{input:?}");
        }
        accepted
    }

    /// A small deterministic generator (SplitMix64) for fuzz-style cases.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    const PIECES: &[&str] = &[
        "@",
        "@0",
        "@7",
        "@12",
        "@007",
        "<",
        "<@",
        " ",
        "  ",
        "  #",
        "fn",
        "iface",
        "widget",
        "pkg.A",
        "a.b.C",
        "é",
        "名前",
        "\t",
        "\r",
        "0.50",
        "-1.25",
        "1.0",
        "12.345",
        "0.5",
        "x",
        "lsp",
        "calls",
        "added",
        "99999999999999999999",
        "18446744073709551615",
        "1234567890123456789",
        "12345678901234567890",
        "0",
        "9",
        ".",
        "-",
        "1e5",
        "\u{85}",
        "\u{a0}",
        "#",
        "##",
    ];

    const SCORES: &[&str] = &[
        "0.50",
        "-1.25",
        "1.0",
        "12.345",
        "0.5",
        "0.00",
        "-0.00",
        "9999999999999.99",
        "99999999999999.99",
        "1.5e",
        "00.10",
        "-",
        "0.50 ",
    ];

    fn random_line(rng: &mut Rng) -> String {
        let mut s = String::new();
        for _ in 0..rng.below(9) {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
        s
    }

    #[test]
    fn node_fast_path_agrees_with_the_general_path() {
        let good = [
            "@0 fn pkg.A 0.50 lsp",
            "@12 iface github.com/acme/billing/pkg/api/auth.Server12.Handle 1.00 lsp_resolved",
            "@1234567890123456789 widget a -12.34 x",
            "@3 fn a -0.00 x",
            "@3 fn a 9999999999999.99 x",
            "@3 fn a 123.45 x",
            "@3 fn a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p 0.01 provenance_that_is_long",
        ];
        for text in good {
            assert!(check_node(text), "{text:?} should take the fast path");
        }
        // Shapes the fast path leaves to the general path (which may accept
        // them): it must decline, not misread.
        for text in [
            "@0 fn a 0.5 x",
            "@0 fn a 0.50 x y",
            "@0 fn  a 0.50 x",
            "@0  # previously transmitted",
            "@0 fn a 0.50",
            "@0 fn a\t0.50 x",
            "@0 fn a 0.50 x ",
            "@12345678901234567890 fn a 0.50 x",
            "@00000000000000000001 fn a 0.50 x",
            "@0 fn a 99999999999999.99 x",
            "@x fn a 0.50 x",
            "@ fn a 0.50 x",
            "0 fn a 0.50 x",
            "",
            "@0 fn a +0.50 x",
            "@0 fn a 0,50 x",
            "@0 fn a 0.5a x",
            // Non-ASCII and DEL: decided by the general path.
            "@0 ext é.名前 0.00 ast",
            "@0 fn a\u{7f} 0.50 x",
            "@0 fn a\u{85}b 0.50 x",
            "@0 fn a 0.50 x\u{a0}",
        ] {
            assert!(!check_node(text), "{text:?} should not take the fast path");
        }
        let mut rng = Rng(7);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let mut text = String::from("@");
            text.push_str(&format!("{}", rng.below(1000)));
            for field in 0..4 {
                text.push(' ');
                if field == 2 && rng.below(4) != 0 {
                    text.push_str(SCORES[rng.below(SCORES.len())]);
                } else {
                    for _ in 0..=rng.below(2) {
                        text.push_str(PIECES[rng.below(PIECES.len())]);
                    }
                }
            }
            accepted += usize::from(check_node(&text));
            check_node(&random_line(&mut rng));
        }
        assert!(
            accepted > 100,
            "only {accepted} random lines took the fast path"
        );
    }

    #[test]
    fn edge_fast_path_agrees_with_the_general_path() {
        for text in [
            "@0<@1 calls",
            "@4711<@1 implements added",
            "@1234567890123456789<@0 x y",
        ] {
            assert!(check_edge(text), "{text:?} should take the fast path");
        }
        for text in [
            "@0<@1",
            "@0<@1 ",
            "@0<@1 calls ",
            "@0<@1 a b c",
            "@0<@1  calls",
            "@0 <@1 calls",
            "@0<1 calls",
            "@0<@ calls",
            "@<@1 calls",
            "@12345678901234567890<@1 calls",
            "@0<@00000000000000000001 calls",
            "@0<@1 ca\tlls",
            "@0<@1\tcalls",
            "@0<@0 é<@名",
            "@0<@1 calls\u{7f}",
            "@0<@1 calls add\u{2028}ed",
            "",
            "@",
        ] {
            assert!(!check_edge(text), "{text:?} should not take the fast path");
        }
        let mut rng = Rng(11);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let mut text = format!("@{}<@{} ", rng.below(100), rng.below(100));
            text.push_str(&random_line(&mut rng));
            accepted += usize::from(check_edge(&text));
            check_edge(&random_line(&mut rng));
        }
        assert!(
            accepted > 100,
            "only {accepted} random lines took the fast path"
        );
    }

    /// Every range the parsers return is a char boundary pair within the
    /// input, so [`field_str`] may skip the checks: random lines full of
    /// multi-byte characters, at several offsets of a larger text.
    #[test]
    fn field_ranges_are_char_boundaries() {
        let mut rng = Rng(13);
        let mut checked = 0;
        // Fewer rounds under Miri, which interprets every instruction.
        let rounds = if cfg!(miri) { 200 } else { 20_000 };
        for _ in 0..rounds {
            let prefix = ["", "é\n", "名前\n"][rng.below(3)];
            let node = format!(
                "{prefix}@{} {} {} {} {}\né",
                rng.below(50),
                random_line(&mut rng),
                random_line(&mut rng),
                SCORES[rng.below(SCORES.len())],
                random_line(&mut rng)
            );
            let at = prefix.len();
            if let Some(n) = node_line(&node.as_bytes()[at..]) {
                for r in [n.kind, n.name, n.provenance] {
                    let (s, e) = (at + r.0, at + r.1);
                    assert!(s <= e && e <= node.len(), "{node:?}");
                    assert!(node.is_char_boundary(s) && node.is_char_boundary(e));
                    // SAFETY: `r` is a range `node_line` returned for `node[at..]`.
                    assert_eq!(unsafe { field_str(&node, at, r) }, &node[s..e]);
                }
                checked += 1;
            }
            let edge = format!(
                "{prefix}@{}<@{} {}",
                rng.below(50),
                rng.below(50),
                random_line(&mut rng)
            );
            if let Some(l) = edge_line(&edge.as_bytes()[at..]) {
                for r in [l.edge_type, l.status] {
                    let (s, e) = (at + r.0, at + r.1);
                    assert!(s <= e && e <= edge.len(), "{edge:?}");
                    assert!(edge.is_char_boundary(s) && edge.is_char_boundary(e));
                    // SAFETY: `r` is a range `edge_line` returned for `edge[at..]`.
                    assert_eq!(unsafe { field_str(&edge, at, r) }, &edge[s..e]);
                }
                checked += 1;
            }
        }
        assert!(checked > rounds / 20, "only {checked} lines parsed");
    }

    #[test]
    fn word_id_digits_equal_the_byte_loop() {
        // Every length of digits (0 to 21), followed by every byte, at the
        // end of input or with more after it, so both paths are taken.
        let mut rng = Rng(5);
        for len in 0..=21 {
            for stop in 0..=255u8 {
                for tail in [&b""[..], b"1", b"12345678"] {
                    let mut b: Vec<u8> = b"@".to_vec();
                    for _ in 0..len {
                        b.push(b'0' + rng.below(10) as u8);
                    }
                    b.push(stop);
                    b.extend_from_slice(tail);
                    for cut in [b.len(), 1 + len, 1 + len + 1] {
                        let slice = &b[..cut.min(b.len())];
                        assert_eq!(id_digits(slice, 1), id_digits_bytes(slice, 1), "{slice:?}");
                    }
                }
            }
        }
        for text in ["@0 ", "@9999999<", "@1000000 ", "@0000001 ", "@12345678 "] {
            let b = text.as_bytes();
            assert_eq!(id_digits(b, 1), id_digits_bytes(b, 1), "{text}");
        }
        assert_eq!(id_digits(b"@9999999<@1 x", 1), Some((9_999_999, 8)));
    }

    #[test]
    fn non_digits_flags_exactly_the_first_non_digit() {
        for c in 0..=255u8 {
            for at in 0..8 {
                let mut w = *b"01234567";
                w[at] = c;
                let first = (non_digits(u64::from_le_bytes(w)).trailing_zeros() / 8) as usize;
                let expected = if c.is_ascii_digit() { 8 } else { at };
                assert_eq!(first, expected, "{c:#x} at {at}");
            }
        }
    }

    #[test]
    fn field_end_finds_the_first_separator_at_every_offset() {
        // 47 bytes: the 16-byte, 8-byte and byte-at-a-time loops all run.
        let bytes: Vec<u8> = (0..47).map(|i| b'!' + (i * 7 % 94) as u8).collect();
        for stop in [b' ', b'\n', b'\r', b'\t', 0u8, 0x20, 0x7f, 0x80, 0xc3, 0xff] {
            for at in 0..bytes.len() {
                let mut b = bytes.clone();
                b[at] = stop;
                for start in 0..=at {
                    assert_eq!(field_end(&b, start), at);
                }
                assert_eq!(field_end(&b, at + 1), b.len());
            }
        }
        // Printable ASCII never stops a field.
        let all: Vec<u8> = (0x21..=0x7eu8).collect();
        for start in 0..all.len() {
            assert_eq!(field_end(&all, start), all.len());
        }
        assert_eq!(field_end(b"", 0), 0);
    }

    #[cfg(all(target_arch = "x86_64", not(gcf_portable)))]
    #[test]
    fn field_stops16_flags_exactly_the_bytes_outside_printable_ascii() {
        for c in 0..=255u8 {
            for at in 0..16 {
                let mut chunk = [b'a'; 16];
                chunk[at] = c;
                let expected = if (0x21..=0x7e).contains(&c) {
                    0
                } else {
                    1 << at
                };
                assert_eq!(field_stops16(&chunk), expected, "{c:#x} at {at}");
            }
        }
        let all: Vec<u8> = (0..=255u8).collect();
        for block in all.chunks(16) {
            let expected = block
                .iter()
                .enumerate()
                .filter(|(_, &c)| !(0x21..=0x7e).contains(&c))
                .fold(0u32, |m, (i, _)| m | 1 << i);
            assert_eq!(field_stops16(block), expected);
        }
    }

    #[test]
    fn scores_equal_the_standard_parser() {
        let mut rng = Rng(3);
        let mut cases: Vec<String> = Vec::new();
        for m in 0..2_000u64 {
            cases.push(format!("{}.{:02}", m / 100, m % 100));
        }
        for _ in 0..20_000 {
            let int_digits = 1 + rng.below(13);
            let mut s = String::new();
            if rng.below(2) == 0 {
                s.push('-');
            }
            for _ in 0..int_digits {
                s.push((b'0' + rng.below(10) as u8) as char);
            }
            s.push('.');
            s.push((b'0' + rng.below(10) as u8) as char);
            s.push((b'0' + rng.below(10) as u8) as char);
            cases.push(s);
        }
        cases.push("9999999999999.99".into());
        cases.push("-0.00".into());
        for case in &cases {
            let expected: f64 = case.parse().unwrap();
            let got = score(case.as_bytes()).unwrap_or_else(|| panic!("{case}"));
            assert_eq!(got.to_bits(), expected.to_bits(), "{case}");
        }
        for bad in [
            "",
            "-",
            ".",
            "0.5",
            "0.500",
            ".50",
            "-.50",
            "0..5",
            "a.bc",
            "0.5a",
            "+0.50",
            "99999999999999.99",
            "1e2.00",
            "--1.00",
        ] {
            assert_eq!(score(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn kinds_expand_like_the_table() {
        let table = [
            "fn", "type", "method", "iface", "var", "const", "resource", "table", "class",
            "selector", "field", "route", "ext", "file", "pkg", "svc",
        ];
        for abbrev in table {
            assert!(expand_known(abbrev).is_some());
            assert_eq!(expand_kind(abbrev.as_bytes()), expand_known(abbrev));
        }
        for other in [
            "", "f", "fnn", "function", "widget", "Fn", "ifac", "ifaces", "é", "svc ", "pk",
        ] {
            assert_eq!(expand_kind(other.as_bytes()), expand_known(other));
        }
    }
}
