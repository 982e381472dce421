//! A write buffer in front of a sink, for the streaming writers and the
//! generic encoder.
//!
//! Streaming writers emit a line in many small pieces. A callback sink (a
//! JavaScript function, a C callback) pays per call, so the writers gather
//! bytes here and hand the sink large chunks. A stream's buffer is allocated
//! once and never grows, so writing a row never allocates; a one-shot
//! encode into a sink starts small and doubles up to a chunk
//! ([`Buffered::growing`]).
//!
//! The buffer is zero-filled when allocated and its fill level is kept
//! apart from the allocation, so a writer can assemble a whole line straight
//! into the free tail ([`Buffered::tail`], or a fixed-size
//! [`Buffered::window`]) and publish it with one [`Buffered::commit`]: one
//! capacity check per line instead of one per piece, and a line that is
//! abandoned half-way (a cell the fast path does not handle) leaves nothing
//! behind. The tail is initialised memory, so a writer may fill it with safe
//! slice stores (the graph writer) or, having checked its room, with raw
//! stores (the generic writer's row assembly).
//!
//! A one-shot encode into a new string has no sink to batch for: its buffer
//! is the output itself ([`Buffered::collecting`]), grown in place, so the
//! text is written once, not gathered here and then copied into a `Vec`.

use alloc::vec;
use alloc::vec::Vec;

use crate::error::Error;
use crate::sink::{Sink, SinkError};

/// Default capacity: large enough for thousands of typical rows per sink call.
pub(crate) const DEFAULT_CAPACITY: usize = 8 * 1024;

/// Where a [`Buffered::growing`] buffer starts: most one-shot encodes are
/// small (a tool result of a few rows), and zeroing a full
/// [`DEFAULT_CAPACITY`] buffer for them nearly doubled their time.
const GROWING_START: usize = 512;

/// Where a [`Buffered::collecting`] buffer starts: a tool result of a few
/// rows fits, and zeroing it costs less than growing it once (which
/// assembles the row that did not fit again).
const COLLECT_START: usize = 2048;

/// The most a [`Buffered::collecting`] buffer's free tail grows by at once.
const COLLECT_STEP: usize = 64 * 1024;

/// `COLLECTS` says whether the buffer is the output
/// ([`Buffered::collecting`]): it then grows in place, keeping what it
/// holds, and never calls the sink. A type parameter rather than a field, so
/// the streams' buffers carry none of that code.
pub(crate) struct Buffered<K, const COLLECTS: bool = false> {
    sink: K,
    /// The whole allocation, always initialized (`buf.len()` is the
    /// capacity writers see); `buf[..len]` is pending output.
    buf: Vec<u8>,
    len: usize,
    /// The capacity the buffer may grow to, doubling at each flush; equal
    /// to `buf.len()` for a fixed buffer.
    max_capacity: usize,
}

/// The sink of a [`Buffered::collecting`] buffer, which is never called.
pub(crate) struct Collected;

impl Sink for Collected {
    fn write_bytes(&mut self, _: &[u8]) -> Result<(), SinkError> {
        Ok(())
    }
}

impl<K: Sink> Buffered<K> {
    /// A buffer of `capacity` bytes that never grows, so writing never
    /// allocates; 0 writes everything straight through.
    pub(crate) fn new(sink: K, capacity: usize) -> Self {
        Buffered {
            sink,
            buf: vec![0u8; capacity],
            len: 0,
            max_capacity: capacity,
        }
    }

    /// A buffer that starts small and doubles at each flush up to
    /// `max_capacity`, for one-shot encodes: a small output costs a small
    /// buffer, a large one reaches the full chunk size after a few flushes.
    pub(crate) fn growing(sink: K, max_capacity: usize) -> Self {
        let mut buffered = Buffered::new(sink, GROWING_START.min(max_capacity));
        buffered.max_capacity = max_capacity;
        buffered
    }
}

impl<K: Sink> Buffered<K, true> {
    /// A buffer that is the output of a one-shot encode: it starts small,
    /// grows in place as writers need room, and
    /// [`into_collected`](Self::into_collected) returns what was written.
    pub(crate) fn collecting(sink: K) -> Self {
        Buffered {
            sink,
            buf: vec![0u8; COLLECT_START],
            len: 0,
            max_capacity: usize::MAX,
        }
    }

    /// The output of a [`collecting`](Self::collecting) buffer.
    pub(crate) fn into_collected(mut self) -> Vec<u8> {
        self.buf.truncate(self.len);
        self.buf
    }
}

