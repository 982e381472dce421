//! Graph payloads: the fields `gcf.encode` gathers in Python (or the
//! `gcf.types` dataclasses read attribute by attribute) into core types, and
//! decoded payloads built straight into dataclass instances.

use std::borrow::Cow;

use gcf_core::graph::{Edge, Indexed, Location, Payload, Symbol};
use gcf_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyFloat, PyList, PyModule, PyString, PyTuple, PyType};
use pyo3::{intern, Py};

use crate::collector::CollectorPause;
use crate::errors::{input, IntoPy};

/// An object's fields, each read by `getattr`: Python's own attribute
/// semantics (properties, slots, subclasses, duck types).
///
/// Not from the instance `__dict__`, which costs fewer instructions per
/// field once the dict exists but makes CPython 3.11+ build one for each
/// object read (its attributes otherwise live inline), left on the caller's
/// objects (64 bytes each) and paid on the first encode of a payload, the
/// usual case: callgrind.py's 100-symbol payload measured 725.6k
/// instructions to encode a newly built payload through `__dict__` against
/// 664.5k by `getattr` (635.1k against 664.1k encoding the same payload
/// again).
pub struct Fields<'a, 'py> {
    obj: &'a Bound<'py, PyAny>,
}

impl<'a, 'py> Fields<'a, 'py> {
    /// The fields of `obj`.
    pub fn of(obj: &'a Bound<'py, PyAny>) -> Self {
        Fields { obj }
    }

    /// The value of field `name`.
    pub fn get(&self, name: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
        self.obj.getattr(name)
    }

    /// A string field: anything but a `str` is its `str()`, `None` too
    /// (`"None"`), as 2.8.0's f-strings write it.
    pub fn str(&self, name: &Bound<'py, PyString>) -> PyResult<String> {
        str_of(&self.get(name)?)
    }

    /// A string field 2.8.0 writes only when it is truthy (`pack_root`, an
    /// edge's `status`): `None` is the empty string, as those checks read it.
    pub fn optional_str(&self, name: &Bound<'py, PyString>) -> PyResult<String> {
        optional_text_of(&self.get(name)?).map(Cow::into_owned)
    }

    /// A non-negative integer field (`None` is 0; an integral float is taken).
    pub fn uint<T: TryFrom<i128>>(&self, name: &Bound<'py, PyString>) -> PyResult<T> {
        uint_of(name, &self.get(name)?)
    }

    /// A header count (see [`header_count_of`]).
    pub fn header_count(&self, name: &Bound<'py, PyString>) -> PyResult<u64> {
        header_count_of(name, &self.get(name)?)
    }

    /// A float field (`None` is 0.0).
    pub fn float(&self, name: &Bound<'py, PyString>) -> PyResult<f64> {
        float_of(name, &self.get(name)?)
    }

    /// Each item of an iterable field, read by `f` (`None` is empty).
    pub fn list<T>(
        &self,
        name: &Bound<'py, PyString>,
        f: impl Fn(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> PyResult<Vec<T>> {
        list_of(&self.get(name)?, f)
    }
}

/// The value `v` of a payload's `token_budget` or `tokens_used`. 2.8.0
/// writes either into the header only when it is positive, so a negative
/// (or NaN) one is written as no count at all, as there: a caller's `-1`
/// for "no budget" keeps its bytes. Anything else is read as [`uint_of`]
/// reads it (a fractional or infinite one is `out_of_range`: 2.8.0 writes
/// `budget=1.5`, which no decoder reads, its own included).
pub(crate) fn header_count_of(name: &Bound<'_, PyString>, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    let negative = if let Ok(i) = v.extract::<i64>() {
        i < 0
    } else if let Ok(f) = v.cast::<PyFloat>() {
        let f = f.value();
        f.is_nan() || f < 0.0
    } else {
        // A big int, or a number of another type (`Decimal`): compared as
        // 2.8.0 compares it.
        !v.is_none() && v.lt(0).unwrap_or(false)
    };
    if negative {
        return Ok(0);
    }
    uint_of(name, v)
}

/// `v` when it is an exact `int` that fits in an `i64`: one type test and
/// one conversion, before the float test and the general extraction.
#[inline]
fn exact_small_int(v: &Bound<'_, PyAny>) -> Option<i64> {
    if !v.is_exact_instance_of::<pyo3::types::PyInt>() {
        return None;
    }
    let mut overflow = 0;
    // SAFETY: an `int` (checked above), held by `v`, the GIL held. For an
    // `int` the call cannot fail: past `i64` it sets `overflow` and
    // returns -1 without an exception.
    let i = unsafe { pyo3::ffi::PyLong_AsLongLongAndOverflow(v.as_ptr(), &mut overflow) };
    (overflow == 0).then_some(i)
}

/// The value `v` of the integer field `name` (see [`Fields::uint`]).
pub(crate) fn uint_of<T: TryFrom<i128>>(
    name: &Bound<'_, PyString>,
    v: &Bound<'_, PyAny>,
) -> PyResult<T> {
    let py = v.py();
    let wide: i128 = if v.is_none() {
        0
    } else if let Some(i) = exact_small_int(v) {
        // The usual field (`distance`, counts): an `int` that fits.
        i128::from(i)
    } else if let Ok(f) = v.cast::<PyFloat>() {
        // A float straight to its integral value: extracting an integer
        // from it fails anyway, after a deprecation warning on Python 3.9.
        let f = f.value();
        if f.fract() != 0.0 || !f.is_finite() {
            return Err(range(py, name, v)?);
        }
        f as i128
    } else if let Ok(i) = v.extract::<i64>() {
        // The common case first: under the limited API, extracting an
        // i128 goes through shifts and byte arrays.
        i128::from(i)
    } else {
        match v.extract::<i128>() {
            Ok(i) => i,
            Err(_) => {
                let f: f64 = v.extract()?;
                if f.fract() != 0.0 || !f.is_finite() {
                    return Err(range(py, name, v)?);
                }
                f as i128
            }
        }
    };
    match T::try_from(wide) {
        Ok(t) => Ok(t),
        Err(_) => Err(range(py, name, v)?),
    }
}

/// The value `v` of a float field (see [`Fields::float`]).
fn float_of(name: &Bound<'_, PyString>, v: &Bound<'_, PyAny>) -> PyResult<f64> {
    if v.is_none() {
        return Ok(0.0);
    }
    // The TypeError CPython raises (`must be real number, not str`), led by
    // the field it was raised for.
    v.extract::<f64>().map_err(|e: PyErr| {
        let py = v.py();
        if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) {
            pyo3::exceptions::PyTypeError::new_err(format!("{name}: {}", e.value(py)))
        } else {
            e
        }
    })
}

/// Each item of an iterable value, read by `f` (`None` is empty).
fn list_of<'py, T>(
    v: &Bound<'py, PyAny>,
    f: impl Fn(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    if v.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(l) = v.cast::<PyList>() {
        let mut out = Vec::with_capacity(l.len());
        for item in l.iter() {
            out.push(f(&item)?);
        }
        return Ok(out);
    }
    let mut out = Vec::with_capacity(v.len().unwrap_or(0));
    for item in v.try_iter()? {
        out.push(f(&item?)?);
    }
    Ok(out)
}

