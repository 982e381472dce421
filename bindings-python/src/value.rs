//! Python objects to and from the core's generic [`Value`], read and built
//! directly (no JSON text in between).
//!
//! What a Python object means follows gcf-python 2.8.0, so the drop-in
//! writes what it wrote: `None`, `bool`, `int` (int64 only: beyond it is
//! `out_of_range`, as 2.8.0 raises), `float`, `str`, `dict`, `list`; any
//! other object is the string `str(obj)`, which is what 2.8.0's scalar
//! formatter falls back to (a tuple is therefore a string, not an array).
//! So is a `str` subclass (its text, or what its own `__str__` gives: a
//! `(str, Enum)` member is `Kind.FILE`), and an `int` subclass whose `str()`
//! is not its digits (an `IntEnum` member before Python 3.11).
//!
//! Dict keys follow `json.dumps`: a `str` subclass is its text (2.8.0 writes
//! that for a table column, `str(k)` for a `key=value` line), and where
//! 2.8.0 raises `TypeError` for any other key, an `int`, `float`, `bool` or
//! `None` key is the text `json.dumps` gives it (`"1"`, `"1.5"`, `"true"`,
//! `"null"`), the convention a Python caller's JSON data already follows;
//! any other key raises `json.dumps`'s `TypeError`.

use gcf_core::generic::{Build, Key, Map, Value};
use gcf_core::ErrorKind;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::errors::input;
use crate::graph_py::AddrMap;
use crate::utf8::with_utf8;

/// Deeper than any limit the core accepts, shallow enough for the Rust
/// stack: a cyclic or absurdly deep Python structure stops here with
/// `limit_exceeded` instead of overflowing.
const MAX_DEPTH: usize = 1000;

/// Reads `obj` as a generic value.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    Reader::default().read(obj, 0)
}

/// Converts values, remembering the dict keys it has converted: the rows
/// of a table repeat the same key objects (string literals, interned
/// names), and converting a `str` under the limited API of Python 3.9
/// copies it through a temporary `bytes` object. Keyed by object identity;
/// the map holds a reference to each key object, so no address is reused
/// for another string while it is in use (a `__str__` called on the way
/// could free a dict and its keys).
#[derive(Default)]
pub struct Reader<'py> {
    keys: AddrMap<(Key, Bound<'py, PyString>)>,
}

impl<'py> Reader<'py> {
    fn key(&mut self, k: &Bound<'py, PyString>) -> PyResult<Key> {
        let addr = k.as_ptr() as usize;
        if let Some((key, _)) = self.keys.get(&addr) {
            return Ok(key.clone());
        }
        let key = with_utf8(k, Key::new)?;
        self.keys.insert(addr, (key.clone(), k.clone()));
        Ok(key)
    }

    /// Reads `obj` as a streamed cell, `key=value` line or inline-array
    /// element: as [`read`](Self::read), but a dict or list (which a
    /// streamed line has no form for) is its `str()`, the text 2.8.0's
    /// scalar formatter writes for it (and 2.5.2's stream writes `String(v)`).
    pub fn read_scalar(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        if obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() {
            return Ok(Value::String(with_utf8(&obj.str()?, Key::new)?));
        }
        self.read(obj, 0)
    }

    /// Reads `obj` as a generic value.
    pub fn read(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Value> {
        let py = obj.py();
        if depth > MAX_DEPTH {
            return Err(input(
                py,
                ErrorKind::LimitExceeded,
                format!("value nests deeper than {MAX_DEPTH} levels (or contains itself)"),
            ));
        }
        if gcf_core::stack::exhausted(depth + 1) {
            return Err(input(
                py,
                ErrorKind::LimitExceeded,
                gcf_core::stack::message(depth + 1),
            ));
        }
        if obj.is_none() {
            return Ok(Value::Null);
        }
        // Exact type checks first: they are pointer compares, and `bool` must be
        // seen before `int` (it is a subclass).
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return Ok(Value::String(with_utf8(s, Key::new)?));
        }
        if let Ok(b) = obj.cast_exact::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if obj.is_exact_instance_of::<PyInt>() {
            return int(obj);
        }
        if let Ok(f) = obj.cast_exact::<PyFloat>() {
            return Ok(Value::Float(f.value()));
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            let len = d.len();
            let mut map = Map::with_capacity(len);
            let mut all_str = true;
            for (k, v) in d.iter() {
                let value = self.read(&v, depth + 1)?;
                if let Ok(k) = k.cast_exact::<PyString>() {
                    // A dict's str keys are unique already.
                    map.push_unique(self.key(k)?, value);
                } else {
                    all_str = false;
                    map.push_unique(json_key(&k)?.as_str(), value);
                }
                // Reading a value or key can run Python code (`__str__`),
                // which may change the dict: Python's own error, before the
                // iterator's next step would panic on it.
                if d.len() != len {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(
                        "dictionary changed size during iteration",
                    ));
                }
            }
            if !all_str {
                // str(1) and "1" can collide: the later member wins, in the
                // earlier one's place, as in a dict built from the written
                // text (in linear time: a dict of a million int keys is an
                // ordinary map of ids).
                map = gcf_bind::value::last_wins(map);
            }
            return Ok(Value::Object(map));
        }
        if let Ok(l) = obj.cast::<PyList>() {
            let mut items = Vec::with_capacity(l.len());
            for item in l.iter() {
                items.push(self.read(&item, depth + 1)?);
            }
            return Ok(Value::Array(items));
        }
        if obj.is_instance_of::<PyBool>() {
            return Ok(Value::Bool(obj.is_truthy()?));
        }
        if obj.is_instance_of::<PyInt>() {
            return int_subclass(obj);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return Ok(Value::Float(f.value()));
        }
        // A `str` subclass, as any other object, is `str(obj)`: its own text
        // unless its class defines `__str__`, as a `(str, Enum)` member's
        // does (`Kind.FILE`, what 2.8.0 writes, where `json.dumps` would write
        // its value).
        Ok(Value::String(with_utf8(&obj.str()?, Key::new)?))
    }
}

