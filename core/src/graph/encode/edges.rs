//! Edge order (spec §6: source, target, type) and the edge lines.
use alloc::vec::Vec;

use core::mem::MaybeUninit;

use super::*;
use crate::digits::ByteSlots;
use crate::error::Error;
use crate::graph::line::{self, IdTexts, OutputLines, Token, MAX_DIGITS, TOKEN_WIDTH};

/// Resolved edges in the order they are written.
pub(super) enum SortedEdges {
    /// Sequential ids: the edges from the symbol at position `p` are
    /// `targets[begin(p)..ends[p]]`, where `begin(p)` is `ends[p - 1]` (0 for
    /// the first), each packed by [`RunEdge`].
    BySource { ends: Vec<u32>, targets: Vec<u64> },
    /// Every edge in its written order: sorted, or in input order for a
    /// session payload (see [`sort_edges`]).
    Sorted(Vec<KnownEdge>),
}

impl SortedEdges {
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn len(&self) -> usize {
        match self {
            SortedEdges::BySource { targets, .. } => targets.len(),
            SortedEdges::Sorted(edges) => edges.len(),
        }
    }
}

/// Sorts edges by (source id, target id, type), keeping input order for ties.
///
/// With sequential ids the ids are the positions, so a counting sort on the
/// source (`per_source` holds the counts, taken while resolving; one pass
/// places the edges) leaves only each source's few edges to order by target
/// and type;
/// that replaces an O(E log E) comparison sort, the largest single cost of
/// encoding a big graph. The source is implied by where an edge lands, so
/// each placed edge is eight bytes ([`RunEdge`]). Payloads with more labels
/// than a packed edge can name take the comparison sort; a session payload's
/// edges are not sorted at all (their input order is kept).
pub(super) fn sort_edges(
    edges: Vec<KnownEdge>,
    per_source: Vec<u32>,
    ids: &Ids<'_>,
    labels: &EdgeLabels<'_>,
    scratch: &mut Scratch,
) -> SortedEdges {
    let (by_type, ranks) =
        labels.type_ranks(cleared(&mut scratch.by_type), cleared(&mut scratch.ranks));
    scratch.by_type = by_type;
    let rank = |label: u32| ranks.get(label as usize).copied().unwrap_or(0);
    if let Ids::Session(_) = ids {
        // A session payload's edges keep the payload's order, as the `gcf`
        // crate, gcf-python 2.8.0 and the npm package all write them (§16.1
        // asks for source, then target order; the README lists the case).
        scratch.ranks = ranks;
        return SortedEdges::Sorted(edges);
    }
    if ranks.len() > RunEdge::MAX_LABELS {
        let mut edges = edges;
        edges.sort_by(|a, b| {
            let id = |p: u32| ids.get(p as usize).0;
            id(a.source)
                .cmp(&id(b.source))
                .then_with(|| id(a.target).cmp(&id(b.target)))
                .then_with(|| rank(a.label).cmp(&rank(b.label)))
        });
        scratch.ranks = ranks;
        return SortedEdges::Sorted(edges);
    }
    // ends[s]: first the count of edges from `s`, then (prefix sums) where
    // the next one goes, and after placing, the end of the run of `s`.
    // Sources are positions, below `per_source.len()` (the number of
    // symbols), so every index is in bounds.
    let mut ends = per_source;
    let mut start = 0u32;
    for slot in ends.iter_mut() {
        let count = *slot;
        *slot = start;
        start += count;
    }
    let mut targets = cleared(&mut scratch.targets);
    targets.resize(edges.len(), 0);
    for e in &edges {
        let slot = &mut ends[e.source as usize];
        targets[*slot as usize] = RunEdge::pack(e.target, rank(e.label), e.label);
        *slot += 1;
    }
    scratch.known = edges;
    let mut begin = 0usize;
    for &end in &ends {
        let end = end as usize;
        match end - begin {
            0 | 1 => {}
            2..=16 => RunEdge::sort_short(&mut targets[begin..end]),
            _ => targets[begin..end].sort_by_key(|&edge| RunEdge::key(edge)),
        }
        begin = end;
    }
    scratch.ranks = ranks;
    SortedEdges::BySource { ends, targets }
}

