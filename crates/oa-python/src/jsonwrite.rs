//! Plain Python values written as JSON text: `oa_core.runs.batch.record_text`'s common
//! case, the text `json.dumps(value, ensure_ascii=False)` gives, in one pass.
//!
//! Like [`crate::jsontext`], this writer only ever takes the simple case and hands the
//! rest back (the caller's `otherwise`) for `json.dumps` itself: `dict` (with `str`
//! keys), `list`, `tuple`, `str`, `int` within 64 bits, finite `float`, `bool` and
//! `None`, nested at most [`MAX_NESTING`] levels. A `str` or `int` subclass (an enum
//! such as `OpKind`) is written as its value, as `json.dumps` writes it; a subclass of
//! the other types, another key type, a wider integer, NaN or an infinity, a lone
//! surrogate and deeper nesting (or a cycle) are left to `json.dumps`, whose rules and
//! errors then hold.
//!
//! The text is `json.dumps`' default layout: `", "` between items, `": "` after keys,
//! non-ASCII text as it is, and in strings `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`
//! and `\u00XX` (lowercase hex) for the other characters below U+0020. A float is its
//! `repr()`, as `json.dumps` writes it ([`push_float_repr`]).

use std::fmt::Write as _;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::jsontext::Stop;
use crate::value::MAX_NESTING;

type Write = Result<(), Stop>;

/// The JSON text of `value` as `json.dumps(value, ensure_ascii=False)` writes it, or
/// `otherwise` when `json.dumps` must write it itself.
#[pyfunction]
fn dump_plain_json<'py>(
    value: &Bound<'py, PyAny>,
    otherwise: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut out = String::with_capacity(256);
    match write_value(&mut out, value, 0) {
        Ok(()) => Ok(PyString::new(value.py(), &out).into_any()),
        Err(Stop::NotPlain) => Ok(otherwise),
        Err(Stop::Python(err)) => Err(err),
    }
}

fn write_value(out: &mut String, value: &Bound<'_, PyAny>, depth: usize) -> Write {
    if value.is_none() {
        out.push_str("null");
    } else if let Ok(string) = value.cast::<PyString>() {
        write_string(out, string)?;
    } else if let Ok(boolean) = value.cast_exact::<PyBool>() {
        out.push_str(if boolean.is_true() { "true" } else { "false" });
    } else if value.is_instance_of::<PyInt>() {
        let integer: i64 = value.extract().map_err(|_| Stop::NotPlain)?;
        out.push_str(&integer.to_string());
    } else if let Ok(float) = value.cast_exact::<PyFloat>() {
        if !float.value().is_finite() {
            return Err(Stop::NotPlain); // json.dumps writes NaN and Infinity its own way
        }
        push_float_repr(out, float.value());
    } else if depth >= MAX_NESTING {
        return Err(Stop::NotPlain); // deep, or a cycle: json.dumps says which
    } else if let Ok(object) = value.cast_exact::<PyDict>() {
        out.push('{');
        for (index, (key, item)) in object.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            write_string(out, key.cast::<PyString>().map_err(|_| Stop::NotPlain)?)?;
            out.push_str(": ");
            write_value(out, &item, depth + 1)?;
        }
        out.push('}');
    } else if let Ok(list) = value.cast_exact::<PyList>() {
        write_items(out, list.iter(), depth)?;
    } else if let Ok(tuple) = value.cast_exact::<PyTuple>() {
        write_items(out, tuple.iter(), depth)?;
    } else {
        return Err(Stop::NotPlain);
    }
    Ok(())
}