/// A string field's value as [`Fields::str`] reads it.
fn str_of(v: &Bound<'_, PyAny>) -> PyResult<String> {
    text_of(v).map(Cow::into_owned)
}

/// [`str_of`], borrowed from `v` when it is a `str` whose text the
/// interpreter lends (see `crate::utf8`). Anything else, a `str` subclass
/// and `None` included, is `str(v)`, as 2.8.0's f-strings write it (a
/// `(str, Enum)` member is `Provenance.LSP`, `None` is `None`).
fn text_of<'a>(v: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, str>> {
    match v.cast_exact::<PyString>() {
        Ok(s) => crate::utf8::text(s),
        Err(_) => Ok(Cow::Owned(crate::utf8::text(&v.str()?)?.into_owned())),
    }
}

/// [`text_of`] of a field 2.8.0 writes only when it is truthy (`status`,
/// `pack_root`): `None`, and any other falsy value (`0`, `False`), is the
/// empty string there.
fn optional_text_of<'a>(v: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, str>> {
    if v.is_none() || (!v.is_exact_instance_of::<PyString>() && !v.is_truthy()?) {
        return Ok(Cow::Borrowed(""));
    }
    text_of(v)
}

/// A symbol's `kind` as [`text_of`] reads it, but for a `str` subclass
/// whose text is a kind of the spec's table (a `(str, Enum)` member whose
/// value is `"function"`): 2.8.0 looks the kind up by that text and writes
/// its abbreviation, so it is that text here too.
fn kind_of<'a>(v: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, str>> {
    if !v.is_exact_instance_of::<PyString>() {
        if let Ok(s) = v.cast::<PyString>() {
            let text = crate::utf8::text(s)?;
            if gcf_core::graph::is_known_kind(&text) {
                return Ok(Cow::Owned(text.into_owned()));
            }
        }
    }
    text_of(v)
}

