//! Byte destinations for every encoder in this crate.
//!
//! Encoders never build an intermediate `String`: they hand finished runs of
//! bytes to a [`Sink`]. That keeps the streaming writers O(1) in memory and lets
//! bindings plug in a JavaScript, Python or C callback without copying.

use alloc::vec::Vec;
use core::fmt;

/// The sink refused bytes.
///
/// Deliberately carries no payload so that it stays free to create on a
/// `no_std` target; sinks that have a richer error (an `io::Error`, a status
/// code from a C callback) keep it themselves, see [`IoSink::take_error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SinkError;

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the output sink refused the write")
    }
}

/// A destination for encoded bytes.
///
/// Every call receives a complete run of UTF-8 text, though not necessarily a
/// complete line: writers emit a line in several pieces rather than assemble
/// it in a buffer.
///
/// ```
/// use gcf_core::{Sink, FnSink};
///
/// let mut seen = 0usize;
/// let mut sink = FnSink(|bytes: &[u8]| { seen += bytes.len(); Ok(()) });
/// sink.write_bytes(b"GCF profile=generic\n").unwrap();
/// drop(sink);
/// assert_eq!(seen, 20);
/// ```
pub trait Sink {
    /// Accepts `bytes` or reports that the destination failed.
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError>;

    /// Accepts a string; a convenience over [`Sink::write_bytes`].
    #[inline]
    fn write_str(&mut self, s: &str) -> Result<(), SinkError> {
        self.write_bytes(s.as_bytes())
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

impl Sink for alloc::string::String {
    /// Appends to the string.
    ///
    /// Encoders only ever hand complete UTF-8 runs to a sink, but this impl
    /// cannot prove it for arbitrary callers, so non-UTF-8 input is refused.
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        let s = core::str::from_utf8(bytes).map_err(|_| SinkError)?;
        self.push_str(s);
        Ok(())
    }

    #[inline]
    fn write_str(&mut self, s: &str) -> Result<(), SinkError> {
        self.push_str(s);
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        (**self).write_bytes(bytes)
    }
}

/// A sink that forwards every run of bytes to a closure.
///
/// This is how bindings hand in callbacks: the closure returns `Err(SinkError)`
/// to stop the encoder, which then returns an error of kind
/// [`ErrorKind::Sink`](crate::ErrorKind::Sink).
pub struct FnSink<F>(pub F);

impl<F: FnMut(&[u8]) -> Result<(), SinkError>> Sink for FnSink<F> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        (self.0)(bytes)
    }
}

/// A sink over a host callback that returns the host's own error type, and
/// keeps the first such error for the host to take back after the encoder
/// reported [`ErrorKind::Sink`](crate::ErrorKind::Sink).
///
/// This is the one way bindings recover what went wrong behind a
/// [`SinkError`]: a C status code, a JavaScript exception, a Python one.
/// Once it has failed it refuses every later write without calling the
/// host again (the writers are poisoned by then anyway).
///
/// ```
/// use gcf_core::{graph, ErrorKind, HostSink};
///
/// let sink = HostSink::new(|_: &[u8]| Err::<(), _>("disk full"));
/// let mut w = graph::StreamWriter::new(sink, Default::default())?;
/// let e = w.flush().unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::Sink);
/// assert_eq!(w.get_ref().error(), Some(&"disk full"));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub struct HostSink<F, E> {
    callback: F,
    error: Option<E>,
}

impl<F, E> HostSink<F, E> {
    /// Wraps `callback`.
    pub fn new(callback: F) -> Self {
        HostSink {
            callback,
            error: None,
        }
    }

    /// The host's error that made a write fail, if one did.
    pub fn error(&self) -> Option<&E> {
        self.error.as_ref()
    }

    /// Takes the host's error out; later writes are refused all the same.
    pub fn take_error(&mut self) -> Option<E> {
        self.error.take()
    }

    /// Whether a write has failed.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }
}