/// `repr()` of a finite float, as CPython writes it: the shortest digits that read back
/// as the same float (the nearest to it when several do, the even one on a tie), in
/// fixed notation for a decimal exponent from -4 to 15 (`0.0001`, `123.0`) and as
/// `d.ddde±XX` beyond (`1e-05`, `1.5e+16`); a whole number keeps its `.0`. `ryu` finds
/// the digits as CPython's `dtoa` does, without a Python call per float.
fn push_float_repr(out: &mut String, value: f64) {
    let mut buffer = ryu::Buffer::new();
    let (digits, point) = shortest_digits(buffer.format_finite(value.abs()));
    if value.is_sign_negative() {
        out.push('-');
    }
    let (first, rest) = digits.split_at(1);
    if !(-3..=16).contains(&point) {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exponent = point - 1;
        let sign = if exponent < 0 { '-' } else { '+' };
        // writing to a String cannot fail
        let _ = write!(out, "e{sign}{:02}", exponent.unsigned_abs());
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat('0').take(point.unsigned_abs() as usize));
        out.push_str(&digits);
    } else {
        let point = point.unsigned_abs() as usize;
        if point >= digits.len() {
            out.push_str(&digits);
            out.extend(std::iter::repeat('0').take(point - digits.len()));
            out.push_str(".0");
        } else {
            let (integral, fraction) = digits.split_at(point);
            out.push_str(integral);
            out.push('.');
            out.push_str(fraction);
        }
    }
}

/// The significant digits of a non-negative decimal (`ryu`'s `"123.0"`, `"0.001"` or
/// `"1.5e16"`), without leading or trailing zeros (`"0"` for zero), and where the point
/// goes: the value is `0.DIGITS` times ten to that power.
fn shortest_digits(text: &str) -> (String, i32) {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let (integral, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = [integral, fraction].concat();
    let significant = all.trim_start_matches('0');
    let leading = all.len() - significant.len();
    let significant = significant.trim_end_matches('0');
    if significant.is_empty() {
        return ("0".to_owned(), 1);
    }
    let exponent: i32 = exponent.parse().unwrap_or(0);
    // lengths of a float's text: far inside i32
    let point = integral.len() as i32 + exponent - leading as i32;
    (significant.to_owned(), point)
}

fn write_items<'py>(
    out: &mut String,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: usize,
) -> Write {
    out.push('[');
    for (index, item) in items.enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write_value(out, &item, depth + 1)?;
    }
    out.push(']');
    Ok(())
}

fn write_string(out: &mut String, string: &Bound<'_, PyString>) -> Write {
    // a lone surrogate has no UTF-8: json.dumps keeps it, and the caller escapes it
    let text = string.to_str().map_err(|_| Stop::NotPlain)?;
    out.push('"');
    let mut rest = text;
    while let Some(at) = rest
        .bytes()
        .position(|byte| byte < 0x20 || byte == b'"' || byte == b'\\')
    {
        // the byte found is ASCII, so both sides of it are character boundaries
        let (plain, from) = rest.split_at_checked(at).ok_or(Stop::NotPlain)?;
        out.push_str(plain);
        let byte = from.as_bytes().first().copied().unwrap_or_default();
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => out.push_str(&format!("\\u{byte:04x}")),
        }
        rest = from.get(1..).unwrap_or_default();
    }
    out.push_str(rest);
    out.push('"');
    Ok(())
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(dump_plain_json, module)?)
}

#[cfg(test)]
mod tests {
    use super::{push_float_repr, shortest_digits};

    #[test]
    fn shortest_digits_drop_the_zeros_and_place_the_point() {
        assert_eq!(shortest_digits("123.0"), ("123".to_owned(), 3));
        assert_eq!(shortest_digits("0.001"), ("1".to_owned(), -2));
        assert_eq!(shortest_digits("1.5e16"), ("15".to_owned(), 17));
        assert_eq!(shortest_digits("1e-7"), ("1".to_owned(), -6));
        assert_eq!(shortest_digits("0.0"), ("0".to_owned(), 1));
    }

    #[test]
    fn floats_are_written_as_python_repr_writes_them() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1e16, "1e+16"),
            (1_234_567_890_123_456.0, "1234567890123456.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (-1.5e300, "-1.5e+300"),
            (921_325_198_817_727.2, "921325198817727.2"), // a tie: the even digit
        ];
        for (value, repr) in cases {
            let mut out = String::new();
            push_float_repr(&mut out, value);
            assert_eq!(out, repr);
        }
    }
}
