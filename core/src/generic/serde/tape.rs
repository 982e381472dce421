//! `to_string`'s fast route: a value serialized into one flat tape (nodes in
//! document order, strings in one text arena, each object's member names a
//! run of one key list) that the encoder reads in place through [`View`],
//! instead of a [`Value`](super::super::Value) tree with a vector per object
//! and a heap string per long text. Building and dropping that tree was four
//! fifths of encoding a table of structs.
//!
//! A struct's field names are `&'static str`s, so the records of one type
//! name their fields with the same pointers: an object whose names are the
//! ones of the object closed before it at the same depth shares their run,
//! and the encoder is told so
//! ([`View::record_shape`](super::super::View::record_shape)) and skips
//! comparing them row by row.
//!
//! The tape gives up ([`Refused`]) where the tree's rules need more than
//! one pass: a repeated key (the tree keeps its first place and last value)
//! and serde_json's private number and raw-value structs; [`to_string`]
//! then takes the tree route, whose output is the same by construction.
//!
//! [`to_string`]: super::to_string

use alloc::string::String;
use alloc::vec::Vec;

use ::serde::ser::{self, Serialize};

use crate::error::{Error, ErrorKind};

use super::super::flat::{self, Flat};
use super::super::Cell;
use super::ser::{capacity_hint, scalar_methods, KeySerializer, JSON_RAW_VALUE};
use super::JSON_NUMBER;

/// One value of the tape.
type Node = flat::Node<Scalar>;

/// A scalar; text lives in the arena.
#[derive(Clone, Copy)]
pub(super) enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str { start: u32, len: u32 },
}

/// A member name: a struct's field, or a map key's text in the arena.
#[derive(Clone, Copy)]
pub(super) enum KeyRef {
    Static(&'static str),
    Text { start: u32, len: u32 },
}

/// Why the tape stopped: the tree route takes over, or a real error.
#[derive(Debug)]
pub(super) enum Refused {
    /// A shape the tape does not carry (see the module docs).
    TreeRoute,
    Failed(Error),
}

impl core::fmt::Display for Refused {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Refused::TreeRoute => f.write_str("the value takes the tree route"),
            Refused::Failed(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: core::fmt::Display>(message: T) -> Self {
        Refused::Failed(<Error as ser::Error>::custom(message))
    }
}

impl From<Error> for Refused {
    fn from(e: Error) -> Refused {
        Refused::Failed(e)
    }
}

/// The serialized value.
pub(super) struct Tape {
    nodes: Vec<Node>,
    keys: Vec<KeyRef>,
    text: String,
    /// Per depth, the keys an open object has named so far (reused
    /// buffers: records of one shape do not allocate them again).
    pending: Vec<Vec<KeyRef>>,
    /// Per depth, the run of keys of the last object closed there.
    last_run: Vec<Option<(u32, u32)>>,
}

fn index(n: usize) -> Result<u32, Refused> {
    u32::try_from(n).map_err(|_| {
        Refused::Failed(Error::new(
            ErrorKind::LimitExceeded,
            "the value is too large to encode in one payload",
        ))
    })
}

impl Tape {
    /// `value` on a tape.
    pub(super) fn of<T: Serialize + ?Sized>(value: &T) -> Result<Tape, Refused> {
        let mut tape = Tape {
            nodes: Vec::new(),
            keys: Vec::new(),
            text: String::new(),
            pending: Vec::new(),
            last_run: Vec::new(),
        };
        value.serialize(TapeSerializer {
            tape: &mut tape,
            depth: 0,
        })?;
        Ok(tape)
    }

    fn push(&mut self, scalar: Scalar) -> Result<(), Refused> {
        self.nodes.push(Node::Scalar(scalar));
        Ok(())
    }

    fn push_text(&mut self, text: &str) -> Result<Scalar, Refused> {
        let start = index(self.text.len())?;
        let len = index(text.len())?;
        self.text.push_str(text);
        Ok(Scalar::Str { start, len })
    }

    /// Opens a container: its node is written when it closes.
    fn open(&mut self) -> usize {
        self.nodes.push(Node::Scalar(Scalar::Null));
        self.nodes.len() - 1
    }

    fn key_text(&self, key: KeyRef) -> &str {
        match key {
            KeyRef::Static(s) => s,
            KeyRef::Text { start, len } => self
                .text
                .get(start as usize..(start + len) as usize)
                .unwrap_or_default(),
        }
    }
}

struct TapeSerializer<'t> {
    tape: &'t mut Tape,
    depth: usize,
}

/// An open array or object.
pub(super) struct Open<'t> {
    tape: &'t mut Tape,
    depth: usize,
    at: usize,
    len: u32,
    scalars: bool,
    /// An enum variant's name: the container closes inside `{name: ...}`.
    variant: Option<usize>,
}