/// An edge within its source's run, packed in a `u64` whose high bits
/// order it: target position (32 bits), type rank (16), label (16).
pub(super) struct RunEdge;

impl RunEdge {
    pub(super) const LABEL_BITS: u32 = 16;
    /// Ranks are at most labels, so both fit their 16 bits.
    pub(super) const MAX_LABELS: usize = 1 << Self::LABEL_BITS;

    #[inline(always)]
    pub(super) fn pack(target: u32, rank: u32, label: u32) -> u64 {
        (u64::from(target) << 32) | (u64::from(rank) << Self::LABEL_BITS) | u64::from(label)
    }

    /// What the run is sorted by: target, then type rank. Edges with equal
    /// keys keep their order (the label is not part of the key).
    #[inline(always)]
    pub(super) fn key(edge: u64) -> u64 {
        edge >> Self::LABEL_BITS
    }

    #[inline(always)]
    pub(super) fn target(edge: u64) -> u32 {
        (edge >> 32) as u32
    }

    #[inline(always)]
    pub(super) fn label(edge: u64) -> u32 {
        (edge & ((1 << Self::LABEL_BITS) - 1)) as u32
    }

    /// Sorts a short run stably by [`key`](Self::key), without a branch
    /// that depends on the data: an odd-even transposition sort, whose
    /// compare-exchanges of neighbours swap only on a strictly greater key
    /// (so equal keys keep their order) and are done with a mask. The
    /// insertion sort this replaces mispredicted about every other
    /// comparison on random targets.
    #[inline]
    pub(super) fn sort_short(run: &mut [u64]) {
        let n = run.len();
        for round in 0..n {
            let mut i = round & 1;
            while i + 1 < n {
                let (a, b) = (run[i], run[i + 1]);
                let swap = u64::from(Self::key(a) > Self::key(b)).wrapping_neg();
                let flip = (a ^ b) & swap;
                run[i] = a ^ flip;
                run[i + 1] = b ^ flip;
                i += 2;
            }
        }
    }
}

/// The text after the ids of each label's edge lines, ` type[ status]\n`,
/// one after the other in one buffer, and where each ends.
pub(super) fn label_suffixes(labels: &EdgeLabels<'_>, bytes: &mut Vec<u8>, ends: &mut Vec<usize>) {
    let total = labels
        .entries
        .iter()
        .map(|e| e.text.0.len() + e.text.1.len() + 3)
        .sum();
    bytes.clear();
    bytes.reserve(total);
    ends.clear();
    ends.reserve(labels.len());
    for e in &labels.entries {
        let (edge_type, status) = e.text;
        bytes.push(b' ');
        bytes.extend_from_slice(edge_type.as_bytes());
        if !status.is_empty() {
            bytes.push(b' ');
            bytes.extend_from_slice(status.as_bytes());
        }
        bytes.push(b'\n');
        ends.push(bytes.len());
    }
}

/// Writes sorted edge lines `@target<@source type[ status]`, each assembled
/// in place: the label's suffix is a padded token, and `<@source` is
/// formatted once per run of edges from the same source (the sort groups
/// them), so a line is one id's digits and two fixed-width copies.
pub(super) fn write_edge_lines(
    lines: &mut OutputLines<'_>,
    edges: &SortedEdges,
    labels: &EdgeLabels<'_>,
    ids: &Ids<'_>,
    texts: Option<&IdTexts>,
    scratch: &mut Scratch,
) -> Result<(), Error> {
    let mut suffixes = cleared(&mut scratch.suffix_bytes);
    let mut ends = cleared(&mut scratch.suffix_ends);
    label_suffixes(labels, &mut suffixes, &mut ends);
    let mut tokens: Vec<Token<'_>> = recycle(cleared(&mut scratch.suffixes));
    let mut begin = 0;
    for &end in &ends {
        tokens.push(Token::from_bytes(&suffixes[begin..end]));
        begin = end;
    }
    let written = write_edge_tokens(lines, edges, &tokens, ids, texts);
    scratch.suffixes = recycle(tokens);
    scratch.suffix_bytes = suffixes;
    scratch.suffix_ends = ends;
    written
}

