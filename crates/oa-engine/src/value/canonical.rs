//! The canonical text of a value (`canonical_json` in `oa_core/comparators.py`:
//! `json.dumps` with sorted keys, `ensure_ascii=False` and compact separators), as
//! code points: an unordered list's items are put in this text's order before they
//! are paired, so that permuting a list changes nothing.

use super::error::NonFiniteNumber;
use super::json::Json;
use crate::compare::{Integer, Number, Value};

/// The canonical text of `value` as code points (compared as Python compares `str`).
///
/// ```
/// use oa_engine::value::{canonical_text, Json};
/// use oa_engine::compare::{Number, Value};
/// let value = Json::object(vec![
///     ("b".into(), Json::Array(vec![Json::Leaf(Value::Number(Number::Float(1e16)))])),
///     ("a".into(), Json::Null)]);
/// let text: String = canonical_text(&value).unwrap().into_iter()
///     .filter_map(char::from_u32).collect();
/// assert_eq!(text, r#"{"a":null,"b":[1e+16]}"#);
/// ```
pub fn canonical_text(value: &Json) -> Result<Vec<u32>, NonFiniteNumber> {
    // a record's or an item's text is usually short: a few regrowths fewer
    let mut out = Vec::with_capacity(32);
    write(value, &mut out)?;
    Ok(out)
}

/// The canonical texts of a list's items, one after another in one buffer: a list
/// is put in its canonical order from them, and one buffer is one allocation where
/// a text per item was one (and a regrowth or two) per item.
pub(crate) struct Texts {
    text: Vec<u32>,
    /// Where each item's text ends in `text`.
    ends: Vec<usize>,
}

impl Texts {
    pub(crate) fn of(values: &[Json]) -> Result<Texts, NonFiniteNumber> {
        // a record's text is usually a few dozen code points
        let mut text = Vec::with_capacity(64 * values.len());
        let mut ends = Vec::with_capacity(values.len());
        for value in values {
            write(value, &mut text)?;
            ends.push(text.len());
        }
        Ok(Texts { text, ends })
    }

    /// Each item's text, in the items' order.
    pub(crate) fn each(&self) -> Vec<&[u32]> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let item = self.text.get(start..end).unwrap_or_default();
                start = end;
                item
            })
            .collect()
    }
}

fn push_str(out: &mut Vec<u32>, text: &str) {
    out.extend(text.chars().map(u32::from));
}

/// [`canonical_text`] appended to `out` (a caller building a longer text).
pub fn write(value: &Json, out: &mut Vec<u32>) -> Result<(), NonFiniteNumber> {
    match value {
        Json::Null => push_str(out, "null"),
        Json::Leaf(Value::Boolean(flag)) => push_str(out, if *flag { "true" } else { "false" }),
        Json::Leaf(Value::Number(Number::Int(Integer::Small(n)))) => write_small(*n, out),
        Json::Leaf(Value::Number(Number::Int(Integer::Wide {
            negative,
            magnitude,
        }))) => {
            if *negative {
                out.push(u32::from('-'));
            }
            push_str(out, &decimal(magnitude));
        }
        Json::Leaf(Value::Number(Number::Float(x))) => push_str(out, &float_repr(*x)?),
        Json::Leaf(Value::Text(text)) => write_string(text, out),
        Json::Array(items) => {
            out.push(u32::from('['));
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(u32::from(','));
                }
                write(item, out)?;
            }
            out.push(u32::from(']'));
        }
        Json::Object(entries) => {
            out.push(u32::from('{'));
            for (k, (key, item)) in entries.iter().enumerate() {
                if k > 0 {
                    out.push(u32::from(','));
                }
                write_str(key, out);
                out.push(u32::from(':'));
                write(item, out)?;
            }
            out.push(u32::from('}'));
        }
    }
    Ok(())
}

