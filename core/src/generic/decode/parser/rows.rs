//! Tabular rows: one row's cells and the attachment bodies that follow it
//! (traditional `@N` blocks, positional inline bodies, spec §7.4.5-7.4.6),
//! and the identities a delta-participating table's rows give (§10a.1).

use super::*;

impl<'a, B: Build> Parser<'a, '_, B> {
    /// One tabular row and the attachment bodies that follow it. Returns
    /// whether the row had inline-schema markers, and the bare `>`-named
    /// attachments (spec §7.4.6.1 rule 4).
    pub(super) fn parse_row(
        &mut self,
        ln: &Ln<'a>,
        index: usize,
        table: &mut Table,
        slots: &mut Vec<Slot<'a, B::Value>>,
        indent: usize,
        depth: usize,
    ) -> Result<(bool, ObjectBuilder<B::Value>), Error> {
        let mut pos = ln.indent;
        if ln.text().starts_with('@') {
            let (id, p) = parse_item_id(ln)?;
            if id != index as u64 {
                return Err(ln.error(
                    ErrorKind::InvalidItemId,
                    ln.indent,
                    alloc::format!("row id @{id} does not equal its index {index}"),
                ));
            }
            pos = p;
        }
        slots.clear();
        let width = table.fields.len();
        let max_members = self.limits.max_container_len;
        let max_fields = self.limits.max_fields;
        let cells = {
            let Table {
                inline, schemas, ..
            } = table;
            for_each_token(ln, pos, b'|', Context::Cell, |cell, at| {
                let col = slots.len();
                if col >= width {
                    return Ok(());
                }
                // The usual cells are pushed in their own arms, where the
                // slot is written into the vector directly rather than
                // assembled on the stack and copied (a copy that waited on
                // the stores it read).
                let slot = match cell {
                    Cell::Str(s) => {
                        slots.push(Slot::Str(s));
                        return Ok(());
                    }
                    Cell::Value(Value::Int(i)) => {
                        slots.push(Slot::Int(i));
                        return Ok(());
                    }
                    Cell::Value(Value::Float(f)) => {
                        slots.push(Slot::Float(f));
                        return Ok(());
                    }
                    Cell::Value(v) => {
                        slots.push(Slot::Value(v));
                        return Ok(());
                    }
                    Cell::Missing => Slot::Missing,
                    Cell::Marker(None) => Slot::Marker {
                        schema: inline.get(col).copied().flatten(),
                        declared: false,
                        at,
                    },
                    Cell::Marker(Some(names)) => {
                        // A field declaration like the table's own, bounded
                        // as that one is; its bodies decode into objects of
                        // these members.
                        let bound = if names.len() > max_fields {
                            Some((max_fields, "fields"))
                        } else if names.len() > max_members {
                            Some((max_members, "members per container"))
                        } else {
                            None
                        };
                        if let Some((limit, unit)) = bound {
                            return Err(ln.error(
                                ErrorKind::LimitExceeded,
                                at,
                                alloc::format!(
                                    "an inline schema of {} fields, more than the configured limit of {limit} {unit}",
                                    names.len()
                                ),
                            ));
                        }
                        schemas.push(names);
                        if inline.len() < width {
                            inline.resize(width, None);
                        }
                        inline[col] = Some(schemas.len() - 1);
                        Slot::Marker {
                            schema: inline[col],
                            declared: true,
                            at,
                        }
                    }
                };
                slots.push(slot);
                Ok(())
            })?
        };
        if cells != width {
            return Err(ln.error(
                ErrorKind::RowWidthMismatch,
                ln.indent,
                alloc::format!("row has {cells} cells, the header declares {width} fields"),
            ));
        }
        let has_markers = slots.iter().any(|s| matches!(s, Slot::Marker { .. }));
        let had_inline = slots.iter().any(|s| {
            matches!(
                s,
                Slot::Marker {
                    schema: Some(_),
                    ..
                }
            )
        });
        let mut extras = ObjectBuilder::new();
        // Attachments only fill markers, so the first marker eligible for a
        // positional body never moves back: resuming the search where the
        // last one stopped keeps a wide row's attachments linear in total.
        let mut eligible_from = 0;
        while let Some(child) = self.cur.peek()? {
            if child.indent < indent {
                break;
            }
            let text = child.text();
            let eligible = slots[eligible_from..]
                .iter()
                .position(|s| {
                    crate::ops::tick(1);
                    matches!(
                        s,
                        Slot::Marker {
                            schema: Some(_),
                            ..
                        }
                    )
                })
                .map(|at| at + eligible_from);
            eligible_from = eligible.unwrap_or(slots.len());
            if child.indent == indent {
                if text.starts_with('.') {
                    self.cur.bump();
                    self.traditional(&child, index == 0, table, slots, &mut extras, indent, depth)?;
                } else if text.starts_with("##") || text.starts_with('@') {
                    break;
                } else if let Some(col) = eligible {
                    self.cur.bump();
                    // The body's object sits under the row (`depth + 1`) and
                    // under the objects its column's path nests, as the
                    // encoder counts it.
                    self.check_depth(depth + 2 + table.path_nesting(col), &child)?;
                    {
                        let left = (&mut self.expansion_left, self.expansion_budget);
                        let max_line_len = self.limits.max_line_len;
                        positional(self.build, &child, table, slots, col, max_line_len, left)?;
                    }
                } else {
                    break;
                }
            } else if child.indent == indent + 2 {
                if text.starts_with('.') {
                    self.cur.bump();
                    self.traditional(&child, index == 0, table, slots, &mut extras, indent, depth)?;
                } else if let Some(col) = eligible {
                    self.cur.bump();
                    // The body's object sits under the row (`depth + 1`) and
                    // under the objects its column's path nests, as the
                    // encoder counts it.
                    self.check_depth(depth + 2 + table.path_nesting(col), &child)?;
                    {
                        let left = (&mut self.expansion_left, self.expansion_budget);
                        let max_line_len = self.limits.max_line_len;
                        positional(self.build, &child, table, slots, col, max_line_len, left)?;
                    }
                } else if has_markers {
                    return Err(child.error(
                        ErrorKind::OrphanInlineAttachment,
                        child.indent,
                        "positional inline body with no eligible `^` cell in its row",
                    ));
                } else {
                    return Err(child.error(
                        ErrorKind::InvalidIndent,
                        child.indent,
                        "indentation increases where no container opened",
                    ));
                }
            } else {
                return Err(child.error(
                    ErrorKind::InvalidIndent,
                    child.indent,
                    "indentation increases where no container opened",
                ));
            }
        }
        for (col, slot) in slots.iter().enumerate() {
            if let Slot::Marker { at, .. } = slot {
                let name = table.fields.get(col).map_or("?", |f| f.name.as_str());
                return Err(ln.error(
                    ErrorKind::MissingAttachment,
                    *at,
                    alloc::format!(
                        "`^` cell for field `{}` has no attachment body",
                        crate::error::excerpt(name)
                    ),
                ));
            }
        }
        Ok((had_inline, extras))
    }

    /// A `.field ...` attachment (spec §7.4.4) for the row at `indent`;
    /// `first_row` when that row is row 0, the only one whose tabular
    /// attachments establish shared array schemas (spec §7.4.5.3).
    #[allow(clippy::too_many_arguments)]
    fn traditional(
        &mut self,
        ln: &Ln<'a>,
        first_row: bool,
        table: &mut Table,
        slots: &mut [Slot<'_, B::Value>],
        extras: &mut ObjectBuilder<B::Value>,
        indent: usize,
        depth: usize,
    ) -> Result<(), Error> {
        let name_at = ln.indent + 1;
        let (name, end) = parse_key(ln, name_at)?;
        // A row has few `^` cells and its attachments name them: matching
        // among those first skips the lookup over every declared column. In
        // a wide row that scan per attachment would be quadratic, so there
        // the hashed column lookup alone answers (field names are unique,
        // so both find the same column).
        let open_marker = (slots.len() <= 16)
            .then(|| {
                slots
                    .iter()
                    .zip(table.fields.iter())
                    .position(|(slot, field)| {
                        crate::ops::tick(1);
                        matches!(
                            slot,
                            Slot::Marker {
                                declared: false,
                                ..
                            }
                        ) && field.name == *name
                    })
            })
            .flatten();
        let col = match open_marker.or_else(|| table.column(&name)) {
            Some(col) => match slots.get(col) {
                Some(Slot::Marker { declared: false, .. }) => Some(col),
                Some(Slot::Filled(_)) => {
                    return Err(ln.error(
                        ErrorKind::DuplicateAttachment,
                        ln.indent,
                        alloc::format!("second attachment for field `{}` in one row", crate::error::excerpt(&name)),
                    ))
                }
                Some(Slot::Marker { declared: true, .. }) => {
                    return Err(ln.error(
                        ErrorKind::OrphanAttachment,
                        ln.indent,
                        alloc::format!(
                            "`.{}` targets a `^{{...}}` inline-schema cell, which takes a positional body",
                            crate::error::excerpt(&name)
                        ),
                    ))
                }
                _ => {
                    return Err(ln.error(
                        ErrorKind::OrphanAttachment,
                        ln.indent,
                        alloc::format!("attachment `.{}` has no `^` cell in its row", crate::error::excerpt(&name)),
                    ))
                }
            },
            None if name.contains('>') => {
                if extras.contains(&name) {
                    return Err(ln.error(
                        ErrorKind::DuplicateAttachment,
                        ln.indent,
                        alloc::format!("second attachment for field `{}` in one row", crate::error::excerpt(&name)),
                    ));
                }
                // A member past the declared ones: the row object grows.
                let members = table.members() + extras.len() + 1;
                if members > self.limits.max_container_len {
                    return Err(ln.error(
                        ErrorKind::LimitExceeded,
                        ln.indent,
                        alloc::format!(
                            "the row's object would have {members} members, more than the configured limit of {} per container",
                            self.limits.max_container_len
                        ),
                    ));
                }
                None
            }
            None => {
                return Err(ln.error(
                    ErrorKind::OrphanAttachment,
                    ln.indent,
                    alloc::format!("attachment `.{}` names no `^` column of its row", crate::error::excerpt(&name)),
                ))
            }
        };
        let rest = &ln.raw[end..];
        let body = indent + 4;
        // The attached value sits under the row (`depth + 1`) and under the
        // objects its column's path nests.
        let depth = depth + col.map_or(0, |c| table.path_nesting(c));
        let value = if rest.trim_end_matches([' ', '\t']) == " {}" {
            self.parse_object(body, depth + 2, ln)?
        } else if rest.starts_with(" =") {
            self.line_value(ln, end + 2)?
        } else if rest.starts_with(" [") {
            let head = self.parse_head(ln, end + 1)?;
            // §7.4.5.3: "The first row MUST contain the field with a tabular
            // array attachment that includes {fields}. This declaration
            // establishes the shared array schema", so only row 0 declares one.
            // A later `.field [N]` whose body starts with an `@N` item is an
            // expanded array all the same: a non-tabular array has no other
            // attachment form once a schema exists (§7.3 requires the expanded
            // body for it), and the reference decoder reads it so too. Rows of
            // a shared-schema table carry no `@N` prefix, as the schema is
            // shared only between tables of scalar cells.
            let shared = match (&head, col) {
                (Head::Expanded(_), Some(c)) => match table.shared.get(c) {
                    Some(Some(fields)) if !self.item_follows(body)? => Some(Rc::clone(fields)),
                    _ => None,
                },
                (Head::Table(count, fields), Some(c)) if !count.keyed && first_row => {
                    if table.shared.len() < table.fields.len() {
                        table.shared.resize(table.fields.len(), None);
                    }
                    if table.shared[c].is_none() {
                        table.shared[c] = Some(Rc::clone(fields));
                    }
                    None
                }
                _ => None,
            };
            self.array_body(head, ln, body, depth + 2, shared)?
        } else {
            return Err(ln.error(
                ErrorKind::InvalidSyntax,
                end,
                "expected ` {}`, ` [count]...` or ` =value` after the attachment name",
            ));
        };
        match col {
            Some(c) => slots[c] = Slot::Filled(value),
            None => extras.push(Key::from(name), value),
        }
        Ok(())
    }
}

