//! Constant columns (spec §7.4.7) and value-grouped tables (spec §7.4.8), as
//! the `gcf` 3.1.0 crate and gcf-python 2.8.0 write and read them ("spec
//! v3.6.0" in their changelogs; the SPEC.md 3.6.0 text this crate otherwise
//! follows predates both sections).
//!
//! # Grammar
//!
//! ```text
//! field-decl   = "{" entry *("," entry) "}"                      ; §2a.3, §7.4.7.2
//! entry        = ["@"] key ["=" const]                           ; §7.4.7.2, §7.4.8.1
//! const        = quoted-string / 1*(any char but "," and "}")    ; §7.4.7.2
//! grouped-head = count field-decl 1*SP "group=" key              ; §7.4.8.2
//! grouped-body = 1*(subheader LF count-rows)                     ; §7.4.8.3
//! subheader    = key "=" const SP "[" count "]"                  ; §7.4.8.3
//! ```
//!
//! * A constant is any scalar by the precedence of a `key=value` line
//!   (`-` is null), read exactly (a declaration has no structural
//!   whitespace). It may not be empty, `~`, or a complete attachment marker
//!   (`^`, or `^{...}` ending in `}`): `invalid_const_value`. `^{abc` without
//!   its `}` is a string. A bare constant runs to the next `,` or `}`, so
//!   encoders quote a value holding either (they quote `}` beyond §2.4).
//! * A constant column holds its value in every row and has no cell
//!   (§7.4.7.3); rows carry the other columns in declaration order, and the
//!   row object keeps the declaration's key order. At least one column must
//!   carry cells: `no_bare_column` (§7.4.7.1).
//! * Constants are read in every field declaration: root and named tables,
//!   nested tables, attachments and shared array schemas (a shared schema
//!   carries its constants to the later rows' tables), keyed maps (never
//!   the key column), and inline schemas `^{a,b=1}` (the positional body
//!   carries the other fields). A constant's name is literal, never a `>`
//!   path: encoders factor only plain columns.
//! * A value-grouped table has exactly one `@` key column, and `group=`
//!   names a declared field that is neither the key nor constant
//!   (`invalid_group_header`). Its body is a run of subheaders
//!   `<col>=<value> [n]` (n >= 1, `invalid_count` otherwise), each followed by
//!   exactly n rows at the same indentation, whose cells are the declared
//!   fields minus the group column and the constants. The subheader names
//!   the group column (`invalid_group_header`), its value follows the
//!   constant rules and appears once per table (`duplicate_group`); a group
//!   with fewer rows, or groups summing to another total than the table's
//!   count, is a `count_mismatch`. Grouped rows carry no attachments
//!   (`invalid_group_header`), may leave cells absent (`~`) except the key
//!   (`invalid_group_header`), and hold unique keys (`duplicate_key`). Field
//!   names are literal (a grouped table has no flattened columns). The
//!   decoded array lists the records group by group, as written: grouping
//!   is for keyed sets, whose order does not matter (§7.4.8).
//! * Limits (§12): constants count toward `max_fields`, and a row with its
//!   constants toward `max_line_len`, as if they were cells. Across the
//!   document, every row's constants, group value and long field names
//!   count toward the expansion budget
//!   ([`Limits::max_expansion`](crate::Limits::max_expansion)): written
//!   once, they would otherwise decode into any number of rows.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use crate::error::{Error, ErrorKind};
use crate::generic::{Key, Value};

use super::super::build::Build;
use super::super::keys::ObjectBuilder;
use super::super::lexer::{
    for_each_token, parse_const_token, parse_count, parse_key, Cell, Context, Count, Field, Ln,
};
use super::{const_len, key_cost, regrade, repeat_cost, Parser};
use crate::text::parse_quoted;

/// Where a grouped record's member comes from.
#[derive(Clone, Copy)]
enum Source {
    Group,
    Const,
    Cell(usize),
}

/// A type-tagged text of a scalar, for finding repeated group values and
/// keys. Numbers compare by value, as the references compare their canonical
/// texts: `1` and `1.0` are one group (and one key), `1` and `"1"` are two.
fn scalar_text(v: &Value, out: &mut String) {
    out.clear();
    let _ = match v {
        Value::Null => out.write_str("n"),
        Value::Bool(b) => write!(out, "b{b}"),
        Value::Int(i) => write!(out, "i{i}"),
        // An integral double within `i64` (tested by the round trip through
        // the cast, as `core` has no `fract`): the same number as the integer.
        Value::Float(f) if (-9.2e18..9.2e18).contains(f) && (*f as i64) as f64 == *f => {
            write!(out, "i{}", *f as i64)
        }
        Value::Float(f) => write!(out, "f{f:?}"),
        Value::String(s) => write!(out, "s{s}"),
        Value::Array(_) | Value::Object(_) => out.write_str("x"),
    };
}