/// Reads a string attribute (see [`Fields::str`]).
pub fn str_attr(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<String> {
    Fields::of(obj).str(name)
}

/// Reads a string attribute 2.8.0 uses only when truthy (see
/// [`Fields::optional_str`]).
pub fn optional_str_attr(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<String> {
    Fields::of(obj).optional_str(name)
}

fn range(py: Python<'_>, name: &Bound<'_, PyString>, v: &Bound<'_, PyAny>) -> PyResult<PyErr> {
    Ok(input(
        py,
        ErrorKind::OutOfRange,
        format!(
            "{} {} is outside its range",
            name.to_cow()?,
            v.repr()?.to_cow()?
        ),
    ))
}

/// Reads a `Symbol`-like object (any object with the attributes).
pub fn symbol(obj: &Bound<'_, PyAny>) -> PyResult<Symbol> {
    with_symbol(obj, |s| Symbol {
        qualified_name: s.qualified_name.into_owned(),
        kind: s.kind.into_owned(),
        score: s.score,
        provenance: s.provenance.into_owned(),
        distance: s.distance,
    })
}

/// Reads a `Symbol`-like object and runs `f` on it, its strings borrowed
/// where they can be (a stream writes the symbol and keeps none of them).
pub fn with_symbol<R>(
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(Symbol<Cow<'_, str>>) -> R,
) -> PyResult<R> {
    let py = obj.py();
    let fields = Fields::of(obj);
    let name = fields.get(intern!(py, "qualified_name"))?;
    let name = text_of(&name)?;
    let kind = fields.get(intern!(py, "kind"))?;
    let kind = kind_of(&kind)?;
    let score = fields.float(intern!(py, "score"))?;
    let provenance = fields.get(intern!(py, "provenance"))?;
    let provenance = text_of(&provenance)?;
    let distance = fields.uint(intern!(py, "distance"))?;
    Ok(f(Symbol {
        qualified_name: name,
        kind,
        score,
        provenance,
        distance,
    }))
}

/// [`with_symbol`] of fields already read: `qualified_name`, `kind`,
/// `score`, `provenance` and `distance`, converted in that order.
pub fn with_symbol_fields<R>(
    [name, kind, score, provenance, distance]: [&Bound<'_, PyAny>; 5],
    f: impl FnOnce(Symbol<Cow<'_, str>>) -> R,
) -> PyResult<R> {
    let py = name.py();
    Ok(f(Symbol {
        qualified_name: text_of(name)?,
        kind: kind_of(kind)?,
        score: float_of(intern!(py, "score"), score)?,
        provenance: text_of(provenance)?,
        distance: uint_of(intern!(py, "distance"), distance)?,
    }))
}

/// [`with_edge`] of fields already read: `source`, `target`, `edge_type`
/// and `status`.
pub fn with_edge_fields<R>(
    [source, target, edge_type, status]: [&Bound<'_, PyAny>; 4],
    f: impl FnOnce(Edge<Cow<'_, str>>) -> R,
) -> PyResult<R> {
    Ok(f(Edge {
        source: text_of(source)?,
        target: text_of(target)?,
        edge_type: text_of(edge_type)?,
        status: optional_text_of(status)?,
    }))
}

/// Reads an `Edge`-like object and runs `f` on it, its strings borrowed as
/// in [`with_symbol`].
pub fn with_edge<R>(
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(Edge<Cow<'_, str>>) -> R,
) -> PyResult<R> {
    let py = obj.py();
    let fields = Fields::of(obj);
    let source = fields.get(intern!(py, "source"))?;
    let source = text_of(&source)?;
    let target = fields.get(intern!(py, "target"))?;
    let target = text_of(&target)?;
    let edge_type = fields.get(intern!(py, "edge_type"))?;
    let edge_type = text_of(&edge_type)?;
    let status = fields.get(intern!(py, "status"))?;
    let status = optional_text_of(&status)?;
    Ok(f(Edge {
        source,
        target,
        edge_type,
        status,
    }))
}

/// Reads an `Edge`-like object.
pub fn edge(obj: &Bound<'_, PyAny>) -> PyResult<Edge> {
    with_edge(obj, |e| Edge {
        source: e.source.into_owned(),
        target: e.target.into_owned(),
        edge_type: e.edge_type.into_owned(),
        status: e.status.into_owned(),
    })
}

/// Each item of an iterable attribute, read by `f`.
pub fn list_attr<T>(
    obj: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    f: impl Fn(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    Fields::of(obj).list(name, f)
}

/// Reads a `Payload`-like object.
pub fn payload(obj: &Bound<'_, PyAny>) -> PyResult<Payload> {
    let py = obj.py();
    let f = Fields::of(obj);
    Ok(Payload {
        tool: f.str(intern!(py, "tool"))?,
        token_budget: f.header_count(intern!(py, "token_budget"))?,
        tokens_used: f.header_count(intern!(py, "tokens_used"))?,
        pack_root: f.optional_str(intern!(py, "pack_root"))?,
        symbols: f.list(intern!(py, "symbols"), symbol)?,
        edges: f.list(intern!(py, "edges"), edge)?,
        ..Payload::default()
    })
}

/// A dataclass of `gcf.types`, and the one-tuple `(cls,)`: the arguments
/// of `object.__new__`, built once rather than per instance (a tuple made
/// and freed per object was a quarter of creating one).
pub struct Class {
    cls: Py<PyType>,
    new_args: Py<PyTuple>,
    /// The class's `tp_new` slot when it is `object.__new__`'s (the class
    /// defines no `__new__`, as the dataclasses do not): then
    /// [`Types::instance`] calls the slot itself, as `type.__call__` does,
    /// without calling `object.__new__` through the interpreter (its
    /// argument checks and call protocol were a third of making an edge).
    object_new_slot: Option<pyo3::ffi::newfunc>,
    /// Whether the class sets attributes by `object.__setattr__` (no
    /// `__setattr__` of its own, as the dataclasses are defined): then
    /// [`Types::instance`] calls it directly.
    generic_setattr: bool,
}

/// The dataclasses of `gcf.types`, looked up once.
pub struct Types {
    pub payload: Class,
    pub symbol: Class,
    pub edge: Class,
    pub delta_payload: Class,
    object_new: Py<PyAny>,
    /// `()`, the arguments an object slot's `tp_new` is called with.
    no_args: Py<PyTuple>,
    /// What a `Symbol` is made of without calling the class, when its
    /// fields are those of 2.8.0's dataclass.
    symbol_defaults: Option<SymbolDefaults>,
}

/// The dataclass `Symbol`'s fields in `__init__`'s order, and the defaults
/// `__init__` gives the two a decoded symbol lacks: `signature`, and
/// `components`, a new `Components` of its own defaults (each its field's
/// default object, as `__init__` assigns it).
struct SymbolDefaults {
    fields: [Py<PyString>; 7],
    signature: Py<PyAny>,
    components: Class,
    component_fields: Vec<(Py<PyString>, Py<PyAny>)>,
}

/// The dataclass fields of `gcf.types.Symbol` and `Components` read once,
/// or `None` when a symbol cannot be made by setting its attributes exactly
/// as its `__init__` would (other fields, a `__post_init__`, a field
/// without a plain default, a class with a `__new__` or `__setattr__` of
/// its own): then symbols are made by calling the class.
fn symbol_defaults<'py>(
    py: Python<'py>,
    m: &Bound<'py, PyModule>,
    symbol: &Class,
    components: Class,
) -> PyResult<Option<SymbolDefaults>> {
    const FIELDS: [&str; 7] = [
        "qualified_name",
        "kind",
        "score",
        "provenance",
        "distance",
        "signature",
        "components",
    ];
    let dataclasses = py.import("dataclasses")?;
    let missing = dataclasses.getattr("MISSING")?;
    let fields_of = |cls: &Bound<'py, PyAny>| -> PyResult<Vec<Bound<'py, PyAny>>> {
        dataclasses
            .call_method1("fields", (cls,))?
            .try_iter()?
            .collect()
    };
    let (symbol_cls, components_cls) = (m.getattr("Symbol")?, m.getattr("Components")?);
    let fast = |c: &Class| c.object_new_slot.is_some() && c.generic_setattr;
    if !fast(symbol) || !fast(&components) {
        return Ok(None);
    }
    for cls in [&symbol_cls, &components_cls] {
        if cls.hasattr(intern!(py, "__post_init__"))? {
            return Ok(None);
        }
    }
    let fields = fields_of(&symbol_cls)?;
    let names = fields
        .iter()
        .map(|f| f.getattr("name")?.extract::<String>())
        .collect::<PyResult<Vec<_>>>()?;
    if names != FIELDS {
        return Ok(None);
    }
    let signature = fields[5].getattr("default")?;
    if signature.is(&missing) || !fields[6].getattr("default_factory")?.is(&components_cls) {
        return Ok(None);
    }
    let mut component_fields = Vec::new();
    for f in fields_of(&components_cls)? {
        let default = f.getattr("default")?;
        if default.is(&missing) {
            return Ok(None);
        }
        let name = f.getattr("name")?.extract::<String>()?;
        component_fields.push((PyString::intern(py, &name).unbind(), default.unbind()));
    }
    Ok(Some(SymbolDefaults {
        fields: FIELDS.map(|n| PyString::intern(py, n).unbind()),
        signature: signature.unbind(),
        components,
        component_fields,
    }))
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

/// The `gcf.types` classes.
pub fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let m = py.import("gcf.types")?;
        let object_new = py
            .import("builtins")?
            .getattr("object")?
            .getattr("__new__")?;
        let get = |n: &str| -> PyResult<Class> {
            let cls = m.getattr(n)?.cast_into::<PyType>()?;
            let object_new_slot = if cls.getattr(intern!(py, "__new__"))?.is(&object_new) {
                // SAFETY: as for `setattro` below. A class without a
                // `__new__` of its own inherits `object`'s slot, so this is
                // the function `object.__new__` calls; null only if the
                // class has no slot at all.
                let slot =
                    unsafe { pyo3::ffi::PyType_GetSlot(cls.as_ptr().cast(), pyo3::ffi::Py_tp_new) };
                // SAFETY: a `Py_tp_new` slot holds a `newfunc` (or null,
                // which `Option<fn>` represents as `None`).
                unsafe {
                    core::mem::transmute::<*mut core::ffi::c_void, Option<pyo3::ffi::newfunc>>(slot)
                }
            } else {
                None
            };
            // SAFETY: a live type object (held by `cls`), the GIL held;
            // `PyType_GetSlot` is stable ABI and reads a heap type's slot
            // (the dataclasses are heap types; for a static type the
            // comparison is only false).
            let setattro = unsafe {
                pyo3::ffi::PyType_GetSlot(cls.as_ptr().cast(), pyo3::ffi::Py_tp_setattro)
            };
            Ok(Class {
                object_new_slot,
                new_args: PyTuple::new(py, [&cls])?.unbind(),
                generic_setattr: setattro == pyo3::ffi::PyObject_GenericSetAttr as *mut _,
                cls: cls.unbind(),
            })
        };
        let symbol = get("Symbol")?;
        let symbol_defaults = symbol_defaults(py, &m, &symbol, get("Components")?)?;
        Ok(Types {
            payload: get("Payload")?,
            symbol,
            edge: get("Edge")?,
            delta_payload: get("DeltaPayload")?,
            object_new: object_new.unbind(),
            no_args: PyTuple::empty(py).unbind(),
            symbol_defaults,
        })
    })
}

/// Sets attribute `name` of `obj`, an instance of `cls`, to `value`.
fn set_field(
    obj: &Bound<'_, PyAny>,
    cls: &Class,
    name: &Bound<'_, PyString>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    if !cls.generic_setattr {
        return obj.setattr(name, value);
    }
    // What `setattr` calls for these classes, without its lookup of the
    // class's `__setattr__` and the name's interning check: about 4 % of a
    // graph decode.
    // SAFETY: three live objects, the GIL held.
    let status =
        unsafe { pyo3::ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
    if status != 0 {
        return Err(PyErr::fetch(obj.py()));
    }
    Ok(())
}

impl Types {
    /// An instance of the dataclass `cls` with `fields` set in order,
    /// without running the generated `__init__` (Python bytecode, and most
    /// of the cost of building a decoded payload). Attributes are set one by
    /// one rather than by replacing `__dict__`: CPython 3.11+ then stores
    /// them in the instance's inline values with keys shared by the class
    /// (no dict per object), which measured 23 % fewer instructions for a
    /// graph decode than building a dict and assigning it.
    pub fn instance<'py>(
        &self,
        py: Python<'py>,
        cls: &Class,
        fields: &[(&Bound<'py, PyString>, Bound<'py, PyAny>)],
    ) -> PyResult<Bound<'py, PyAny>> {
        let obj = self.new_object(py, cls)?;
        for (name, value) in fields {
            set_field(&obj, cls, name, value)?;
        }
        Ok(obj)
    }

    /// A new instance of `cls`, as `object.__new__(cls)` makes it (no
    /// `__init__`, no attributes).
    fn new_object<'py>(&self, py: Python<'py>, cls: &Class) -> PyResult<Bound<'py, PyAny>> {
        match cls.object_new_slot {
            // SAFETY: `object.__new__`'s own slot (see `Class`), called as
            // `type.__call__` calls it: the class, an empty tuple and no
            // keywords, all live, the GIL held. It returns a new reference,
            // or null with the exception set.
            Some(new) => unsafe {
                let obj = new(
                    cls.cls.as_ptr().cast(),
                    self.no_args.as_ptr(),
                    core::ptr::null_mut(),
                );
                Bound::from_owned_ptr_or_err(py, obj)
            },
            None => self.object_new.bind(py).call1(cls.new_args.bind(py)),
        }
    }

    /// A `gcf.types.Symbol`.
    pub fn symbol<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        s: &Symbol<S>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.symbol_of(
            py,
            s,
            [
                PyString::new(py, s.qualified_name.as_ref()),
                PyString::new(py, s.kind.as_ref()),
                PyString::new(py, s.provenance.as_ref()),
            ],
        )
    }

    /// A `gcf.types.Symbol` of `s` whose name, kind and provenance are
    /// `strs`, with the attributes its `__init__` sets, in its order: the
    /// two it defaults are `signature`'s default and a new `Components` of
    /// its defaults (each field's one default object, as in 2.8.0). Made
    /// without running `__init__` (see [`instance`](Self::instance)): with
    /// `object.__new__`'s slot called directly, the two objects and eleven
    /// attributes cost about half of a call of the class (a 100-symbol
    /// decode, with the slot for edges too: 1,054 K -> 922 K instructions).
    /// When the fields are not the expected ones, the class is called.
    fn symbol_of<'py, S>(
        &self,
        py: Python<'py>,
        s: &Symbol<S>,
        [name, kind, provenance]: [Bound<'py, PyString>; 3],
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(d) = &self.symbol_defaults {
            let components = self.new_object(py, &d.components)?;
            for (field, default) in &d.component_fields {
                set_field(&components, &d.components, field.bind(py), default.bind(py))?;
            }
            let symbol = self.new_object(py, &self.symbol)?;
            let distance = s.distance.into_pyobject(py)?;
            let values: [&Bound<'py, PyAny>; 7] = [
                &name,
                &kind,
                &PyFloat::new(py, s.score),
                &provenance,
                &distance,
                d.signature.bind(py),
                &components,
            ];
            for (field, value) in d.fields.iter().zip(values) {
                set_field(&symbol, &self.symbol, field.bind(py), value)?;
            }
            return Ok(symbol);
        }
        // Positional, in field order: qualified_name, kind, score,
        // provenance, distance (signature and components defaulted).
        let args = (
            name,
            kind,
            PyFloat::new(py, s.score),
            provenance,
            s.distance.into_pyobject(py)?,
        );
        self.symbol.cls.bind(py).call1(args)
    }

    /// A `gcf.types.Edge`.
    pub fn edge<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        e: &Edge<S>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.edge_of(
            py,
            [
                PyString::new(py, e.source.as_ref()),
                PyString::new(py, e.target.as_ref()),
                PyString::new(py, e.edge_type.as_ref()),
                PyString::new(py, e.status.as_ref()),
            ],
        )
    }

    /// A `gcf.types.Edge` of source, target, edge type and status.
    fn edge_of<'py>(
        &self,
        py: Python<'py>,
        [source, target, edge_type, status]: [Bound<'py, PyString>; 4],
    ) -> PyResult<Bound<'py, PyAny>> {
        self.instance(
            py,
            &self.edge,
            &[
                (intern!(py, "source"), source.into_any()),
                (intern!(py, "target"), target.into_any()),
                (intern!(py, "edge_type"), edge_type.into_any()),
                (intern!(py, "status"), status.into_any()),
            ],
        )
    }

    /// A list of symbols.
    pub fn symbols<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        ss: &[Symbol<S>],
    ) -> PyResult<Bound<'py, PyList>> {
        // Each symbol and its `Components`.
        let _pause = CollectorPause::for_objects(py, 2 * ss.len())?;
        let l = PyList::empty(py);
        for s in ss {
            l.append(self.symbol(py, s)?)?;
        }
        Ok(l)
    }

    /// A list of edges.
    pub fn edges<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        es: &[Edge<S>],
    ) -> PyResult<Bound<'py, PyList>> {
        let _pause = CollectorPause::for_objects(py, es.len())?;
        let l = PyList::empty(py);
        for e in es {
            l.append(self.edge(py, e)?)?;
        }
        Ok(l)
    }
}

