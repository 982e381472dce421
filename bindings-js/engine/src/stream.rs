//! The graph stream writer behind 2.5.2's `StreamEncoder`: the core's
//! writer (one lifecycle: a refused call leaves it usable, a failed sink
//! poisons it) over a buffer that JS drains in batches, so the host's
//! `write` sees a few large chunks rather than a call per line.

use std::cell::RefCell;

use std::rc::Rc;

use gcf_core::graph::{StreamOptions, StreamWriter, Symbol, TrailerForm};
use gcf_core::{ErrorKind, Sink, SinkError};

use crate::nul::NulFields;
use crate::Result;

/// Bytes written by the core, waiting for JS to take them.
#[derive(Clone, Default)]
struct Pending(Rc<RefCell<Vec<u8>>>);

impl Sink for Pending {
    fn write_bytes(&mut self, bytes: &[u8]) -> core::result::Result<(), SinkError> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(())
    }
}

pub(crate) fn closed() -> gcf_bind::Failure {
    gcf_core::Error::new(ErrorKind::InvalidState, "the stream is closed").into()
}

/// A graph stream; see the module docs.
pub struct GraphStream {
    writer: Option<StreamWriter<Pending>>,
    pending: Pending,
}

impl GraphStream {
    /// Writes the header. `labeled` picks the `label:count` trailer;
    /// `pack_root` (when not empty) and `session` add 2.5.2's `pack_root=`
    /// and `session=true` header fields.
    pub fn new(
        tool: &str,
        token_budget: u64,
        tokens_used: u64,
        labeled: bool,
        pack_root: &str,
        session: bool,
    ) -> Result<Self> {
        let pending = Pending::default();
        let options = StreamOptions {
            tool,
            token_budget,
            tokens_used,
            trailer: if labeled {
                TrailerForm::Labeled
            } else {
                TrailerForm::Positional
            },
            pack_root,
            session,
            // For writeEdge by name: names are kept as text and hashed on
            // the first edge.
            index_names: true,
        };
        let writer = StreamWriter::new(pending.clone(), options)?;
        Ok(GraphStream {
            writer: Some(writer),
            pending,
        })
    }

    fn writer(&mut self) -> Result<&mut StreamWriter<Pending>> {
        self.writer.as_mut().ok_or_else(closed)
    }

    /// Writes one symbol; returns how many bytes wait to be taken.
    pub fn write_symbol(
        &mut self,
        qualified_name: &str,
        kind: &str,
        score: f64,
        provenance: &str,
        distance: u32,
    ) -> Result<u32> {
        let symbol = Symbol {
            qualified_name,
            kind,
            score,
            provenance,
            distance,
        };
        self.writer()?.write_symbol(&symbol)?;
        Ok(self.buffered())
    }

