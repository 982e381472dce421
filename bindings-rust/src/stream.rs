//! The graph streaming encoder (spec §8) on gcf-core's
//! [`graph::StreamWriter`](gcf_core::graph::StreamWriter): symbols and edges
//! go out as they are produced, the counts come last in the `##! summary`
//! trailer.
//!
//! The reference crate's methods return nothing, so a call gcf-core refuses
//! cannot report its error. The encoder then stops: that call and every
//! later one write nothing, and `close` writes no trailer, so a reader sees
//! an unfinished stream rather than a complete-looking one with a record
//! missing. The crate instead writes such a record as given, which no
//! decoder reads back; the refused inputs are listed on [`StreamEncoder`].

use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use gcf_core::graph::{self as core, TrailerForm};
use gcf_core::{CountingSink, Error, ErrorKind, Sink, SinkError};

use crate::convert::{count_in, symbol_in, unsigned};
use crate::types::{Edge, Symbol};

/// Header fields and the trailer form of a [`StreamEncoder`].
#[derive(Default)]
pub struct StreamOptions {
    /// `budget=` in the header; left out when zero or negative.
    pub token_budget: i64,
    /// `tokens=` in the header; left out when zero or negative.
    pub tokens_used: i64,
    /// `pack_root=` in the header when not empty. It must be printable ASCII
    /// without spaces (a header token), or nothing at all is written.
    pub pack_root: String,
    /// Adds `session=true` to the header, for a stream of bare references
    /// ([`StreamEncoder::write_bare_ref`]) and new symbols.
    pub session: bool,
    /// Writes the trailer's counts with their group labels
    /// (`counts=targets:2,related:1,edges:3`, spec §8.4.1) instead of by
    /// position (`counts=2,1,3`).
    pub labeled_trailer_counts: bool,
}

/// Writes a graph payload incrementally: the header at construction, each
/// symbol, bare reference and edge when its method is called, and the
/// `##! summary` trailer with the final counts on [`close`](Self::close).
///
/// Every line is handed to `W` before its method returns, so a reader at the
/// other end of a pipe sees it at once; `close` hands over the trailer and
/// leaves nothing behind. As in the reference crate, `W` itself is not
/// flushed: a `BufWriter` keeps what it holds until it is flushed or dropped.
///
/// Symbols get ids 0, 1, 2, ... in the order written (bare references
/// included); a group header is written whenever the distance changes, and
/// the `## edges [?]` header before the first edge. An edge naming a symbol
/// that was not written is skipped, as in the reference crate.
///
/// # Where the output differs from the reference crate's
///
/// The crate writes whatever it is given; some of it is not GCF. Here these
/// calls are refused, which stops the stream (see the module docs):
/// - a qualified name, kind, provenance, edge type or status that is empty
///   or holds whitespace or a control character (an empty status means none);
/// - a negative distance, or a score that is NaN or infinite;
/// - a symbol or bare reference after the first edge;
/// - a tool name or `pack_root` that is not printable ASCII without spaces
///   (refused at construction: nothing is written at all);
/// - any call after `close`, and a second `close` (the crate writes lines
///   after its trailer, and the trailer again).
///
/// A write error from `W` stops the stream the same way, where the crate
/// panics. And when a distance comes back after another one (0, 1, 0), the
/// trailer counts each group header on its own (`counts=1,1,1,0`, as
/// gcf-core writes it) where the crate adds them up per group
/// (`counts=2,1,0`); every other byte is the crate's.
///
/// The methods take `&self` and lock internally, so an encoder can be shared
/// between threads (when `W: Send`), as the crate's can.
pub struct StreamEncoder<W: Write> {
    inner: Mutex<Inner<W>>,
}

struct Inner<W: Write> {
    stage: Stage<W>,
    /// Set by the first refused call or failed write: nothing more is written.
    stopped: bool,
    /// What the counting methods answer, kept past `close`.
    symbols: u64,
    edges: u64,
}

enum Stage<W: Write> {
    /// Boxed: the core writer keeps its token caches inline (some 13 KB).
    Open(Box<core::StreamWriter<WriterSink<W>>>),
    /// Closed, or refused at construction. The writer is held (when it was
    /// not lost with a failed core writer) so that it is dropped with the
    /// encoder, as the crate's is.
    Idle(Option<W>),
}

