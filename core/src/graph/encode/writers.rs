//! Line writers and checks shared by the buffered encoder, the streaming
//! writer, sessions and deltas.

use crate::graph::kind::abbreviate_kind;

use crate::error::{Error, ErrorKind};
use crate::graph::token::check_token;
use crate::graph::types::Symbol;
use crate::limits::Limits;
use crate::number::NumberBuffer;
use crate::sink::Sink;

pub(crate) fn check_count(what: &str, n: usize, limits: &Limits) -> Result<(), Error> {
    if n > limits.max_container_len || n > u32::MAX as usize {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            alloc::format!(
                "{n} {what} exceed the configured limit of {}",
                limits.max_container_len
            ),
        ));
    }
    Ok(())
}

/// The group header name for a distance.
#[inline]
pub(crate) fn write_group_header<K: Sink + ?Sized>(
    sink: &mut K,
    distance: u32,
) -> Result<(), Error> {
    match distance {
        0 => sink.write_bytes(b"## targets\n")?,
        1 => sink.write_bytes(b"## related\n")?,
        2 => sink.write_bytes(b"## extended\n")?,
        n => {
            sink.write_bytes(b"## distance_")?;
            sink.write_str(itoa::Buffer::new().format(n))?;
            sink.write_bytes(b"\n")?;
        }
    }
    Ok(())
}

/// Writes `@id kind qname score provenance` without the line feed.
#[inline]
pub(crate) fn write_node<K: Sink + ?Sized>(
    sink: &mut K,
    id: u64,
    symbol: &Symbol<&str>,
    numbers: &mut NumberBuffer,
) -> Result<(), Error> {
    check_token("qualified name", symbol.qualified_name)?;
    check_token("kind", symbol.kind)?;
    check_token("provenance", symbol.provenance)?;
    let score = numbers.format_score(symbol.score)?;
    write_checked_node(sink, id, symbol, score)
}

/// Writes `@id kind qname score provenance` without the line feed, for a
/// symbol whose tokens were checked and whose score is already formatted
/// (the streaming writer validates before writing anything).
#[inline]
pub(crate) fn write_checked_node<K: Sink + ?Sized>(
    sink: &mut K,
    id: u64,
    symbol: &Symbol<&str>,
    score: &str,
) -> Result<(), Error> {
    let mut ids = itoa::Buffer::new();
    sink.write_bytes(b"@")?;
    sink.write_str(ids.format(id))?;
    sink.write_bytes(b" ")?;
    sink.write_str(abbreviate_kind(symbol.kind))?;
    sink.write_bytes(b" ")?;
    sink.write_str(symbol.qualified_name)?;
    sink.write_bytes(b" ")?;
    sink.write_str(score)?;
    sink.write_bytes(b" ")?;
    sink.write_str(symbol.provenance)?;
    Ok(())
}

/// Checks an edge's type and status; returns whether the status is written.
#[inline]
pub(crate) fn check_edge(edge_type: &str, status: &str) -> Result<bool, Error> {
    check_token("edge type", edge_type)?;
    let has_status = !status.is_empty() && status != "unchanged";
    if has_status {
        check_token("edge status", status)?;
    }
    Ok(has_status)
}

/// Checks that a location's positions are 1-based (spec §6b).
pub(crate) fn check_location(
    file: &str,
    line: u32,
    column: u32,
    end: Option<(u32, u32)>,
) -> Result<(), Error> {
    let positions_ok = line >= 1 && column >= 1 && end.is_none_or(|(l, c)| l >= 1 && c >= 1);
    if positions_ok {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        alloc::format!(
            "location of `{}` has a zero line or column; positions are 1-based (spec 6b)",
            crate::error::excerpt(file)
        ),
    ))
}

/// Writes an edge line whose type and status [`check_edge`] accepted.
#[inline]
pub(crate) fn write_checked_edge_line<K: Sink + ?Sized>(
    sink: &mut K,
    source: u64,
    target: u64,
    edge_type: &str,
    status: Option<&str>,
) -> Result<(), Error> {
    let mut ids = itoa::Buffer::new();
    sink.write_bytes(b"@")?;
    sink.write_str(ids.format(target))?;
    sink.write_bytes(b"<@")?;
    sink.write_str(ids.format(source))?;
    sink.write_bytes(b" ")?;
    sink.write_str(edge_type)?;
    if let Some(status) = status {
        sink.write_bytes(b" ")?;
        sink.write_str(status)?;
    }
    sink.write_bytes(b"\n")?;
    Ok(())
}

/// Writes `@id file line column[ end_line end_column]\n` (spec §6b).
pub(crate) fn write_loc_line<K: Sink + ?Sized>(
    sink: &mut K,
    id: u64,
    file: &str,
    line: u32,
    column: u32,
    end: Option<(u32, u32)>,
) -> Result<(), Error> {
    check_location(file, line, column, end)?;
    let mut ids = itoa::Buffer::new();
    sink.write_bytes(b"@")?;
    sink.write_str(ids.format(id))?;
    sink.write_bytes(b" ")?;
    let bare = !file.is_empty()
        && !file.starts_with('"')
        && file.bytes().all(|b| (0x21..=0x7e).contains(&b));
    if bare {
        sink.write_str(file)?;
    } else {
        crate::text::write_quoted(sink, file)?;
    }
    for n in [Some(line), Some(column), end.map(|e| e.0), end.map(|e| e.1)]
        .into_iter()
        .flatten()
    {
        sink.write_bytes(b" ")?;
        sink.write_str(ids.format(n))?;
    }
    sink.write_bytes(b"\n")?;
    Ok(())
}