impl<F: FnMut(&[u8]) -> Result<(), E>, E> Sink for HostSink<F, E> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        if self.error.is_some() {
            return Err(SinkError);
        }
        (self.callback)(bytes).map_err(|e| {
            self.error = Some(e);
            SinkError
        })
    }
}

/// A sink that discards everything and counts bytes; useful to measure an
/// encoding's size without keeping it.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingSink {
    /// Bytes accepted so far.
    pub bytes: u64,
}

impl Sink for CountingSink {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.bytes += bytes.len() as u64;
        Ok(())
    }
}

/// Adapts any [`std::io::Write`] into a [`Sink`], keeping the first I/O error.
///
/// Writes go straight to the writer; wrap it in a `BufWriter` when it is a
/// file or socket.
#[cfg(feature = "std")]
pub struct IoSink<W> {
    writer: W,
    error: Option<std::io::Error>,
}

#[cfg(feature = "std")]
impl<W: std::io::Write> IoSink<W> {
    /// Wraps `writer`.
    pub fn new(writer: W) -> Self {
        IoSink {
            writer,
            error: None,
        }
    }

    /// The I/O error that made the last write fail, if any.
    pub fn take_error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }

    /// A reference to the wrapped writer.
    pub fn get_ref(&self) -> &W {
        &self.writer
    }

    /// Returns the wrapped writer.
    pub fn into_inner(self) -> W {
        self.writer
    }
}

#[cfg(feature = "std")]
impl<W: std::io::Write> Sink for IoSink<W> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        match self.writer.write_all(bytes) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.error = Some(e);
                Err(SinkError)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    #[test]
    fn vec_and_string_append() {
        let mut v = Vec::new();
        v.write_str("ab").unwrap();
        v.write_bytes(b"c").unwrap();
        assert_eq!(v, b"abc");
        let mut s = String::new();
        s.write_str("x").unwrap();
        assert_eq!(s.write_bytes(&[0xff]), Err(SinkError));
        assert_eq!(s, "x");
    }

    #[test]
    fn fn_sink_can_refuse() {
        let mut sink = FnSink(|b: &[u8]| if b == b"no" { Err(SinkError) } else { Ok(()) });
        assert!(sink.write_bytes(b"yes").is_ok());
        assert_eq!(sink.write_bytes(b"no"), Err(SinkError));
    }

    #[test]
    fn host_sink_keeps_the_first_error_and_stops_calling() {
        let calls = core::cell::Cell::new(0);
        let mut sink = HostSink::new(|b: &[u8]| {
            calls.set(calls.get() + 1);
            if b == b"bad" {
                Err(7)
            } else {
                Ok(())
            }
        });
        assert!(sink.write_bytes(b"ok").is_ok());
        assert_eq!(sink.write_bytes(b"bad"), Err(SinkError));
        assert_eq!(sink.write_bytes(b"ok"), Err(SinkError));
        assert_eq!(sink.error(), Some(&7));
        assert!(sink.failed());
        assert_eq!(sink.take_error(), Some(7));
        assert_eq!(calls.get(), 2);
    }

    #[test]
    fn counting_sink_counts() {
        let mut c = CountingSink::default();
        c.write_str("hello").unwrap();
        let by_ref: &mut CountingSink = &mut c;
        Sink::write_str(&mut { by_ref }, "!").unwrap();
        assert_eq!(c.bytes, 6);
    }

    #[cfg(feature = "std")]
    #[test]
    fn io_sink_keeps_error() {
        struct Broken;
        impl std::io::Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut s = IoSink::new(Broken);
        assert_eq!(s.write_str("x"), Err(SinkError));
        assert_eq!(alloc::format!("{}", s.take_error().unwrap()), "disk full");
        let mut ok = IoSink::new(Vec::new());
        ok.write_str("y").unwrap();
        assert_eq!(ok.into_inner(), b"y");
    }
}
