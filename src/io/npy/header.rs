//! The .npy header's dict, parsed here rather than by a general Python-literal parser: NumPy
//! writes `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }` and nothing richer, so
//! this reads quoted strings (single or double quotes, no escapes), `True`/`False`/`None`, plain
//! decimal integers, tuples and lists, and a dict of exactly the keys `descr`, `fortran_order` and
//! `shape`, as NumPy's own reader requires. Nothing here allocates more than the header's
//! length, and nesting is bounded, so a hostile header costs no more than reading it.

use crate::io::snippet;

/// What the header says.
pub(super) struct Dict {
    pub(super) descr: Descr,
    pub(super) fortran_order: bool,
    /// The dimensions, each within u64 (their product is not checked here).
    pub(super) shape: Vec<u64>,
}

/// The `descr` of a header.
pub(super) enum Descr {
    /// A type string such as `<f4`, `|u1`, `<U10` or `<M8[D]`.
    Plain(TypeStr),
    /// A string that is not a NumPy type string (as written).
    Unknown(String),
    /// A record (list of fields) or subarray (tuple) type, as written in the header.
    Structured(String),
}

/// A NumPy type string: byte order, kind and size in bytes.
pub(super) struct TypeStr {
    /// As written, e.g. `<f4`.
    pub(super) text: String,
    /// `<`, `>`, or `=` for native order (written `=`, `|` or nothing).
    pub(super) order: u8,
    /// NumPy's kind character: `f`, `i`, `u`, `c`, `b`, `?`, `m`, `M`, `S`, `U`, `V`, `O`, `a`.
    pub(super) kind: u8,
    /// Bytes per element (characters for `U`); `None` when absent or past u64.
    pub(super) size: Option<u64>,
}

impl Descr {
    /// A NumPy-style name, for error messages.
    pub(super) fn name(&self) -> String {
        match self {
            Descr::Plain(t) => {
                let bits = t.size.and_then(|s| s.checked_mul(8));
                match (t.kind, bits) {
                    (b'b' | b'?', _) => "bool".into(),
                    (b'i', Some(b)) => format!("int{b}"),
                    (b'u', Some(b)) => format!("uint{b}"),
                    (b'f', Some(b)) => format!("float{b}"),
                    (b'c', Some(b)) => format!("complex{b}"),
                    (b'm', _) => "timedelta64".into(),
                    (b'M', _) => "datetime64".into(),
                    (b'S' | b'a', _) => format!("bytes '{}'", snippet_str(&t.text)),
                    (b'U', _) => format!("str '{}'", snippet_str(&t.text)),
                    _ => format!("'{}'", snippet_str(&t.text)),
                }
            }
            Descr::Unknown(s) => format!("'{}'", snippet_str(s)),
            Descr::Structured(s) => format!("structured {}", snippet(s)),
        }
    }
}

/// A type string, if `s` is one: an optional byte order (`<`, `>`, `=`, `|`), a kind, a size,
/// and for the time kinds an optional `[unit]`.
fn type_str(s: &str) -> Option<TypeStr> {
    let b = s.as_bytes();
    let (order, rest) = match b.first()? {
        b'<' => (b'<', &b[1..]),
        b'>' => (b'>', &b[1..]),
        b'=' | b'|' => (b'=', &b[1..]),
        _ => (b'=', b),
    };
    let (&kind, rest) = rest.split_first()?;
    if !b"fiucb?mMSUVOa".contains(&kind) {
        return None;
    }
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let (size, unit) = rest.split_at(digits);
    let unit_ok = unit.is_empty()
        || (matches!(kind, b'm' | b'M')
            && unit.len() > 2
            && unit[0] == b'['
            && unit[unit.len() - 1] == b']'
            && unit[1..unit.len() - 1]
                .iter()
                .all(u8::is_ascii_alphanumeric));
    if !unit_ok {
        return None;
    }
    let size = std::str::from_utf8(size).ok()?;
    Some(TypeStr {
        text: s.to_string(),
        order,
        kind,
        size: if size.is_empty() {
            None
        } else {
            size.parse().ok()
        },
    })
}

