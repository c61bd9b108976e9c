//! Plain JSON text read straight into Python values: `oa_core.jsonio.loads`'s common
//! case, one pass and no Python call per object or number.
//!
//! This reader only ever accepts: it gives the value `json.loads` gives when the text is
//! plain JSON that `loads` takes as it is, and otherwise hands the text back (the
//! caller's `otherwise`) for `loads`' own reading, which accepts JSONC and words every
//! refusal with its pointer, line and column. So the rules of what is refused stay in
//! `oa_core/jsonio.py`; here, anything unusual is simply not taken: a syntax error,
//! comments or trailing commas, a duplicate key, `NaN` or `Infinity`, a number beyond
//! the float range, an integer `int()` refuses, a lone surrogate, nesting deeper than
//! the limit, and text that is not valid Unicode.
//!
//! The grammar is RFC 8259's, as Python's `json` module reads it: white space is space,
//! tab, line feed and carriage return; raw control characters are refused inside strings;
//! an integer is read by `int()` (so `sys.set_int_max_str_digits` holds) and a number
//! with a fraction or an exponent by Rust's correctly rounded `f64` parse, which gives
//! the bits `float()` gives.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::value::MAX_NESTING;

/// Why a text was not read here (or a value not written, in [`crate::jsonwrite`]): the
/// caller reads or writes it again, its own way.
pub(crate) enum Stop {
    /// Not plain JSON that `loads` takes as it is (or `json.dumps` writes so).
    NotPlain,
    /// Python failed (memory, a `repr()`): raised as it is.
    Python(PyErr),
}

impl From<PyErr> for Stop {
    fn from(err: PyErr) -> Stop {
        Stop::Python(err)
    }
}

type Read<T> = Result<T, Stop>;

/// The value of plain JSON `text`, or `otherwise` when `oa_core.jsonio.loads` must read
/// it itself (JSONC, a problem to report, nesting deeper than `max_depth`).
#[pyfunction]
fn parse_plain_json<'py>(
    text: &Bound<'py, PyString>,
    max_depth: usize,
    otherwise: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let Ok(source) = text.to_str() else {
        return Ok(otherwise); // a lone surrogate in the text itself
    };
    let mut reader = Reader::new(text.py(), source, max_depth);
    match reader.document() {
        Ok(value) => Ok(value),
        Err(Stop::NotPlain) => Ok(otherwise),
        Err(Stop::Python(err)) => Err(err),
    }
}

struct Reader<'py, 'text> {
    py: Python<'py>,
    source: &'text str,
    bytes: &'text [u8],
    at: usize,
    /// The deepest level a value may sit at, the root at level 0; bounded by
    /// [`MAX_NESTING`] so that the recursion stays far inside any thread's stack.
    max_depth: usize,
    /// Short strings already made from this text, by [`slot`]: records repeat their keys
    /// and ids, and a string made again costs an allocation now and a hash later (a `str`
    /// keeps its hash).
    made: Vec<Option<(&'text str, Bound<'py, PyString>)>>,
}

/// The slots of [`Reader::made`], and the longest string kept in one.
const MADE_SLOTS: usize = 256;
const MADE_BYTES: usize = 32;

/// The slot of a short string, from its length and three of its bytes (strings of one
/// text that share all four are rare). A collision only replaces the string kept, so
/// any function would give the same values.
fn slot(text: &str) -> usize {
    let bytes = text.as_bytes();
    let byte = |index: usize| bytes.get(index).copied().map_or(0, usize::from);
    let mixed = (bytes.len() * 0x9e37)
        ^ (byte(0) * 0x1f)
        ^ (byte(bytes.len() / 2) * 0x83)
        ^ (byte(bytes.len().wrapping_sub(1)) * 0x2c9);
    (mixed ^ (mixed >> 8)) % MADE_SLOTS
}

impl<'py, 'text> Reader<'py, 'text> {
    fn new(py: Python<'py>, source: &'text str, max_depth: usize) -> Self {
        Reader {
            py,
            bytes: source.as_bytes(),
            source,
            at: 0,
            max_depth: max_depth.min(MAX_NESTING),
            made: Vec::new(),
        }
    }