impl<B: Build> Parser<'_, '_, B> {
    /// A value-grouped table (spec §7.4.8) whose subheaders and rows are at `indent`.
    pub(super) fn parse_grouped(
        &mut self,
        hdr: &Ln<'_>,
        count: Count,
        decl: &Rc<[Field]>,
        group: usize,
        indent: usize,
        depth: usize,
    ) -> Result<B::Value, Error> {
        self.check_depth(depth + 1, hdr)?;
        // Every declared field (group column and constants too) is a member
        // of each record.
        if decl.len() > self.limits.max_container_len {
            return Err(hdr.error(
                ErrorKind::LimitExceeded,
                count.at,
                alloc::format!(
                    "the table's rows decode into objects of {} members, more than the \
                     configured limit of {} per container",
                    decl.len(),
                    self.limits.max_container_len
                ),
            ));
        }
        let mut width = 0;
        let mut const_bytes = 0usize;
        // Every row's expansion (see `Limits::max_expansion`) but its group
        // value's, which each subheader adds.
        let mut row_cost = 0usize;
        let sources: Vec<Source> = decl
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if i == group {
                    Source::Group
                } else if let Some(v) = &f.constant {
                    const_bytes = const_bytes.saturating_add(const_len(v));
                    row_cost = row_cost.saturating_add(repeat_cost(&f.name, v));
                    Source::Const
                } else {
                    row_cost = row_cost.saturating_add(key_cost(&f.name));
                    width += 1;
                    Source::Cell(width - 1)
                }
            })
            .collect();
        // The declaration has exactly one `@` field (checked with the header).
        let key = decl.iter().position(|f| f.identity).unwrap_or(0);
        let deferred = self.open_deferred(hdr, count);
        let bound = self.cur.remaining_len() / width.max(2) + 1;
        let expect = count
            .n
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX).min(bound));
        let mut records: Vec<B::Value> = Vec::with_capacity(expect);
        let mut groups = ObjectBuilder::new();
        let mut keys = ObjectBuilder::new();
        let mut text = String::new();
        let mut cells: Vec<Option<Value>> = Vec::with_capacity(width);
        // Each record's members, one vector for all (`Build::object_from`).
        let mut map = Vec::new();
        let mut total: u64 = 0;
        loop {
            if count.n == Some(total) {
                self.surplus = Some((indent, ErrorKind::CountMismatch));
                break;
            }
            let Some(ln) = self.cur.peek()? else { break };
            if ln.indent < indent {
                break;
            }
            if ln.indent > indent {
                return Err(ln.error(
                    ErrorKind::InvalidIndent,
                    ln.indent,
                    "indentation increases where no container opened",
                ));
            }
            if ln.text().starts_with("##") {
                break;
            }
            self.cur.bump();
            let (value, n, count_at) = parse_subheader(&ln, &decl[group].name)?;
            scalar_text(&value, &mut text);
            if groups.contains(&text) {
                return Err(ln.error(
                    ErrorKind::DuplicateGroup,
                    ln.indent,
                    alloc::format!(
                        "a second group for the value `{}`",
                        crate::error::excerpt(&text[1..])
                    ),
                ));
            }
            groups.push(Key::new(&text), ());
            let group_cost = row_cost.saturating_add(repeat_cost(&decl[group].name, &value));
            if count
                .n
                .is_some_and(|declared| total.saturating_add(n) > declared)
            {
                return Err(hdr.error(
                    ErrorKind::CountMismatch,
                    count.at,
                    alloc::format!(
                        "declared {} rows, the groups through line {} hold {}",
                        count.n.unwrap_or(0),
                        ln.number,
                        total.saturating_add(n)
                    ),
                ));
            }
            for found in 0..n {
                let row = match self.cur.peek()? {
                    Some(row) if row.indent == indent && !row.text().starts_with("##") => row,
                    Some(row) if row.indent > indent => {
                        return Err(row.error(
                            ErrorKind::InvalidIndent,
                            row.indent,
                            "indentation increases where no container opened",
                        ))
                    }
                    _ => {
                        return Err(ln.error(
                            ErrorKind::CountMismatch,
                            count_at,
                            alloc::format!("the group declares {n} rows, found {found}"),
                        ))
                    }
                };
                self.cur.bump();
                self.check_len(records.len() + 1, &row)?;
                if const_bytes != 0 {
                    self.check_expanded_row(&row, const_bytes)?;
                }
                self.spend(&row, group_cost)?;
                cells.clear();
                let got = for_each_token(&row, row.indent, b'|', Context::Cell, |cell, at| {
                    if cells.len() < width {
                        cells.push(match cell {
                            Cell::Value(v) => Some(v),
                            Cell::Str(s) => Some(Value::String(Key::from(s))),
                            Cell::Missing => None,
                            Cell::Marker(_) => {
                                return Err(row.error(
                                    ErrorKind::InvalidGroupHeader,
                                    at,
                                    "a grouped row carries no attachments",
                                ))
                            }
                        });
                    }
                    Ok(())
                })?;
                if got != width {
                    return Err(row.error(
                        ErrorKind::RowWidthMismatch,
                        row.indent,
                        alloc::format!("row has {got} cells, the grouped header declares {width}"),
                    ));
                }
                let key_value = match sources[key] {
                    Source::Cell(c) => cells[c].as_ref(),
                    Source::Const => decl[key].constant.as_ref(),
                    Source::Group => None,
                };
                let Some(key_value) = key_value else {
                    return Err(row.error(
                        ErrorKind::InvalidGroupHeader,
                        row.indent,
                        alloc::format!(
                            "the row has no value for its key column `{}`",
                            crate::error::excerpt(&decl[key].name)
                        ),
                    ));
                };
                scalar_text(key_value, &mut text);
                if keys.contains(&text) {
                    return Err(row.error(
                        ErrorKind::DuplicateKey,
                        row.indent,
                        alloc::format!(
                            "a second row with the key `{}`",
                            crate::error::excerpt(&text[1..])
                        ),
                    ));
                }
                keys.push(Key::new(&text), ());
                map.clear();
                map.reserve(decl.len());
                for (f, source) in decl.iter().zip(&sources) {
                    let v = match source {
                        Source::Group => Some(self.build.repeated(&value)),
                        Source::Const => f.constant.as_ref().map(|c| self.build.repeated(c)),
                        Source::Cell(c) => cells[*c].take().map(|v| self.build.scalar(v)),
                    };
                    if let Some(v) = v {
                        map.push((f.name.clone(), v));
                    }
                }
                records.push(self.build.object_from(&mut map));
            }
            total = total.saturating_add(n);
        }
        self.close_count(hdr, count, deferred, records.len(), "rows")?;
        Ok(self.build.array(records))
    }
}