/// A parsed literal.
enum Value<'t> {
    Str(&'t str),
    Bool(bool),
    None,
    /// Decimal digits as written.
    Int(&'t str),
    Tuple(Vec<Value<'t>>),
    List(Vec<Value<'t>>),
}

impl Value<'_> {
    fn what(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Bool(_) => "a bool",
            Value::None => "None",
            Value::Int(_) => "an integer",
            Value::Tuple(_) => "a tuple",
            Value::List(_) => "a list",
        }
    }
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    depth: usize,
    max_depth: usize,
}

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// "'x' at byte N" or "the end of the header", for messages.
    fn here(&self) -> String {
        match self.peek() {
            Some(c) => format!("'{}' at byte {}", c as char, self.pos),
            None => "the end of the header".into(),
        }
    }

    fn expected(&self, what: &str) -> String {
        format!("expected {what} but found {}", self.here())
    }

    fn string(&mut self, q: u8) -> Result<&'t str, String> {
        let start = self.pos;
        let body = start + 1;
        let bytes = self.text.as_bytes();
        let mut i = body;
        while i < bytes.len() && bytes[i] != q {
            if matches!(bytes[i], b'\\' | b'\n' | b'\r') {
                break;
            }
            i += 1;
        }
        if bytes.get(i) != Some(&q) {
            return Err(format!("unterminated string starting at byte {start}"));
        }
        self.pos = i + 1;
        Ok(&self.text[body..i])
    }

    /// A name or a number: a run of letters, digits and underscores.
    fn word(&mut self) -> Result<Value<'t>, String> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.pos += 1;
        }
        let w = &self.text[start..self.pos];
        match w {
            "" => Err(self.expected("a value")),
            "True" => Ok(Value::Bool(true)),
            "False" => Ok(Value::Bool(false)),
            "None" => Ok(Value::None),
            _ if w.bytes().all(|c| c.is_ascii_digit()) => {
                if w.len() > 1 && w.starts_with('0') {
                    Err(format!("'{w}' at byte {start} is not a Python integer"))
                } else {
                    Ok(Value::Int(w))
                }
            }
            _ if w.as_bytes()[0].is_ascii_digit() => Err(format!(
                "'{}' at byte {start} is not a plain decimal integer",
                snippet_str(w)
            )),
            _ => Err(format!(
                "unexpected name '{}' at byte {start}",
                snippet_str(w)
            )),
        }
    }

    fn value(&mut self) -> Result<Value<'t>, String> {
        self.skip_ws();
        match self.peek() {
            Some(q @ (b'\'' | b'"')) => self.string(q).map(Value::Str),
            Some(open @ (b'(' | b'[')) => self.sequence(open),
            Some(c) if c.is_ascii_alphanumeric() || c == b'_' => self.word(),
            _ => Err(self.expected("a value")),
        }
    }

    /// A tuple `( )`, `(a,)`, `(a, b)`, or a list `[a, b]`; `(a)` is just `a`, as in Python.
    fn sequence(&mut self, open: u8) -> Result<Value<'t>, String> {
        let close = if open == b'(' { b')' } else { b']' };
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(format!("brackets nest more than {} deep", self.max_depth));
        }
        self.pos += 1;
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                break;
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    comma = true;
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    return Err(self.expected(&format!("',' or '{}'", close as char)));
                }
            }
        }
        self.depth -= 1;
        Ok(match (open, items.len(), comma) {
            (b'[', ..) => Value::List(items),
            (_, 1, false) => items.pop().unwrap_or(Value::None),
            _ => Value::Tuple(items),
        })
    }
}

/// `s`, cut to 24 characters, for messages.
fn snippet_str(s: &str) -> String {
    let mut t: String = s.chars().take(24).collect();
    if s.chars().nth(24).is_some() {
        t.push('…');
    }
    t
}

const KEYS: &str = "'descr', 'fortran_order' and 'shape'";