/// Hashes an address (or a short key): the maps below are keyed by object
/// identity, where
/// SipHash (the std default, built against hash flooding of untrusted keys)
/// was the largest single cost of reading a payload (a fifth of a graph
/// encode's instructions, measured with callgrind). Addresses are not
/// attacker-chosen, so a multiply that spreads their bits is enough.
#[derive(Default, Clone, Copy)]
pub struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    // Short strings (dict keys), eight bytes at a time.
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let mut w = [0u8; 8];
        w[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.mix(u64::from_le_bytes(w) ^ (bytes.len() as u64) << 56);
    }

    fn write_u8(&mut self, b: u8) {
        self.mix(u64::from(b));
    }

    fn write_usize(&mut self, addr: usize) {
        // Objects are 16-byte aligned: the low bits carry nothing. The
        // multiply moves the varying bits up into the ones hashbrown uses
        // for its control bytes; the xor brings them back down for the
        // bucket index.
        let h = ((addr as u64) >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

impl AddrHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map keyed by an object's address.
pub type AddrMap<V> =
    std::collections::HashMap<usize, V, std::hash::BuildHasherDefault<AddrHasher>>;

/// The strings of a payload being read, each distinct Python `str` object
/// converted once: a payload names each symbol again in its edges (usually
/// the very same `str` objects) and repeats a few kinds, provenances and
/// edge types, so most fields are objects already converted. Keyed by
/// object identity, which is stable while the payload being read holds the
/// objects; the `str`s seen are held here too, so one made on the fly (a
/// property) cannot be freed and its address reused while the payload is
/// read.
///
/// The text lives in one arena, each string a span of it, and the payload
/// handed to the core borrows it ([`Texts::payload`]): one allocation per
/// string and a reference count per field were a tenth of a graph encode.
pub struct Texts<'py> {
    seen: AddrMap<usize>,
    held: Vec<Bound<'py, PyString>>,
    arena: String,
    spans: Vec<(usize, usize)>,
}

/// A string of [`Texts`]: the index of its span.
type Text = usize;

/// A payload read from Python, its strings still [`Text`]s.
pub struct PayloadTexts<'py> {
    texts: Texts<'py>,
    payload: Payload<Text>,
}

