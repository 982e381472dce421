//! When a call lets other Python threads run while the core works.
//!
//! Releasing the GIL around the core's work lets other threads run in the
//! meantime, but taking it back is not free: when another thread holds it,
//! this one waits until that thread's eval loop gives it up, which a busy
//! thread does only at the interpreter's switch interval (5 ms by default).
//! For a small payload, a call of a few microseconds, that wait is a
//! thousand times the call: measured with one busy thread beside it, a
//! 5-symbol `gcf.encode` took 535 µs on average when it released the GIL
//! around the core, against 1.3 µs alone (gcf-python 2.8.0, pure Python:
//! 3.9 µs with the busy thread, 3.2 µs alone).
//!
//! Holding the GIL for a short call is what pure-Python code does between
//! the interpreter's own switches, so a call releases it only when its work
//! is about as long as a switch interval: from [`RELEASE_FROM`] bytes of text
//! in or out (about 1 to 2.5 ms of the core's work, at its 400-1,000 MB/s).

use pyo3::marker::Ungil;
use pyo3::Python;

/// Bytes of GCF text (read or, by estimate, written) from which a call
/// releases the GIL.
pub const RELEASE_FROM: usize = 1 << 20;

/// The bytes an encode of `items` symbols, edges, rows or records writes,
/// about (a graph symbol line is 40-100 bytes, an edge line 12-20).
pub fn items(items: usize) -> usize {
    items.saturating_mul(48)
}

/// The bytes an encode of `value` writes, about: [`items`] of its values,
/// counted until the count reaches [`RELEASE_FROM`] (so a large value is not
/// walked twice).
pub fn value(value: &gcf_core::generic::Value) -> usize {
    use gcf_core::generic::Value;
    let enough = RELEASE_FROM / items(1);
    let mut count = 0usize;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        if count >= enough {
            break;
        }
        // What is counted or waiting stays under `enough`: a wide value of
        // wide values does not fill the stack.
        let room = enough.saturating_sub(count + stack.len());
        match v {
            Value::Array(a) => stack.extend(a.iter().take(room)),
            Value::Object(m) => stack.extend(m.values().take(room)),
            _ => {}
        }
    }
    items(count)
}

/// Runs `work`, without the GIL when `size` (from [`items`], or a text's
/// length) is at least [`RELEASE_FROM`].
pub fn run<T: Ungil>(py: Python<'_>, size: usize, work: impl Ungil + FnOnce() -> T) -> T {
    if releases(size) {
        py.detach(work)
    } else {
        work()
    }
}

/// Whether a call of `size` releases the GIL (for the tests).
#[pyo3::pyfunction]
#[pyo3(name = "_releases_gil")]
pub fn releases(size: usize) -> bool {
    size >= RELEASE_FROM
}
