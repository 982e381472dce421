//! A repeated name in a list a caller hands over (a section's fields, a
//! keyed set's schema), found in time linear in the list: pairwise for the
//! short lists of real data, in a hash set past them. A scan of the earlier
//! names for each name is quadratic in a wide list.

/// Lists up to this long are checked pairwise.
const PAIRWISE: usize = 16;

/// The index of the first name equal to an earlier one.
pub(crate) fn first_repeat<T: AsRef<str>>(names: &[T]) -> Option<usize> {
    if names.len() <= PAIRWISE {
        return (1..names.len()).find(|&i| {
            names[..i].iter().any(|earlier| {
                crate::ops::tick(1);
                earlier.as_ref() == names[i].as_ref()
            })
        });
    }
    let mut seen = crate::hash::set_with_capacity(names.len());
    names.iter().position(|name| {
        crate::ops::tick(1);
        !seen.insert(name.as_ref())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    #[test]
    fn finds_the_first_repeat_on_both_sides_of_the_pairwise_limit() {
        assert_eq!(first_repeat::<&str>(&[]), None);
        assert_eq!(first_repeat(&["a", "b", "a", "b"]), Some(2));
        for n in [PAIRWISE - 1, PAIRWISE, PAIRWISE + 1, 100] {
            let mut names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
            assert_eq!(first_repeat(&names), None, "{n}");
            names.push(String::from("f3"));
            names.push(String::from("f1"));
            assert_eq!(first_repeat(&names), Some(n), "{n}");
        }
    }
}