/// `str(n)` of an `i64`, written in place (no string made for the most common
/// number of a document).
fn write_small(n: i64, out: &mut Vec<u32>) {
    if n < 0 {
        out.push(u32::from('-'));
    }
    let mut magnitude = n.unsigned_abs();
    let start = out.len();
    loop {
        // a decimal digit, below 10: the cast cannot truncate
        #[allow(clippy::cast_possible_truncation)]
        out.push(u32::from('0') + (magnitude % 10) as u32);
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if let Some(digits) = out.get_mut(start..) {
        digits.reverse(); // written least significant first
    }
}

/// The decimal digits of a magnitude in little-endian 64-bit limbs.
fn decimal(magnitude: &[u64]) -> String {
    const CHUNK: u64 = 10_000_000_000_000_000_000; // 10**19, the largest power in u64
    let mut limbs = magnitude.to_vec();
    let mut chunks = Vec::new(); // base 10**19 digits, least significant first
    while limbs.iter().any(|&limb| limb != 0) {
        let mut remainder: u128 = 0;
        for limb in limbs.iter_mut().rev() {
            let current = (remainder << 64) | u128::from(*limb);
            // current < CHUNK * 2**64: the quotient fits in a limb
            *limb = u64::try_from(current / u128::from(CHUNK)).unwrap_or(u64::MAX);
            remainder = current % u128::from(CHUNK);
        }
        chunks.push(u64::try_from(remainder).unwrap_or(0));
    }
    let mut text = String::new();
    for (k, chunk) in chunks.iter().rev().enumerate() {
        if k == 0 {
            text.push_str(&chunk.to_string());
        } else {
            text.push_str(&format!("{chunk:019}"));
        }
    }
    if text.is_empty() {
        text.push('0');
    }
    text
}

/// Whether `json`'s encoder escapes the code point `c` (`ensure_ascii=False`).
const fn escaped(c: u32) -> bool {
    c < 0x20 || c == 0x22 || c == 0x5C
}

/// A JSON string as `json`'s encoder writes it with `ensure_ascii=False`: the runs
/// between escapes copied whole (a code point at a time was the engine's largest
/// self cost on long lists of records).
pub fn write_string(text: &[u32], out: &mut Vec<u32>) {
    out.reserve(text.len() + 2);
    out.push(u32::from('"'));
    let mut rest = text;
    while let Some(at) = rest.iter().position(|&c| escaped(c)) {
        let (run, tail) = rest.split_at(at);
        out.extend_from_slice(run);
        let Some((&c, tail)) = tail.split_first() else {
            break; // `at` indexes `rest`: not reached
        };
        match c {
            0x22 => push_str(out, "\\\""),
            0x5C => push_str(out, "\\\\"),
            0x08 => push_str(out, "\\b"),
            0x0C => push_str(out, "\\f"),
            0x0A => push_str(out, "\\n"),
            0x0D => push_str(out, "\\r"),
            0x09 => push_str(out, "\\t"),
            _ => push_str(out, &format!("\\u{c:04x}")),
        }
        rest = tail;
    }
    out.extend_from_slice(rest);
    out.push(u32::from('"'));
}

/// [`write_string`] of a `str` (an object's key): an ASCII key with nothing to
/// escape widened byte by byte in one pass.
pub fn write_str(text: &str, out: &mut Vec<u32>) {
    if text.bytes().all(|b| b.is_ascii() && !escaped(u32::from(b))) {
        out.reserve(text.len() + 2);
        out.push(u32::from('"'));
        out.extend(text.bytes().map(u32::from));
        out.push(u32::from('"'));
    } else {
        write_string(&text.chars().map(u32::from).collect::<Vec<_>>(), out);
    }
}

/// Python's `repr` of a finite float: the shortest round-trip digits, fixed between
/// 1e-4 and 1e16, else exponential with a signed exponent of at least two digits.
fn float_repr(x: f64) -> Result<String, NonFiniteNumber> {
    if !x.is_finite() {
        return Err(NonFiniteNumber);
    }
    // `{:e}` gives the shortest round-trip digits: "-1.25e-7", "0e0"
    let formatted = format!("{:e}", x.abs());
    let (mantissa, exponent) = formatted.split_once('e').ok_or(NonFiniteNumber)?;
    let exponent: i32 = exponent.parse().map_err(|_| NonFiniteNumber)?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let n = digits.len() as i32;
    let point = exponent + 1; // digits before the decimal point
    let body = if (-4..16).contains(&exponent) {
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point >= n {
            format!("{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            let (whole, fraction) = digits.split_at(point as usize);
            format!("{whole}.{fraction}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{first}{rest}e{exp_sign}{:02}", exponent.abs())
    };
    Ok(format!("{sign}{body}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123.456, "123.456"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1234567890123456.7, "1234567890123456.8"),
        ];
        for (x, text) in cases {
            assert_eq!(float_repr(x).unwrap(), text, "{x}");
        }
    }

    #[test]
    fn random_floats_print_as_python_repr() {
        // expected texts printed by CPython 3.11's repr
        let cases = [
            (f64::from_bits(0x4480f0cf064dd592), "1e+22"),
            (f64::from_bits(0x3fd3333333333334), "0.30000000000000004"),
            (f64::from_bits(0x10000000000000), "2.2250738585072014e-308"),
            (
                f64::from_bits(0x7fefffffffffffff),
                "1.7976931348623157e+308",
            ),
            (f64::from_bits(0x42dc12218377de6b), "123456789012345.67"),
            (f64::from_bits(0x3e7ad7f29abcaf48), "1e-07"),
            (f64::from_bits(0x4341c37937e07fff), "9999999999999998.0"),
            (f64::from_bits(0x3f50624dd2f1a9fc), "0.001"),
            (f64::from_bits(0x4059000000000000), "100.0"),
            (f64::from_bits(0x3f1cd5f99c38b04b), "0.00011"),
            (f64::from_bits(0x3f1a36e2eb1c432c), "9.999999999999999e-05"),
            (
                f64::from_bits(0x91b7584a2265b1f5),
                "-2.522753946247637e-223",
            ),
            (f64::from_bits(0xcd613e30d8f16adf), "-5.674664918136216e+64"),
            (f64::from_bits(0x1027c4d1c386bbc4), "7.654927133881691e-231"),
            (
                f64::from_bits(0x1e2feb89414c343c),
                "2.7715077941825975e-163",
            ),
            (f64::from_bits(0xc2ce6f447ed4d57b), "-66926478731690.96"),
            (
                f64::from_bits(0x78e510617311d8a3),
                "2.2790121708605243e+274",
            ),
            (
                f64::from_bits(0x612e7696a6cecc1b),
                "1.3383932992236106e+160",
            ),
            (f64::from_bits(0x35bf992dc9e9c616), "8.445496795513092e-50"),
            (f64::from_bits(0x7ce42c8218072e8c), "4.026380313612261e+293"),
            (
                f64::from_bits(0xe4b06ce60741c7a8),
                "-1.039999246087972e+177",
            ),
            (f64::from_bits(0x63ca828dd5f4b3b2), "5.122439992692798e+172"),
            (
                f64::from_bits(0x9b810e766ec9d286),
                "-3.367304008780077e-176",
            ),
        ];
        for (x, text) in cases {
            assert_eq!(float_repr(x).unwrap(), text, "{x:e}");
        }
    }

    #[test]
    fn huge_integers_print_in_decimal() {
        // 2**64, and 10**38 + 7 from its two's complement bytes (int.to_bytes)
        assert_eq!(decimal(&[0, 1]), "18446744073709551616");
        let big = Integer::from_le_bytes_signed(
            &(10_u128.pow(38) + 7)
                .to_le_bytes()
                .into_iter()
                .chain([0])
                .collect::<Vec<u8>>(),
        );
        let value = Json::Leaf(Value::Number(Number::Int(big)));
        let text: String = canonical_text(&value)
            .unwrap()
            .into_iter()
            .filter_map(char::from_u32)
            .collect();
        assert_eq!(text, format!("1{}7", "0".repeat(37)));
    }

    #[test]
    fn small_integers_write_as_python_str() {
        for n in [0, 7, -7, 10, -100, 1_234_567, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            write_small(n, &mut out);
            let shown: String = out.into_iter().filter_map(char::from_u32).collect();
            assert_eq!(shown, n.to_string());
        }
    }

    #[test]
    fn strings_escape_as_json_dumps() {
        let shown = |out: Vec<u32>| {
            out.into_iter()
                .filter_map(char::from_u32)
                .collect::<String>()
        };
        for (text, json) in [
            ("a\"\\\n\u{1}é\u{7f}", "\"a\\\"\\\\\\n\\u0001é\u{7f}\""),
            ("\u{1f}\t\r\u{8}\u{c}x", "\"\\u001f\\t\\r\\b\\fx\""),
            ("plain", "\"plain\""),
            ("", "\"\""),
            ("\"\"", "\"\\\"\\\"\""),
        ] {
            let mut out = Vec::new();
            write_string(&text.chars().map(u32::from).collect::<Vec<_>>(), &mut out);
            assert_eq!(shown(out), json);
            let mut out = vec![u32::from('>')];
            write_str(text, &mut out);
            assert_eq!(shown(out), format!(">{json}"));
        }
    }
}
