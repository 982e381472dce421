//! What the decoder builds its output with.
//!
//! The parser finds scalars, arrays and objects; a [`Build`] turns each into
//! the caller's own value as soon as it is complete. [`ValueBuilder`] makes the
//! core's [`Value`]; a binding implements [`Build`] for its host's objects
//! (Python dicts and lists, say), so a decode into them makes no
//! intermediate tree: every container is built once, in the host, straight
//! from the text.
//!
//! The decoder owns everything a strict decode checks (duplicate keys, counts,
//! limits, the expansion budget): a builder only ever receives members with
//! distinct keys and containers within the limits, and cannot make a decode
//! accept what the spec rejects.

use alloc::vec::Vec;

use crate::generic::{Key, Map, Value};

/// A builder of decoded values: the decoder hands it every scalar, array
/// and object as soon as it is complete, so a host can decode into its own
/// objects with no [`Value`] tree in between ([`Decoder::decode_into`]).
/// The decoder keeps every check of a strict decode to itself: a builder
/// is only ever handed distinct keys and containers within the limits.
///
/// [`Decoder::decode_into`]: super::Decoder::decode_into
///
/// Each method returns the finished value and cannot fail: a decode calls
/// them per cell, where a `Result` cost the core's own decode a measurable
/// share. A host that can fail to make an object (out of memory) keeps its
/// first error beside the builder, returns a placeholder, and reports that
/// error once the decode returns.
///
/// ```
/// use gcf_core::generic::{Build, Decoder, Key, Value};
///
/// /// Counts what a document holds instead of building it.
/// #[derive(Default)]
/// struct Census { scalars: usize, arrays: usize, objects: usize }
///
/// impl Build for Census {
///     type Value = ();
///     fn scalar(&mut self, _: Value) { self.scalars += 1 }
///     fn array(&mut self, _: Vec<()>) { self.arrays += 1 }
///     fn object(&mut self, _: Vec<(Key, ())>) { self.objects += 1 }
/// }
///
/// let mut census = Census::default();
/// Decoder::new().decode_into("GCF profile=generic\n## rows [2]{id,tags}\n1|-\n2|x\n", &mut census)?;
/// // Two rows of two cells; the rows, their array, and the root object.
/// assert_eq!((census.scalars, census.arrays, census.objects), (4, 1, 3));
/// # Ok::<(), gcf_core::Error>(())
/// ```
pub trait Build {
    /// A finished value.
    type Value;

    /// A scalar the document wrote: [`Value::Null`], [`Value::Bool`],
    /// [`Value::Int`], [`Value::Float`] or [`Value::String`], never a
    /// container.
    fn scalar(&mut self, value: Value) -> Self::Value;

    /// A string scalar: [`scalar`](Self::scalar) of [`Value::String`] by
    /// default. The decoder hands every bare (unquoted) string of a table
    /// cell or a whole-line value (`key=value`, `@N =value`, a root
    /// `=value`) over this way, borrowed from the input itself, so a
    /// builder that copies the text into its own objects makes no [`Key`]
    /// for them, and one that knows the input can lend it.
    fn string(&mut self, text: &str) -> Self::Value {
        self.scalar(Value::String(Key::from(text)))
    }

    /// A scalar written once and received by many rows (a constant column,
    /// spec §7.4.7; a group's value, §7.4.8): called once per row that
    /// holds it.
    fn repeated(&mut self, value: &Value) -> Self::Value {
        self.scalar(value.clone())
    }

    /// An array of the given items, in order.
    fn array(&mut self, items: Vec<Self::Value>) -> Self::Value;

    /// An inline array (`key[N]: a,b,c`), whose items are all scalars.
    fn scalar_array(&mut self, items: Vec<Value>) -> Self::Value {
        let built = items.into_iter().map(|item| self.scalar(item)).collect();
        self.array(built)
    }

    /// An object of the given members, in document order, their keys
    /// distinct.
    fn object(&mut self, members: Vec<(Key, Self::Value)>) -> Self::Value;

    /// [`object`](Self::object) of the members in `members`, leaving it
    /// empty. The decoder hands each table row's members over this way, in
    /// one vector reused row after row: a builder that only reads the
    /// members (into host objects) overrides it to keep that vector's
    /// allocation, one allocation fewer per row; the default moves the
    /// vector into [`object`](Self::object).
    fn object_from(&mut self, members: &mut Vec<(Key, Self::Value)>) -> Self::Value {
        self.object(core::mem::take(members))
    }

