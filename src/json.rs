//! A JSON reader that keeps the raw byte span of every value.
//!
//! Written by hand because no well-kept crate gives both things trajlint needs: the `[start, end)`
//! offsets of every value in the file, and decoding of string values that can map any piece of the
//! decoded text back to the raw (escaped) bytes. Strings are decoded lazily: most of a transcript
//! (metadata, usage, signatures) is never looked at. Nesting depth is bounded, so hostile input
//! cannot overflow the stack.

use crate::source::Span;
use crate::text::Text;

/// Deeper nesting than this is reported, not followed.
pub const MAX_DEPTH: usize = 256;

#[derive(Debug, Clone)]
pub struct Value {
    pub span: Span,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Null,
    Bool(bool),
    /// The raw number text.
    Number,
    /// `span` of the owning value covers the quotes; this is the content between them.
    Str {
        content: Span,
        escaped: bool,
    },
    Array(Vec<Value>),
    Object(Vec<(Key, Value)>),
}

#[derive(Debug, Clone)]
pub struct Key {
    pub content: Span,
    pub escaped: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset into the input where the problem was found.
    pub offset: usize,
    pub message: String,
    /// Where the arrays and objects still open at `offset` start, innermost first: a parse
    /// from any of them fails here too (short of the nesting limit), and from any other value
    /// that starts before `offset` ends before it.
    pub unclosed: Vec<usize>,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parses exactly one JSON value in `bytes[start..end]` (surrounding white space allowed).
pub fn parse(bytes: &[u8], start: usize, end: usize) -> Result<Value, JsonError> {
    let mut p = Parser {
        b: &bytes[..end],
        pos: start,
    };
    p.skip_ws();
    let v = p.value(0)?;
    p.skip_ws();
    if p.pos < p.b.len() {
        return Err(p.err("unexpected data after the JSON value"));
    }
    Ok(v)
}

/// Parses the one JSON value that starts at `start` (after white space), whatever follows it:
/// the first of several values written one after another (a stream of pretty-printed records).
pub fn parse_first(bytes: &[u8], start: usize) -> Result<Value, JsonError> {
    let mut p = Parser {
        b: bytes,
        pos: start,
    };
    p.skip_ws();
    p.value(0)
}

/// Parses a whole document.
pub fn parse_all(bytes: &[u8]) -> Result<Value, JsonError> {
    parse(bytes, 0, bytes.len())
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, msg: &str) -> JsonError {
        let found = match self.b.get(self.pos) {
            None => "end of input".to_string(),
            Some(c) if c.is_ascii_graphic() => format!("'{}'", *c as char),
            Some(c) => format!("byte 0x{c:02x}"),
        };
        JsonError {
            offset: self.pos.min(self.b.len()),
            message: format!("{msg} (found {found})"),
            unclosed: Vec::new(),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.b.get(self.pos) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err(&format!("JSON nested deeper than {MAX_DEPTH} levels")));
        }
        let start = self.pos;
        let unclosed = |mut e: JsonError| {
            e.unclosed.push(start);
            e
        };
        let kind = match self.b.get(self.pos) {
            Some(b'{') => self.object(depth).map_err(unclosed)?,
            Some(b'[') => self.array(depth).map_err(unclosed)?,
            Some(b'"') => {
                let (content, escaped) = self.string()?;
                Kind::Str { content, escaped }
            }
            Some(b't') => self.literal(b"true", Kind::Bool(true))?,
            Some(b'f') => self.literal(b"false", Kind::Bool(false))?,
            Some(b'n') => self.literal(b"null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            // Python reprs sneak into logs; NaN/Infinity are what json.dumps writes by default.
            Some(b'N') => self.literal(b"NaN", Kind::Number)?,
            Some(b'I') => self.literal(b"Infinity", Kind::Number)?,
            _ => return Err(self.err("expected a JSON value")),
        };
        Ok(Value {
            span: Span::new(start, self.pos),
            kind,
        })
    }