    fn document(&mut self) -> Read<Bound<'py, PyAny>> {
        self.skip_space();
        let value = self.value(0)?;
        self.end()?;
        Ok(value)
    }

    /// Nothing but white space left.
    fn end(&mut self) -> Read<()> {
        self.skip_space();
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(Stop::NotPlain)
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Consume `byte` (after white space) or stop.
    fn expect(&mut self, byte: u8) -> Read<()> {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(Stop::NotPlain)
        }
    }

    fn value(&mut self, depth: usize) -> Read<Bound<'py, PyAny>> {
        if depth > self.max_depth {
            return Err(Stop::NotPlain);
        }
        let py = self.py;
        match self.peek() {
            Some(b'{') => {
                let members = PyDict::new(py);
                self.members(|reader, key| {
                    let value = reader.value(depth + 1)?;
                    let before = members.len();
                    members.set_item(key, value)?;
                    Ok(members.len() > before)
                })?;
                Ok(members.into_any())
            }
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(self.string()?.into_any()),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self
                .word("true")
                .map(|()| PyBool::new(py, true).to_owned().into_any()),
            Some(b'f') => self
                .word("false")
                .map(|()| PyBool::new(py, false).to_owned().into_any()),
            Some(b'n') => self.word("null").map(|()| py.None().into_bound(py)),
            _ => Err(Stop::NotPlain),
        }
    }

    fn word(&mut self, word: &str) -> Read<()> {
        let end = self.at + word.len();
        if self.bytes.get(self.at..end) == Some(word.as_bytes()) {
            self.at = end;
            Ok(())
        } else {
            Err(Stop::NotPlain)
        }
    }

    /// The members of the object at its opening brace, each given to `member` after its
    /// key (which reads the value); a repeated key stops the reading (`loads` names it).
    fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, Bound<'py, PyString>) -> Read<bool>,
    ) -> Read<()> {
        self.at += 1; // the opening brace
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(Stop::NotPlain);
            }
            let key = self.string()?;
            self.expect(b':')?;
            self.skip_space();
            if !member(self, key)? {
                return Err(Stop::NotPlain); // a duplicate key
            }
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Stop::NotPlain),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Read<Bound<'py, PyAny>> {
        self.at += 1; // the opening bracket
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(PyList::new(self.py, items)?.into_any());
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(PyList::new(self.py, items)?.into_any());
                }
                _ => return Err(Stop::NotPlain),
            }
        }
    }

    /// A string (or key) at its opening quote.
    fn string(&mut self) -> Read<Bound<'py, PyString>> {
        self.at += 1; // the opening quote
        let start = self.at;
        let plain = self.bytes.get(start..).unwrap_or_default();
        self.at += plain
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
            .unwrap_or(plain.len());
        match self.peek() {
            Some(b'"') => {
                // Both ends are ASCII bytes, so they fall on character boundaries.
                let text = self.source.get(start..self.at).ok_or(Stop::NotPlain)?;
                self.at += 1;
                return Ok(self.made_once(text));
            }
            Some(b'\\') => {}
            _ => return Err(Stop::NotPlain), // a raw control character, or the end
        }
        let mut text = String::from(self.source.get(start..self.at).ok_or(Stop::NotPlain)?);
        loop {
            let run = self.at;
            while matches!(self.peek(), Some(byte) if byte != b'"' && byte != b'\\' && byte >= 0x20)
            {
                self.at += 1;
            }
            text.push_str(self.source.get(run..self.at).ok_or(Stop::NotPlain)?);
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(PyString::new(self.py, &text));
                }
                Some(b'\\') => {
                    self.at += 1;
                    text.push(self.escape()?);
                }
                _ => return Err(Stop::NotPlain),
            }
        }
    }

    /// The string of `text` (no escape in it), made once per text when it is short.
    fn made_once(&mut self, text: &'text str) -> Bound<'py, PyString> {
        if text.len() > MADE_BYTES {
            return PyString::new(self.py, text);
        }
        if self.made.is_empty() {
            self.made.resize(MADE_SLOTS, None);
        }
        let Some(kept) = self.made.get_mut(slot(text)) else {
            return PyString::new(self.py, text); // unreachable: the slot is in range
        };
        match kept {
            Some((known, string)) if *known == text => string.clone(),
            _ => {
                let string = PyString::new(self.py, text);
                *kept = Some((text, string.clone()));
                string
            }
        }
    }

    /// The character of an escape, after its backslash; a surrogate pair as one.
    fn escape(&mut self) -> Read<char> {
        let letter = self.peek().ok_or(Stop::NotPlain)?;
        self.at += 1;
        Ok(match letter {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                if (0xD800..0xDC00).contains(&unit) {
                    // A high surrogate must be followed by an escaped low one; a lone
                    // one is a problem `loads` reports.
                    if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                        return Err(Stop::NotPlain);
                    }
                    self.at += 2;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(Stop::NotPlain);
                    }
                    let point = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    char::from_u32(point).ok_or(Stop::NotPlain)?
                } else {
                    char::from_u32(unit).ok_or(Stop::NotPlain)? // a lone low surrogate
                }
            }
            _ => return Err(Stop::NotPlain),
        })
    }

    fn hex4(&mut self) -> Read<u32> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(Stop::NotPlain)?;
        let mut unit = 0;
        for &digit in digits {
            let value = (digit as char).to_digit(16).ok_or(Stop::NotPlain)?;
            unit = unit * 16 + value;
        }
        self.at += 4;
        Ok(unit)
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Read<Bound<'py, PyAny>> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Stop::NotPlain), // `-Infinity`, or a lone minus
        }
        let mut integral = true;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(Stop::NotPlain);
            }
            integral = false;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(Stop::NotPlain);
            }
            integral = false;
        }
        let literal = self.source.get(start..self.at).ok_or(Stop::NotPlain)?;
        if integral {
            if let Ok(small) = literal.parse::<i64>() {
                return Ok(PyInt::new(self.py, small).into_any());
            }
            // Wider than 64 bits: `int()` itself, so its digit limit holds.
            return self
                .py
                .get_type::<PyInt>()
                .call1((literal,))
                .map_err(|_| Stop::NotPlain);
        }
        match literal.parse::<f64>() {
            Ok(number) if number.is_finite() => Ok(PyFloat::new(self.py, number).into_any()),
            _ => Err(Stop::NotPlain), // beyond the float range: `loads` reports it
        }
    }
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(parse_plain_json, module)?)
}