impl<K: Sink, const COLLECTS: bool> Buffered<K, COLLECTS> {
    /// Hands everything buffered to the sink (nothing, for a collecting
    /// buffer, which holds the output). The buffer keeps its size: a
    /// one-shot encode flushes once at its end, where growing would zero
    /// a new allocation only to drop it (a tenth of a 10-record encode).
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        self.write_pending()?;
        Ok(())
    }

    /// Hands everything buffered to the sink and doubles a growing buffer,
    /// for a writer that needs more room than is free.
    pub(crate) fn make_room(&mut self) -> Result<(), Error> {
        self.flush_pending()?;
        Ok(())
    }

    #[inline]
    fn write_pending(&mut self) -> Result<(), SinkError> {
        if self.len != 0 && !COLLECTS {
            // Kept when the sink fails, as a `Vec` buffer did.
            self.sink.write_bytes(&self.buf[..self.len])?;
            self.len = 0;
        }
        Ok(())
    }

    #[inline]
    fn flush_pending(&mut self) -> Result<(), SinkError> {
        if COLLECTS {
            self.grow_in_place(0);
            return Ok(());
        }
        self.write_pending()?;
        if self.buf.len() < self.max_capacity {
            self.grow();
        }
        Ok(())
    }

    /// Doubles the (empty) buffer, up to `max_capacity`.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let capacity = self.buf.len().saturating_mul(2).clamp(1, self.max_capacity);
        self.buf = vec![0u8; capacity];
    }

    /// Grows a collecting buffer, keeping its contents, by at least `need`
    /// free bytes: by its own size up to [`COLLECT_STEP`], then by that
    /// step. The `Vec` below doubles its allocation as usual; only the
    /// free tail is zeroed, so each byte of a large output is zeroed about
    /// once, where doubling the tail zeroed twice the output.
    #[cold]
    #[inline(never)]
    fn grow_in_place(&mut self, need: usize) {
        let step = self.buf.len().clamp(GROWING_START, COLLECT_STEP).max(need);
        self.buf.resize(self.len.saturating_add(step), 0);
    }

    /// The free tail of the buffer, for a writer to assemble a line in;
    /// nothing written there is output until [`commit`](Self::commit).
    #[inline]
    pub(crate) fn tail(&mut self) -> &mut [u8] {
        &mut self.buf[self.len..]
    }

    /// The first `N` bytes of the free tail as an array, handing the pending
    /// output to the sink first when fewer are free; `None` when the whole
    /// buffer is smaller. A writer that knows its line fits in `N` bytes
    /// assembles it here and [`commit`](Self::commit)s it: no copy from a
    /// line buffer, and the stores keep the fixed-size bounds checks a
    /// slice of unknown length would lose.
    #[inline]
    pub(crate) fn window<const N: usize>(&mut self) -> Result<Option<&mut [u8; N]>, Error> {
        if self.buf.len() - self.len < N {
            self.flush_for_window(N)?;
        }
        Ok(self.buf[self.len..].first_chunk_mut::<N>())
    }

    #[cold]
    #[inline(never)]
    fn flush_for_window(&mut self, need: usize) -> Result<(), SinkError> {
        if COLLECTS {
            self.grow_in_place(need);
            return Ok(());
        }
        self.flush_pending()
    }

    /// How many bytes wait for the sink.
    #[inline]
    pub(crate) fn pending(&self) -> usize {
        self.len
    }

    /// Appends the first `n` bytes of the [`tail`](Self::tail) to the
    /// pending output; `n` must not exceed the tail's length.
    ///
    /// Not clamped to the capacity: nothing unsafe rests on `len` (an
    /// overlong one makes the next `tail` panic), and the clamp costs a
    /// compare, a conditional move and a reload of the capacity per line.
    #[inline]
    pub(crate) fn commit(&mut self, n: usize) {
        debug_assert!(n <= self.buf.len() - self.len);
        self.len += n;
    }

    pub(crate) fn into_inner(mut self) -> Result<K, Error> {
        self.flush()?;
        Ok(self.sink)
    }

    pub(crate) fn get_ref(&self) -> &K {
        &self.sink
    }
}

impl<K: Sink, const COLLECTS: bool> Sink for Buffered<K, COLLECTS> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let free = self.buf.len() - self.len;
        if bytes.len() <= free {
            self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
            return Ok(());
        }
        if COLLECTS {
            return self.collect_past_tail(bytes);
        }
        self.flush_pending()?;
        if bytes.len() >= self.buf.len() {
            self.sink.write_bytes(bytes)
        } else {
            self.buf[..bytes.len()].copy_from_slice(bytes);
            self.len = bytes.len();
            Ok(())
        }
    }
}