    fn literal(&mut self, word: &[u8], kind: Kind) -> Result<Kind, JsonError> {
        if self.b[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.err("expected a JSON value"))
        }
    }

    fn number(&mut self) -> Result<Kind, JsonError> {
        let start = self.pos;
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
            if self.b[self.pos..].starts_with(b"Infinity") {
                self.pos += 8;
                return Ok(Kind::Number);
            }
        }
        while let Some(c) = self.b.get(self.pos) {
            if c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-') {
                self.pos += 1;
            } else {
                break;
            }
        }
        if self.pos == start + 1 && self.b[start] == b'-' {
            return Err(self.err("expected digits after '-'"));
        }
        Ok(Kind::Number)
    }

    /// Scans a string; returns the span of its content and whether it holds escapes.
    fn string(&mut self) -> Result<(Span, bool), JsonError> {
        self.pos += 1; // opening quote
        let start = self.pos;
        let mut escaped = false;
        loop {
            match memchr::memchr3(b'"', b'\\', b'\n', &self.b[self.pos..]) {
                None => {
                    self.pos = self.b.len();
                    return Err(self.err("unterminated string"));
                }
                Some(i) => {
                    self.pos += i;
                    match self.b[self.pos] {
                        b'"' => {
                            let content = Span::new(start, self.pos);
                            self.pos += 1;
                            return Ok((content, escaped));
                        }
                        b'\\' => {
                            escaped = true;
                            if self.pos + 1 >= self.b.len() {
                                self.pos = self.b.len();
                                return Err(self.err("unterminated string"));
                            }
                            self.pos += 2;
                        }
                        _ => return Err(self.err("raw line break inside a string")),
                    }
                }
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Kind, JsonError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Kind::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Kind::Array(items));
                }
                _ => return Err(self.err("expected ',' or ']' in an array")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Kind, JsonError> {
        self.pos += 1;
        let mut fields = Vec::new();
        self.skip_ws();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Kind::Object(fields));
        }
        loop {
            self.skip_ws();
            if self.b.get(self.pos) != Some(&b'"') {
                return Err(self.err("expected a string key in an object"));
            }
            let (content, escaped) = self.string()?;
            self.skip_ws();
            if self.b.get(self.pos) != Some(&b':') {
                return Err(self.err("expected ':' after an object key"));
            }
            self.pos += 1;
            self.skip_ws();
            let v = self.value(depth + 1)?;
            fields.push((Key { content, escaped }, v));
            self.skip_ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Kind::Object(fields));
                }
                _ => return Err(self.err("expected ',' or '}' in an object")),
            }
        }
    }
}

