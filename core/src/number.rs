//! Canonical number text (spec §2.3, §2.3.1) and the graph score form (§5).
//!
//! Integers go through `itoa`, doubles through `ryu` for the shortest
//! round-trip digits, which are then laid out the way the spec demands:
//! plain decimal for `1e-6 <= |v| < 2^53`, normalised exponent otherwise,
//! and `0` for either zero. Nothing here allocates.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, ErrorKind};

/// `2^53`: from here on every double is integer-valued and renders in exponent form.
const PLAIN_UPPER: f64 = 9_007_199_254_740_992.0;
/// Below this magnitude a double renders in exponent form.
const PLAIN_LOWER: f64 = 1e-6;

/// Enough room for any canonical double (`-1.2345678901234567e-308` is 24 bytes)
/// and any plain double below 2^53 with 17 significant digits and six leading zeros.
pub const NUMBER_BUFFER_LEN: usize = 40;

/// A stack buffer that canonical doubles are formatted into.
pub struct NumberBuffer {
    bytes: [u8; NUMBER_BUFFER_LEN],
    ryu: ryu::Buffer,
    /// Scores of `2^113` and more: up to 309 integer digits, too long for
    /// `bytes`; allocated only when such a score is written.
    wide: alloc::string::String,
}

impl Default for NumberBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl NumberBuffer {
    /// A fresh buffer; cheap enough to make per call.
    #[inline]
    pub fn new() -> Self {
        NumberBuffer {
            bytes: [0; NUMBER_BUFFER_LEN],
            ryu: ryu::Buffer::new(),
            wide: alloc::string::String::new(),
        }
    }

    /// Formats a double canonically (spec §2.3.1).
    ///
    /// Non-finite values are outside the JSON data model and are rejected with
    /// [`ErrorKind::OutOfRange`].
    pub fn format_f64(&mut self, value: f64) -> Result<&str, Error> {
        let bytes = self.format_f64_bytes(value)?;
        // Only ASCII digits, '-', '.', 'e' and '+' were written.
        Ok(core::str::from_utf8(bytes).unwrap_or("0"))
    }

    /// [`format_f64`](Self::format_f64) as bytes, for writers that hand them
    /// straight to a sink and need no UTF-8 check.
    #[inline]
    pub(crate) fn format_f64_bytes(&mut self, value: f64) -> Result<&[u8], Error> {
        if !value.is_finite() {
            return Err(Error::new(
                ErrorKind::OutOfRange,
                alloc::format!(
                    "{value} is not a finite number; GCF numbers follow the JSON data model, so model it as a string or null"
                ),
            ));
        }
        if value == 0.0 {
            return Ok(b"0");
        }
        let len = match layout_short_decimal(&mut self.bytes, value) {
            Some(len) => len,
            None => self.layout_shortest(value),
        };
        Ok(&self.bytes[..len])
    }

    /// The general path of [`format_f64`](Self::format_f64): ryu's shortest
    /// digits, laid out as §2.3.1 demands. `value` is finite and non-zero.
    #[inline(never)]
    fn layout_shortest(&mut self, value: f64) -> usize {
        let shortest = self.ryu.format_finite(value);
        let (digits, exp10) = decompose(shortest.as_bytes());
        let negative = value < 0.0;
        let magnitude = value.abs();
        if (PLAIN_LOWER..PLAIN_UPPER).contains(&magnitude) {
            layout_plain(&mut self.bytes, negative, digits.as_slice(), exp10)
        } else {
            layout_exponent(&mut self.bytes, negative, digits.as_slice(), exp10)
        }
    }

    /// Formats a graph score with exactly two decimals, rounding the exact
    /// binary value half-to-even (spec §5): `0.125` gives `0.12`, `0.625`
    /// gives `0.62`, like C's `%.2f`.
    pub fn format_score(&mut self, value: f64) -> Result<&str, Error> {
        if !value.is_finite() {
            return Err(Error::new(
                ErrorKind::InvalidScore,
                alloc::format!("score {value} is not finite; scores are written as [-]DIGITS.DD"),
            ));
        }
        match hundredths_half_even(value.abs()) {
            Some(q) => {
                let len = layout_score(&mut self.bytes, value.is_sign_negative(), q);
                Ok(core::str::from_utf8(&self.bytes[..len]).unwrap_or("0.00"))
            }
            None => Ok(self.format_wide_score(value)),
        }
    }