/// A subheader `<col>=<value> [n]` (spec §7.4.8.3): its value, its row
/// count and the offset of its `[`. The value runs from the first `=` to the
/// last ` [`, so a quoted or bare value may itself hold ` [`.
fn parse_subheader(ln: &Ln<'_>, group: &str) -> Result<(Value, u64, usize), Error> {
    let raw = ln.raw;
    let (name, eq) =
        parse_key(ln, ln.indent).map_err(|e| regrade(e, ErrorKind::InvalidGroupHeader))?;
    if raw.as_bytes().get(eq) != Some(&b'=') {
        return Err(ln.error(
            ErrorKind::InvalidGroupHeader,
            eq,
            "expected a group subheader `<column>=<value> [count]`",
        ));
    }
    if *name != *group {
        return Err(ln.error(
            ErrorKind::InvalidGroupHeader,
            ln.indent,
            alloc::format!(
                "the subheader names `{}`, the table is grouped by `{}`",
                crate::error::excerpt(&name),
                crate::error::excerpt(group)
            ),
        ));
    }
    let line = raw.trim_end_matches([' ', '\t']);
    let open = match line.rfind(" [") {
        Some(open) if open > eq && line.ends_with(']') => open,
        _ => {
            return Err(ln.error(
                ErrorKind::InvalidGroupHeader,
                line.len(),
                "a group subheader ends with its row count ` [n]`",
            ))
        }
    };
    let (count, after) = parse_count(ln, open + 1)?;
    if after != line.len() {
        return Err(ln.error(
            ErrorKind::InvalidGroupHeader,
            after,
            "a group subheader ends with its row count ` [n]`",
        ));
    }
    let n = match count {
        Count {
            n: Some(n),
            keyed: false,
            ..
        } if n > 0 => n,
        _ => {
            return Err(ln.error(
                ErrorKind::InvalidCount,
                open + 2,
                "a group's count is a decimal of at least 1",
            ))
        }
    };
    let at = eq + 1;
    let value = if raw.as_bytes().get(at) == Some(&b'"') {
        let (s, end) = parse_quoted(raw, at).map_err(|e| e.with_position(ln.number, 1))?;
        if end != open {
            return Err(ln.error(
                ErrorKind::TrailingCharacters,
                end,
                "characters follow the closing quote of a group value",
            ));
        }
        Value::String(Key::from(s))
    } else {
        parse_const_token(ln, &raw[at..open], at)?
    };
    Ok((value, n, open + 1))
}