/// Parse the header text (ASCII, already checked for size and characters) as NumPy's dict.
/// The error is a one-line message.
pub(super) fn parse(text: &str, max_depth: usize) -> Result<Dict, String> {
    let invalid = |msg: String| format!("invalid .npy header {}: {msg}", snippet(text.trim()));
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
        max_depth,
    };
    p.skip_ws();
    if p.peek() != Some(b'{') {
        return Err(invalid(format!(
            "{}; expected a dict like {{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }}",
            p.expected("'{'")
        )));
    }
    p.pos += 1;
    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    loop {
        p.skip_ws();
        if p.peek() == Some(b'}') {
            p.pos += 1;
            break;
        }
        let key = match p.peek() {
            Some(q @ (b'\'' | b'"')) => p.string(q).map_err(invalid)?,
            _ => return Err(invalid(p.expected("a quoted key or '}'"))),
        };
        p.skip_ws();
        if p.peek() != Some(b':') {
            return Err(invalid(p.expected(&format!("':' after the key '{key}'"))));
        }
        p.pos += 1;
        p.skip_ws();
        let start = p.pos;
        let value = p.value().map_err(invalid)?;
        let written = &text[start..p.pos];
        let slot = match key {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            _ => {
                return Err(invalid(format!(
                    "unexpected key '{}'; NumPy's header has exactly the keys {KEYS}",
                    snippet_str(key)
                )));
            }
        };
        if slot.replace((value, written)).is_some() {
            return Err(invalid(format!("the key '{key}' appears twice")));
        }
        p.skip_ws();
        match p.peek() {
            Some(b',') => p.pos += 1,
            Some(b'}') => {}
            _ => return Err(invalid(p.expected("',' or '}'"))),
        }
    }
    p.skip_ws();
    if p.peek().is_some() {
        return Err(invalid(format!("unexpected {} after the dict", p.here())));
    }
    dict_of(text, descr, fortran, shape)
}

/// A value of the header and the text it was written as.
type Entry<'t> = Option<(Value<'t>, &'t str)>;

/// The dict's three entries as the header means them: the type string, the order, the shape.
fn dict_of(text: &str, descr: Entry, fortran: Entry, shape: Entry) -> Result<Dict, String> {
    let invalid = |msg: String| format!("invalid .npy header {}: {msg}", snippet(text.trim()));
    let missing = |k: &str| invalid(format!("no '{k}' key; NumPy's header has {KEYS}"));
    let (descr, descr_text) = descr.ok_or_else(|| missing("descr"))?;
    let (fortran, _) = fortran.ok_or_else(|| missing("fortran_order"))?;
    let (shape, shape_text) = shape.ok_or_else(|| missing("shape"))?;

    let descr = match descr {
        Value::Str(s) => type_str(s).map_or_else(|| Descr::Unknown(s.to_string()), Descr::Plain),
        Value::List(_) | Value::Tuple(_) => Descr::Structured(descr_text.to_string()),
        other => {
            return Err(invalid(format!(
                "'descr' is {}, not a type string like '<f4'",
                other.what()
            )));
        }
    };
    let fortran_order = match fortran {
        Value::Bool(b) => b,
        other => {
            return Err(invalid(format!(
                "'fortran_order' is {}, not True or False",
                other.what()
            )));
        }
    };
    let not_shape = |what: &str| {
        format!(
            "the .npy header's 'shape' {} is {what}, not a tuple of non-negative integers",
            snippet(shape_text)
        )
    };
    let dims = match shape {
        Value::Tuple(d) | Value::List(d) => d,
        other => return Err(not_shape(other.what())),
    };
    let shape = dims
        .iter()
        .map(|d| match d {
            Value::Int(digits) => digits.parse::<u64>().map_err(|_| {
                format!(
                    "the .npy shape {} has the dimension {}, too large to be real",
                    snippet(shape_text),
                    snippet_str(digits)
                )
            }),
            other => Err(not_shape(&format!("a sequence holding {}", other.what()))),
        })
        .collect::<Result<Vec<u64>, String>>()?;
    Ok(Dict {
        descr,
        fortran_order,
        shape,
    })
}