impl<'py> Texts<'py> {
    fn new(strings: usize) -> Self {
        let mut seen = AddrMap::default();
        seen.reserve(strings);
        Texts {
            seen,
            held: Vec::with_capacity(strings),
            // About the length of a qualified name per string: few
            // reallocations for a typical payload.
            arena: String::with_capacity(strings.saturating_mul(32).min(1 << 20)),
            spans: Vec::with_capacity(strings),
        }
    }

    fn push(&mut self, text: &str) -> Text {
        let start = self.arena.len();
        self.arena.push_str(text);
        self.spans.push((start, self.arena.len()));
        self.spans.len() - 1
    }

    /// A string field's value `v` (see [`Fields::str`]).
    fn get(&mut self, f: &Fields<'_, 'py>, name: &Bound<'py, PyString>) -> PyResult<Text> {
        self.value(&f.get(name)?)
    }

    /// A string field's value `v`, read (see [`Fields::str`]).
    fn value(&mut self, v: &Bound<'py, PyAny>) -> PyResult<Text> {
        let s = match v.cast_exact::<PyString>() {
            Ok(s) => s,
            // Not a `str` (or a subclass): read once more only through the
            // value in hand (a property is not run twice).
            Err(_) => {
                let text = str_of(v)?;
                return Ok(self.push(&text));
            }
        };
        let key = s.as_ptr() as usize;
        if let Some(&hit) = self.seen.get(&key) {
            return Ok(hit);
        }
        let text = crate::utf8::with_utf8(s, |t| self.push(t))?;
        self.seen.insert(key, text);
        self.held.push(s.clone());
        Ok(text)
    }

    /// A field 2.8.0 writes only when truthy (see [`optional_text_of`]).
    fn optional(&mut self, v: &Bound<'py, PyAny>) -> PyResult<Text> {
        // 2.8.0's truthiness check: `None`, `0`, `False` are left out.
        if v.is_none() || (!v.is_exact_instance_of::<PyString>() && !v.is_truthy()?) {
            return Ok(self.push(""));
        }
        self.value(v)
    }

    /// A symbol's `kind` (see [`kind_of`]).
    fn kind(&mut self, v: &Bound<'py, PyAny>) -> PyResult<Text> {
        if v.is_exact_instance_of::<PyString>() {
            return self.value(v);
        }
        let text = kind_of(v)?;
        Ok(self.push(&text))
    }

    fn str(&self, t: Text) -> &str {
        // Every `Text` is an index `push` returned, its span on char
        // boundaries of the arena, which only grows.
        self.spans
            .get(t)
            .and_then(|&(a, b)| self.arena.get(a..b))
            .unwrap_or_default()
    }
}

impl<'py> PayloadTexts<'py> {
    /// The payload, borrowing its strings.
    pub fn payload(&self) -> Payload<&str> {
        let t = |i: &Text| self.texts.str(*i);
        let p = &self.payload;
        Payload {
            tool: t(&p.tool),
            token_budget: p.token_budget,
            tokens_used: p.tokens_used,
            pack_root: t(&p.pack_root),
            symbols: p
                .symbols
                .iter()
                .map(|s| Symbol {
                    qualified_name: t(&s.qualified_name),
                    kind: t(&s.kind),
                    score: s.score,
                    provenance: t(&s.provenance),
                    distance: s.distance,
                })
                .collect(),
            edges: p
                .edges
                .iter()
                .map(|e| Edge {
                    source: t(&e.source),
                    target: t(&e.target),
                    edge_type: t(&e.edge_type),
                    status: t(&e.status),
                })
                .collect(),
            locations: p
                .locations
                .iter()
                .map(|l| Location {
                    qualified_name: t(&l.qualified_name),
                    file: t(&l.file),
                    line: l.line,
                    column: l.column,
                    end: l.end,
                })
                .collect(),
            ..Payload::default()
        }
    }

    /// Reads the locations `gcf.encode` gathered: a list of
    /// `(qualified_name, file, line, column, end_line, end_column)` tuples,
    /// the end fields `None` when the location has no end (one `None` of
    /// the two is read as 0, as the JSON bindings read a missing one).
    pub fn read_locations(&mut self, rows: &Bound<'py, PyList>) -> PyResult<()> {
        let py = rows.py();
        let end_field =
            |name: &Bound<'py, PyString>, v: Bound<'py, PyAny>| -> PyResult<Option<u32>> {
                if v.is_none() {
                    Ok(None)
                } else {
                    uint_of(name, &v).map(Some)
                }
            };
        self.payload.locations.reserve(rows.len());
        for row in rows.iter() {
            let row = row.cast_into::<PyTuple>()?;
            if row.len() != 6 {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "a gathered location has six parts",
                ));
            }
            let end_line = end_field(intern!(py, "end_line"), row.get_item(4)?)?;
            let end_column = end_field(intern!(py, "end_column"), row.get_item(5)?)?;
            let location = Location {
                qualified_name: self.texts.value(&row.get_item(0)?)?,
                file: self.texts.value(&row.get_item(1)?)?,
                line: uint_of(intern!(py, "line"), &row.get_item(2)?)?,
                column: uint_of(intern!(py, "column"), &row.get_item(3)?)?,
                end: match (end_line, end_column) {
                    (None, None) => None,
                    (line, column) => Some((line.unwrap_or(0), column.unwrap_or(0))),
                },
            };
            self.payload.locations.push(location);
        }
        Ok(())
    }
}

/// Python strings made once per name and label: in a payload decoded by
/// `graph::decode_indexed`, a name carries its symbol's index and a kind,
/// provenance, edge type or status its label number, so an edge's
/// endpoints are its symbols' very `str`s and labels repeat one object each
/// (the decoded payload holds one object per distinct string, as 2.8.0's
/// does not, saving memory too), found by index without hashing any text.
struct PyStrs<'py> {
    py: Python<'py>,
    /// Symbol `i`'s name.
    names: Vec<Bound<'py, PyString>>,
    /// Label `n`, once made.
    labels: Vec<Option<Bound<'py, PyString>>>,
}

