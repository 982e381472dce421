//! Python values read in place by the generic encoder: a [`View`] over
//! dicts, lists, strings and numbers, so `encode_generic` builds no core
//! `Value` tree.
//!
//! What a Python object means is `value.rs`'s reading (gcf-python 2.8.0's):
//! the view reads the objects that reading takes as they are (`None`,
//! `bool`, `int` within int64, `float`, `str`, dicts with `str` keys, lists,
//! and the subclasses of dicts, lists and floats, which `value.rs` reads as
//! their base type). Anything else (an int beyond int64, a lone surrogate, a
//! tuple, a `str` or `int` subclass or another object that 2.8.0 writes as
//! `str(obj)`, a non-`str` key) marks the
//! attempt as void when the encoder first asks about it, and so does any
//! error the encoder raises (nesting included); [`encode`] then returns
//! `None` and the caller encodes through the tree, which writes or raises
//! exactly what it always did. The two routes write the same bytes; the
//! tests hold them to it (`tests/test_generic_routes.py`). Checking first
//! would cost a walk over the whole value: the view route exists because
//! walking a Python value is what costs.
//!
//! The encoder reads the value with the GIL held, calling no Python code:
//! no `__str__`, `__eq__`, `__hash__` or `__index__` (members are walked
//! with `PyDict_Next`, never looked up), so nothing can change the value
//! while it is read, and every borrowed reference stays valid.

use std::cell::Cell as Flag;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

use gcf_core::generic::{Cell, Encoder, Name, Shape, View};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::utf8;

/// Whether the view route may be taken: on by default, turned off by the
/// tests of the tree route (`_gcf._view_generic`).
static ENABLED: AtomicBool = AtomicBool::new(true);

thread_local! {
    /// Set when the view met something only the tree reads. Per thread,
    /// though the GIL is held throughout: nothing else runs in between.
    static VOID: Flag<bool> = const { Flag::new(false) };
}

/// Marks the running attempt as void.
#[cold]
fn void() {
    VOID.with(|v| v.set(true));
}

/// Turns the view route on or off and returns whether it was on.
#[pyfunction]
#[pyo3(name = "_view_generic")]
pub fn view_generic(on: bool) -> bool {
    ENABLED.swap(on, Ordering::Relaxed)
}

/// Encodes `data` read in place; `None` when it holds something only the
/// tree reads or the encoder failed, and when the route is off (Python
/// 3.9, Windows: strings are not lent there).
pub fn encode(encoder: &Encoder, data: &Bound<'_, PyAny>) -> Option<String> {
    if !ENABLED.load(Ordering::Relaxed) || !utf8::lending() {
        return None;
    }
    VOID.with(|v| v.set(false));
    let root = PyView {
        obj: data.as_ptr(),
        _life: PhantomData,
    };
    let out = encoder.encode_view(root).ok();
    if VOID.with(|v| v.replace(false)) {
        return None;
    }
    out
}

/// `encode_generic` on the view route alone: its text, or `None` where the
/// tree route would be taken. For the tests, which hold both routes to the
/// same output and check that plain data takes this one.
#[pyfunction]
#[pyo3(name = "_encode_in_place")]
pub fn encode_in_place(data: &Bound<'_, PyAny>) -> Option<String> {
    encode(&Encoder::new(), data)
}

/// A Python value: an object the GIL-holding caller keeps alive for `'a`.
#[derive(Clone, Copy)]
pub struct PyView<'a> {
    obj: *mut ffi::PyObject,
    _life: PhantomData<&'a ()>,
}

/// A dict key (an exact `str`), its text read when asked.
#[derive(Clone, Copy)]
pub struct PyName<'a> {
    obj: *mut ffi::PyObject,
    _life: PhantomData<&'a ()>,
}

impl<'a> Name<'a> for PyName<'a> {
    #[inline]
    fn as_str(self) -> &'a str {
        // SAFETY: a live `str` (the dict holding it outlives 'a), the GIL held.
        unsafe { text(self.obj) }
    }

    /// The rows of a table usually share their key objects (literals and
    /// attribute names are interned), which are then equal without reading.
    #[inline]
    fn same(self, other: Self) -> bool {
        std::ptr::eq(self.obj, other.obj) || self.as_str() == other.as_str()
    }
}

