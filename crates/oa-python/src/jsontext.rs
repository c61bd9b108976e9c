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
//!
//! A line of `oa batch` (`{"gold": ..., "candidate": ...}`) is read by
//! [`parse_pair_line`], which also makes the engine's [`Json`] of its gold and
//! candidate on the way ([`LineDocuments`]): the values the engine's conversion of the
//! Python values (`crate::value`) gives, under the same limits, so that scoring the
//! pair need not convert them. Where that conversion would refuse a value or take a
//! path of its own (a limit passed, an integer wider than 64 bits), none is made, and
//! the Python values are converted as usual.

use std::borrow::Cow;
use std::sync::Mutex;

use oa_engine::compare::{Integer, Number, Value};
use oa_engine::value::Json;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::compare::push_utf8_points;
use crate::value::{with_spares, Bounds, Spares, MAX_NESTING};

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
    let mut spares = Spares::default(); // no engine values: none taken from the thread's
    let mut reader = Reader::new(text.py(), source, max_depth, Bounds::NESTING, &mut spares);
    match reader.document() {
        Ok(value) => Ok(value),
        Err(Stop::NotPlain) => Ok(otherwise),
        Err(Stop::Python(err)) => Err(err),
    }
}

/// A pair's gold and candidate as the engine's values.
type Documents = (Json, Json);

/// The engine's values of a pair line's gold and candidate, made by [`parse_pair_line`]
/// and taken (once) by the resolution that scores them.
#[pyclass(frozen, module = "oa_core._engine")]
pub struct LineDocuments {
    documents: Mutex<Option<Documents>>,
}

impl LineDocuments {
    /// The gold and the candidate, the first time they are asked for.
    pub(crate) fn take(&self) -> Option<Documents> {
        self.documents.lock().ok()?.take()
    }
}

#[pymethods]
impl LineDocuments {
    /// Whether the values are still here and are those the engine's conversion gives of
    /// `gold` and `candidate` under `limits` (an `oa_core.options.Limits`), float bits
    /// included (compared as written, where `==` takes -0.0 for 0.0): the test suite's
    /// check of the reader.
    fn agree_with(
        &self,
        gold: &Bound<'_, PyAny>,
        candidate: &Bound<'_, PyAny>,
        limits: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let bounds = Bounds::of(limits)?;
        let converted = (
            crate::value::json(gold, bounds)?,
            crate::value::json(candidate, bounds)?,
        );
        let Ok(documents) = self.documents.lock() else {
            return Ok(false);
        };
        Ok(match (documents.as_ref(), converted) {
            (Some(made), (Some(gold), Some(candidate))) => {
                format!("{made:?}") == format!("{:?}", (gold, candidate))
            }
            _ => false,
        })
    }
}

/// A pair line as [`parse_plain_json`] reads it (`otherwise` where it does not), and the
/// engine's values of its `"gold"` and `"candidate"` within `limits` (an
/// `oa_core.options.Limits`, the documents' own: the line's values sit one level deeper,
/// under `max_depth`); None where they are not both made.
#[pyfunction]
fn parse_pair_line<'py>(
    text: &Bound<'py, PyString>,
    max_depth: usize,
    limits: &Bound<'py, PyAny>,
    otherwise: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, Option<LineDocuments>)> {
    let Ok(source) = text.to_str() else {
        return Ok((otherwise, None));
    };
    let bounds = Bounds::of(limits)?;
    // the strings and objects of the values made are this thread's spare buffers, which
    // the documents' conversion would have taken
    let read =
        with_spares(|spares| Reader::new(text.py(), source, max_depth, bounds, spares).pair_line());
    match read {
        Ok((value, documents)) => Ok((
            value,
            documents.map(|documents| LineDocuments {
                documents: Mutex::new(Some(documents)),
            }),
        )),
        Err(Stop::NotPlain) => Ok((otherwise, None)),
        Err(Stop::Python(err)) => Err(err),
    }
}

struct Reader<'py, 'text, 's> {
    py: Python<'py>,
    source: &'text str,
    bytes: &'text [u8],
    at: usize,
    /// The deepest level a value may sit at, the root at level 0; bounded by
    /// [`MAX_NESTING`] so that the recursion stays far inside any thread's stack.
    max_depth: usize,
    /// The limits of the engine's values ([`Both`]), and the buffers they are made in.
    bounds: Bounds,
    spares: &'s mut Spares,
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

