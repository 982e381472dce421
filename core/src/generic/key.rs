//! Object keys and string values that are cheap to clone and to drop.

use alloc::borrow::Cow;
use alloc::string::String;
use core::borrow::Borrow;
use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

use compact_str::CompactString;

/// An object key (and the text of a [`Value::String`](super::Value::String)):
/// an immutable string that keeps up to [`Key::INLINE_CAPACITY`] bytes inside
/// itself and longer text on the heap.
///
/// Real keys are short (`id`, `customer`, `price`), and a decoded table
/// repeats every column name in every row object. With a `String` per key,
/// each row paid one heap allocation and one free per column, which was
/// about half of the decoder's work; an inline key is copied, not allocated,
/// so a row's keys cost nothing beyond the row's own vector. The key is the
/// size of a `String`, so a member takes no more room than before.
///
/// It behaves as a `str` everywhere that matters: it dereferences to one,
/// compares, orders and hashes exactly as one (so a `HashMap<Key, _>` can be
/// queried with a `&str`), and prints as one.
///
/// ```
/// use gcf_core::generic::Key;
///
/// let key = Key::from("customer");
/// assert_eq!(key, "customer");
/// assert!(key.starts_with("cust"));
/// assert_eq!(String::from(key.clone()), "customer");
/// ```
// The representation is `compact_str`'s, kept private so the dependency is
// not part of this crate's API.
#[derive(Clone, Default)]
pub struct Key(CompactString);

impl Key {
    /// The longest key, in bytes, stored without a heap allocation (the size
    /// of a `String`: 24 bytes on 64-bit targets, 12 on 32-bit ones).
    pub const INLINE_CAPACITY: usize = core::mem::size_of::<String>();

    /// A key holding `text` (inline when it fits).
    #[inline]
    pub fn new(text: &str) -> Key {
        Key(CompactString::new(text))
    }

    /// The key as a string slice.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The key as a `String`: text on the heap is handed over, not copied.
    ///
    /// ```
    /// use gcf_core::generic::Key;
    /// assert_eq!(Key::new("id").into_string(), "id");
    /// ```
    #[inline]
    pub fn into_string(self) -> String {
        self.0.into_string()
    }

    /// Whether `self` and `other` hold the same text, usually without
    /// reading it: equal representations mean equal text (the same inline
    /// bytes and length, or the same pointer and length), and keys made
    /// from equal short text have equal representations, since the inline
    /// form zero-fills the bytes past the text. Only keys whose
    /// representations differ (different text, or equal text on the heap
    /// twice) compare their text.
    ///
    /// A table check compares every row's keys with the first row's, and
    /// this is a few word compares per key where [`Key::as_str`] alone
    /// decodes the inline length on both sides first; so does a binding
    /// comparing the keys of decoded rows (a table's rows share their
    /// column names' representations).
    ///
    /// ```
    /// use gcf_core::generic::Key;
    /// assert!(Key::new("id").same_text(&Key::new("id")));
    /// assert!(!Key::new("id").same_text(&Key::new("ids")));
    /// let long = "a key longer than the inline capacity";
    /// assert!(Key::new(long).same_text(&Key::new(long)));
    /// ```
    #[inline(always)]
    pub fn same_text(&self, other: &Key) -> bool {
        crate::ops::tick(1);
        self.repr_words() == other.repr_words() || self.as_str() == other.as_str()
    }

    /// The key's representation as words.
    #[inline(always)]
    fn repr_words(&self) -> [usize; 3] {
        const _: () = assert!(core::mem::size_of::<Key>() == 3 * core::mem::size_of::<usize>());
        // SAFETY: a `Key` is a `CompactString`, whose representation is a
        // `#[repr(C)]` struct of a pointer, a `usize`, and integers filling
        // the third word exactly (no padding, asserted by `compact_str`
        // against `[u8; 24]`; the size is asserted above), every byte of
        // which each of its forms (inline, heap, static) initialises. So
        // all three words are initialised integers or pointer bytes, read
        // here as integers (which keeps no provenance, and none is needed
        // to compare them). `transmute_copy` reads unaligned, so the
        // alignment does not matter either.
        unsafe { core::mem::transmute_copy::<Key, [usize; 3]>(self) }
    }

    /// Whether the text lives on the heap (it is longer than
    /// [`Key::INLINE_CAPACITY`]), for tests and memory accounting.
    #[inline]
    pub fn is_heap_allocated(&self) -> bool {
        self.0.is_heap_allocated()
    }
}