    /// A score whose hundredths need more than 128 bits (`|value| >= 2^113`).
    /// Such a double is an integer, so its two decimals are `.00` and the
    /// digits are its exact value: what the decoder reads back to the same
    /// double, and what `{:.2}` (the reference crate's form) writes. Scores
    /// this large are rare enough that formatting through `core::fmt` into
    /// an allocated string costs nothing that matters.
    #[cold]
    #[inline(never)]
    fn format_wide_score(&mut self, value: f64) -> &str {
        use core::fmt::Write as _;
        self.wide.clear();
        // Writing into a String cannot fail.
        let _ = write!(self.wide, "{value:.2}");
        &self.wide
    }
}

/// `2^38`: below it a double's rounding interval is at most `2^-15` wide.
const SHORT_DECIMAL_UPPER: f64 = 274_877_906_944.0;

/// Lays out a finite, non-zero `value` that is an integer below `2^53`, or
/// below `2^38` with at most three decimals, without ryu; `None` otherwise.
///
/// Such a value is written as its exact decimal `m / 1000`, which is what
/// ryu's shortest round-trip digits give. The candidate `m` is certified by
/// `m / 1000.0 == |value|`: IEEE division of exact operands rounds correctly,
/// so the decimal `c = m / 1000` lies in the rounding interval of `value`.
/// Every other decimal with at most as many significant digits as `c` is at
/// least `10^-4` from `c` (it is a different multiple of `c`'s last digit
/// position or coarser, or below the power of ten `c` starts at), while below
/// `2^38` the interval is at most `2^-15 < 10^-4` wide; so `c` is the only
/// shortest candidate and ryu picks it. The same argument with integers
/// (spacing 1, interval at most 1 wide and open at its non-integer ends)
/// covers every integer below `2^53`. Tests compare both paths on millions
/// of doubles.
#[inline]
fn layout_short_decimal(out: &mut [u8; NUMBER_BUFFER_LEN], value: f64) -> Option<usize> {
    let (whole, thousandths) = short_decimal_parts(value)?;
    let mut len = 0;
    if value < 0.0 {
        out[0] = b'-';
        len = 1;
    }
    let mut itoa_buf = itoa::Buffer::new();
    let digits = itoa_buf.format(whole).as_bytes();
    out[len..len + digits.len()].copy_from_slice(digits);
    len += digits.len();
    if thousandths != 0 {
        let fraction = [
            b'0' + (thousandths / 100) as u8,
            b'0' + (thousandths / 10 % 10) as u8,
            b'0' + (thousandths % 10) as u8,
        ];
        let kept = if fraction[2] != b'0' {
            3
        } else if fraction[1] != b'0' {
            2
        } else {
            1
        };
        out[len] = b'.';
        out[len + 1..len + 1 + kept].copy_from_slice(&fraction[..kept]);
        len += 1 + kept;
    }
    Some(len)
}

/// The decimal `|value| = whole + thousandths / 1000` that
/// [`layout_short_decimal`] writes (certified as explained there), also for a writer
/// that lays the digits out straight into its own buffer (the generic
/// streaming writer's row assembly); `None` where that layout does not
/// apply. Zero (either sign) gives `(0, 0)`, which is written `0` as the
/// canonical form demands. Tests compare the layout built from these parts
/// with [`NumberBuffer::format_f64`] on millions of doubles.
#[inline]
pub(crate) fn short_decimal_parts(value: f64) -> Option<(u64, u16)> {
    let magnitude = crate::hint::float_of_this_branch(value).abs();
    // Conversions go through `i64` (one instruction each way on x86-64,
    // where `u64` needs several); every value here is below 2^53.
    if magnitude < PLAIN_UPPER && (magnitude as i64) as f64 == magnitude {
        Some((magnitude as i64 as u64, 0))
    } else if magnitude < SHORT_DECIMAL_UPPER {
        // Off by one for some inputs is harmless: the check rejects it.
        let m = (magnitude * 1000.0 + 0.5) as i64;
        if m as f64 / 1000.0 != magnitude {
            return None;
        }
        let m = m as u64;
        Some((m / 1000, (m % 1000) as u16))
    } else {
        None
    }
}

/// A finite, non-negative double as `mantissa * 2^exp2` (`mantissa < 2^53`).
#[inline(always)]
fn mantissa_exponent(magnitude: f64) -> (u64, i32) {
    let bits = magnitude.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    }
}