/// [`write_edge_lines`] with each label's suffix as a token.
pub(super) fn write_edge_tokens(
    lines: &mut OutputLines<'_>,
    edges: &SortedEdges,
    tokens: &[Token<'_>],
    ids: &Ids<'_>,
    texts: Option<&IdTexts>,
) -> Result<(), Error> {
    let longest = tokens.iter().map(Token::len).max().unwrap_or(0);
    let max_line = 1 + MAX_DIGITS + 2 + MAX_DIGITS + longest;
    match edges {
        SortedEdges::BySource { ends, targets } => match texts {
            Some(texts) => write_runs(
                lines,
                ends,
                targets,
                tokens,
                max_line,
                |w, at, p| texts.put(w, at, p),
                |p| texts.prefetch(p),
            ),
            None => write_runs(
                lines,
                ends,
                targets,
                tokens,
                max_line,
                |w, at, p| line::put_u64(w, at, u64::from(p)),
                |_| {},
            ),
        },
        SortedEdges::Sorted(edges) => {
            let mut source_part = [0u8; TOKEN_WIDTH];
            source_part[..2].copy_from_slice(b"<@");
            for e in edges {
                let source_len = line::put_u64(&mut source_part, 2, ids.get(e.source as usize).0);
                let Some(suffix) = tokens.get(e.label as usize) else {
                    continue;
                };
                let w = lines.window(max_line)?;
                w[0].write(b'@');
                let at = line::put_u64(w, 1, ids.get(e.target as usize).0);
                w.put_bytes(at, &source_part);
                let at = suffix.put(w, at + source_len);
                // SAFETY: the line's bytes were stored one piece after the
                // other from 0 ('@', the target, `<@source`, the label's
                // suffix), each piece starting where the one before ended.
                unsafe { lines.advance(at) };
            }
            Ok(())
        }
    }
}

/// Writes the edges of each source's run (see [`SortedEdges::BySource`]),
/// formatting `<@source` once per run.
#[inline(always)]
pub(super) fn write_runs(
    lines: &mut OutputLines<'_>,
    ends: &[u32],
    targets: &[u64],
    suffixes: &[Token<'_>],
    max_line: usize,
    put_id: impl Fn(&mut [MaybeUninit<u8>], usize, u32) -> usize,
    prefetch_id: impl Fn(u32),
) -> Result<(), Error> {
    // Initialised (zeros), though typed like the window `put_id` writes to,
    // so both go through the same `put_id`.
    let mut source_part = [MaybeUninit::new(0u8); TOKEN_WIDTH];
    source_part.put_bytes(0, b"<@");
    let mut begin = 0usize;
    for (source, &end) in ends.iter().enumerate() {
        let end = end as usize;
        let Some(run) = targets.get(begin..end) else {
            break;
        };
        if run.is_empty() {
            continue;
        }
        let source_len = put_id(&mut source_part, 2, source as u32);
        for (k, &edge) in run.iter().enumerate() {
            // Targets are scattered: start on the text of one a few lines on.
            if let Some(&ahead) = targets.get(begin + k + 2 * AHEAD) {
                prefetch_id(RunEdge::target(ahead));
            }
            let (target, label) = (RunEdge::target(edge), RunEdge::label(edge));
            let Some(suffix) = suffixes.get(label as usize) else {
                continue;
            };
            let w = lines.window(max_line)?;
            w[0].write(b'@');
            let at = put_id(w, 1, target);
            w[at..at + TOKEN_WIDTH].copy_from_slice(&source_part);
            let at = suffix.put(w, at + source_len);
            // SAFETY: the line's bytes were stored one piece after the
            // other from 0 ('@', the target, `<@source`, the label's
            // suffix), each piece starting where the one before ended.
            unsafe { lines.advance(at) };
        }
        begin = end;
    }
    Ok(())
}