impl Deref for Key {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Key {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Key {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

// Equality, ordering and hashing are those of the text, as `Borrow<str>`
// requires, written out rather than derived so they cannot drift from `str`.
impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Key) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Key) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

macro_rules! eq_with_text {
    ($($text:ty),*) => {$(
        impl PartialEq<$text> for Key {
            #[inline]
            fn eq(&self, other: &$text) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<Key> for $text {
            #[inline]
            fn eq(&self, other: &Key) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}
eq_with_text!(str, &str, String, Cow<'_, str>);

impl From<&str> for Key {
    #[inline]
    fn from(text: &str) -> Key {
        Key::new(text)
    }
}

impl From<&String> for Key {
    #[inline]
    fn from(text: &String) -> Key {
        Key::new(text)
    }
}

impl From<String> for Key {
    /// Inlines a short string (freeing its buffer); keeps a long one's buffer.
    #[inline]
    fn from(text: String) -> Key {
        Key(CompactString::from(text))
    }
}

impl From<Cow<'_, str>> for Key {
    #[inline]
    fn from(text: Cow<'_, str>) -> Key {
        match text {
            Cow::Borrowed(s) => Key::new(s),
            Cow::Owned(s) => Key::from(s),
        }
    }
}

impl From<&Key> for Key {
    #[inline]
    fn from(key: &Key) -> Key {
        key.clone()
    }
}

impl From<Key> for String {
    #[inline]
    fn from(key: Key) -> String {
        key.0.into_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec::Vec;
    use core::hash::BuildHasher;

    const CAP: usize = Key::INLINE_CAPACITY;

    fn ascii(n: usize) -> String {
        (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect()
    }

    #[test]
    fn inline_up_to_capacity_and_heap_beyond() {
        assert_eq!(CAP, core::mem::size_of::<Key>(), "a key is a String's size");
        for n in [0, 1, CAP - 1, CAP, CAP + 1, 2 * CAP, 1000] {
            let text = ascii(n);
            for key in [Key::new(&text), Key::from(text.clone())] {
                assert_eq!(key.as_str(), text);
                assert_eq!(key.len(), n);
                assert_eq!(key.is_heap_allocated(), n > CAP, "length {n}");
            }
        }
    }

    #[test]
    fn multibyte_text_at_the_boundary() {
        // A two-byte and a four-byte character ending exactly at, one byte
        // past, and one byte short of the inline capacity.
        for tail in ["é", "😀"] {
            for total in [CAP - 1, CAP, CAP + 1] {
                let text = format!("{}{tail}", ascii(total - tail.len()));
                assert_eq!(text.len(), total);
                let key = Key::from(text.as_str());
                assert_eq!(key, text);
                assert!(key.ends_with(tail));
                assert_eq!(key.chars().count(), total - tail.len() + 1);
                assert_eq!(key.is_heap_allocated(), total > CAP);
                assert_eq!(String::from(key), text);
            }
        }
    }

    #[test]
    fn compares_orders_and_hashes_as_text() {
        let texts = [
            "",
            "a",
            "ab",
            "b",
            "é",
            "Z",
            "customer>id",
            &ascii(CAP),
            &ascii(CAP + 1),
        ];
        let hasher = crate::hash::HashState::default();
        for a in texts {
            let ka = Key::from(a);
            assert_eq!(hasher.hash_one(&ka), hasher.hash_one(a));
            assert_eq!(format!("{ka}"), a);
            assert_eq!(format!("{ka:?}"), format!("{a:?}"));
            let owned = String::from(a);
            assert!(PartialEq::<&str>::eq(&ka, &a));
            assert!(PartialEq::<Key>::eq(&a, &ka));
            assert!(PartialEq::<str>::eq(&ka, a));
            assert!(PartialEq::<Key>::eq(a, &ka));
            assert!(PartialEq::<String>::eq(&ka, &owned));
            assert!(PartialEq::<Key>::eq(&owned, &ka));
            for b in texts {
                let kb = Key::from(b);
                assert_eq!(ka == kb, a == b);
                assert_eq!(ka.cmp(&kb), a.cmp(b));
                assert_eq!(ka.partial_cmp(&kb), a.partial_cmp(b));
            }
        }
        let mut set = crate::hash::HashSet::default();
        set.insert(Key::from("id"));
        assert!(set.contains("id"), "Borrow<str> lookups find the key");
        let mut sorted: Vec<Key> = texts.iter().map(|&t| Key::from(t)).collect();
        sorted.sort();
        let mut expected = texts.to_vec();
        expected.sort();
        assert_eq!(sorted, expected);
    }

    #[test]
    fn clones_are_independent() {
        for n in [3, CAP, CAP + 1, 100] {
            let text = ascii(n);
            let original = Key::from(text.clone());
            let copy = original.clone();
            assert_eq!(copy, original);
            if original.is_heap_allocated() {
                assert_ne!(
                    copy.as_ptr(),
                    original.as_ptr(),
                    "a long clone owns its text"
                );
            }
            drop(original);
            assert_eq!(copy, text, "the clone outlives the original");
            let back = String::from(copy.clone());
            drop(copy);
            assert_eq!(back, text);
        }
    }

    /// The representation `same_text` relies on (compact_str 0.10.0, pinned
    /// exactly in the workspace): a heap key's first word is its text's
    /// address and its second the length; an inline key's words hold its
    /// bytes from the first, zero-filled to the last byte, which carries the
    /// length marker; so equal inline text gives equal words however the key
    /// was built. Any change fails here, loudly, before `same_text` can
    /// answer wrongly.
    #[test]
    fn compact_str_layout_is_what_same_text_assumes() {
        const WORD: usize = core::mem::size_of::<usize>();
        let layout_changed = "compact_str's layout changed: Key::same_text is unsound; \
                              re-derive it or remove the trick before upgrading";
        let heap = Key::from("a key long enough to live on the heap");
        assert!(heap.is_heap_allocated(), "{layout_changed}");
        let words = heap.repr_words();
        assert_eq!(
            words[0],
            heap.as_str().as_ptr() as usize,
            "{layout_changed}"
        );
        assert_eq!(words[1], heap.len(), "{layout_changed}");
        for len in 0..=CAP {
            let text = ascii(len);
            let a = Key::from(text.as_str());
            let b = Key::from(String::from(text.as_str()));
            let c = Key::from(Cow::<str>::Owned(text.clone()));
            assert!(!a.is_heap_allocated(), "{layout_changed}");
            assert_eq!(a.repr_words(), b.repr_words(), "{layout_changed}: {len}");
            assert_eq!(a.repr_words(), c.repr_words(), "{layout_changed}: {len}");
            let bytes: alloc::vec::Vec<u8> = a
                .repr_words()
                .iter()
                .flat_map(|w| w.to_ne_bytes())
                .collect();
            assert_eq!(
                &bytes[..len],
                text.as_bytes(),
                "{layout_changed}: inline text first"
            );
            if len + 1 < 3 * WORD {
                assert!(
                    bytes[len..3 * WORD - 1].iter().all(|&x| x == 0),
                    "{layout_changed}: zero fill"
                );
            }
        }
    }

    /// `same_text` agrees with text equality for every form a key takes:
    /// inline at every length, heap (equal text in two allocations, and
    /// one allocation shared by a clone), built from `&str` or `String`.
    #[test]
    fn same_text_agrees_with_text_equality() {
        let mut texts: Vec<String> = (0..=CAP + 2).map(ascii).collect();
        texts.extend([
            "é".into(),
            "é\0".into(),
            "\0".into(),
            format!("{}é", ascii(CAP - 2)),
        ]);
        for a in &texts {
            for b in &texts {
                for (ka, kb) in [
                    (Key::from(a.as_str()), Key::from(b.as_str())),
                    (Key::from(a.clone()), Key::from(b.as_str())),
                    (Key::from(a.clone()), Key::from(b.clone())),
                ] {
                    assert_eq!(ka.same_text(&kb), a == b, "{a:?} {b:?}");
                    assert_eq!(kb.same_text(&ka), a == b, "{b:?} {a:?}");
                    assert!(ka.same_text(&ka.clone()));
                }
            }
        }
    }

    #[test]
    fn conversions_and_default() {
        assert_eq!(Key::default(), "");
        assert!(Key::default().is_empty());
        assert_eq!(Key::from(Cow::Borrowed("b")), "b");
        assert_eq!(Key::from(Cow::<str>::Owned(String::from("o"))), "o");
        assert_eq!(Key::from(&String::from("s")), "s");
        let k = Key::from("k");
        assert_eq!(Key::from(&k), k);
        let r: &str = k.as_ref();
        assert_eq!(r, "k");
    }
}