impl<'t> TapeSerializer<'t> {
    fn open(self, object: bool, variant: Option<&'static str>) -> Result<Open<'t>, Refused> {
        let TapeSerializer { tape, depth } = self;
        let outer = match variant {
            Some(name) => Some(open_variant(tape, depth, name)?),
            None => None,
        };
        let depth = depth + usize::from(outer.is_some());
        let at = tape.open();
        if object {
            if tape.pending.len() <= depth {
                tape.pending.resize_with(depth + 1, Vec::new);
            }
            tape.pending[depth].clear();
        }
        Ok(Open {
            tape,
            depth,
            at,
            len: 0,
            scalars: true,
            variant: outer,
        })
    }

    fn cell(self, cell: Cell<'_>) -> Result<(), Refused> {
        let scalar = match cell {
            Cell::Bool(b) => Scalar::Bool(b),
            Cell::Int(i) => Scalar::Int(i),
            Cell::Float(f) => Scalar::Float(f),
            Cell::Str(s) => self.tape.push_text(s)?,
            Cell::Null | Cell::Missing => Scalar::Null,
        };
        self.tape.push(scalar)
    }
}

/// `{"Variant": ...}`: an object of one member whose value follows.
fn open_variant(tape: &mut Tape, depth: usize, name: &'static str) -> Result<usize, Refused> {
    let at = tape.open();
    let keys = index(tape.keys.len())?;
    tape.keys.push(KeyRef::Static(name));
    // A one-member object has its own run; it shares nothing.
    tape.nodes[at] = Node::Object {
        len: 1,
        end: 0,
        keys,
        scalars: false,
    };
    let _ = depth;
    Ok(at)
}

impl Open<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        let before = self.tape.nodes.len();
        value.serialize(TapeSerializer {
            tape: self.tape,
            depth: self.depth + 1,
        })?;
        if !matches!(self.tape.nodes.get(before), Some(Node::Scalar(_))) {
            self.scalars = false;
        }
        self.len = self.len.checked_add(1).ok_or_else(|| {
            Refused::Failed(Error::new(ErrorKind::LimitExceeded, "too many members"))
        })?;
        Ok(())
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: KeyRef, value: &T) -> Result<(), Refused> {
        self.tape.pending[self.depth].push(key);
        self.element(value)
    }

    fn close_array(self) -> Result<(), Refused> {
        let end = index(self.tape.nodes.len())?;
        self.tape.nodes[self.at] = Node::Array { len: self.len, end };
        self.close_variant(end)
    }

    fn close_object(self) -> Result<(), Refused> {
        let tape = &mut *self.tape;
        let end = index(tape.nodes.len())?;
        if tape.last_run.len() <= self.depth {
            tape.last_run.resize(self.depth + 1, None);
        }
        let pending = &tape.pending[self.depth];
        let shared = tape.last_run[self.depth].filter(|&(start, len)| {
            len as usize == pending.len()
                && tape.keys[start as usize..(start + len) as usize]
                    .iter()
                    .zip(pending)
                    .all(|(a, b)| same_key(tape, *a, *b))
        });
        let keys = match shared {
            Some((start, _)) => start,
            None => {
                if repeats(tape, pending) {
                    return Err(Refused::TreeRoute);
                }
                let start = index(tape.keys.len())?;
                let pending = core::mem::take(&mut tape.pending[self.depth]);
                tape.keys.extend_from_slice(&pending);
                tape.pending[self.depth] = pending;
                tape.last_run[self.depth] = Some((start, self.len));
                start
            }
        };
        tape.nodes[self.at] = Node::Object {
            len: self.len,
            end,
            keys,
            scalars: self.scalars,
        };
        self.close_variant(end)
    }

    fn close_variant(self, end: u32) -> Result<(), Refused> {
        if let Some(at) = self.variant {
            if let Node::Object { end: e, .. } = &mut self.tape.nodes[at] {
                *e = end;
            }
        }
        Ok(())
    }
}

fn same_key(tape: &Tape, a: KeyRef, b: KeyRef) -> bool {
    match (a, b) {
        (KeyRef::Static(x), KeyRef::Static(y)) if core::ptr::eq(x, y) => true,
        _ => tape.key_text(a) == tape.key_text(b),
    }
}