impl<B: Build> Parser<'_, '_, B> {
    /// Whether the next line is an `@N` item at exactly `indent`.
    fn item_follows(&mut self, indent: usize) -> Result<bool, Error> {
        Ok(self
            .cur
            .peek()?
            .is_some_and(|ln| ln.indent == indent && ln.text().starts_with('@')))
    }
}

/// A positional inline object body for the marker in column `col` (spec §7.4.5.2).
fn positional<B: Build>(
    b: &mut B,
    ln: &Ln<'_>,
    table: &Table,
    slots: &mut [Slot<'_, B::Value>],
    col: usize,
    max_line_len: usize,
    (left, budget): (&mut usize, usize),
) -> Result<(), Error> {
    let Some(Slot::Marker {
        schema: Some(schema),
        ..
    }) = slots.get(col)
    else {
        return Ok(());
    };
    let fields = &table.schemas[*schema];
    // The inline schema is written once, in some row's marker, and keys
    // every later body: its constants and long names repeat into each.
    let cost = fields.iter().fold(0usize, |n, f| {
        n.saturating_add(match &f.constant {
            Some(v) => repeat_cost(&f.name, v),
            None => key_cost(&f.name),
        })
    });
    if cost != 0 {
        spend(left, cost, budget, ln)?;
    }
    let constants = fields.iter().filter(|f| f.constant.is_some()).count();
    let width = fields.len() - constants;
    let mut map = Vec::with_capacity(fields.len());
    let cells = if constants == 0 {
        for_each_token(ln, ln.indent, b'|', Context::Value, |cell, _| {
            if let Some(f) = fields.get(map.len()) {
                match cell {
                    Cell::Value(v) => map.push((f.name.clone(), b.scalar(v))),
                    Cell::Str(s) => map.push((f.name.clone(), b.string(s))),
                    Cell::Missing | Cell::Marker(_) => {}
                }
            }
            Ok(())
        })?
    } else {
        let bytes = fields
            .iter()
            .filter_map(|f| f.constant.as_ref())
            .fold(ln.raw.len(), |n, v| n.saturating_add(const_len(v)));
        if bytes > max_line_len {
            return Err(ln.error(
                ErrorKind::LimitExceeded,
                ln.indent,
                "the positional body with its constant fields is longer than the configured line limit",
            ));
        }
        let mut values = Vec::with_capacity(width);
        let cells = for_each_token(ln, ln.indent, b'|', Context::Value, |cell, _| {
            if values.len() < width {
                match cell {
                    Cell::Value(v) => values.push(v),
                    Cell::Str(s) => values.push(Value::String(Key::from(s))),
                    Cell::Missing | Cell::Marker(_) => {}
                }
            }
            Ok(())
        })?;
        if cells == width {
            let mut values = values.into_iter();
            for f in fields {
                let v = match &f.constant {
                    Some(c) => b.repeated(c),
                    None => b.scalar(values.next().unwrap_or_default()),
                };
                map.push((f.name.clone(), v));
            }
        }
        cells
    };
    if cells != width {
        return Err(ln.error(
            ErrorKind::InlineWidthMismatch,
            ln.indent,
            alloc::format!(
                "positional body has {cells} values, its inline schema declares {width}"
            ),
        ));
    }
    slots[col] = Slot::Filled(b.object(map));
    Ok(())
}

/// The identities a delta-participating table's rows have given so far
/// (spec §10a.1), by their canonical (pack-root) form.
pub(super) struct Identities {
    column: usize,
    seen: crate::hash::HashMap<Vec<u8>, usize>,
    numbers: crate::number::NumberBuffer,
}

impl Identities {
    pub(super) fn new(column: usize) -> Self {
        Identities {
            column,
            seen: crate::hash::HashMap::default(),
            numbers: crate::number::NumberBuffer::new(),
        }
    }

    /// Refuses row `index` when its identity is an earlier row's; a row
    /// whose identity cell is absent or an attachment is left to the
    /// caller (a keyed set's reader refuses it).
    pub(super) fn check<V>(
        &mut self,
        ln: &Ln<'_>,
        slots: &[Slot<'_, V>],
        index: usize,
    ) -> Result<(), Error> {
        let owned;
        let value = match slots.get(self.column) {
            Some(Slot::Value(value)) => value,
            Some(Slot::Str(s)) => {
                owned = Value::String(Key::from(*s));
                &owned
            }
            Some(Slot::Int(i)) => {
                owned = Value::Int(*i);
                &owned
            }
            Some(Slot::Float(f)) => {
                owned = Value::Float(*f);
                &owned
            }
            _ => return Ok(()),
        };
        let id = crate::generic::delta::identity_text(value, &mut self.numbers)
            .map_err(|e| ln.error(e.kind(), ln.indent, e.message()))?;
        if let Some(&first) = self.seen.get(&id) {
            return Err(ln.error(
                ErrorKind::DuplicateKey,
                ln.indent,
                alloc::format!(
                    "row {index} repeats the identity {} of row {first} (spec §10a.1)",
                    crate::error::excerpt(&String::from_utf8_lossy(&id))
                ),
            ));
        }
        self.seen.insert(id, index);
        Ok(())
    }
}
