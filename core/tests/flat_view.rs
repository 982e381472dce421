//! `generic::flat`, the flat node list the serde tape and the JS engine's
//! packed index share: a list built from any value encodes to the value's
//! own text (with records sharing their run of keys, as both builders make
//! them), and an arbitrary list, however broken, is refused by `root` or
//! walked without a panic and with output bounded by its size.

mod support;

use gcf_core::generic::flat::{Flat, Node};
use gcf_core::generic::{self, Cell, Value};
use gcf_core::ErrorKind;
use support::{cases, Rng, ValueGen};

/// A flat list of borrowed cells and names.
struct List<'v> {
    nodes: Vec<Node<Cell<'v>>>,
    keys: Vec<&'v str>,
}

impl<'t, 'v: 't> Flat<'t> for List<'v> {
    type Scalar = Cell<'v>;
    type Key = &'v str;
    fn nodes(&self) -> &[Node<Cell<'v>>] {
        &self.nodes
    }
    fn keys(&self) -> &[&'v str] {
        &self.keys
    }
    fn cell(&'t self, scalar: Cell<'v>) -> Cell<'t> {
        scalar
    }
    fn key(&'t self, key: &'v str) -> &'t str {
        key
    }
}

/// Builds the list of `value`. An object whose names are those of the last
/// object closed at the same depth reuses that run, as both builders do.
struct Builder<'v> {
    list: List<'v>,
    last_run: Vec<Option<(u32, u32)>>,
}

impl<'v> Builder<'v> {
    fn of(value: &'v Value) -> List<'v> {
        let mut b = Builder {
            list: List {
                nodes: Vec::new(),
                keys: Vec::new(),
            },
            last_run: Vec::new(),
        };
        b.push(value, 0);
        b.list
    }

    fn push(&mut self, value: &'v Value, depth: usize) {
        if let Some(cell) = Cell::from_value(value) {
            self.list.nodes.push(Node::Scalar(cell));
            return;
        }
        match value {
            Value::Array(items) => {
                let at = self.open();
                for item in items {
                    self.push(item, depth + 1);
                }
                let node = Node::Array {
                    len: items.len() as u32,
                    end: self.list.nodes.len() as u32,
                };
                self.list.nodes[at] = node;
            }
            Value::Object(map) => {
                let at = self.open();
                for v in map.values() {
                    self.push(v, depth + 1);
                }
                if self.last_run.len() <= depth {
                    self.last_run.resize(depth + 1, None);
                }
                let names: Vec<&str> = map.keys().collect();
                let shared = self.last_run[depth].filter(|&(start, len)| {
                    let run = &self.list.keys[start as usize..(start + len) as usize];
                    run == names.as_slice()
                });
                let (keys, len) = shared.unwrap_or_else(|| {
                    let start = self.list.keys.len() as u32;
                    self.list.keys.extend(&names);
                    (start, names.len() as u32)
                });
                self.last_run[depth] = Some((keys, len));
                let scalars = map
                    .values()
                    .all(|v| !matches!(v, Value::Array(_) | Value::Object(_)));
                self.list.nodes[at] = Node::Object {
                    len,
                    end: self.list.nodes.len() as u32,
                    keys,
                    scalars,
                };
            }
            // Scalars were pushed above.
            _ => {}
        }
    }

    fn open(&mut self) -> usize {
        self.list.nodes.push(Node::Scalar(Cell::Null));
        self.list.nodes.len() - 1
    }
}

#[test]
fn a_list_encodes_as_the_value_it_was_built_from() {
    for seed in 0..cases(3_000) as u64 {
        let mut rng = Rng::new(0x666c_6174_0000 + seed);
        let value = if rng.chance(30) {
            Value::Array(ValueGen { rng: &mut rng }.table_rows(3))
        } else {
            ValueGen { rng: &mut rng }.value(5)
        };
        let list = Builder::of(&value);
        for encoder in [
            generic::Encoder::new(),
            generic::Encoder::new().constant_columns(false),
            generic::Encoder::new().flatten(false),
        ] {
            let tree = encoder.encode(&value);
            let root = list.root().expect("a built list has a valid layout");
            let flat = encoder.encode_view(root);
            match (tree, flat) {
                (Ok(tree), Ok(flat)) => assert_eq!(flat, tree, "seed {seed}"),
                (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "seed {seed}"),
                (a, b) => panic!("seed {seed}: tree {a:?}, flat {b:?}"),
            }
        }
    }
}

#[test]
fn arbitrary_lists_are_refused_or_walked_within_their_size() {
    let mut refused = 0;
    let mut walked = 0;
    for seed in 0..cases(20_000) as u64 {
        let mut rng = Rng::new(0x686f_7374_0000 + seed);
        let n = rng.below(24) as usize;
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            // Mostly plausible layouts (ends just past a few nodes, lengths
            // within them), so that both outcomes are common.
            let end = match rng.below(4) {
                0 => rng.below(n as u64 + 3) as u32,
                _ => (i + 1 + rng.below((n - i) as u64) as usize) as u32,
            };
            let len = match rng.below(8) {
                0 => rng.next_u64() as u32,
                _ => rng.below(4) as u32,
            };
            nodes.push(match rng.below(3) {
                0 => Node::Scalar(Cell::Str(["a", "b", ""][rng.below(3) as usize])),
                1 => Node::Array { len, end },
                _ => Node::Object {
                    len,
                    end,
                    keys: rng.below(6) as u32,
                    scalars: rng.chance(50),
                },
            });
        }
        let list = List {
            nodes,
            keys: vec!["id", "name", "id", "x"],
        };
        match list.root() {
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::InvalidInput, "seed {seed}");
                refused += 1;
            }
            Ok(root) => {
                walked += 1;
                if let Ok(text) = generic::Encoder::new().encode_view(root) {
                    // Each node writes a bounded amount, and each is
                    // visited at most once per enclosing container.
                    assert!(text.len() < 200 * (n + 1) * (n + 1), "seed {seed}");
                }
            }
        }
    }
    assert!(
        refused > 100 && walked > 100,
        "{refused} refused, {walked} walked"
    );
}