impl<K: Sink, const COLLECTS: bool> Buffered<K, COLLECTS> {
    /// [`write_bytes`](Sink::write_bytes) past the free tail of a
    /// collecting buffer.
    #[cold]
    #[inline(never)]
    fn collect_past_tail(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.grow_in_place(bytes.len());
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn batches_and_passes_large_writes_through() {
        let mut calls = vec![];
        {
            let sink = crate::FnSink(|b: &[u8]| {
                calls.push(b.len());
                Ok(())
            });
            let mut b = Buffered::new(sink, 64);
            for _ in 0..10 {
                b.write_bytes(&[b'x'; 10]).unwrap();
            }
            b.write_bytes(&[b'y'; 100]).unwrap();
            b.into_inner().unwrap();
        }
        assert_eq!(calls, [60, 40, 100]);
    }

    #[test]
    fn growing_buffer_doubles_at_each_flush_up_to_its_maximum() {
        let mut calls = vec![];
        {
            let sink = crate::FnSink(|b: &[u8]| {
                calls.push(b.len());
                Ok(())
            });
            let mut b = Buffered::growing(sink, 2048);
            assert_eq!(b.tail().len(), GROWING_START);
            let mut sizes = vec![];
            for _ in 0..6 {
                let free = b.tail().len();
                sizes.push(free);
                b.write_bytes(&vec![b'x'; free]).unwrap();
                b.make_room().unwrap();
            }
            assert_eq!(sizes, [512, 1024, 2048, 2048, 2048, 2048]);
            b.write_bytes(b"tail").unwrap();
            b.into_inner().unwrap();
        }
        assert_eq!(calls, [512, 1024, 2048, 2048, 2048, 2048, 4]);
    }

    #[test]
    fn flushing_keeps_a_growing_buffer_at_its_size() {
        let mut calls = vec![];
        {
            let sink = crate::FnSink(|b: &[u8]| {
                calls.push(b.len());
                Ok(())
            });
            let mut b = Buffered::growing(sink, 2048);
            b.write_bytes(b"head").unwrap();
            b.flush().unwrap();
            assert_eq!(b.tail().len(), GROWING_START);
            // A write past the free tail still grows it.
            b.write_bytes(&[b'x'; GROWING_START]).unwrap();
            b.write_bytes(b"y").unwrap();
            assert_eq!(b.tail().len(), 2 * GROWING_START - 1);
            b.into_inner().unwrap();
        }
        assert_eq!(calls, [4, GROWING_START, 1]);
    }

    #[test]
    fn a_collecting_buffer_is_the_output() {
        let mut unused = Collected;
        let mut b = Buffered::collecting(&mut unused);
        let mut want = Vec::new();
        let mut piece = |b: &mut Buffered<&mut Collected, true>, bytes: &[u8]| {
            b.write_bytes(bytes).unwrap();
            want.extend_from_slice(bytes);
        };
        piece(&mut b, b"head");
        b.flush().unwrap();
        assert_eq!(b.tail().len(), COLLECT_START - 4, "a flush keeps the size");
        piece(&mut b, &[b'a'; 2100]);
        piece(&mut b, &vec![b'b'; 3 * COLLECT_STEP]);
        b.make_room().unwrap();
        let free = b.tail().len();
        assert!((GROWING_START..=COLLECT_STEP).contains(&free), "{free}");
        let window = b.window::<256>().unwrap().unwrap();
        window[..3].copy_from_slice(b"win");
        b.commit(3);
        piece(&mut b, b"end");
        let mut want_all = want[..want.len() - 3].to_vec();
        want_all.extend_from_slice(b"win");
        want_all.extend_from_slice(b"end");
        assert_eq!(b.into_collected(), want_all);
    }

    #[test]
    fn zero_capacity_writes_through() {
        let mut calls = vec![];
        {
            let mut b = Buffered::new(
                crate::FnSink(|b: &[u8]| {
                    calls.push(b.len());
                    Ok(())
                }),
                0,
            );
            b.write_bytes(b"ab").unwrap();
            b.write_bytes(b"c").unwrap();
            b.into_inner().unwrap();
        }
        assert_eq!(calls, [2, 1]);
    }

    #[test]
    fn windows_flush_when_short_and_commit_only_what_is_asked() {
        let mut got = vec![];
        {
            let mut b = Buffered::new(
                crate::FnSink(|b: &[u8]| {
                    got.push(b.to_vec());
                    Ok(())
                }),
                10,
            );
            b.write_bytes(b"abcdef").unwrap();
            // Four free bytes: a window of four needs no flush.
            let w = b.window::<4>().unwrap().unwrap();
            w.copy_from_slice(b"ghij");
            b.commit(2);
            // Two free: a window of four hands "abcdefgh" to the sink first.
            let w = b.window::<4>().unwrap().unwrap();
            w.copy_from_slice(b"klmn");
            b.commit(4);
            assert!(b.window::<11>().unwrap().is_none());
            b.into_inner().unwrap();
        }
        assert_eq!(got, [b"abcdefgh".to_vec(), b"klmn".to_vec()]);
    }
}