/// `round_half_even(magnitude * 100)` computed exactly in 64-bit
/// arithmetic, for writers that lay a score out themselves; `None` when it
/// may not fit (magnitude `>= 2^56`) or the input is not finite, where
/// [`NumberBuffer::format_score`] takes over.
///
/// `mantissa * 100 < 2^60`: for `exp2 < 0` the quotient and remainder of a
/// shift by `-exp2` are exact, and once the shift reaches 61 the product is
/// below half of `2^shift`, which rounds to zero.
#[inline(always)]
pub(crate) fn hundredths_half_even_narrow(magnitude: f64) -> Option<u64> {
    if !magnitude.is_finite() {
        return None;
    }
    let (mantissa, exp2) = mantissa_exponent(magnitude);
    let scaled = mantissa * 100;
    if exp2 >= 0 {
        // scaled < 2^60: shifting by up to 3 stays below 2^63.
        return (exp2 <= 3).then(|| scaled << exp2);
    }
    let shift = (-exp2) as u32;
    if shift > 61 {
        return Some(0);
    }
    let quotient = scaled >> shift;
    let remainder = scaled & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let round_up = remainder > half || (remainder == half && quotient & 1 == 1);
    Some(quotient + round_up as u64)
}

/// `round_half_even(|value| * 100)` computed exactly, or `None` when the
/// product needs more than 128 bits.
#[inline]
fn hundredths_half_even(magnitude: f64) -> Option<u128> {
    let (mantissa, exp2) = mantissa_exponent(magnitude);
    let scaled = (mantissa as u128) * 100;
    if exp2 >= 0 {
        if exp2 > 60 {
            return None;
        }
        return Some(scaled << exp2);
    }
    let shift = (-exp2) as u32;
    if shift >= 127 {
        // scaled < 2^60 is far below half of 2^shift: rounds to zero.
        return Some(0);
    }
    let quotient = scaled >> shift;
    let remainder = scaled & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let round_up = remainder > half || (remainder == half && quotient & 1 == 1);
    Some(quotient + round_up as u128)
}

/// The integer part of a score, in the narrowest type that holds it.
enum Whole {
    Narrow(u64),
    Wide(u128),
}

fn layout_score(out: &mut [u8; NUMBER_BUFFER_LEN], negative: bool, hundredths: u128) -> usize {
    let mut len = 0;
    if negative {
        out[0] = b'-';
        len = 1;
    }
    // Scores are small: keep the division and digits in 64 bits (a 128-bit
    // division is a library call) unless the value needs more.
    let (whole, cents) = match u64::try_from(hundredths) {
        Ok(h) => (Whole::Narrow(h / 100), (h % 100) as u8),
        Err(_) => (Whole::Wide(hundredths / 100), (hundredths % 100) as u8),
    };
    let mut itoa_buf = itoa::Buffer::new();
    let whole_text = match whole {
        Whole::Narrow(w) => itoa_buf.format(w),
        Whole::Wide(w) => itoa_buf.format(w),
    }
    .as_bytes();
    out[len..len + whole_text.len()].copy_from_slice(whole_text);
    len += whole_text.len();
    out[len] = b'.';
    out[len + 1] = b'0' + cents / 10;
    out[len + 2] = b'0' + cents % 10;
    len + 3
}

/// Significant digits of a ryu rendering, without leading or trailing zeros.
struct Digits {
    bytes: [u8; 20],
    len: usize,
}

