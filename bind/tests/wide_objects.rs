//! A wide JSON object whose every key comes twice keeps each key's first
//! position and last value, in time linear in its width: counted by
//! `gcf_core::ops` (member scans), never timed. Reading it member by member
//! with `Map::insert` scanned the members once per key, n * n / 2 scans (a
//! 200,000-member object with every key twice took 26 s).
//!
//! One test function in its own binary: the counter is process-wide.

use gcf_core::generic::Value;

#[test]
fn wide_objects_with_repeated_keys_read_in_linear_time() {
    // 17: just past the objects that are checked pairwise.
    for n in [17, 1_000, 4_000] {
        let keys: Vec<String> = (0..n).map(|i| format!("\"k{i}\"")).collect();
        let first: Vec<String> = keys.iter().map(|k| format!("{k}:1")).collect();
        let again: Vec<String> = keys.iter().rev().map(|k| format!("{k}:2")).collect();
        let text = format!("{{{},{},\"z\":3}}", first.join(","), again.join(","));
        for read in [gcf_bind::value::from_str, |t: &str| {
            gcf_bind::value::from_slice(t.as_bytes())
        }] {
            gcf_core::ops::reset();
            let v = read(&text).unwrap();
            let scans = gcf_core::ops::count();
            assert!(scans <= 4 * n as u64, "{n} keys: {scans} member scans");
            let o = v.as_object().unwrap();
            assert_eq!(o.len(), n + 1);
            assert_eq!(o.keys().next(), Some("k0"));
            assert_eq!(o.keys().last(), Some("z"));
            assert!(o.iter().take(n).all(|(_, v)| *v == Value::Int(2)));
        }
    }
}