/// A dict key that is not an exact `str`, as `json.dumps` writes it: a
/// `str` subclass as its text (a `(str, Enum)` member's value), `int` (and
/// its subclasses, an `IntEnum`) as
/// `int.__repr__` gives it, `float` as `float.__repr__` (`NaN`,
/// `Infinity`, `-Infinity` for the non-finite), `True`/`False` as
/// `true`/`false`, `None` as `null`; anything else is `json.dumps`'s
/// `TypeError`.
fn json_key(k: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = k.cast::<PyString>() {
        // Its text, as `json.dumps` writes it, and as 2.8.0 writes a table
        // column named by it (its `key=value` lines write `str(k)`, its
        // columns the text: one rule cannot follow both).
        return Ok(crate::utf8::text(s)?.into_owned());
    }
    if k.is_instance_of::<PyBool>() {
        return Ok(String::from(if k.is_truthy()? { "true" } else { "false" }));
    }
    if k.is_none() {
        return Ok(String::from("null"));
    }
    let py = k.py();
    if k.is_instance_of::<PyInt>() {
        return py
            .get_type::<PyInt>()
            .call_method1("__repr__", (k,))?
            .extract();
    }
    if let Ok(f) = k.cast::<PyFloat>() {
        let x = f.value();
        if x.is_nan() {
            return Ok(String::from("NaN"));
        }
        if x.is_infinite() {
            return Ok(String::from(if x > 0.0 { "Infinity" } else { "-Infinity" }));
        }
        return py
            .get_type::<PyFloat>()
            .call_method1("__repr__", (k,))?
            .extract();
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "keys must be str, int, float, bool or None, not {}",
        k.get_type().name()?
    )))
}

/// An `int` subclass as 2.8.0 writes it, `str(obj)`: its number when that
/// is the number's own text (an `IntEnum` member from Python 3.11 on),
/// else that text as a string (an `IntEnum` member on 3.9 and 3.10 is
/// `Color.RED`).
fn int_subclass(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text = obj.str()?;
    let digits = obj
        .py()
        .get_type::<PyInt>()
        .call_method1(pyo3::intern!(obj.py(), "__repr__"), (obj,))?;
    if text.as_any().eq(&digits)? {
        return int(obj);
    }
    Ok(Value::String(with_utf8(&text, Key::new)?))
}

fn int(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    match obj.extract::<i64>() {
        Ok(i) => Ok(Value::Int(i)),
        Err(_) => Err(input(
            obj.py(),
            ErrorKind::OutOfRange,
            format!(
                "integer {} is outside the canonical int64 domain \
                 [-9223372036854775808, 9223372036854775807]; model larger values as strings",
                obj.str()?.to_cow()?
            ),
        )),
    }
}

/// Builds the Python object for `value`: dicts, lists, str, int, float,
/// bool and None.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Builder::new(py).build(value)
}

/// Builds Python objects, making one `str` per distinct dict key: every
/// row of a decoded table repeats its column names, and a shared key
/// object is created once, hashed once (CPython caches a str's hash) and
/// stored once, where a fresh `str` per member was an eighth of a
/// 1,000-record `decode_generic` (callgrind).
///
/// It builds from a core [`Value`] ([`Builder::build`]) or, as the core's
/// [`Build`], straight from the text during a decode
/// ([`gcf_core::generic::Decoder::decode_into`]): no `Value` tree is made.
pub struct Builder<'py> {
    py: Python<'py>,
    /// The first Python error a [`Build`] call met (the core's builder
    /// calls cannot fail; see [`Builder::finish`]).
    error: Option<PyErr>,
    keys: std::collections::HashMap<
        Key,
        Bound<'py, PyString>,
        std::hash::BuildHasherDefault<crate::graph_py::AddrHasher>,
    >,
    /// The keys of the table whose rows are being built ([`Build::row`]),
    /// by the decoder's number for the table: looked up once per table.
    row_keys: Option<(usize, Vec<Bound<'py, PyString>>)>,
}