impl Digits {
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Splits ryu's text (`1.0`, `0.3`, `1e-7`, `1.25e21`, `-123.45`) into
/// significant digits `d1 d2 .. dn` and `e` with `|v| = d1.d2..dn * 10^e`.
fn decompose(text: &[u8]) -> (Digits, i32) {
    let mut digits = Digits {
        bytes: [0; 20],
        len: 0,
    };
    let mut point: Option<i32> = None; // digits seen (incl. leading zeros) before '.'
    let mut seen = 0i32; // mantissa digits seen, including leading zeros
    let mut leading_zeros = 0i32;
    let mut explicit_exp = 0i32;
    let mut i = 0;
    if text.first() == Some(&b'-') {
        i = 1;
    }
    while i < text.len() {
        let c = text[i];
        match c {
            b'0'..=b'9' => {
                if digits.len == 0 && c == b'0' {
                    leading_zeros += 1;
                } else if digits.len < digits.bytes.len() {
                    digits.bytes[digits.len] = c;
                    digits.len += 1;
                }
                seen += 1;
            }
            b'.' => point = Some(seen),
            b'e' | b'E' => {
                let mut j = i + 1;
                let mut neg = false;
                if j < text.len() && (text[j] == b'-' || text[j] == b'+') {
                    neg = text[j] == b'-';
                    j += 1;
                }
                let mut e = 0i32;
                while j < text.len() {
                    e = e * 10 + (text[j] - b'0') as i32;
                    j += 1;
                }
                explicit_exp = if neg { -e } else { e };
                break;
            }
            _ => {}
        }
        i += 1;
    }
    while digits.len > 1 && digits.bytes[digits.len - 1] == b'0' {
        digits.len -= 1;
    }
    let int_digits = point.unwrap_or(seen);
    // Position of the first significant digit relative to the decimal point.
    let exp10 = int_digits - leading_zeros - 1 + explicit_exp;
    (digits, exp10)
}

fn layout_plain(
    out: &mut [u8; NUMBER_BUFFER_LEN],
    negative: bool,
    digits: &[u8],
    exp10: i32,
) -> usize {
    let mut len = 0;
    let mut push = |b: u8, len: &mut usize| {
        out[*len] = b;
        *len += 1;
    };
    if negative {
        push(b'-', &mut len);
    }
    if exp10 < 0 {
        push(b'0', &mut len);
        push(b'.', &mut len);
        for _ in 0..(-exp10 - 1) {
            push(b'0', &mut len);
        }
        for &d in digits {
            push(d, &mut len);
        }
    } else {
        let int_len = exp10 as usize + 1;
        for k in 0..int_len {
            push(if k < digits.len() { digits[k] } else { b'0' }, &mut len);
        }
        if digits.len() > int_len {
            push(b'.', &mut len);
            for &d in &digits[int_len..] {
                push(d, &mut len);
            }
        }
    }
    len
}

fn layout_exponent(
    out: &mut [u8; NUMBER_BUFFER_LEN],
    negative: bool,
    digits: &[u8],
    exp10: i32,
) -> usize {
    let mut len = 0;
    if negative {
        out[len] = b'-';
        len += 1;
    }
    out[len] = digits[0];
    len += 1;
    if digits.len() > 1 {
        out[len] = b'.';
        len += 1;
        out[len..len + digits.len() - 1].copy_from_slice(&digits[1..]);
        len += digits.len() - 1;
    }
    out[len] = b'e';
    out[len + 1] = if exp10 < 0 { b'-' } else { b'+' };
    len += 2;
    let mut itoa_buf = itoa::Buffer::new();
    let e = itoa_buf.format(exp10.unsigned_abs()).as_bytes();
    out[len..len + e.len()].copy_from_slice(e);
    len + e.len()
}

/// A number token as the decoder reads it (spec §2.3, §2.3.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParsedNumber {
    /// A literal with no fraction and no exponent, inside `int64`.
    Int(i64),
    /// A literal with a fraction or exponent.
    Float(f64),
}

/// Why a token that looks like a number is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// The token does not match the JSON number grammar: it is a string.
    NotANumber,
    /// A valid number outside the numeric domain (`int64`, or a double that overflows).
    OutOfRange,
}

/// Parses `token` if it matches the JSON number grammar in its entirety
/// (ASCII digits only, spec §2.3).
///
/// ```
/// use gcf_core::{parse_number, ParsedNumber, NumberError};
/// assert_eq!(parse_number("-12"), Ok(ParsedNumber::Int(-12)));
/// assert_eq!(parse_number("1.5e3"), Ok(ParsedNumber::Float(1500.0)));
/// assert_eq!(parse_number("01"), Err(NumberError::NotANumber));
/// assert_eq!(parse_number("9223372036854775808"), Err(NumberError::OutOfRange));
/// ```
pub fn parse_number(token: &str) -> Result<ParsedNumber, NumberError> {
    if let Some(n) = short_integer(token.as_bytes()) {
        return Ok(ParsedNumber::Int(n));
    }
    let b = token.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i = 1;
    }
    let int_start = i;
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        _ => return Err(NumberError::NotANumber),
    }
    let int_end = i;
    let mut integral = true;
    let mut fraction = (i, i);
    if i < b.len() && b[i] == b'.' {
        integral = false;
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(NumberError::NotANumber);
        }
        fraction = (start, i);
    }
    if i == b.len() && !integral {
        if let Some(v) = short_decimal(&b[int_start..int_end], &b[fraction.0..fraction.1]) {
            return Ok(ParsedNumber::Float(if int_start == 1 { -v } else { v }));
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        integral = false;
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(NumberError::NotANumber);
        }
    }
    if i != b.len() {
        return Err(NumberError::NotANumber);
    }
    if integral {
        let negative = int_start == 1;
        let mut acc: i64 = 0;
        for &d in &b[int_start..int_end] {
            let digit = (d - b'0') as i64;
            acc = acc
                .checked_mul(10)
                .and_then(|a| {
                    if negative {
                        a.checked_sub(digit)
                    } else {
                        a.checked_add(digit)
                    }
                })
                .ok_or(NumberError::OutOfRange)?;
        }
        return Ok(ParsedNumber::Int(acc));
    }
    match parse_f64(token) {
        Some(v) if v.is_finite() => Ok(ParsedNumber::Float(v)),
        _ => Err(NumberError::OutOfRange),
    }
}