impl<W: Write> StreamEncoder<W> {
    /// Starts a stream for `tool` on `w` and writes its header line.
    pub fn new(w: W, tool: &str, opts: StreamOptions) -> Self {
        let mut inner = Inner {
            stage: Stage::Idle(None),
            stopped: false,
            symbols: 0,
            edges: 0,
        };
        inner.stage = match check_header(tool, &opts.pack_root) {
            Ok(()) => {
                let options = core::StreamOptions {
                    tool,
                    // The crate leaves non-positive counts out of the header.
                    token_budget: count_in(opts.token_budget),
                    tokens_used: count_in(opts.tokens_used),
                    trailer: if opts.labeled_trailer_counts {
                        TrailerForm::Labeled
                    } else {
                        TrailerForm::Positional
                    },
                    pack_root: &opts.pack_root,
                    session: opts.session,
                    // Edges arrive by qualified name.
                    index_names: true,
                };
                let sink = WriterSink::new(w);
                match core::StreamWriter::new(sink, options) {
                    Ok(writer) => Stage::Open(Box::new(writer)),
                    // Only a sink failure is left once the header was
                    // checked, and the writer went with the core writer.
                    Err(_) => {
                        inner.stopped = true;
                        Stage::Idle(None)
                    }
                }
            }
            Err(_) => {
                inner.stopped = true;
                Stage::Idle(Some(w))
            }
        };
        // The header reaches `w` now, as the crate writes it in `new`.
        inner.run(|_| Ok(()));
        StreamEncoder {
            inner: Mutex::new(inner),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<W>> {
        // Nothing panics while the lock is held but `W` itself; the state is
        // consistent even then (the stream has stopped or will on its next
        // failed write), so a poisoned lock is taken over.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes a symbol line, after its group header when the distance
    /// changed.
    pub fn write_symbol(&self, s: &Symbol) {
        self.lock()
            .run(|w| w.write_symbol(&symbol_in(s)?).map(drop));
    }

    /// Writes an edge line between two symbols written before (the edge
    /// section's header first, on the first edge); an edge naming another
    /// symbol is skipped. When a name was written twice, the edge goes to its
    /// last symbol.
    pub fn write_edge(&self, e: &Edge) {
        self.lock().run(|w| {
            match w.write_edge_by_name(&e.source, &e.target, &e.edge_type, &e.status) {
                // The crate skips such an edge: a missing record, not an
                // unreadable one, so the stream goes on.
                Err(err) if err.kind() == ErrorKind::UnknownEdgeReference => Ok(()),
                other => other,
            }
        });
    }

    /// Writes a bare reference (`@id  # previously transmitted`, spec §9) to
    /// a symbol the reader received in an earlier payload of the session. It
    /// takes the next id, counts as a symbol of its distance group, and
    /// edges can name it by `qname`, which is not written.
    pub fn write_bare_ref(&self, qname: &str, distance: i32) {
        self.lock().run(|w| {
            let distance = unsigned(i64::from(distance), "distance")?;
            w.write_bare_ref(qname, distance).map(drop)
        });
    }

    /// Writes the `##! summary` trailer (symbol and edge counts, one count
    /// per group header, then the edge count) and hands it to the writer.
    /// After a refused call it writes nothing; later calls, a second `close`
    /// included, write nothing either.
    pub fn close(&self) {
        let mut inner = self.lock();
        if inner.stopped {
            return;
        }
        let stage = std::mem::replace(&mut inner.stage, Stage::Idle(None));
        if let Stage::Open(writer) = stage {
            // A failed final write leaves nothing to return the writer from.
            inner.stage = Stage::Idle(writer.finish().ok().map(WriterSink::into_inner));
        }
        inner.stopped = true;
    }

    /// Symbols and bare references written so far.
    pub fn symbol_count(&self) -> usize {
        usize::try_from(self.lock().symbols).unwrap_or(usize::MAX)
    }

    /// Edges written so far (skipped ones not counted).
    pub fn edge_count(&self) -> usize {
        usize::try_from(self.lock().edges).unwrap_or(usize::MAX)
    }
}

impl<W: Write> Inner<W> {
    /// Runs one call on an open, unstopped stream and hands its lines to the
    /// writer; any error stops the stream.
    fn run(
        &mut self,
        call: impl FnOnce(&mut core::StreamWriter<WriterSink<W>>) -> Result<(), Error>,
    ) {
        if self.stopped {
            return;
        }
        let Stage::Open(writer) = &mut self.stage else {
            return;
        };
        // A refused call wrote nothing (the core's rule), so what was handed
        // over before it is a clean prefix of a stream.
        match call(writer).and_then(|()| writer.flush()) {
            Ok(()) => {
                self.symbols = writer.symbol_count();
                self.edges = writer.edge_count();
            }
            Err(_) => self.stopped = true,
        }
    }
}

/// Checks the header values by gcf-core's rule (`tool` may be empty, a
/// non-empty `pack_root` must be a header token), through its encoder, so
/// that a refused header leaves `W` here (the stream writer checks the same,
/// but owns the writer by then).
fn check_header(tool: &str, pack_root: &str) -> Result<(), Error> {
    let probe = core::Payload::<&str> {
        tool,
        pack_root,
        ..Default::default()
    };
    core::encode_to(&probe, &mut CountingSink::default())
}

/// A `W` as gcf-core's sink, shared by both stream encoders.
///
/// It keeps the writer's own error where the encoder can still take it
/// after the core writer that owned the sink is gone (a failed `finish`
/// drops it).
pub(crate) struct WriterSink<W> {
    writer: W,
    failure: Arc<Mutex<Option<io::Error>>>,
}

impl<W: Write> WriterSink<W> {
    pub(crate) fn new(writer: W) -> Self {
        WriterSink {
            writer,
            failure: Arc::default(),
        }
    }

    /// Where a failed write leaves the writer's error.
    pub(crate) fn failure(&self) -> Arc<Mutex<Option<io::Error>>> {
        Arc::clone(&self.failure)
    }

    pub(crate) fn into_inner(self) -> W {
        self.writer
    }
}

impl<W: Write> Sink for WriterSink<W> {
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.writer.write_all(bytes).map_err(|e| {
            let mut slot = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
            slot.get_or_insert(e);
            SinkError
        })
    }
}