/// The lent text of the `str` at `obj`; `""` and a void attempt for one
/// that is not UTF-8.
///
/// # Safety
///
/// `obj` is a live `str` that outlives `'a`, and the GIL is held.
#[inline]
unsafe fn text<'a>(obj: *mut ffi::PyObject) -> &'a str {
    // SAFETY: the caller's contract.
    match unsafe { utf8::lent_raw(obj) } {
        Some(text) => text,
        None => {
            void();
            ""
        }
    }
}

/// What an object is, by type alone.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Dict,
    List,
    /// Anything else: the tree route reads it.
    Other,
}

/// The kind of `obj`: exact types by pointer first (what real data holds),
/// then the subclasses `value.rs` reads as their base type. Anything else
/// voids the attempt: every value's kind is read before it is written.
///
/// # Safety
///
/// `obj` is a live object and the GIL is held.
#[inline(always)]
unsafe fn kind(obj: *mut ffi::PyObject) -> Kind {
    // SAFETY: the caller's contract; the type objects are static.
    unsafe {
        let ty = ffi::Py_TYPE(obj);
        if ty == &raw mut ffi::PyUnicode_Type {
            Kind::Str
        } else if ty == &raw mut ffi::PyLong_Type {
            Kind::Int
        } else if ty == &raw mut ffi::PyDict_Type {
            Kind::Dict
        } else {
            other_kind(obj, ty)
        }
    }
}

/// [`kind`] past the three commonest exact types.
///
/// # Safety
///
/// As for [`kind`]; `ty` is `obj`'s type.
#[inline(never)]
unsafe fn other_kind(obj: *mut ffi::PyObject, ty: *mut ffi::PyTypeObject) -> Kind {
    // SAFETY: the caller's contract; the type objects are static.
    unsafe {
        if obj == ffi::Py_None() {
            Kind::Null
        } else if ty == &raw mut ffi::PyList_Type {
            Kind::List
        } else if ty == &raw mut ffi::PyFloat_Type {
            Kind::Float
        } else if ty == &raw mut ffi::PyBool_Type {
            Kind::Bool
        } else if ffi::PyDict_Check(obj) != 0 {
            Kind::Dict
        } else if ffi::PyList_Check(obj) != 0 {
            Kind::List
        } else if ffi::PyFloat_Check(obj) != 0 {
            Kind::Float
        } else {
            // `str` and `int` subclasses are `str(obj)` in `value.rs`, which
            // may be a text of their own (`Kind.FILE` for a `(str, Enum)`
            // member): Python code this route does not call.
            void();
            Kind::Other
        }
    }
}

/// The value of an `int` within int64, or `None` beyond it.
///
/// # Safety
///
/// `obj` is a live `int` (or subclass) and the GIL is held.
#[inline]
unsafe fn int64(obj: *mut ffi::PyObject) -> Option<i64> {
    let mut overflow = 0;
    // SAFETY: the caller's contract; for an `int` this calls no Python code.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(obj, &mut overflow) };
    (overflow == 0).then_some(v)
}

/// A streamed row's cell read in place: an exact `str` (its text lent, so
/// only when [`utf8::lending`]), `int` within int64, finite `float`, `bool`
/// or `None`. `None` for anything else (subclasses, containers, other
/// objects, a lone surrogate, a number the core refuses), which the caller
/// reads through `value.rs` instead, so every error and every `str(obj)`
/// stays that route's.
///
/// # Safety
///
/// `obj` is a live object that outlives `'a`, and the GIL is held.
#[inline]
pub unsafe fn exact_cell<'a>(obj: *mut ffi::PyObject) -> Option<Cell<'a>> {
    // SAFETY (whole body): the caller's contract; the type objects are static.
    unsafe {
        let ty = ffi::Py_TYPE(obj);
        if ty == &raw mut ffi::PyUnicode_Type {
            utf8::lent_raw(obj).map(Cell::Str)
        } else if ty == &raw mut ffi::PyLong_Type {
            int64(obj).map(Cell::Int)
        } else if ty == &raw mut ffi::PyFloat_Type {
            Some(ffi::PyFloat_AsDouble(obj))
                .filter(|f| f.is_finite())
                .map(Cell::Float)
        } else if ty == &raw mut ffi::PyBool_Type {
            Some(Cell::Bool(obj == ffi::Py_True()))
        } else if obj == ffi::Py_None() {
            Some(Cell::Null)
        } else {
            None
        }
    }
}