/// What the reader makes of a value: the Python value, or that and the engine's.
trait Make<'py>: Sized {
    /// An object while its members are read.
    type Members;

    fn null(py: Python<'py>) -> Self;
    fn boolean(py: Python<'py>, value: bool) -> Self;
    fn text(bounds: Bounds, spares: &mut Spares, string: Bound<'py, PyString>, text: &str) -> Self;
    fn integer(py: Python<'py>, literal: &str) -> Read<Self>;
    fn float(py: Python<'py>, number: f64) -> Self;
    fn array(py: Python<'py>, bounds: Bounds, items: Vec<Self>) -> Read<Self>;
    fn members(py: Python<'py>, spares: &mut Spares) -> Self::Members;
    /// Adds a member; false for a key already there.
    fn member(
        members: &mut Self::Members,
        spares: &mut Spares,
        key: Bound<'py, PyString>,
        name: &str,
        value: Self,
    ) -> Read<bool>;
    fn object(bounds: Bounds, members: Self::Members) -> Self;
}

impl<'py> Make<'py> for Bound<'py, PyAny> {
    type Members = Bound<'py, PyDict>;

    fn null(py: Python<'py>) -> Self {
        py.None().into_bound(py)
    }

    fn boolean(py: Python<'py>, value: bool) -> Self {
        PyBool::new(py, value).to_owned().into_any()
    }

    fn text(_: Bounds, _: &mut Spares, string: Bound<'py, PyString>, _: &str) -> Self {
        string.into_any()
    }

    fn integer(py: Python<'py>, literal: &str) -> Read<Self> {
        if let Ok(small) = literal.parse::<i64>() {
            return Ok(PyInt::new(py, small).into_any());
        }
        // Wider than 64 bits: `int()` itself, so its digit limit holds.
        py.get_type::<PyInt>()
            .call1((literal,))
            .map_err(|_| Stop::NotPlain)
    }

    fn float(py: Python<'py>, number: f64) -> Self {
        PyFloat::new(py, number).into_any()
    }

    fn array(py: Python<'py>, _: Bounds, items: Vec<Self>) -> Read<Self> {
        Ok(PyList::new(py, items)?.into_any())
    }

    fn members(py: Python<'py>, _: &mut Spares) -> Self::Members {
        PyDict::new(py)
    }

    fn member(
        members: &mut Self::Members,
        _: &mut Spares,
        key: Bound<'py, PyString>,
        _: &str,
        value: Self,
    ) -> Read<bool> {
        let before = members.len();
        members.set_item(key, value)?;
        Ok(members.len() > before)
    }

    fn object(_: Bounds, members: Self::Members) -> Self {
        members.into_any()
    }
}

/// A value as Python's and, where `crate::value`'s conversion takes it as it is read
/// here, as the engine's (`json`; None otherwise, and then for every value holding it).
struct Both<'py> {
    python: Bound<'py, PyAny>,
    json: Option<Json>,
}

impl<'py> Make<'py> for Both<'py> {
    type Members = (Bound<'py, PyDict>, Option<Vec<(String, Json)>>);

    fn null(py: Python<'py>) -> Self {
        Both {
            python: Bound::null(py),
            json: Some(Json::Null),
        }
    }

    fn boolean(py: Python<'py>, value: bool) -> Self {
        Both {
            python: Bound::boolean(py, value),
            json: Some(Json::Leaf(Value::Boolean(value))),
        }
    }

    fn text(bounds: Bounds, spares: &mut Spares, string: Bound<'py, PyString>, text: &str) -> Self {
        let json = bounds.text_over(text).is_none().then(|| {
            let mut points = spares.text();
            push_utf8_points(&mut points, text);
            Json::Leaf(Value::Text(points))
        });
        Both {
            python: string.into_any(),
            json,
        }
    }

    fn integer(py: Python<'py>, literal: &str) -> Read<Self> {
        // a wider integer is converted from its Python value, its range checked there
        let json = literal
            .parse::<i64>()
            .ok()
            .map(|small| Json::Leaf(Value::Number(Number::Int(Integer::from(small)))));
        Ok(Both {
            python: Bound::integer(py, literal)?,
            json,
        })
    }

    fn float(py: Python<'py>, number: f64) -> Self {
        Both {
            python: Bound::float(py, number),
            json: Some(Json::Leaf(Value::Number(Number::Float(number)))),
        }
    }

    fn array(py: Python<'py>, bounds: Bounds, items: Vec<Self>) -> Read<Self> {
        let mut values = (!bounds.items_over(items.len())).then(|| Vec::with_capacity(items.len()));
        let mut objects = Vec::with_capacity(items.len());
        for item in items {
            values = values.zip(item.json).map(|(mut values, json)| {
                values.push(json);
                values
            });
            objects.push(item.python);
        }
        Ok(Both {
            python: Bound::array(py, bounds, objects)?,
            json: values.map(Json::Array),
        })
    }

    fn members(py: Python<'py>, spares: &mut Spares) -> Self::Members {
        (PyDict::new(py), Some(spares.entries(0)))
    }

    fn member(
        (dict, entries): &mut Self::Members,
        spares: &mut Spares,
        key: Bound<'py, PyString>,
        name: &str,
        value: Self,
    ) -> Read<bool> {
        *entries = entries.take().zip(value.json).map(|(mut entries, json)| {
            entries.push((spares.name(name), json));
            entries
        });
        Bound::member(dict, spares, key, name, value.python)
    }

    fn object(bounds: Bounds, (dict, entries): Self::Members) -> Self {
        let json = entries
            .filter(|entries| !bounds.items_over(entries.len()))
            // no two keys equal: a repeated one stopped the reading
            .map(Json::object_of_distinct);
        Both {
            python: dict.into_any(),
            json,
        }
    }
}

impl<'py, 'text, 's> Reader<'py, 'text, 's> {
    fn new(
        py: Python<'py>,
        source: &'text str,
        max_depth: usize,
        bounds: Bounds,
        spares: &'s mut Spares,
    ) -> Self {
        Reader {
            py,
            bytes: source.as_bytes(),
            source,
            at: 0,
            max_depth: max_depth.min(MAX_NESTING),
            bounds,
            spares,
            made: Vec::new(),
        }
    }

    fn document(&mut self) -> Read<Bound<'py, PyAny>> {
        self.skip_space();
        let value = self.value(0)?;
        self.end()?;
        Ok(value)
    }

    /// A pair line's value, and the engine's values of its gold and candidate when both
    /// are made.
    fn pair_line(&mut self) -> Read<(Bound<'py, PyAny>, Option<Documents>)> {
        self.skip_space();
        if self.peek() != Some(b'{') || self.max_depth == 0 {
            return Ok((self.document()?, None));
        }
        let (mut gold, mut candidate) = (None, None);
        let mut members = Bound::members(self.py, self.spares);
        self.members(|reader, key, name| {
            let value = match name {
                "gold" | "candidate" => {
                    let both: Both = reader.value(1)?;
                    *if name == "gold" {
                        &mut gold
                    } else {
                        &mut candidate
                    } = both.json;
                    both.python
                }
                _ => reader.value(1)?,
            };
            Bound::member(&mut members, reader.spares, key, name, value)
        })?;
        self.end()?;
        Ok((members.into_any(), gold.zip(candidate)))
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

    fn value<M: Make<'py>>(&mut self, depth: usize) -> Read<M> {
        if depth > self.max_depth {
            return Err(Stop::NotPlain);
        }
        match self.peek() {
            Some(b'{') => {
                let mut members = M::members(self.py, self.spares);
                self.members(|reader, key, name| {
                    let value = reader.value(depth + 1)?;
                    M::member(&mut members, reader.spares, key, name, value)
                })?;
                Ok(M::object(self.bounds, members))
            }
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let (string, text) = self.string()?;
                Ok(M::text(self.bounds, self.spares, string, &text))
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.word("true").map(|()| M::boolean(self.py, true)),
            Some(b'f') => self.word("false").map(|()| M::boolean(self.py, false)),
            Some(b'n') => self.word("null").map(|()| M::null(self.py)),
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
        mut member: impl FnMut(&mut Self, Bound<'py, PyString>, &str) -> Read<bool>,
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
            let (key, name) = self.string()?;
            self.expect(b':')?;
            self.skip_space();
            if !member(self, key, &name)? {
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

    fn array<M: Make<'py>>(&mut self, depth: usize) -> Read<M> {
        self.at += 1; // the opening bracket
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return M::array(self.py, self.bounds, items);
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return M::array(self.py, self.bounds, items);
                }
                _ => return Err(Stop::NotPlain),
            }
        }
    }

    /// A string (or key) at its opening quote, and its text: borrowed from the source
    /// when it has no escape.
    fn string(&mut self) -> Read<(Bound<'py, PyString>, Cow<'text, str>)> {
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
                return Ok((self.made_once(text), Cow::Borrowed(text)));
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
                    return Ok((PyString::new(self.py, &text), Cow::Owned(text)));
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

    fn number<M: Make<'py>>(&mut self) -> Read<M> {
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
            return M::integer(self.py, literal);
        }
        match literal.parse::<f64>() {
            Ok(number) if number.is_finite() => Ok(M::float(self.py, number)),
            _ => Err(Stop::NotPlain), // beyond the float range: `loads` reports it
        }
    }
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<LineDocuments>()?;
    module.add_function(wrap_pyfunction!(parse_plain_json, module)?)?;
    module.add_function(wrap_pyfunction!(parse_pair_line, module)?)
}