impl<'py> Builder<'py> {
    /// A builder with no keys made yet.
    pub fn new(py: Python<'py>) -> Self {
        Builder {
            py,
            error: None,
            keys: Default::default(),
            row_keys: None,
        }
    }

    fn key(&mut self, k: &str) -> Bound<'py, PyString> {
        if let Some(s) = self.keys.get(k) {
            return s.clone();
        }
        let s = PyString::new(self.py, k);
        // Bounded: past this many distinct keys (an object used as a map
        // of ids), caching stops paying and only holds memory.
        if self.keys.len() < 4096 {
            self.keys.insert(Key::from(k), s.clone());
        }
        s
    }

    /// The Python object for `value`.
    pub fn build(&mut self, value: &Value) -> PyResult<Bound<'py, PyAny>> {
        self.build_at(value, 1)
    }

    /// [`build`](Self::build) of a value at nesting `depth`: a value from
    /// the core is at most 128 levels deep, but a small thread stack may
    /// not hold that many (`gcf_core::stack`).
    fn build_at(&mut self, value: &Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
        if !value.is_scalar() && gcf_core::stack::exhausted(depth) {
            return Err(input(
                self.py,
                ErrorKind::LimitExceeded,
                gcf_core::stack::message(depth),
            ));
        }
        Ok(match value {
            Value::Array(items) => {
                let list = PyList::empty(self.py);
                for item in items {
                    list.append(self.build_at(item, depth + 1)?)?;
                }
                list.into_any()
            }
            Value::Object(map) => self.dict_at(map, depth)?.into_any(),
            scalar => Build::repeated(self, scalar),
        })
    }

    /// `value` as a decode's result: the first error a [`Build`] call met,
    /// if any, else `value`.
    pub fn finish(&mut self, value: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }

    /// Keeps `e` (the first one) for [`Builder::finish`] and stands in
    /// `None` for the object that failed.
    #[cold]
    fn fail(&mut self, e: PyErr) -> Bound<'py, PyAny> {
        self.error.get_or_insert(e);
        self.py.None().into_bound(self.py)
    }

    /// A dict of `map`'s members in order.
    pub fn dict(&mut self, map: &Map) -> PyResult<Bound<'py, PyDict>> {
        self.dict_at(map, 1)
    }

    /// [`dict`](Self::dict) of an object at nesting `depth`.
    fn dict_at(&mut self, map: &Map, depth: usize) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(self.py);
        for (k, v) in map.iter() {
            d.set_item(self.key(k), self.build_at(v, depth + 1)?)?;
        }
        Ok(d)
    }
}

/// Decoding straight into Python objects (see [`Builder`]).
impl<'py> Build for Builder<'py> {
    type Value = Bound<'py, PyAny>;

    fn scalar(&mut self, value: Value) -> Bound<'py, PyAny> {
        self.repeated(&value)
    }

    fn string(&mut self, text: &str) -> Bound<'py, PyAny> {
        PyString::new(self.py, text).into_any()
    }

    fn repeated(&mut self, value: &Value) -> Bound<'py, PyAny> {
        let py = self.py;
        match value {
            Value::Null => py.None().into_bound(py),
            Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Value::Int(i) => match i.into_pyobject(py) {
                Ok(i) => i.into_any(),
                Err(never) => match never {},
            },
            Value::Float(f) => PyFloat::new(py, *f).into_any(),
            Value::String(s) => PyString::new(py, s).into_any(),
            // The decoder hands scalars only; a container is built whole.
            Value::Array(_) | Value::Object(_) => match self.build(value) {
                Ok(v) => v,
                Err(e) => self.fail(e),
            },
        }
    }

    fn array(&mut self, items: Vec<Bound<'py, PyAny>>) -> Bound<'py, PyAny> {
        match PyList::new(self.py, items) {
            Ok(list) => list.into_any(),
            Err(e) => self.fail(e),
        }
    }

    fn object(&mut self, mut members: Vec<(Key, Bound<'py, PyAny>)>) -> Bound<'py, PyAny> {
        self.object_from(&mut members)
    }

    fn object_from(&mut self, members: &mut Vec<(Key, Bound<'py, PyAny>)>) -> Bound<'py, PyAny> {
        let d = PyDict::new(self.py);
        for (k, v) in members.drain(..) {
            if let Err(e) = d.set_item(self.key(&k), v) {
                return self.fail(e);
            }
        }
        d.into_any()
    }

    fn row(
        &mut self,
        table: usize,
        keys: &[Key],
        values: &mut Vec<Bound<'py, PyAny>>,
    ) -> Bound<'py, PyAny> {
        let row_keys = match self.row_keys.take() {
            Some((t, made)) if t == table => made,
            _ => keys.iter().map(|k| self.key(k)).collect(),
        };
        let d = PyDict::new(self.py);
        let mut failed = None;
        for (k, v) in row_keys.iter().zip(values.drain(..)) {
            if let Err(e) = d.set_item(k, v) {
                failed = Some(e);
                break;
            }
        }
        self.row_keys = Some((table, row_keys));
        match failed {
            Some(e) => self.fail(e),
            None => d.into_any(),
        }
    }
}