/// Read access to a parsed value against the bytes it came from.
#[derive(Clone, Copy)]
pub struct Doc<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Doc<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Doc { bytes }
    }

    /// Field `key` of an object: the last one when a key repeats, as Python's `json`, a
    /// browser's `JSON.parse` and serde_json read it (the writers of these logs and their
    /// readers: a record read otherwise here than there would be linted as something else).
    pub fn get<'v>(&self, v: &'v Value, key: &str) -> Option<&'v Value> {
        match &v.kind {
            Kind::Object(fields) => fields.iter().rev().find_map(|(k, val)| {
                let raw = &self.bytes[k.content.start..k.content.end];
                let hit = if k.escaped {
                    crate::text::decode_json_str(raw) == key
                } else {
                    raw == key.as_bytes()
                };
                hit.then_some(val)
            }),
            _ => None,
        }
    }

    /// Follows a path of object keys.
    pub fn path<'v>(&self, v: &'v Value, keys: &[&str]) -> Option<&'v Value> {
        keys.iter().try_fold(v, |v, k| self.get(v, k))
    }

    pub fn items<'v>(&self, v: &'v Value) -> &'v [Value] {
        match &v.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }

    pub fn fields<'v>(&self, v: &'v Value) -> &'v [(Key, Value)] {
        match &v.kind {
            Kind::Object(f) => f,
            _ => &[],
        }
    }

    pub fn key_str(&self, k: &Key) -> String {
        crate::text::decode_json_str(&self.bytes[k.content.start..k.content.end])
    }

    /// A string value decoded, with its map back to raw offsets.
    pub fn text(&self, v: &Value) -> Option<Text> {
        match v.kind {
            Kind::Str { content, escaped } => Some(Text::from_json(self.bytes, content, escaped)),
            _ => None,
        }
    }

    /// A string value decoded (no offset map).
    pub fn str(&self, v: &Value) -> Option<String> {
        match v.kind {
            Kind::Str { content, escaped } => {
                let raw = &self.bytes[content.start..content.end];
                Some(if escaped {
                    crate::text::decode_json_str(raw)
                } else {
                    String::from_utf8_lossy(raw).into_owned()
                })
            }
            _ => None,
        }
    }

    /// Shorthand: `get(v, key)` as a decoded string.
    pub fn get_str(&self, v: &Value, key: &str) -> Option<String> {
        self.get(v, key).and_then(|x| self.str(x))
    }

    /// Whether `v[key]` is a string equal to `want` (compares raw bytes when unescaped: cheap).
    pub fn is(&self, v: &Value, key: &str, want: &str) -> bool {
        match self.get(v, key).map(|x| &x.kind) {
            Some(Kind::Str {
                content,
                escaped: false,
            }) => &self.bytes[content.start..content.end] == want.as_bytes(),
            Some(Kind::Str { .. }) => self.get_str(v, key).as_deref() == Some(want),
            _ => false,
        }
    }

    pub fn raw(&self, v: &Value) -> &'a str {
        std::str::from_utf8(&self.bytes[v.span.start..v.span.end]).unwrap_or("")
    }

    pub fn as_i64(&self, v: &Value) -> Option<i64> {
        match v.kind {
            Kind::Number => self.raw(v).parse::<f64>().ok().map(|f| f as i64),
            Kind::Str { .. } => self.str(v)?.trim().parse().ok(),
            _ => None,
        }
    }

    /// Whether `v[key]` is true (a boolean, or the string "true").
    pub fn flag(&self, v: &Value, key: &str) -> bool {
        self.get(v, key).and_then(|x| self.as_bool(x)) == Some(true)
    }

    pub fn as_bool(&self, v: &Value) -> Option<bool> {
        match v.kind {
            Kind::Bool(b) => Some(b),
            Kind::Str { .. } => match self.str(v)?.as_str() {
                "true" | "True" => Some(true),
                "false" | "False" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn is_null(v: Option<&Value>) -> bool {
        matches!(v.map(|v| &v.kind), None | Some(Kind::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error names the arrays and objects it leaves open, innermost first, not those closed
    /// before it; past the nesting limit, each level.
    #[test]
    fn errors_name_the_values_left_open() {
        let e = parse_all(br#"{"a": [1, {"b": 2}, [3 x"#).unwrap_err();
        assert_eq!(e.offset, 23);
        assert_eq!(e.unclosed, [20, 6, 0]);
        let e = parse_all(&[b'['; 300]).unwrap_err();
        assert_eq!(e.offset, MAX_DEPTH + 1);
        assert_eq!(e.unclosed, (0..=MAX_DEPTH).rev().collect::<Vec<_>>());
        assert!(parse_all(b"[1, 2").unwrap_err().unclosed == [0]);
    }

    /// A repeated key reads as its last value, as Python's `json` reads it.
    #[test]
    fn a_repeated_key_is_its_last_value() {
        let src = br#"{"role": "user", "content": "a", "role": "assistant"}"#;
        let v = parse_all(src).unwrap();
        let d = Doc::new(src);
        assert_eq!(d.str(d.get(&v, "role").unwrap()).unwrap(), "assistant");
        assert_eq!(d.str(d.get(&v, "content").unwrap()).unwrap(), "a");
    }

    #[test]
    fn spans_cover_values_exactly() {
        let src = br#" {"a": [1, "x\ny", null], "b": {"c": true}} "#;
        let v = parse_all(src).unwrap();
        let d = Doc::new(src);
        assert_eq!(d.raw(&v), r#"{"a": [1, "x\ny", null], "b": {"c": true}}"#);
        let a = d.get(&v, "a").unwrap();
        assert_eq!(d.raw(a), r#"[1, "x\ny", null]"#);
        assert_eq!(d.raw(&d.items(a)[1]), r#""x\ny""#);
        assert_eq!(d.str(&d.items(a)[1]).unwrap(), "x\ny");
        assert!(matches!(
            d.path(&v, &["b", "c"]).unwrap().kind,
            Kind::Bool(true)
        ));
    }

    #[test]
    fn errors_carry_the_offset() {
        let e = parse_all(br#"{"a": 1,, }"#).unwrap_err();
        assert_eq!(e.offset, 8);
        let e = parse_all(br#"{"a": "unterminated"#).unwrap_err();
        assert!(e.message.contains("unterminated"), "{}", e.message);
        let e = parse_all(b"[1] x").unwrap_err();
        assert_eq!(e.offset, 4);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let e = parse_all(deep.as_bytes()).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{}", e.message);
    }
}
