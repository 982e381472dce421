//! One call at a time on an object that several Python threads may share.
//!
//! A stream's call can run Python code (the writer's `write`, a cell's
//! `__str__`), during which the interpreter lets other threads run, and they
//! may call the same stream. pyo3's own borrow check would refuse such a
//! call (`RuntimeError: Already borrowed`) where gcf-python 2.8.0's pure
//! Python stream writes the row; here the call waits for the one in
//! progress, with the GIL released while it waits (holding it would keep
//! the running call from finishing), and the rows come out whole, one call
//! after another. A call made from inside the running call on the same
//! thread (a `write` that writes to the stream it serves) would wait for
//! itself: it is refused with `RuntimeError` instead.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, TryLockError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// `T`, used by one call at a time.
pub struct Serial<T> {
    state: Mutex<T>,
    /// The thread whose call holds `state` ([`this_thread`]), 0 for none.
    owner: AtomicUsize,
}

thread_local! {
    static THREAD: u8 = const { 0 };
}

/// A number for the calling thread, distinct among live threads: the
/// address of its own thread-local (`ThreadId` has no stable number).
fn this_thread() -> usize {
    THREAD.with(|t| std::ptr::from_ref(t) as usize)
}

impl<T: Send> Serial<T> {
    pub fn new(state: T) -> Self {
        Serial {
            state: Mutex::new(state),
            owner: AtomicUsize::new(0),
        }
    }

    /// `f` on the state once no other call holds it.
    pub fn with<R>(&self, py: Python<'_>, f: impl FnOnce(&mut T) -> PyResult<R>) -> PyResult<R> {
        let me = this_thread();
        loop {
            match self.state.try_lock() {
                Ok(mut state) => return self.run(me, &mut state, f),
                // A panic inside a call leaves the state as it was written
                // (every call checks it); it is used as is.
                Err(TryLockError::Poisoned(poisoned)) => {
                    return self.run(me, &mut poisoned.into_inner(), f)
                }
                Err(TryLockError::WouldBlock) => {
                    if self.owner.load(Ordering::Acquire) == me {
                        return Err(PyRuntimeError::new_err(
                            "a stream was called while one of its own calls was running on this thread (from its writer's write?)",
                        ));
                    }
                    // Wait for the running call without the GIL, then try
                    // again with it: another waiter may come first.
                    py.detach(|| drop(self.state.lock()));
                }
            }
        }
    }

    fn run<R>(
        &self,
        me: usize,
        state: &mut T,
        f: impl FnOnce(&mut T) -> PyResult<R>,
    ) -> PyResult<R> {
        self.owner.store(me, Ordering::Release);
        let result = f(state);
        self.owner.store(0, Ordering::Release);
        result
    }
}