/// Whether an object names a member twice: pairwise for the few members of
/// real records, hashed past that.
fn repeats(tape: &Tape, keys: &[KeyRef]) -> bool {
    if keys.len() <= 16 {
        return keys
            .iter()
            .enumerate()
            .any(|(i, &k)| keys[..i].iter().any(|&j| same_key(tape, j, k)));
    }
    let mut seen = crate::hash::set_with_capacity(keys.len());
    !keys.iter().all(|&k| seen.insert(tape.key_text(k)))
}

impl<'t> ser::Serializer for TapeSerializer<'t> {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = Open<'t>;
    type SerializeTuple = Open<'t>;
    type SerializeTupleStruct = Open<'t>;
    type SerializeTupleVariant = Open<'t>;
    type SerializeMap = MapOpen<'t>;
    type SerializeStruct = Open<'t>;
    type SerializeStructVariant = Open<'t>;

    scalar_methods!();

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Refused> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        let TapeSerializer { tape, depth } = self;
        let at = open_variant(tape, depth, variant)?;
        value.serialize(TapeSerializer {
            tape: &mut *tape,
            depth: depth + 1,
        })?;
        let end = index(tape.nodes.len())?;
        let scalar = matches!(tape.nodes.get(at + 1), Some(Node::Scalar(_)));
        if let Node::Object {
            end: e, scalars, ..
        } = &mut tape.nodes[at]
        {
            *e = end;
            *scalars = scalar;
        }
        Ok(())
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Open<'t>, Refused> {
        self.tape.nodes.reserve(capacity_hint(len));
        self.open(false, None)
    }
    fn serialize_tuple(self, len: usize) -> Result<Open<'t>, Refused> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Open<'t>, Refused> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Open<'t>, Refused> {
        self.open(false, Some(variant))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapOpen<'t>, Refused> {
        Ok(MapOpen {
            open: self.open(true, None)?,
        })
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Open<'t>, Refused> {
        if name == JSON_NUMBER || name == JSON_RAW_VALUE {
            return Err(Refused::TreeRoute);
        }
        self.open(true, None)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Open<'t>, Refused> {
        self.open(true, Some(variant))
    }
}

/// An array, tuple, tuple struct or tuple variant: items, then the close.
macro_rules! items_of_open {
    ($($trait:ident::$method:ident),*) => {$(
        impl ser::$trait for Open<'_> {
            type Ok = ();
            type Error = Refused;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
                self.element(value)
            }
            fn end(self) -> Result<(), Refused> {
                self.close_array()
            }
        }
    )*};
}
items_of_open!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// A struct or struct variant: named members, then the close.
macro_rules! fields_of_open {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Open<'_> {
            type Ok = ();
            type Error = Refused;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Refused> {
                self.member(KeyRef::Static(key), value)
            }
            fn end(self) -> Result<(), Refused> {
                self.close_object()
            }
        }
    )*};
}
fields_of_open!(SerializeStruct, SerializeStructVariant);

/// An open map: keys are written out as text (serde_json's key rules).
pub(super) struct MapOpen<'t> {
    open: Open<'t>,
}

impl ser::SerializeMap for MapOpen<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Refused> {
        let key = key.serialize(KeySerializer)?;
        let tape = &mut *self.open.tape;
        let (start, len) = (index(tape.text.len())?, index(key.len())?);
        tape.text.push_str(key.as_str());
        tape.pending[self.open.depth].push(KeyRef::Text { start, len });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.open.element(value)
    }
    fn end(self) -> Result<(), Refused> {
        let pending = self.open.tape.pending[self.open.depth].len();
        if pending != self.open.len as usize {
            return Err(Refused::Failed(Error::new(
                ErrorKind::InvalidInput,
                "a map key was serialized without its value",
            )));
        }
        self.open.close_object()
    }
}

impl<'t> Flat<'t> for Tape {
    type Scalar = Scalar;
    type Key = KeyRef;

    #[inline]
    fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    #[inline]
    fn keys(&self) -> &[KeyRef] {
        &self.keys
    }

    #[inline(always)]
    fn cell(&'t self, scalar: Scalar) -> Cell<'t> {
        match scalar {
            Scalar::Null => Cell::Null,
            Scalar::Bool(b) => Cell::Bool(b),
            Scalar::Int(i) => Cell::Int(i),
            Scalar::Float(f) => Cell::Float(f),
            Scalar::Str { start, len } => Cell::Str(
                self.text
                    .get(start as usize..(start + len) as usize)
                    .unwrap_or_default(),
            ),
        }
    }

    #[inline]
    fn key(&'t self, key: KeyRef) -> &'t str {
        self.key_text(key)
    }
}