impl<'py> PyStrs<'py> {
    fn name(&mut self, s: &Indexed<'_>) -> Bound<'py, PyString> {
        match s.index().and_then(|i| self.names.get(i)) {
            Some(made) => made.clone(),
            None => PyString::new(self.py, s),
        }
    }

    fn label(&mut self, s: &Indexed<'_>) -> Bound<'py, PyString> {
        let Some(n) = s.index() else {
            return PyString::new(self.py, s);
        };
        if n >= self.labels.len() {
            // Numbered from 0 as labels first appear: below the payload's
            // count of labels.
            self.labels.resize(n + 1, None);
        }
        let py = self.py;
        self.labels[n]
            .get_or_insert_with(|| LABELS.get(py, s))
            .clone()
    }
}

/// The `str`s of labels (kinds, provenances, edge types, statuses) kept
/// across decodes: a small vocabulary that every payload repeats, whose
/// strings were made again by every call (5 % of a 10-symbol decode). A
/// label's first sight in a decode finds it here, or makes it and keeps
/// it: direct-mapped by a hash of its text, so a colliding
/// label only replaces another; labels past [`LabelCache::LONGEST`] bytes
/// are not kept (`tests/test_graph_routes.py`).
struct LabelCache {
    slots: std::sync::Mutex<[Option<KeptLabel>; LabelCache::SLOTS]>,
}

/// A kept label: its text and its `str`.
type KeptLabel = (Box<str>, Py<PyString>);

static LABELS: LabelCache = LabelCache {
    slots: std::sync::Mutex::new([const { None }; LabelCache::SLOTS]),
};

impl LabelCache {
    const SLOTS: usize = 128;
    const LONGEST: usize = 32;

    /// The slot of a label of at most [`LONGEST`](Self::LONGEST) bytes:
    /// its eight-byte chunks and length folded by multiplication, the top
    /// bits taken (the common labels, `function`, `interface`, `calls`,
    /// `imports` and the like, each land apart).
    fn slot(b: &[u8]) -> usize {
        let mut h = b.len() as u64;
        for chunk in b.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        (h >> 57) as usize % Self::SLOTS
    }

    /// The `str` of `text`, kept or made. The lock is held only while a
    /// slot is read or written: making a `str` runs no Python code, but the
    /// caller's other work may.
    fn get<'py>(&self, py: Python<'py>, text: &str) -> Bound<'py, PyString> {
        let b = text.as_bytes();
        if b.is_empty() || b.len() > Self::LONGEST {
            return PyString::new(py, text);
        }
        let slot = Self::slot(b);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kept, s)) = &slots[slot] {
            if **kept == *text {
                return s.bind(py).clone();
            }
        }
        let s = PyString::new(py, text);
        slots[slot] = Some((text.into(), s.clone().unbind()));
        s
    }
}

impl Types {
    /// A `gcf.types.Payload` from a payload decoded with numbered strings.
    pub fn payload_indexed<'py>(
        &self,
        py: Python<'py>,
        p: &Payload<Indexed<'_>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // Each symbol with its `Components`, and each edge.
        let _pause = CollectorPause::for_objects(py, 2 * p.symbols.len() + p.edges.len())?;
        let mut strs = PyStrs {
            py,
            names: Vec::with_capacity(p.symbols.len()),
            labels: Vec::new(),
        };
        let symbols = PyList::empty(py);
        for s in &p.symbols {
            let name = PyString::new(py, &s.qualified_name);
            strs.names.push(name.clone());
            let strs = [name, strs.label(&s.kind), strs.label(&s.provenance)];
            symbols.append(self.symbol_of(py, s, strs)?)?;
        }
        let edges = PyList::empty(py);
        for e in &p.edges {
            let strs = [
                strs.name(&e.source),
                strs.name(&e.target),
                strs.label(&e.edge_type),
                strs.label(&e.status),
            ];
            edges.append(self.edge_of(py, strs)?)?;
        }
        let payload = self.payload_of(py, p, symbols, edges)?;
        located(py, payload, &p.locations, |name| strs.name(name))
    }

    /// A decoded payload of owned strings (a `SessionDecoder`'s) as a
    /// `gcf.types.Payload`, or a `LocatedPayload` when it has locations.
    pub fn payload_owned<'py>(
        &self,
        py: Python<'py>,
        p: &Payload<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (symbols, edges) = (self.symbols(py, &p.symbols)?, self.edges(py, &p.edges)?);
        let payload = self.payload_of(py, p, symbols, edges)?;
        located(py, payload, &p.locations, |name| PyString::new(py, name))
    }

    /// A `gcf.types.Payload` of `p`'s header fields and the lists made
    /// from its symbols and edges.
    /// The objects of the decoded `payload` (a `gcf.types.Payload`) made
    /// again from its own strings and numbers, `times` times over, each
    /// result dropped but the last (returned): a decode's object making
    /// alone, by the same calls, with no text parsed and no `str` made.
    /// For `bench/callgrind.py`, whose decode floor it is (the least this
    /// package's route to the objects costs; see `BENCH.md`).
    pub fn objects_again<'py>(
        &self,
        py: Python<'py>,
        payload: &Bound<'py, PyAny>,
        times: usize,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let text = |o: &Bound<'py, PyAny>, name: &str| -> PyResult<Bound<'py, PyString>> {
            Ok(o.getattr(name)?.cast_into::<PyString>()?)
        };
        let mut symbols = Vec::new();
        for s in payload.getattr("symbols")?.try_iter()? {
            let s = s?;
            let strs = [
                text(&s, "qualified_name")?,
                text(&s, "kind")?,
                text(&s, "provenance")?,
            ];
            let numbers = Symbol::<&str> {
                score: s.getattr("score")?.extract::<f64>()?,
                distance: s.getattr("distance")?.extract::<u32>()?,
                ..Symbol::default()
            };
            symbols.push((strs, numbers));
        }
        let mut edges = Vec::new();
        for e in payload.getattr("edges")?.try_iter()? {
            let e = e?;
            edges.push([
                text(&e, "source")?,
                text(&e, "target")?,
                text(&e, "edge_type")?,
                text(&e, "status")?,
            ]);
        }
        let header = Payload::<String> {
            tool: payload.getattr("tool")?.extract()?,
            tokens_used: payload.getattr("tokens_used")?.extract()?,
            token_budget: payload.getattr("token_budget")?.extract()?,
            pack_root: payload.getattr("pack_root")?.extract()?,
            ..Payload::default()
        };
        let mut last = None;
        for _ in 0..times {
            let symbol_list = PyList::empty(py);
            for (strs, numbers) in &symbols {
                symbol_list.append(self.symbol_of(py, numbers, strs.clone())?)?;
            }
            let edge_list = PyList::empty(py);
            for strs in &edges {
                edge_list.append(self.edge_of(py, strs.clone())?)?;
            }
            last = Some(self.payload_of(py, &header, symbol_list, edge_list)?);
        }
        Ok(last)
    }

    fn payload_of<'py, S: AsRef<str>>(
        &self,
        py: Python<'py>,
        p: &Payload<S>,
        symbols: Bound<'py, PyList>,
        edges: Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.instance(
            py,
            &self.payload,
            &[
                (
                    intern!(py, "tool"),
                    PyString::new(py, p.tool.as_ref()).into_any(),
                ),
                (
                    intern!(py, "tokens_used"),
                    p.tokens_used.into_pyobject(py)?.into_any(),
                ),
                (
                    intern!(py, "token_budget"),
                    p.token_budget.into_pyobject(py)?.into_any(),
                ),
                (
                    intern!(py, "pack_root"),
                    PyString::new(py, p.pack_root.as_ref()).into_any(),
                ),
                (intern!(py, "symbols"), symbols.into_any()),
                (intern!(py, "edges"), edges.into_any()),
            ],
        )
    }
}

