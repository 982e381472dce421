//! `gcf-pack-root-v1` for graphs (spec §10.2): a content hash of a snapshot
//! that ignores order, locations and ids.

use alloc::string::String;
use alloc::vec::Vec;

use crate::hash::HashMap;
use sha2::{Digest, Sha256};

use super::kind::abbreviate_kind;
use super::types::{Edge, Symbol};
use crate::error::Error;
use crate::number::NumberBuffer;
use crate::protocol::format_root;

/// The canonical record bytes that are hashed: sorted `S` records, then sorted
/// `E` records (spec §10.2 steps 2-6).
///
/// ```
/// use gcf_core::graph::{pack_root_canonical_bytes, Symbol};
/// let s = [Symbol::new("pkg.Main", "function", 1.0, "lsp_resolved", 0)];
/// let bytes = pack_root_canonical_bytes::<&str>(&s, &[])?;
/// assert_eq!(bytes, b"S\tfn\tpkg.Main\t1\tlsp_resolved\t0\n");
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn pack_root_canonical_bytes<S: AsRef<str>>(
    symbols: &[Symbol<S>],
    edges: &[Edge<S>],
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    for_each_record(symbols, edges, |r| out.extend_from_slice(r))?;
    Ok(out)
}

/// The pack root `sha256:<64 hex>` of a snapshot.
///
/// Edge endpoints carry their symbol's kind; an endpoint that names no symbol
/// gets an empty kind (as the reference implementations do), and when two
/// symbols share a qualified name the last one's kind is used.
///
/// ```
/// use gcf_core::graph::pack_root;
/// assert_eq!(
///     pack_root::<&str>(&[], &[])?,
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub fn pack_root<S: AsRef<str>>(symbols: &[Symbol<S>], edges: &[Edge<S>]) -> Result<String, Error> {
    let mut hasher = Sha256::new();
    for_each_record(symbols, edges, |r| hasher.update(r))?;
    Ok(format_root(&hasher.finalize()))
}

fn for_each_record<S: AsRef<str>>(
    symbols: &[Symbol<S>],
    edges: &[Edge<S>],
    mut emit: impl FnMut(&[u8]),
) -> Result<(), Error> {
    let mut buf: Vec<u8> = Vec::new();
    let mut ranges: Vec<(usize, usize)> = Vec::with_capacity(symbols.len());
    let mut numbers = NumberBuffer::new();
    let mut ints = itoa::Buffer::new();
    for s in symbols {
        let start = buf.len();
        for part in [
            "S\t",
            abbreviate_kind(s.kind.as_ref()),
            "\t",
            s.qualified_name.as_ref(),
            "\t",
            numbers.format_f64(s.score)?,
            "\t",
            s.provenance.as_ref(),
            "\t",
            ints.format(s.distance),
            "\n",
        ] {
            buf.extend_from_slice(part.as_bytes());
        }
        ranges.push((start, buf.len()));
    }
    let mut kinds: HashMap<&str, &str> = crate::hash::map_with_capacity(symbols.len());
    for s in symbols {
        kinds.insert(s.qualified_name.as_ref(), abbreviate_kind(s.kind.as_ref()));
    }
    let symbol_records = ranges.len();
    for e in edges {
        let (source, target) = (e.source.as_ref(), e.target.as_ref());
        let start = buf.len();
        for part in [
            "E\t",
            kinds.get(source).copied().unwrap_or(""),
            "\t",
            source,
            "\t",
            kinds.get(target).copied().unwrap_or(""),
            "\t",
            target,
            "\t",
            e.edge_type.as_ref(),
            "\n",
        ] {
            buf.extend_from_slice(part.as_bytes());
        }
        ranges.push((start, buf.len()));
    }
    let (sym, edge) = ranges.split_at_mut(symbol_records);
    sym.sort_unstable_by(|a, b| buf[a.0..a.1].cmp(&buf[b.0..b.1]));
    edge.sort_unstable_by(|a, b| buf[a.0..a.1].cmp(&buf[b.0..b.1]));
    for &(a, b) in ranges.iter() {
        emit(&buf[a..b]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn order_independent_and_sorted_by_bytes() {
        let s = vec![
            Symbol::new("z.Foo", "function", 0.9, "lsp_resolved", 0),
            Symbol::new("a.Bar", "type", 0.5, "ast_inferred", 1),
        ];
        let e = vec![
            Edge::new("z.Foo", "a.Bar", "calls"),
            Edge::new("a.Bar", "z.Foo", "imports"),
        ];
        let bytes = pack_root_canonical_bytes(&s, &e).unwrap();
        assert_eq!(
            core::str::from_utf8(&bytes).unwrap(),
            "S\tfn\tz.Foo\t0.9\tlsp_resolved\t0\nS\ttype\ta.Bar\t0.5\tast_inferred\t1\nE\tfn\tz.Foo\ttype\ta.Bar\tcalls\nE\ttype\ta.Bar\tfn\tz.Foo\timports\n"
        );
        let mut rs = s.clone();
        rs.reverse();
        let mut re = e.clone();
        re.reverse();
        assert_eq!(pack_root(&s, &e).unwrap(), pack_root(&rs, &re).unwrap());
        assert_eq!(
            pack_root(&s, &e).unwrap(),
            "sha256:fa9ffe4a5d09fc21e1e122000b269ac9098fbec8d21eee5665ed33711be8af94"
        );
    }

    #[test]
    fn dangling_edges_have_empty_kinds() {
        let s = [Symbol::new("a", "function", 0.5, "x", 0)];
        let e = [Edge::new("a", "b", "calls")];
        let bytes = pack_root_canonical_bytes(&s, &e).unwrap();
        assert!(bytes.ends_with(b"E\tfn\ta\t\tb\tcalls\n"));
    }
}
