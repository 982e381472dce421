//! A fixed-capacity write buffer in front of a sink, for the streaming writers.
//!
//! Streaming writers emit a line in many small pieces. A callback sink (a
//! JavaScript function, a C callback) pays per call, so the writers gather
//! bytes here and hand the sink large chunks. The buffer is allocated once;
//! it never grows, so writing a row never allocates.

use alloc::vec::Vec;

use crate::error::Error;
use crate::sink::{Sink, SinkError};

/// Default capacity: large enough for thousands of typical rows per sink call.
pub(crate) const DEFAULT_CAPACITY: usize = 8 * 1024;

pub(crate) struct Buffered<K> {
    sink: K,
    buf: Vec<u8>,
}

impl<K: Sink> Buffered<K> {
    /// A buffer of `capacity` bytes; 0 writes everything straight through.
    pub(crate) fn new(sink: K, capacity: usize) -> Self {
        Buffered {
            sink,
            buf: Vec::with_capacity(capacity),
        }
    }

    /// Hands everything buffered to the sink.
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        if !self.buf.is_empty() {
            self.sink.write_bytes(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    pub(crate) fn into_inner(mut self) -> Result<K, Error> {
        self.flush()?;
        Ok(self.sink)
    }

    /// Room for one line of `len` bytes: the buffer itself, flushed first if
    /// the line does not fit behind what it holds. `None` when the line is
    /// longer than the whole buffer (or the buffer has zero capacity): write
    /// it in pieces with [`Sink::write_bytes`] instead.
    ///
    /// The caller appends exactly `len` bytes (more would make the vector
    /// grow, that is allocate). Appending straight into the vector costs a
    /// fraction of one sink call per field, which is where a streaming
    /// writer spent most of its time.
    #[inline]
    pub(crate) fn line(&mut self, len: usize) -> Result<Option<&mut Vec<u8>>, Error> {
        if len > self.buf.capacity() - self.buf.len() {
            if len > self.buf.capacity() {
                return Ok(None);
            }
            self.flush()?;
        }
        Ok(Some(&mut self.buf))
    }

    pub(crate) fn get_ref(&self) -> &K {
        &self.sink
    }
}

impl<K: Sink> Sink for Buffered<K> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        if bytes.len() <= self.buf.capacity() - self.buf.len() {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        if !self.buf.is_empty() {
            self.sink.write_bytes(&self.buf)?;
            self.buf.clear();
        }
        if bytes.len() >= self.buf.capacity() {
            self.sink.write_bytes(bytes)
        } else {
            self.buf.extend_from_slice(bytes);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn line_gives_room_or_declines() {
        let mut calls = vec![];
        {
            let sink = crate::FnSink(|b: &[u8]| {
                calls.push(b.len());
                Ok(())
            });
            let mut b = Buffered::new(sink, 64);
            let capacity = b.buf.capacity();
            b.line(40).unwrap().unwrap().extend_from_slice(&[b'a'; 40]);
            // 40 more do not fit behind the first 40: the buffer is flushed first.
            b.line(40).unwrap().unwrap().extend_from_slice(&[b'b'; 40]);
            assert!(b.line(capacity + 1).unwrap().is_none());
            assert_eq!(b.buf.capacity(), capacity, "never grows");
            b.into_inner().unwrap();
        }
        assert_eq!(calls, [40, 40]);
        let mut through = Buffered::new(Vec::new(), 0);
        assert!(through.line(1).unwrap().is_none());
    }

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
}