/// `payload` itself when `locations` is empty, else a `LocatedPayload` of
/// it and them (text with a `## loc` section, rare: made in Python from the
/// payload and the locations as tuples), each name made by `name`.
fn located<'py, S: AsRef<str>>(
    py: Python<'py>,
    payload: Bound<'py, PyAny>,
    locations: &[Location<S>],
    mut name: impl FnMut(&S) -> Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    if locations.is_empty() {
        return Ok(payload);
    }
    let rows = PyList::empty(py);
    for l in locations {
        let (end_line, end_column) = match l.end {
            Some((line, column)) => (Some(line), Some(column)),
            None => (None, None),
        };
        rows.append((
            name(&l.qualified_name),
            PyString::new(py, l.file.as_ref()),
            l.line,
            l.column,
            end_line,
            end_column,
        ))?;
    }
    py.import(intern!(py, "gcf.types"))?
        .getattr(intern!(py, "_located"))?
        .call1((payload, rows))
}

/// A payload's fields as `gcf.encode.gather` returns them: a list of
/// `(qualified_name, kind, score, provenance, distance)` tuples, a list of
/// `(source, target, edge_type, status)` tuples, then `tool`,
/// `token_budget`, `tokens_used` and `pack_root`.
///
/// Each row is checked to be a tuple of its width and held by a reference:
/// a tuple's items cannot change, so what is read from them (strings lent
/// to the core while it runs without the GIL) stays valid even if the
/// lists are emptied meanwhile.
pub struct Gathered<'py> {
    py: Python<'py>,
    symbols: Vec<Bound<'py, PyTuple>>,
    edges: Vec<Bound<'py, PyTuple>>,
    fields: [Bound<'py, PyAny>; 4],
}

impl<'py> Gathered<'py> {
    /// Splits the tuple `gather` returns.
    pub fn read(t: &Bound<'py, PyTuple>) -> PyResult<Self> {
        if t.len() != 6 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "a gathered payload has six parts",
            ));
        }
        let rows = |list: Bound<'py, PyAny>, width: usize| -> PyResult<Vec<Bound<'py, PyTuple>>> {
            let list = list.cast_into::<PyList>()?;
            let mut rows = Vec::with_capacity(list.len());
            for row in list.iter() {
                let row = row.cast_into_exact::<PyTuple>()?;
                if row.len() != width {
                    return Err(pyo3::exceptions::PyValueError::new_err(
                        "a gathered row has the wrong width",
                    ));
                }
                rows.push(row);
            }
            Ok(rows)
        };
        Ok(Gathered {
            py: t.py(),
            symbols: rows(t.get_item(0)?, 5)?,
            edges: rows(t.get_item(1)?, 4)?,
            fields: [
                t.get_item(2)?,
                t.get_item(3)?,
                t.get_item(4)?,
                t.get_item(5)?,
            ],
        })
    }
}

/// Encodes a payload whose fields `gcf.encode` gathered (see
/// [`gathered_texts`]) with every string lent by the interpreter, so the
/// payload handed to the core borrows the Python strings themselves: no
/// arena, no copy, and an edge's endpoint that is its symbol's very `str`
/// is the same `&str` to the core, whose name lookup then matches it by
/// address. `None` when strings are not lent (Python 3.9, Windows) or a
/// field is neither a `str` nor `None` (its `str()` is made by the arena
/// route, [`gathered_texts`], as is every error about it).
pub fn encode_gathered_lent(gathered: &Gathered<'_>) -> Option<PyResult<String>> {
    if !crate::utf8::lending() {
        return None;
    }
    let Gathered {
        py,
        symbols: symbol_rows,
        edges: edge_rows,
        fields: [tool, token_budget, tokens_used, pack_root],
    } = gathered;
    let py = *py;
    let read = || -> PyResult<Option<Payload<&str>>> {
        let mut payload = Payload {
            token_budget: header_count_of(intern!(py, "token_budget"), token_budget)?,
            tokens_used: header_count_of(intern!(py, "tokens_used"), tokens_used)?,
            symbols: Vec::with_capacity(symbol_rows.len()),
            edges: Vec::with_capacity(edge_rows.len()),
            ..Payload::default()
        };
        for row in symbol_rows {
            let Some(qualified_name) = lent_field(row, 0) else {
                return Ok(None);
            };
            let Some(kind) = lent_field(row, 1) else {
                return Ok(None);
            };
            let score = float_of(intern!(py, "score"), &gathered_item(row, 2))?;
            let Some(provenance) = lent_field(row, 3) else {
                return Ok(None);
            };
            let distance = uint_of(intern!(py, "distance"), &gathered_item(row, 4))?;
            payload.symbols.push(Symbol {
                qualified_name,
                kind,
                score,
                provenance,
                distance,
            });
        }
        for row in edge_rows {
            let (Some(source), Some(target), Some(edge_type), Some(status)) = (
                lent_field(row, 0),
                lent_field(row, 1),
                lent_field(row, 2),
                lent_optional(row, 3),
            ) else {
                return Ok(None);
            };
            payload.edges.push(Edge {
                source,
                target,
                edge_type,
                status,
            });
        }
        let (Some(tool), Some(pack_root)) = (lent_text(tool), lent_optional_text(pack_root)) else {
            return Ok(None);
        };
        payload.tool = tool;
        payload.pack_root = pack_root;
        Ok(Some(payload))
    };
    let payload = match read() {
        Ok(Some(payload)) => payload,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    Some(
        crate::gil::run(
            py,
            crate::gil::items(payload.symbols.len() + payload.edges.len()),
            || gcf_core::graph::encode(&payload),
        )
        .py_err(py, crate::errors::Raise::Other),
    )
}

/// Field `i` of a gathered row as [`lent_text`] reads it.
fn lent_field<'a>(row: &'a Bound<'_, PyTuple>, i: usize) -> Option<&'a str> {
    // SAFETY: the item of a tuple held for 'a, itself held by it; the GIL
    // is held (a `Bound` proves it).
    unsafe { lent_ptr(gathered_item(row, i).as_ptr()) }
}

/// The text of an exact `str` field as the interpreter lends it; `None`
/// for anything else (a subclass and `None` too, which are `str(v)`), or a
/// `str` it cannot lend.
fn lent_text<'a>(v: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    // SAFETY: `v` is held for 'a and the GIL is held.
    unsafe { lent_ptr(v.as_ptr()) }
}