impl<'a> PyView<'a> {
    #[inline]
    fn at(obj: *mut ffi::PyObject) -> PyView<'a> {
        PyView {
            obj,
            _life: PhantomData,
        }
    }

    #[inline]
    fn kind(self) -> Kind {
        // SAFETY: a view's object is live for 'a (its root is held by the
        // caller and every container keeps its members) with the GIL held.
        unsafe { kind(self.obj) }
    }
}

/// A list's items.
#[derive(Clone)]
pub struct Items<'a> {
    list: *mut ffi::PyObject,
    next: ffi::Py_ssize_t,
    end: ffi::Py_ssize_t,
    _life: PhantomData<&'a ()>,
}

impl<'a> Iterator for Items<'a> {
    type Item = PyView<'a>;

    #[inline]
    fn next(&mut self) -> Option<PyView<'a>> {
        if self.next >= self.end {
            return None;
        }
        // SAFETY: a live list (see `PyView::kind`) and an index below the
        // size read when the walk began, which nothing changes.
        let item = unsafe { ffi::PyList_GetItem(self.list, self.next) };
        self.next += 1;
        (!item.is_null()).then(|| PyView::at(item))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.end - self.next).unwrap_or(0);
        (n, Some(n))
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<PyView<'a>> {
        let n = ffi::Py_ssize_t::try_from(n).unwrap_or(ffi::Py_ssize_t::MAX);
        self.next = self.next.saturating_add(n).min(self.end);
        self.next()
    }
}

impl ExactSizeIterator for Items<'_> {}

/// A dict's members, in insertion order.
#[derive(Clone)]
pub struct Members<'a> {
    dict: *mut ffi::PyObject,
    pos: ffi::Py_ssize_t,
    left: usize,
    _life: PhantomData<&'a ()>,
}

impl<'a> Iterator for Members<'a> {
    type Item = (PyName<'a>, PyView<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // SAFETY: a live dict (see `PyView::kind`), which nothing changes
        // while it is read; `pos` is only ever advanced by this call.
        if unsafe { ffi::PyDict_Next(self.dict, &mut self.pos, &mut key, &mut value) } == 0 {
            self.left = 0;
            return None;
        }
        self.left -= 1;
        // SAFETY: a live object (the dict holds it), the GIL held.
        if unsafe { ffi::Py_TYPE(key) } != &raw mut ffi::PyUnicode_Type {
            void();
        }
        let name = PyName {
            obj: key,
            _life: PhantomData,
        };
        Some((name, PyView::at(value)))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}

impl<'a> View<'a> for PyView<'a> {
    type Name = PyName<'a>;
    type Items = Items<'a>;
    type Members = Members<'a>;

    #[inline]
    fn shape(self) -> Shape<'a> {
        // SAFETY (whole body): a live object of the kind just read, with the
        // GIL held.
        unsafe {
            Shape::Scalar(match self.kind() {
                Kind::Str => Cell::Str(text(self.obj)),
                Kind::Int => Cell::Int(int64(self.obj).unwrap_or_else(|| {
                    void();
                    0
                })),
                Kind::Float => Cell::Float(ffi::PyFloat_AsDouble(self.obj)),
                Kind::Bool => Cell::Bool(self.obj == ffi::Py_True()),
                Kind::Dict => return Shape::Object,
                Kind::List => return Shape::Array,
                Kind::Null | Kind::Other => Cell::Null,
            })
        }
    }

    #[inline]
    fn is_scalar(self) -> bool {
        !matches!(self.kind(), Kind::Dict | Kind::List)
    }

    #[inline]
    fn is_object(self) -> bool {
        self.kind() == Kind::Dict
    }

    #[inline]
    fn is_null(self) -> bool {
        self.kind() == Kind::Null
    }

    #[inline]
    fn items(self) -> Items<'a> {
        let end = if self.kind() == Kind::List {
            // SAFETY: a live list, the GIL held.
            unsafe { ffi::PyList_Size(self.obj) }.max(0)
        } else {
            0
        };
        Items {
            list: self.obj,
            next: 0,
            end,
            _life: PhantomData,
        }
    }

    #[inline]
    fn members(self) -> Members<'a> {
        let left = if self.kind() == Kind::Dict {
            // SAFETY: a live dict, the GIL held.
            usize::try_from(unsafe { ffi::PyDict_Size(self.obj) }).unwrap_or(0)
        } else {
            0
        };
        Members {
            dict: self.obj,
            pos: 0,
            left,
            _life: PhantomData,
        }
    }
}