    /// A table row holding every one of its table's members: `keys[i]`
    /// names `values[i]`, and the decoder empties `values` afterwards
    /// (an override may leave it empty itself). Rows of one table are
    /// handed over with the same `table` number and the same `keys`; each
    /// table of a document has its own number, so a builder can keep what
    /// it makes of the keys once per table (host key objects, a shape)
    /// instead of per row. Rows missing a member, or with members of their
    /// own (attachments), come through [`object_from`](Self::object_from).
    /// The default pairs the keys with the values for
    /// [`object`](Self::object).
    fn row(&mut self, table: usize, keys: &[Key], values: &mut Vec<Self::Value>) -> Self::Value {
        let _ = table;
        let members = keys.iter().cloned().zip(values.drain(..)).collect();
        self.object(members)
    }
}

/// The [`Build`] that makes the core's [`Value`], as
/// [`Decoder::decode`](super::Decoder::decode) does.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValueBuilder;

impl Build for ValueBuilder {
    type Value = Value;

    #[inline]
    fn scalar(&mut self, value: Value) -> Value {
        value
    }

    #[inline]
    fn array(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }

    #[inline]
    fn scalar_array(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }

    #[inline]
    fn object(&mut self, members: Vec<(Key, Value)>) -> Value {
        Value::Object(Map::from_unique(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::Decoder;
    use alloc::string::String;

    /// Builds values like [`ValueBuilder`] and notes what it is handed:
    /// every whole row (its table's number and keys) and every string that
    /// comes borrowed; with `leave_members`, it leaves the members
    /// `object_from` hands it in place, against that method's contract.
    #[derive(Default)]
    struct Probe {
        leave_members: bool,
        rows: Vec<(usize, Vec<String>)>,
        borrowed: Vec<String>,
        string_values: usize,
    }

    impl Build for Probe {
        type Value = Value;

        fn scalar(&mut self, value: Value) -> Value {
            if matches!(value, Value::String(_)) {
                self.string_values += 1;
            }
            value
        }

        fn string(&mut self, text: &str) -> Value {
            self.borrowed.push(String::from(text));
            Value::from(text)
        }

        fn array(&mut self, items: Vec<Value>) -> Value {
            Value::Array(items)
        }

        fn object(&mut self, members: Vec<(Key, Value)>) -> Value {
            Value::Object(Map::from_unique(members))
        }

        fn object_from(&mut self, members: &mut Vec<(Key, Value)>) -> Value {
            if self.leave_members {
                return self.object(members.clone());
            }
            self.object(core::mem::take(members))
        }

        fn row(&mut self, table: usize, keys: &[Key], values: &mut Vec<Value>) -> Value {
            self.rows.push((
                table,
                keys.iter().map(|k| String::from(k.as_str())).collect(),
            ));
            let members = keys.iter().cloned().zip(values.drain(..)).collect();
            self.object(members)
        }
    }

    #[test]
    fn whole_rows_come_with_their_tables_keys_and_number() {
        let text = "GCF profile=generic\n\
                    ## a [3]{id,name}\n1|x\n2|-\n3|z\n\
                    ## b [2]{id,kind=fn,n}\n1|2\n3|4\n\
                    ## c [1]{id,\"p>q\"}\n1|2\n\
                    ## m [2:]{key,x}\nk|1\nl|2\n";
        let want = Decoder::new().decode(text).unwrap();
        let mut notes = Probe::default();
        let got = Decoder::new().decode_into(text, &mut notes).unwrap();
        assert_eq!(got, want);
        let keys = |ks: &[&str]| ks.iter().map(|k| String::from(*k)).collect::<Vec<_>>();
        let tables: Vec<usize> = notes.rows.iter().map(|(t, _)| *t).collect();
        // Table `a`'s three rows (the null is a value), `b`'s two with the
        // constant in declaration order, none of `c` (a path column nests
        // its members), and the keyed map's two (its key column is no member).
        assert_eq!(notes.rows.len(), 7, "{:?}", notes.rows);
        assert!(tables[..3].iter().all(|&t| t == tables[0]));
        assert!(tables[3..5].iter().all(|&t| t == tables[3]));
        assert!(tables[5..].iter().all(|&t| t == tables[5]));
        assert!(tables[0] != tables[3] && tables[3] != tables[5] && tables[0] != tables[5]);
        assert_eq!(notes.rows[0].1, keys(&["id", "name"]));
        assert_eq!(notes.rows[3].1, keys(&["id", "kind", "n"]));
        assert_eq!(notes.rows[5].1, keys(&["x"]));
    }

    #[test]
    fn rows_short_of_a_member_or_with_attachments_are_not_whole() {
        // Row 2 lacks `name` (`~`); the order rows' markers are filled by
        // their attachments, so those rows are whole; the items tables
        // under them are tables of their own, each with its number.
        let text = "GCF profile=generic\n## t [3]{id,name}\n1|x\n2|~\n3|z\n\
                    ## o [2]{id,c,items}\n@0 1|^{n,e,t}|^\nA|a@x|p\n.items [1]{sku}\n    S1\n\
                    @1 2|^|^\n  B|b@x|q\n.items [2]\n    S2\n    S3\n";
        let want = Decoder::new().decode(text).unwrap();
        let mut notes = Probe::default();
        let got = Decoder::new().decode_into(text, &mut notes).unwrap();
        assert_eq!(got, want);
        let keys: Vec<Vec<String>> = notes.rows.iter().map(|(_, k)| k.clone()).collect();
        let ids = |k: &[&str]| k.iter().map(|s| String::from(*s)).collect::<Vec<_>>();
        // Each row is handed over once it is complete: an order's after
        // its items table.
        assert_eq!(
            keys,
            [
                ids(&["id", "name"]),
                ids(&["id", "name"]),
                ids(&["sku"]),
                ids(&["id", "c", "items"]),
                ids(&["sku"]),
                ids(&["sku"]),
                ids(&["id", "c", "items"]),
            ]
        );
        let tables: Vec<usize> = notes.rows.iter().map(|(t, _)| *t).collect();
        assert_eq!(tables[0], tables[1]);
        assert_eq!(tables[3], tables[6]);
        assert_eq!(tables[4], tables[5]);
        let distinct = [tables[0], tables[2], tables[3], tables[4]];
        for (i, a) in distinct.iter().enumerate() {
            assert!(distinct[i + 1..].iter().all(|b| a != b), "{tables:?}");
        }
    }

    #[test]
    fn bare_strings_come_borrowed_from_the_input() {
        // Bare strings of row cells and whole-line values (members, `@N =`
        // items, attachments) come through `string`, slices of the input;
        // every other string (quoted, keyed-map keys, inline arrays,
        // constants) as a value.
        let text = "GCF profile=generic\n\
                    ## t [2]{id,name,q,note=n}\n1|ann|\"q\"\n2|x y|r\n\
                    ## m [1:]{key,v}\nk|w\n\
                    ## o\ns=z\nquoted=\"y\"\ntags[2]: a,b\n\
                    ## items [2]\n@0 =it\n@1 =\"iq\"\n\
                    ## rows [1]{id,c}\n@0 1|^\n.c =att\n";
        let want = Decoder::new().decode(text).unwrap();
        let mut counts = Probe::default();
        let got = Decoder::new().decode_into(text, &mut counts).unwrap();
        assert_eq!(got, want);
        assert_eq!(counts.borrowed, ["ann", "x y", "r", "w", "z", "it", "att"]);
        assert!(counts.string_values >= 2, "{}", counts.string_values);
        let root = Decoder::new()
            .decode_into("GCF profile=generic\n= bare root \n", &mut counts)
            .unwrap();
        assert_eq!(root, Value::from("bare root"));
        assert_eq!(
            counts.borrowed.last().map(String::as_str),
            Some("bare root")
        );
    }

    #[test]
    fn rows_start_from_no_members_whatever_the_builder_left() {
        // Rows short of a member (`~`) come through `object_from`; whole
        // rows through `row`.
        let text = "GCF profile=generic\n## rows [3]{id,name}\n1|~\n2|~\n3|c\n## m [2:]{key,x}\nk|~\nl|2\n\
                    ## issues [3]{@id,state,repo=core} group=state\nstate=open [2]\n1\n3\nstate=closed [1]\n2\n";
        let want = Decoder::new().decode(text).unwrap();
        assert_eq!(want.as_object().map(|m| m.len()), Some(3));
        let got = Decoder::new()
            .decode_into(
                text,
                &mut Probe {
                    leave_members: true,
                    ..Probe::default()
                },
            )
            .unwrap();
        assert_eq!(got, want);
    }
}