/// [`lent_text`] of a field 2.8.0 writes only when truthy: `None` is `""`.
fn lent_optional_text<'a>(v: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    if v.is_none() {
        return Some("");
    }
    lent_text(v)
}

/// [`lent_optional_text`] of field `i` of a gathered row.
fn lent_optional<'a>(row: &'a Bound<'_, PyTuple>, i: usize) -> Option<&'a str> {
    let item = gathered_item(row, i);
    if item.is_none() {
        return Some("");
    }
    // SAFETY: the item of a tuple held for 'a, itself held by it; the GIL
    // is held (a `Bound` proves it).
    unsafe { lent_ptr(item.as_ptr()) }
}

/// Item `i` of a gathered row. [`Gathered::read`] keeps only rows of their
/// kind's width (five items for a symbol, four for an edge), and every
/// caller passes a constant index below it, so the item is read without
/// the bounds check and error plumbing of `get_borrowed_item` (about 17
/// instructions an item, 3 % of a 100-symbol encode).
#[inline]
fn gathered_item<'a, 'py>(row: &'a Bound<'py, PyTuple>, i: usize) -> Borrowed<'a, 'py, PyAny> {
    debug_assert!(i < row.len());
    // SAFETY: `i` is below the row's width, checked by `Gathered::read`
    // (see above); the row is held for 'a.
    unsafe { row.get_borrowed_item_unchecked(i) }
}

/// [`lent_text`] of the object at `obj`.
///
/// # Safety
///
/// `obj` is a live object that outlives `'a` (and, for a `str`, its text
/// with it, which CPython keeps until the object is freed), and the GIL is
/// held.
unsafe fn lent_ptr<'a>(obj: *mut pyo3::ffi::PyObject) -> Option<&'a str> {
    // SAFETY: the caller's contract.
    unsafe {
        // An exact `str` only: a subclass is `str(obj)` (see `text_of`).
        if pyo3::ffi::Py_TYPE(obj) == &raw mut pyo3::ffi::PyUnicode_Type {
            crate::utf8::lent_raw(obj)
        } else {
            None
        }
    }
}

/// Reads a payload whose fields `gcf.encode` gathered in Python: a list of
/// `(qualified_name, kind, score, provenance, distance)` tuples, a list of
/// `(source, target, edge_type, status)` tuples and the payload's own
/// fields, converted as [`payload_texts`] converts the attributes.
///
/// Python gathers them because its bytecode reads an attribute for a
/// fraction of what `getattr` costs from C: a `LOAD_ATTR` specialises to the
/// class's inline values, where the C API looks the name up in the class
/// and the instance on every call (a 100-symbol payload's 1,300 attributes:
/// about 200 K instructions gathered into tuples, against 330 K by
/// `PyObject_GetAttr` alone, `bindings-python/BENCH.md`).
pub fn gathered_texts<'py>(gathered: &Gathered<'py>) -> PyResult<PayloadTexts<'py>> {
    let Gathered {
        py,
        symbols,
        edges,
        fields: [tool, token_budget, tokens_used, pack_root],
    } = gathered;
    let py = *py;
    let mut texts = Texts::new(symbols.len().saturating_add(16));
    let mut symbol_rows = Vec::with_capacity(symbols.len());
    for row in symbols {
        symbol_rows.push(Symbol {
            qualified_name: texts.value(&gathered_item(row, 0))?,
            kind: texts.kind(&gathered_item(row, 1))?,
            score: float_of(intern!(py, "score"), &gathered_item(row, 2))?,
            provenance: texts.value(&gathered_item(row, 3))?,
            distance: uint_of(intern!(py, "distance"), &gathered_item(row, 4))?,
        });
    }
    let mut edge_rows = Vec::with_capacity(edges.len());
    for row in edges {
        edge_rows.push(Edge {
            source: texts.value(&gathered_item(row, 0))?,
            target: texts.value(&gathered_item(row, 1))?,
            edge_type: texts.value(&gathered_item(row, 2))?,
            status: texts.optional(&gathered_item(row, 3))?,
        });
    }
    let payload = Payload {
        tool: texts.value(tool)?,
        token_budget: header_count_of(intern!(py, "token_budget"), token_budget)?,
        tokens_used: header_count_of(intern!(py, "tokens_used"), tokens_used)?,
        pack_root: texts.optional(pack_root)?,
        symbols: symbol_rows,
        edges: edge_rows,
        ..Payload::default()
    };
    Ok(PayloadTexts { texts, payload })
}

/// Reads a `Payload`-like object for encoding, converting each distinct
/// string object once (see [`Texts`]).
pub fn payload_texts<'py>(obj: &Bound<'py, PyAny>) -> PyResult<PayloadTexts<'py>> {
    let py = obj.py();
    let f = Fields::of(obj);
    let symbols = f.get(intern!(py, "symbols"))?;
    // Distinct strings: about one name per symbol and a few more.
    let hint = symbols.len().unwrap_or(0).saturating_add(16);
    let cache = std::cell::RefCell::new(Texts::new(hint));
    let symbols = list_of(&symbols, |o| {
        let f = Fields::of(o);
        let mut c = cache.borrow_mut();
        Ok(Symbol {
            qualified_name: c.get(&f, intern!(py, "qualified_name"))?,
            kind: c.kind(&f.get(intern!(py, "kind"))?)?,
            score: f.float(intern!(py, "score"))?,
            provenance: c.get(&f, intern!(py, "provenance"))?,
            distance: f.uint(intern!(py, "distance"))?,
        })
    })?;
    let edges = f.list(intern!(py, "edges"), |o| {
        let f = Fields::of(o);
        let mut c = cache.borrow_mut();
        Ok(Edge {
            source: c.get(&f, intern!(py, "source"))?,
            target: c.get(&f, intern!(py, "target"))?,
            edge_type: c.get(&f, intern!(py, "edge_type"))?,
            status: c.optional(&f.get(intern!(py, "status"))?)?,
        })
    })?;
    let mut texts = cache.into_inner();
    let payload = Payload {
        tool: texts.get(&f, intern!(py, "tool"))?,
        token_budget: f.header_count(intern!(py, "token_budget"))?,
        tokens_used: f.header_count(intern!(py, "tokens_used"))?,
        pack_root: texts.optional(&f.get(intern!(py, "pack_root"))?)?,
        symbols,
        edges,
        ..Payload::default()
    };
    Ok(PayloadTexts { texts, payload })
}