/// The double nearest a JSON number literal
/// (`-?digits(.digits)?([eE][+-]?digits)?`), correctly rounded at any
/// length; `None` when `text` is not such a literal.
///
/// `str::parse::<f64>` misreads a literal of more than about 650,000
/// digits (its exponent arithmetic saturates: `0.000…1e650001` is 0), which
/// a 64 MiB line can hold. A long literal is first rewritten as `0.D×10^E`
/// with at most 800 significant digits (a double can need 767; a dropped
/// nonzero digit is kept as one more `1`, so a tie still rounds up) and its
/// exponent summed in `i64`; the short one std then reads exactly.
///
/// ```
/// use gcf_core::parse_f64;
/// let one = format!("0.{}1e{}", "0".repeat(700_000), 700_001);
/// assert_eq!(parse_f64(&one), Some(1.0));
/// assert_eq!(parse_f64("-2.5e-3"), Some(-0.0025));
/// assert_eq!(parse_f64("1e999"), Some(f64::INFINITY));
/// assert_eq!(parse_f64("1.x"), None);
/// ```
pub fn parse_f64(text: &str) -> Option<f64> {
    if text.len() <= 4096 {
        return text.parse().ok();
    }
    let b = text.as_bytes();
    let (negative, rest) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let (mantissa, exponent) = match rest.iter().position(|&c| c == b'e' || c == b'E') {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.iter().position(|&c| c == b'.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, &mantissa[..0]),
    };
    let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    if !digits(int) || (mantissa.len() > int.len() && !digits(frac)) {
        return None;
    }
    let mut exp: i64 = 0;
    if let Some(e) = exponent {
        let (sign, e) = match e.split_first() {
            Some((b'-', e)) => (-1, e),
            Some((b'+', e)) => (1, e),
            _ => (1, e),
        };
        if !digits(e) {
            return None;
        }
        for &d in e {
            exp = exp.saturating_mul(10).saturating_add(i64::from(d - b'0'));
        }
        exp *= sign;
    }
    // The significant digits, and the exponent of 0.D.
    let all = int.iter().chain(frac);
    let leading = all.clone().take_while(|&&d| d == b'0').count();
    let significant: Vec<u8> = all.skip(leading).copied().collect();
    let trailing = significant.iter().rev().take_while(|&&d| d == b'0').count();
    let significant = &significant[..significant.len() - trailing];
    let zero = if negative { -0.0 } else { 0.0 };
    if significant.is_empty() {
        return Some(zero);
    }
    let point = (int.len() as i64 - leading as i64).saturating_add(exp);
    if point > 400 {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if point < -400 {
        return Some(zero);
    }
    let keep = significant.len().min(800);
    let sticky = significant[keep..].iter().any(|&d| d != b'0');
    let mut short = String::with_capacity(keep + 16);
    if negative {
        short.push('-');
    }
    short.push_str("0.");
    short.extend(significant[..keep].iter().map(|&d| char::from(d)));
    if sticky {
        short.push('1');
    }
    short.push('e');
    short.push_str(itoa::Buffer::new().format(point));
    short.parse().ok()
}

/// An integer of 1 to 18 digits with no leading zero (or `0`), optionally
/// negative, read in one pass: below 10^18, so it fits an `i64` with no
/// overflow checks. Ids, counts and prices in cents are nearly always this;
/// anything else is `None` and takes the general parse.
#[inline(always)]
fn short_integer(b: &[u8]) -> Option<i64> {
    let (negative, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let (&first, rest) = digits.split_first()?;
    if digits.len() > 18 || !first.is_ascii_digit() || (first == b'0' && !rest.is_empty()) {
        return None;
    }
    let mut n = i64::from(first - b'0');
    for &d in rest {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i64::from(d - b'0');
    }
    Some(if negative { -n } else { n })
}

/// A decimal `int.frac` without exponent whose digits together number at
/// most 15, exactly as the correctly rounded parse would give it: the digits
/// as an integer (below 10^15 < 2^53, so exact as a double) divided by a
/// power of ten up to 10^15 (exact too), which IEEE division rounds
/// correctly (Clinger's fast path). Prices and scores (`12.5`, `1234.99`)
/// take it and skip the general parser. `None` for longer digit strings.
#[inline]
fn short_decimal(int: &[u8], frac: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    if int.len() + frac.len() > 15 {
        return None;
    }
    let mut m: u64 = 0;
    for &d in int.iter().chain(frac) {
        m = m * 10 + u64::from(d - b'0');
    }
    Some(m as f64 / *POW10.get(frac.len())?)
}

/// The actionable message for an integer outside `int64` (spec §2.3.2). A
/// literal past 60 characters is cut short (`...`): a number of a million
/// digits is a reason to refuse it, not to repeat it.
pub fn out_of_range_message(literal: &str) -> alloc::string::String {
    alloc::format!(
        "integer {} is outside the int64 range [-9223372036854775808, 9223372036854775807]; model it as a string at the producer",
        crate::error::excerpt(literal)
    )
}

/// The message for a number beyond a double's range (`1e999`), its
/// literal cut short past 60 characters as [`out_of_range_message`]'s is.
pub fn double_out_of_range_message(literal: &str) -> alloc::string::String {
    alloc::format!(
        "number {} is outside the range of a double",
        crate::error::excerpt(literal)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_literals_read_as_their_short_forms() {
        // m × 10^e written long three ways: leading zeros in the fraction,
        // trailing zeros in the integer, and with the exponent far off,
        // each past std's reach (about 650,000 digits) and past 4 KiB.
        for (m, e) in [
            ("1", 0i64),
            ("1", -1),
            ("123456789987654321", -9),
            ("25", -301),
            ("17976931348623157", 292),
            ("49", -325),
            ("7", 300),
        ] {
            let expected = format!("{m}e{e}").parse::<f64>().unwrap();
            for n in [5_000usize, 700_000] {
                let lead = format!("0.{}{m}e{}", "0".repeat(n), e + (n + m.len()) as i64);
                let trail = format!("{m}{}e{}", "0".repeat(n), e - n as i64);
                let negative = format!("-{lead}");
                assert_eq!(
                    parse_f64(&lead),
                    Some(expected),
                    "{m}e{e}, {n} zeros before"
                );
                assert_eq!(
                    parse_f64(&trail),
                    Some(expected),
                    "{m}e{e}, {n} zeros after"
                );
                assert_eq!(parse_f64(&negative), Some(-expected));
                assert_eq!(parse_number(&lead), Ok(ParsedNumber::Float(expected)));
            }
        }
        // A digit past the 800 kept still rounds: 1 + 2^-53 (a tie between
        // 1 and the next double) rounds to even, and anything above it up.
        let tie = "1.00000000000000011102230246251565404236316680908203125";
        let above = format!("{tie}{}1", "0".repeat(5_000));
        assert_eq!(parse_f64(tie), Some(1.0));
        assert_eq!(parse_f64(&above), Some(1.0 + f64::EPSILON));
        assert_eq!(parse_f64(&format!("0.{}", "0".repeat(5_000))), Some(0.0));
        assert_eq!(
            parse_f64(&format!("1{}", "0".repeat(5_000))),
            Some(f64::INFINITY)
        );
        assert_eq!(parse_f64(&format!("1.{}x", "0".repeat(5_000))), None);
    }

    #[test]
    fn short_integers_read_as_the_general_parse_does() {
        let tokens = [
            "0",
            "-0",
            "7",
            "-7",
            "10",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "00",
            "-",
            "",
            "01",
            "-01",
            "1.0",
            "1e3",
            "12a",
            "+1",
            "1 ",
            "١",
            "999999999999999999",
        ];
        for t in tokens {
            let fast = short_integer(t.as_bytes());
            if let Some(n) = fast {
                assert_eq!(Some(n), t.parse::<i64>().ok(), "{t}");
                assert!(t.len() <= 19 && !t.starts_with('+'), "{t}");
            }
            // What parse_number answers is what it answered before the
            // fast path: an integer token is an `Int` exactly when `i64`
            // holds it and it has no leading zero.
            let plain = t.strip_prefix('-').unwrap_or(t);
            let canonical = !plain.is_empty()
                && plain.bytes().all(|b| b.is_ascii_digit())
                && (plain == "0" || !plain.starts_with('0'));
            match parse_number(t) {
                Ok(ParsedNumber::Int(n)) => {
                    assert!(canonical, "{t}");
                    assert_eq!(Some(n), t.parse::<i64>().ok(), "{t}");
                }
                Err(NumberError::OutOfRange) if canonical => {
                    assert!(t.parse::<i64>().is_err(), "{t}")
                }
                _ => assert!(!canonical, "{t}"),
            }
        }
        for k in 0..20_000u64 {
            let n = (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (k % 60)) as i64;
            let n = if k % 3 == 0 { -n } else { n };
            let t = alloc::format!("{n}");
            match parse_number(&t) {
                Ok(ParsedNumber::Int(m)) => assert_eq!(m, n, "{t}"),
                other => panic!("{t}: {other:?}"),
            }
        }
    }

    #[test]
    fn out_of_range_messages_cut_long_literals_short() {
        let short = out_of_range_message("9223372036854775808");
        assert!(
            short.starts_with("integer 9223372036854775808 is outside"),
            "{short}"
        );
        let long = out_of_range_message(&"9".repeat(1_000_000));
        assert!(long.len() < 200, "{} bytes", long.len());
        assert!(long.starts_with(&alloc::format!("integer {}... is outside", "9".repeat(60))));
        let double = double_out_of_range_message(&alloc::format!("{}e9", "1".repeat(100_000)));
        assert!(double.len() < 120, "{double}");
        assert_eq!(
            double_out_of_range_message("1e999"),
            "number 1e999 is outside the range of a double"
        );
    }

    /// The short-decimal path gives the bits of the general parser on
    /// decimals of every digit split up to its limit and just past it,
    /// signed zeros and halfway-looking digit strings.
    #[test]
    fn short_decimals_parse_like_the_general_parser() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut digits = |n: usize| -> alloc::string::String {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (b'0' + (seed % 10) as u8) as char
                })
                .collect()
        };
        let mut checked = 0;
        for int_len in 1..=17usize {
            for frac_len in 1..=17usize {
                for _ in 0..40 {
                    let mut int = digits(int_len);
                    if int.len() > 1 && int.starts_with('0') {
                        int.replace_range(0..1, "1");
                    }
                    let frac = digits(frac_len);
                    for sign in ["", "-"] {
                        let token = alloc::format!("{sign}{int}.{frac}");
                        let want: f64 = token.parse().unwrap();
                        match parse_number(&token) {
                            Ok(ParsedNumber::Float(got)) => {
                                assert_eq!(got.to_bits(), want.to_bits(), "{token}")
                            }
                            other => panic!("{token}: {other:?}"),
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 20_000);
        for token in [
            "0.0",
            "-0.0",
            "0.5",
            "-0.000",
            "9007199254740.993",
            "0.1",
            "0.3",
        ] {
            let want: f64 = token.parse().unwrap();
            match parse_number(token) {
                Ok(ParsedNumber::Float(got)) => {
                    assert_eq!(got.to_bits(), want.to_bits(), "{token}")
                }
                other => panic!("{token}: {other:?}"),
            }
        }
    }
    use alloc::format;
    use alloc::string::String;

    fn canon(v: f64) -> String {
        String::from(NumberBuffer::new().format_f64(v).unwrap())
    }

    /// Both layouts of `value`: the short-decimal fast path (if it applies)
    /// and the general ryu path, which is the oracle.
    fn both_paths(value: f64) -> (Option<String>, String) {
        let mut b = NumberBuffer::new();
        let fast = layout_short_decimal(&mut b.bytes, value)
            .map(|len| String::from_utf8_lossy(&b.bytes[..len]).into_owned());
        let len = b.layout_shortest(value);
        (fast, String::from_utf8_lossy(&b.bytes[..len]).into_owned())
    }

    #[test]
    fn short_decimal_path_matches_ryu_layout() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut taken = 0usize;
        let mut check = |v: f64| {
            if !v.is_finite() || v == 0.0 {
                return;
            }
            for v in [
                v,
                -v,
                f64::from_bits(v.to_bits() + 1),
                f64::from_bits(v.to_bits() - 1),
            ] {
                let (fast, oracle) = both_paths(v);
                if let Some(fast) = fast {
                    taken += 1;
                    assert_eq!(fast, oracle, "{v:e} ({:#x})", v.to_bits());
                }
            }
        };
        // Powers of two and ten, their neighbours, and the bounds of both paths.
        for e in -20..64 {
            check(2f64.powi(e));
            check(10f64.powi(e / 3));
        }
        check(SHORT_DECIMAL_UPPER);
        check(PLAIN_UPPER);
        check(PLAIN_UPPER - 1.0);
        check(SHORT_DECIMAL_UPPER - 0.001);
        check(SHORT_DECIMAL_UPPER - 0.5);
        for _ in 0..300_000 {
            let r = next();
            // Decimals with up to four places at every magnitude up to 2^53.
            let places = (r % 5) as i32;
            let digits = (r >> 3) % 17;
            let m = (next() >> (64 - 53)) >> (53 - 3 * digits.min(17) as u32).min(53);
            check(m as f64 / 10f64.powi(places));
            // Arbitrary bit patterns.
            check(f64::from_bits(next()));
            // Decimals near the 2^38 bound.
            check((SHORT_DECIMAL_UPPER * 1000.0 - (next() % 1_000_000) as f64) / 1000.0);
        }
        assert!(taken > 1_000_000, "fast path taken {taken} times");
    }

    #[test]
    fn formatted_examples() {
        let mut b = NumberBuffer::new();
        assert_eq!(b.format_f64(0.5).unwrap(), "0.5");
        assert_eq!(b.format_f64(75.0).unwrap(), "75");
        assert_eq!(b.format_f64(5e18).unwrap(), "5e+18");
        assert_eq!(b.format_f64(4e-7).unwrap(), "4e-7");
        assert_eq!(b.format_f64(-0.0).unwrap(), "0");
        assert_eq!(b.format_score(0.125).unwrap(), "0.12");
        assert_eq!(b.format_score(0.9).unwrap(), "0.90");
        assert_eq!(b.format_score(12.0).unwrap(), "12.00");
    }

    #[test]
    fn canonical_doubles() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (1e-6, "0.000001"),
            (9.99e-7, "9.99e-7"),
            (1e-7, "1e-7"),
            (1.25e21, "1.25e+21"),
            (9e18, "9e+18"),
            (9007199254740991.0, "9007199254740991"),
            (9007199254740992.0, "9.007199254740992e+15"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000"),
            (100.0, "100"),
            (0.000123, "0.000123"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-f64::MIN_POSITIVE, "-2.2250738585072014e-308"),
            (123456789.125, "123456789.125"),
            (0.30000000000000004, "0.30000000000000004"),
        ];
        for &(v, want) in cases {
            assert_eq!(canon(v), want, "formatting {v:e}");
        }
    }

    #[test]
    fn canonical_double_round_trips_through_parse() {
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if !v.is_finite() {
                continue;
            }
            let text = canon(v);
            let back = match parse_number(&text) {
                Ok(ParsedNumber::Float(f)) => f,
                Ok(ParsedNumber::Int(i)) => i as f64,
                Err(e) => panic!("{text} did not parse: {e:?}"),
            };
            assert_eq!(back, if v == 0.0 { 0.0 } else { v }, "{text}");
            // Bare-integer shape only below 2^53.
            if !text.contains(['.', 'e']) {
                assert!(v.abs() < PLAIN_UPPER);
            }
        }
    }

    #[test]
    fn non_finite_is_out_of_range() {
        let e = NumberBuffer::new().format_f64(f64::NAN).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
        assert!(NumberBuffer::new().format_f64(f64::INFINITY).is_err());
        assert_eq!(
            NumberBuffer::new()
                .format_score(f64::NAN)
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidScore
        );
    }

    #[test]
    fn scores_match_core_fmt_half_even() {
        let mut x: u64 = 12345;
        let check = |v: f64| {
            let want = format!("{v:.2}");
            let mut b = NumberBuffer::new();
            assert_eq!(b.format_score(v).unwrap(), want, "score {v:e}");
        };
        for v in [
            0.125,
            0.625,
            0.375,
            0.005,
            0.015,
            0.0,
            -0.0,
            -0.125,
            1.0,
            0.999,
            0.995,
            99.995,
            1e-300,
            5e-324,
            1e17,
            1.5e19,
            1e33,
            1.844_674_407_370_955e17,
            1.844_674_407_370_956e17,
            1.038_459_371_706_965_5e34,
            f64::MAX,
            -f64::MAX,
        ] {
            check(v);
        }
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Uniform scores in [0, 1], plus exact hundredth midpoints.
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            check(unit);
            check((x % 1000) as f64 / 1000.0);
            check(-((x % 200) as f64) / 8.0);
            let wide = f64::from_bits(x >> 2);
            // Every finite double, 2^113 and beyond included (issue 21).
            if wide.is_finite() {
                check(wide);
            }
        }
    }

    #[test]
    fn number_grammar() {
        for ok in [
            "0",
            "-0",
            "12",
            "-12.5",
            "1e10",
            "6.022E+23",
            "1.0e-7",
            "-9223372036854775808",
        ] {
            assert!(parse_number(ok).is_ok(), "{ok}");
        }
        for bad in [
            "01", "00.5", "1.", ".5", "NaN", "Infinity", "+1", "-", "", "1e", "1e+", "1.٥", "１",
            "0x10", " 1",
        ] {
            assert_eq!(parse_number(bad), Err(NumberError::NotANumber), "{bad}");
        }
        assert_eq!(parse_number("-0"), Ok(ParsedNumber::Int(0)));
        assert_eq!(
            parse_number("9223372036854775807"),
            Ok(ParsedNumber::Int(i64::MAX))
        );
        assert_eq!(
            parse_number("-9223372036854775808"),
            Ok(ParsedNumber::Int(i64::MIN))
        );
        assert_eq!(
            parse_number("-9223372036854775809"),
            Err(NumberError::OutOfRange)
        );
        assert_eq!(parse_number("1e999"), Err(NumberError::OutOfRange));
        assert_eq!(
            parse_number("100000000000000000000"),
            Err(NumberError::OutOfRange)
        );
    }
}