    /// Several symbols at once, as that many
    /// [`write_symbol`](Self::write_symbol) calls: one crossing instead of
    /// one per symbol, in the packed form of the layer's other routes
    /// ([`crate::graph_encode_packed`]). `text` holds three NUL-ended
    /// fields a symbol: qualified name, kind, provenance; `nums` two
    /// numbers a symbol: score (a finite double; `-0` is written as `0`, as
    /// 2.5.2 writes it) and distance. The caller sends only symbols it has
    /// checked the writer takes, so that a refused symbol still fails its
    /// own call; should one be refused here, the symbols before it stay
    /// written and the error is returned.
    pub fn write_symbols_packed(&mut self, text: &[u8], nums: &[f64]) -> Result<u32> {
        let bad = || gcf_bind::Failure::invalid_input("malformed packed symbols");
        let text = core::str::from_utf8(text).map_err(|_| bad())?;
        let Some(body) = text.strip_suffix('\0') else {
            return if text.is_empty() && nums.is_empty() {
                Ok(self.buffered())
            } else {
                Err(bad())
            };
        };
        // Malformed batches (which the layer never sends) write nothing:
        // three fields and a whole distance per symbol, checked first.
        let fields_count = memchr::memchr_iter(0, body.as_bytes()).count() + 1;
        let whole = |d: f64| (0.0..=f64::from(u32::MAX)).contains(&d) && (d as u32) as f64 == d;
        if nums.len() % 2 != 0
            || fields_count != nums.len() / 2 * 3
            || !nums.chunks_exact(2).all(|pair| whole(pair[1]))
        {
            return Err(bad());
        }
        let writer = self.writer()?;
        let mut fields = NulFields::new(body);
        for pair in nums.chunks_exact(2) {
            let (Some(qualified_name), Some(kind), Some(provenance)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad());
            };
            let symbol = Symbol {
                qualified_name,
                kind,
                // -0 + 0 is +0.
                score: pair[0] + 0.0,
                provenance,
                distance: pair[1] as u32,
            };
            writer.write_symbol(&symbol)?;
        }
        Ok(self.buffered())
    }

    /// Writes a bare session reference (2.5.2's `writeBareRef`): the next
    /// id, counted in the group of `distance`; `qualified_name` names it
    /// for later edges. Returns how many bytes wait to be taken.
    pub fn write_bare_ref(&mut self, qualified_name: &str, distance: u32) -> Result<u32> {
        self.writer()?.write_bare_ref(qualified_name, distance)?;
        Ok(self.buffered())
    }

    /// Writes one edge between written symbols, by name.
    pub fn write_edge(
        &mut self,
        source: &str,
        target: &str,
        edge_type: &str,
        status: &str,
    ) -> Result<u32> {
        self.writer()?
            .write_edge_by_name(source, target, edge_type, status)?;
        Ok(self.buffered())
    }

    /// Bytes the core has written so far and JS has not taken (the core
    /// buffers too; [`take`](Self::take) flushes it).
    fn buffered(&self) -> u32 {
        u32::try_from(self.pending.0.borrow().len()).unwrap_or(u32::MAX)
    }

    /// Everything written so far, handed over once.
    pub fn take(&mut self) -> Result<String> {
        if let Some(w) = self.writer.as_mut() {
            w.flush()?;
        }
        let bytes = std::mem::take(&mut *self.pending.0.borrow_mut());
        // The core writes UTF-8 only.
        Ok(String::from_utf8(bytes).unwrap_or_default())
    }

    /// Writes the trailer and returns the rest of the output.
    pub fn finish(&mut self) -> Result<String> {
        if let Some(w) = self.writer.take() {
            w.finish()?;
        }
        self.take()
    }

    /// Symbols written.
    pub fn symbol_count(&self) -> u64 {
        self.writer.as_ref().map_or(0, |w| w.symbol_count())
    }

    /// Edges written.
    pub fn edge_count(&self) -> u64 {
        self.writer.as_ref().map_or(0, |w| w.edge_count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream() -> GraphStream {
        GraphStream::new("t", 0, 0, false, "", false).unwrap()
    }

    #[test]
    fn a_packed_batch_is_that_many_symbols() {
        let (mut one, mut batch) = (stream(), stream());
        one.write_symbol("a.B", "function", 0.5, "lsp", 0).unwrap();
        one.write_symbol("a.C", "type", 1e-7, "ast", 0).unwrap();
        one.write_symbol("a.D", "method", 0.0, "lsp", 2).unwrap();
        one.write_edge("a.B", "a.D", "calls", "").unwrap();
        batch
            .write_symbols_packed(
                b"a.B\0function\0lsp\0a.C\0type\0ast\0a.D\0method\0lsp\0",
                &[0.5, 0.0, 1e-7, 0.0, -0.0, 2.0],
            )
            .unwrap();
        batch.write_symbols_packed(b"", &[]).unwrap();
        batch.write_edge("a.B", "a.D", "calls", "").unwrap();
        assert_eq!(batch.finish().unwrap(), one.finish().unwrap());
    }

    #[test]
    fn a_malformed_or_refused_batch_fails() {
        let mut s = stream();
        let bad: [(&[u8], &[f64]); 9] = [
            (b"a\0function\0lsp", &[0.5, 0.0]),
            (b"a\0function\0", &[0.5, 0.0]),
            (b"a\0function\0lsp\0", &[0.5]),
            (b"a\0function\0lsp\0", &[0.5, -1.0]),
            (b"a\0function\0lsp\0", &[0.5, 1.5]),
            (b"a\0function\0lsp\0x\0", &[0.5, 0.0]),
            (b"a b\0function\0lsp\0", &[0.5, 0.0]),
            (b"a\0function\0lsp\0", &[f64::NAN, 0.0]),
            (b"", &[0.5, 0.0]),
        ];
        for (text, nums) in bad {
            assert!(
                s.write_symbols_packed(text, nums).is_err(),
                "{text:?} {nums:?}"
            );
        }
        assert_eq!(s.symbol_count(), 0);
        s.finish().unwrap();
        assert!(s
            .write_symbols_packed(b"a\0function\0lsp\0", &[0.5, 0.0])
            .is_err());
    }

    /// The core's own writer with its name index, for comparison.
    fn indexed() -> StreamWriter<Vec<u8>> {
        let options = StreamOptions {
            tool: "t",
            token_budget: 0,
            tokens_used: 0,
            trailer: TrailerForm::Positional,
            index_names: true,
            ..StreamOptions::default()
        };
        StreamWriter::new(Vec::new(), options).unwrap()
    }

    #[test]
    fn edges_by_name_as_the_core_index_finds_them() {
        let mut ours = stream();
        let mut core = indexed();
        let symbols = [("a.A", 0), ("a.B", 0), ("a.A", 1), ("a.C", 1)];
        for (name, distance) in symbols {
            let symbol = Symbol {
                qualified_name: name,
                kind: "function",
                score: 0.5,
                provenance: "lsp",
                distance,
            };
            ours.write_symbol(name, "function", 0.5, "lsp", distance)
                .unwrap();
            core.write_symbol(&symbol).unwrap();
            // A refused symbol takes no id and names nothing.
            assert!(ours
                .write_symbol("x y", "function", 0.5, "lsp", distance)
                .is_err());
        }
        ours.write_bare_ref("a.D", 2).unwrap();
        core.write_bare_ref("a.D", 2).unwrap();
        for (source, target) in [("a.A", "a.B"), ("a.D", "a.C"), ("a.B", "a.A")] {
            ours.write_edge(source, target, "calls", "").unwrap();
            core.write_edge_by_name(source, target, "calls", "")
                .unwrap();
        }
        for (source, target) in [("a.Z", "a.B"), ("a.A", "x y")] {
            let theirs = core
                .write_edge_by_name(source, target, "calls", "")
                .unwrap_err();
            let e = ours.write_edge(source, target, "calls", "").unwrap_err();
            assert_eq!(e, gcf_bind::Failure::from(theirs));
        }
        let core = String::from_utf8(core.finish().unwrap()).unwrap();
        assert_eq!(ours.finish().unwrap(), core);
        assert!(ours.write_edge("a.A", "a.B", "calls", "").is_err());
    }
}
