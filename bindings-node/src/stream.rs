//! The graph stream writer behind 2.5.2's `StreamEncoder`: the core's
//! writer (one lifecycle: a refused call leaves it usable, a failed sink
//! poisons it) over a buffer that JS drains in batches, so the host's
//! `write` sees a few large chunks rather than a call per line.

use std::cell::RefCell;
use std::rc::Rc;

use gcf_core::graph::{StreamOptions, StreamWriter, Symbol, TrailerForm};
use gcf_core::{Sink, SinkError};
use napi_derive::napi;

use crate::core_fail;

/// Bytes written by the core, waiting for JS to take them.
#[derive(Clone, Default)]
struct Pending(Rc<RefCell<Vec<u8>>>);

impl Sink for Pending {
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(())
    }
}

/// A graph stream; see the module docs.
#[napi(js_name = "NativeGraphStream")]
pub struct NativeGraphStream {
    writer: Option<StreamWriter<Pending>>,
    pending: Pending,
}

#[napi]
impl NativeGraphStream {
    /// Writes the header. `labeled` picks the `label:count` trailer.
    #[napi(constructor)]
    pub fn new(
        tool: String,
        token_budget: i64,
        tokens_used: i64,
        labeled: bool,
    ) -> napi::Result<Self> {
        let pending = Pending::default();
        let options = StreamOptions {
            tool: &tool,
            token_budget: u64::try_from(token_budget).unwrap_or(0),
            tokens_used: u64::try_from(tokens_used).unwrap_or(0),
            trailer: if labeled {
                TrailerForm::Labeled
            } else {
                TrailerForm::Positional
            },
            index_names: true,
        };
        let writer = StreamWriter::new(pending.clone(), options).map_err(core_fail)?;
        Ok(NativeGraphStream {
            writer: Some(writer),
            pending,
        })
    }

    fn writer(&mut self) -> napi::Result<&mut StreamWriter<Pending>> {
        self.writer.as_mut().ok_or_else(|| {
            core_fail(gcf_core::Error::new(
                gcf_core::ErrorKind::InvalidState,
                "the stream is closed",
            ))
        })
    }

    /// Writes one symbol; returns how many bytes wait to be taken.
    #[napi(js_name = "writeSymbol")]
    pub fn write_symbol(
        &mut self,
        qualified_name: String,
        kind: String,
        score: f64,
        provenance: String,
        distance: u32,
    ) -> napi::Result<u32> {
        let symbol = Symbol {
            qualified_name,
            kind,
            score,
            provenance,
            distance,
        };
        self.writer()?.write_symbol(&symbol).map_err(core_fail)?;
        self.buffered()
    }

    /// Writes one edge between written symbols, by name.
    #[napi(js_name = "writeEdge")]
    pub fn write_edge(
        &mut self,
        source: String,
        target: String,
        edge_type: String,
        status: String,
    ) -> napi::Result<u32> {
        self.writer()?
            .write_edge_by_name(&source, &target, &edge_type, &status)
            .map_err(core_fail)?;
        self.buffered()
    }

    /// Bytes the core has written so far and JS has not taken (the core
    /// buffers too; [`take`](Self::take) flushes it).
    fn buffered(&mut self) -> napi::Result<u32> {
        Ok(u32::try_from(self.pending.0.borrow().len()).unwrap_or(u32::MAX))
    }

    /// Everything written so far, handed over once.
    #[napi]
    pub fn take(&mut self) -> napi::Result<String> {
        if let Some(w) = self.writer.as_mut() {
            w.flush().map_err(core_fail)?;
        }
        let bytes = std::mem::take(&mut *self.pending.0.borrow_mut());
        // The core writes UTF-8 only.
        Ok(String::from_utf8(bytes).unwrap_or_default())
    }

    /// Writes the trailer and returns the rest of the output.
    #[napi]
    pub fn finish(&mut self) -> napi::Result<String> {
        if let Some(w) = self.writer.take() {
            w.finish().map_err(core_fail)?;
        }
        self.take()
    }

    /// Symbols written.
    #[napi(getter, js_name = "symbolCount")]
    pub fn symbol_count(&self) -> f64 {
        self.writer.as_ref().map_or(0, |w| w.symbol_count()) as f64
    }

    /// Edges written.
    #[napi(getter, js_name = "edgeCount")]
    pub fn edge_count(&self) -> f64 {
        self.writer.as_ref().map_or(0, |w| w.edge_count()) as f64
    }
}
