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
