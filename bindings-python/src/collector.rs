//! The cyclic garbage collector paused while a decode makes its objects.
//!
//! CPython's collector runs a collection every 700 container objects
//! allocated (its default first threshold), and each one visits every young
//! object still alive. A decode allocates nothing but its result, all alive
//! until it returns: a 1,000-symbol graph decode makes about 5,000 such
//! objects (each `Symbol` with its `Components`, each `Edge`), and the
//! collections it set off while making them were a third of its time
//! (692 µs against 465 µs with the collector off), visiting the result over
//! and over, and none could free anything.
//!
//! The pause only moves that work: once the decode returns, the allocations
//! it counted start the next collection, which visits its objects once if
//! they are still alive and not at all if the caller dropped them first (a
//! request's decode, read and discarded). What the collector does in total
//! is never more than without the pause. The pause is taken only when the
//! collector was enabled (a caller's own `gc.disable()` is left alone) and
//! only for results that can set off a collection; it ends when the
//! objects are made, error or not.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// Results of fewer objects than this take no pause: they may set off one
/// collection at most, and the pause costs three calls into `gc`.
const PAUSE_FROM: usize = 256;

/// `gc.isenabled`, `gc.disable` and `gc.enable`: the `gc` module's functions
/// rather than `PyGC_Disable` and friends, which the stable ABI of Python
/// 3.9 (the default wheel's) does not have.
struct Functions {
    isenabled: Py<PyAny>,
    disable: Py<PyAny>,
    enable: Py<PyAny>,
}

static FUNCTIONS: PyOnceLock<Functions> = PyOnceLock::new();

fn functions(py: Python<'_>) -> PyResult<&Functions> {
    FUNCTIONS.get_or_try_init(py, || {
        let gc = py.import("gc")?;
        Ok(Functions {
            isenabled: gc.getattr("isenabled")?.unbind(),
            disable: gc.getattr("disable")?.unbind(),
            enable: gc.getattr("enable")?.unbind(),
        })
    })
}

/// While alive, the collector is paused (if this paused it); dropping it
/// enables the collector again.
pub struct CollectorPause<'py> {
    enable: Option<Bound<'py, PyAny>>,
}

impl<'py> CollectorPause<'py> {
    /// Pauses the collector for making `objects` container objects, when
    /// that many can set off a collection and the collector is enabled.
    pub fn for_objects(py: Python<'py>, objects: usize) -> PyResult<CollectorPause<'py>> {
        if objects < PAUSE_FROM {
            return Ok(CollectorPause { enable: None });
        }
        let f = functions(py)?;
        if !f.isenabled.bind(py).call0()?.is_truthy()? {
            return Ok(CollectorPause { enable: None });
        }
        f.disable.bind(py).call0()?;
        Ok(CollectorPause {
            enable: Some(f.enable.bind(py).clone()),
        })
    }
}

impl Drop for CollectorPause<'_> {
    fn drop(&mut self) {
        if let Some(enable) = self.enable.take() {
            // `gc.enable()` does not fail; were it to, the collector would
            // stay paused, which loses no object (reference counting frees
            // everything but cycles), so the error is not worth masking the
            // decode's own result with.
            let _ = enable.call0();
        }
    }
}
