//! Decoded text that remembers where it came from.
//!
//! A `Text` is a piece of message text as the model saw it (JSON escapes decoded) together with a
//! map back to the raw bytes of the file. Any byte range of the decoded text, such as a phrase a
//! regex found, maps to the exact raw span, escapes included. Transcripts repeat phrases constantly,
//! so positions are never found by searching for the text again.

use crate::source::Span;

/// How the raw bytes of a `Text` encode it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// The raw bytes are the text (Markdown, plain transcripts, unescaped JSON strings).
    Plain,
    /// The raw bytes are the content of a JSON string literal (without quotes).
    JsonString,
    /// The raw bytes are the content of a JSON string literal whose decoded text is again the
    /// content of one (a JSON document kept in a string, as OpenAI call arguments are).
    JsonInJsonString,
    /// The text came out of a compressed region (a deflated ZIP entry): its span is that whole
    /// region, and the raw bytes there do not decode to it.
    Compressed,
}

/// One run where decoded and raw bytes correspond: a verbatim run (`dec_len == raw_len`) or a
/// single escape sequence decoding to one character.
#[derive(Debug, Clone, Copy)]
struct Piece {
    dec: usize,
    raw: usize,
    dec_len: usize,
    raw_len: usize,
}

/// A sentence (or list item, or line) of a text: byte range in the decoded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sentence {
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone)]
pub struct Text {
    pub text: String,
    /// Raw span of the encoded text in the file.
    pub span: Span,
    pub encoding: Encoding,
    /// Empty when the text is verbatim (raw offset = span.start + decoded offset).
    pieces: Vec<Piece>,
    /// Decoded offsets where a text appended to this one begins (`append`): each part between
    /// them lies in the file as such, the bytes between two parts are not the text's.
    joins: Vec<usize>,
}

impl Text {
    /// Verbatim text found at `span.start` in the file.
    pub fn plain(text: String, start: usize) -> Text {
        let span = Span::new(start, start + text.len());
        Text {
            text,
            span,
            encoding: Encoding::Plain,
            pieces: Vec::new(),
            joins: Vec::new(),
        }
    }

    /// Decodes the content of a JSON string literal at `content` in `bytes`.
    pub fn from_json(bytes: &[u8], content: Span, escaped: bool) -> Text {
        let raw = &bytes[content.start..content.end];
        if !escaped {
            if let Ok(s) = std::str::from_utf8(raw) {
                return Text {
                    text: s.to_owned(),
                    span: content,
                    encoding: Encoding::JsonString,
                    pieces: Vec::new(),
                    joins: Vec::new(),
                };
            }
        }
        let mut pieces = Vec::new();
        let text = decode_with(raw, content.start, Some(&mut pieces));
        Text {
            text,
            span: content,
            encoding: Encoding::JsonString,
            pieces,
            joins: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Makes every decoded range map to the whole of `span`: for text whose raw bytes are not in
    /// the file as such (a compressed ZIP entry), so positions are approximate but stay inside
    /// the region the text came from.
    pub fn spread_over(&mut self, span: Span) {
        self.span = span;
        self.encoding = Encoding::Compressed;
        self.pieces.clear();
        self.joins.clear();
        if !self.text.is_empty() {
            self.pieces.push(Piece {
                dec: 0,
                raw: span.start,
                dec_len: self.text.len(),
                raw_len: span.len(),
            });
        }
    }

    /// Raw offset of decoded offset `d` taken as the start of a range.
    pub fn raw_start(&self, d: usize) -> usize {
        if self.pieces.is_empty() {
            return self.span.start + d.min(self.text.len());
        }
        match self.piece_at(d) {
            Some(p) if p.dec_len == p.raw_len => p.raw + (d - p.dec),
            Some(p) => p.raw,
            None => self.span.end,
        }
    }

    /// Raw offset of decoded offset `d` taken as the end of a range.
    pub fn raw_end(&self, d: usize) -> usize {
        if self.pieces.is_empty() {
            return self.span.start + d.min(self.text.len());
        }
        if d == 0 {
            return self.span.start;
        }
        match self.piece_at(d - 1) {
            Some(p) if p.dec_len == p.raw_len => p.raw + (d - p.dec),
            Some(p) => p.raw + p.raw_len,
            None => self.span.end,
        }
    }

    /// The raw span of the decoded range `[s, e)`.
    pub fn raw_span(&self, s: usize, e: usize) -> Span {
        Span::new(self.raw_start(s), self.raw_end(e).max(self.raw_start(s)))
    }

    /// The decoded range `[s, e)` as a `Text` of its own that keeps the map back to raw offsets
    /// (for formats that pack several messages into one string). Offsets inside a character are
    /// widened to the enclosing character boundaries; offsets past the end are clamped.
    pub fn slice(&self, s: usize, e: usize) -> Text {
        let e = ceil_boundary(&self.text, e);
        let s = floor_boundary(&self.text, s.min(e));
        let span = self.raw_span(s, e);
        let mut pieces = Vec::new();
        if !self.pieces.is_empty() {
            let first = self.pieces.partition_point(|p| p.dec + p.dec_len <= s);
            for p in self.pieces[first..].iter().take_while(|p| p.dec < e) {
                let (ds, de) = (p.dec.max(s), (p.dec + p.dec_len).min(e));
                if p.dec_len == p.raw_len {
                    pieces.push(Piece {
                        dec: ds - s,
                        raw: p.raw + (ds - p.dec),
                        dec_len: de - ds,
                        raw_len: de - ds,
                    });
                } else if s <= p.dec && p.dec + p.dec_len <= e {
                    // An escape (one character) or a spread piece wholly inside the range.
                    pieces.push(Piece {
                        dec: p.dec - s,
                        ..*p
                    });
                } else {
                    // A spread piece (`spread_over`) cut by the range: its part in the range
                    // still maps to its whole raw region.
                    pieces.push(Piece {
                        dec: ds - s,
                        raw: p.raw,
                        dec_len: de - ds,
                        raw_len: p.raw_len,
                    });
                }
            }
        }
        let joins = self
            .joins
            .iter()
            .filter(|&&j| s < j && j < e)
            .map(|j| j - s)
            .collect();
        Text {
            text: self.text[s..e].to_owned(),
            span,
            encoding: self.encoding,
            pieces,
            joins,
        }
    }

    /// Appends `next`, text found further on in the file (the next chunk of a message streamed
    /// in pieces), keeping the map back to raw offsets of both: a phrase across the seam maps
    /// to a span from its start in one to its end in the other.
    pub fn append(&mut self, next: Text) {
        debug_assert_eq!(self.encoding, next.encoding, "one message, one encoding");
        if next.text.is_empty() {
            return;
        }
        if self.text.is_empty() {
            *self = next;
            return;
        }
        let shift = self.text.len();
        let verbatim = |t: &Text, dec: usize| Piece {
            dec,
            raw: t.span.start,
            dec_len: t.text.len(),
            raw_len: t.text.len(),
        };
        if self.pieces.is_empty() {
            self.pieces.push(verbatim(self, 0));
        }
        if next.pieces.is_empty() {
            if !next.text.is_empty() {
                self.pieces.push(verbatim(&next, shift));
            }
        } else {
            let moved = next.pieces.iter().map(|p| Piece {
                dec: p.dec + shift,
                ..*p
            });
            self.pieces.extend(moved);
        }
        self.joins.push(shift);
        self.joins.extend(next.joins.iter().map(|j| j + shift));
        self.text.push_str(&next.text);
        self.span = self.span.cover(next.span);
    }

    /// The decoded ranges that each lie in the file as such: the whole text, or the parts an
    /// `append` joined.
    pub fn parts(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let starts = std::iter::once(0).chain(self.joins.iter().copied());
        let ends = self.joins.iter().copied().chain([self.text.len()]);
        starts.zip(ends)
    }

    /// The decoded range `[s, e)` read once more as the content of a JSON string literal (a
    /// thought inside a think call's JSON arguments): its escapes decoded, its offsets still
    /// mapped to the file.
    pub fn unescape(&self, s: usize, e: usize) -> Text {
        let outer = self.slice(s, e);
        let mut inner = Vec::new();
        let text = decode_with(outer.text.as_bytes(), 0, Some(&mut inner));
        let mut pieces = Vec::with_capacity(inner.len());
        for p in inner {
            if p.dec_len == p.raw_len {
                // Verbatim at this level, but it may hold escapes of the outer one.
                let part = outer.slice(p.raw, p.raw + p.raw_len);
                if part.pieces.is_empty() {
                    pieces.push(Piece {
                        dec: p.dec,
                        raw: part.span.start,
                        ..p
                    });
                }
                pieces.extend(part.pieces.iter().map(|q| Piece {
                    dec: p.dec + q.dec,
                    ..*q
                }));
            } else {
                let raw = outer.raw_span(p.raw, p.raw + p.raw_len);
                pieces.push(Piece {
                    raw: raw.start,
                    raw_len: raw.len(),
                    ..p
                });
            }
        }
        let encoding = match outer.encoding {
            Encoding::Plain => Encoding::JsonString,
            Encoding::JsonString | Encoding::JsonInJsonString => Encoding::JsonInJsonString,
            Encoding::Compressed => Encoding::Compressed,
        };
        Text {
            text,
            span: outer.span,
            encoding,
            pieces,
            // (Read again as one literal: a text joined from several is not one.)
            joins: Vec::new(),
        }
    }

    fn piece_at(&self, d: usize) -> Option<&Piece> {
        let i = self.pieces.partition_point(|p| p.dec + p.dec_len <= d);
        self.pieces.get(i)
    }
}

/// Where the lines of one text break, found on first use: the line around an offset is then a
/// lookup, where a scan from each of many matches on one long line costs its length each time.
/// (Asked always of the same text.)
#[derive(Default)]
pub struct LineBreaks(std::cell::OnceCell<Vec<usize>>);

impl LineBreaks {
    fn of(&self, text: &str) -> &[usize] {
        self.0
            .get_or_init(|| memchr::memchr_iter(b'\n', text.as_bytes()).collect())
    }

    /// Where the line holding `at` starts: after its '\n', or at the text's start.
    pub fn start(&self, text: &str, at: usize) -> usize {
        let breaks = self.of(text);
        match breaks.partition_point(|&n| n < at) {
            0 => 0,
            k => breaks[k - 1] + 1,
        }
    }

    /// Where the line holding `at` ends: at its '\n', or at the text's end.
    pub fn end(&self, text: &str, at: usize) -> usize {
        let breaks = self.of(text);
        breaks
            .get(breaks.partition_point(|&n| n < at))
            .copied()
            .unwrap_or(text.len())
    }
}

/// The char boundary at or before byte `i` of `s` (clamped to its length).
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The char boundary at or after byte `i` of `s` (clamped to its length).
pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Decodes raw bytes in the given encoding; the inverse the property tests check against.
pub fn decode(raw: &[u8], encoding: Encoding) -> String {
    match encoding {
        Encoding::Plain => String::from_utf8_lossy(raw).into_owned(),
        Encoding::JsonString => decode_json_str(raw),
        Encoding::JsonInJsonString => decode_json_str(decode_json_str(raw).as_bytes()),
        // Not recoverable from the raw bytes; callers check the encoding first.
        Encoding::Compressed => String::new(),
    }
}

/// Decodes the content of a JSON string literal; invalid escapes and bytes become U+FFFD.
pub fn decode_json_str(raw: &[u8]) -> String {
    decode_with(raw, 0, None)
}

fn decode_with(raw: &[u8], base: usize, mut pieces: Option<&mut Vec<Piece>>) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        // A verbatim run up to the next backslash.
        let run_end = memchr::memchr(b'\\', &raw[i..]).map_or(raw.len(), |k| i + k);
        if run_end > i {
            append_lossy(&mut out, &raw[i..run_end], &mut pieces, base + i);
            i = run_end;
            continue;
        }
        // An escape at i.
        let dec = out.len();
        let start = i;
        let (ch, len) = escape_at(raw, i);
        out.push(ch);
        i += len;
        if let Some(ps) = pieces.as_deref_mut() {
            ps.push(Piece {
                dec,
                raw: base + start,
                dec_len: out.len() - dec,
                raw_len: len,
            });
        }
    }
    out
}

/// Appends a run of raw bytes, replacing invalid UTF-8 so that every piece maps cleanly.
fn append_lossy(out: &mut String, run: &[u8], pieces: &mut Option<&mut Vec<Piece>>, raw_at: usize) {
    match std::str::from_utf8(run) {
        Ok(s) => {
            if let Some(ps) = pieces.as_deref_mut() {
                ps.push(Piece {
                    dec: out.len(),
                    raw: raw_at,
                    dec_len: s.len(),
                    raw_len: s.len(),
                });
            }
            out.push_str(s);
        }
        Err(_) => {
            // Rare: walk the valid and invalid chunks one by one.
            let mut off = 0;
            for chunk in run.utf8_chunks() {
                let v = chunk.valid();
                if !v.is_empty() {
                    let d = out.len();
                    out.push_str(v);
                    if let Some(ps) = pieces.as_deref_mut() {
                        ps.push(Piece {
                            dec: d,
                            raw: raw_at + off,
                            dec_len: v.len(),
                            raw_len: v.len(),
                        });
                    }
                    off += v.len();
                }
                let bad = chunk.invalid();
                if !bad.is_empty() {
                    let d = out.len();
                    out.push('\u{FFFD}');
                    if let Some(ps) = pieces.as_deref_mut() {
                        ps.push(Piece {
                            dec: d,
                            raw: raw_at + off,
                            dec_len: 3,
                            raw_len: bad.len(),
                        });
                    }
                    off += bad.len();
                }
            }
        }
    }
}

/// Decodes the escape sequence starting at `raw[i] == b'\\'`: the character and its raw length.
fn escape_at(raw: &[u8], i: usize) -> (char, usize) {
    let Some(&c) = raw.get(i + 1) else {
        return ('\u{FFFD}', 1);
    };
    let simple = match c {
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'/' => Some('/'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        _ => None,
    };
    if let Some(ch) = simple {
        return (ch, 2);
    }
    if c != b'u' {
        return ('\u{FFFD}', 2);
    }
    let Some(hi) = hex4(raw, i + 2) else {
        return ('\u{FFFD}', 2);
    };
    if (0xD800..0xDC00).contains(&hi) {
        if raw.get(i + 6) == Some(&b'\\') && raw.get(i + 7) == Some(&b'u') {
            if let Some(lo) = hex4(raw, i + 8) {
                if (0xDC00..0xE000).contains(&lo) {
                    let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return (char::from_u32(cp).unwrap_or('\u{FFFD}'), 12);
                }
            }
        }
        return ('\u{FFFD}', 6);
    }
    (char::from_u32(hi).unwrap_or('\u{FFFD}'), 6)
}

fn hex4(raw: &[u8], at: usize) -> Option<u32> {
    let s = raw.get(at..at + 4)?;
    let s = std::str::from_utf8(s).ok()?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// A line's ends by lookup are where scanning from the offset finds them.
        #[test]
        fn line_breaks_answer_as_a_scan_would(
            text in "[ab\n]{0,40}",
            offsets in proptest::collection::vec(0usize..41, 1..8),
        ) {
            let breaks = super::LineBreaks::default();
            for at in offsets.into_iter().map(|at| at.min(text.len())) {
                let start = text[..at].rfind('\n').map_or(0, |k| k + 1);
                let end = text[at..].find('\n').map_or(text.len(), |k| at + k);
                proptest::prop_assert_eq!(breaks.start(&text, at), start);
                proptest::prop_assert_eq!(breaks.end(&text, at), end);
            }
        }
    }

    use super::*;

    fn json_text(lit: &str) -> (Vec<u8>, Text) {
        let bytes = format!("xx\"{lit}\"").into_bytes();
        let content = Span::new(3, 3 + lit.len());
        let t = Text::from_json(&bytes, content, lit.contains('\\'));
        (bytes, t)
    }

    #[test]
    fn appended_chunks_keep_their_raw_offsets() {
        // Two chunks of one streamed message, on two lines: "I'll run " and "the \"tests\"."
        let bytes = br#"{"content":"I'll run "}
{"content":"the \"tests\"."}"#;
        let at = |lit: &[u8]| {
            let s = bytes.windows(lit.len()).position(|w| w == lit).unwrap();
            Span::new(s, s + lit.len())
        };
        let mut t = Text::from_json(bytes, at(b"I'll run "), false);
        t.append(Text::from_json(bytes, at(br#"the \"tests\"."#), true));
        assert_eq!(t.text, "I'll run the \"tests\".");
        let raw = |s: usize, e: usize| {
            let r = t.raw_span(s, e);
            &bytes[r.start..r.end]
        };
        // Within the first chunk, within the second (across an escape), and across the seam.
        assert_eq!(raw(0, 4), b"I'll");
        let q = t.text.find("\"tests").unwrap();
        assert_eq!(raw(q, q + 7), br#"\"tests\""#);
        let run = t.text.find("run").unwrap();
        let r = t.raw_span(run, run + "run the".len());
        assert_eq!(&bytes[r.start..r.start + 3], b"run");
        assert_eq!(&bytes[r.end - 3..r.end], b"the");
        // Each chunk lies in the file as such: the parts say where the seam is.
        let parts: Vec<(usize, usize)> = t.parts().collect();
        assert_eq!(parts, [(0, 9), (9, t.text.len())]);
        // Appending to nothing is the chunk itself.
        let mut empty = Text::from_json(bytes, Span::new(12, 12), false);
        empty.append(Text::from_json(bytes, at(b"I'll run "), false));
        assert_eq!(empty.raw_span(0, 4), at(b"I'll"));
    }

    #[test]
    fn escapes_decode_and_map_back() {
        let (bytes, t) = json_text(r#"a\"b\nc\u00e9d\ud83d\ude00e"#);
        assert_eq!(t.text, "a\"b\nc\u{e9}d\u{1F600}e");
        // "c" .. "d" in decoded text spans the \u00e9 escape in raw.
        let s = t.text.find('c').unwrap();
        let e = t.text.find('d').unwrap() + 1;
        let raw = t.raw_span(s, e);
        assert_eq!(&bytes[raw.start..raw.end], br"c\u00e9d");
        // The emoji alone maps to the whole surrogate pair.
        let s = t.text.find('\u{1F600}').unwrap();
        let raw = t.raw_span(s, s + 4);
        assert_eq!(&bytes[raw.start..raw.end], br"\ud83d\ude00");
        // The whole text maps to the whole literal content.
        assert_eq!(t.raw_span(0, t.text.len()), t.span);
    }

    #[test]
    fn slices_keep_the_raw_map() {
        let (bytes, t) = json_text(r#"user: a\"b\nassistant: c\u00e9d\ud83d\ude00e"#);
        let at = t.text.find("assistant: ").unwrap();
        let nl = at - 1;
        // First message: "a\"b" (decoded), raw `a\"b`.
        let first = t.slice(6, nl);
        assert_eq!(first.text, "a\"b");
        assert_eq!(&bytes[first.span.start..first.span.end], br#"a\"b"#);
        let q = first.text.find('"').unwrap();
        let r = first.raw_span(q, q + 1);
        assert_eq!(&bytes[r.start..r.end], br#"\""#);
        // Second message, and a sub-range of it across escapes.
        let second = t.slice(at + 11, t.text.len());
        assert_eq!(second.text, "c\u{e9}d\u{1F600}e");
        assert_eq!(second.raw_span(0, second.text.len()), second.span);
        let s = second.text.find('d').unwrap();
        let r = second.raw_span(s, s + 5);
        assert_eq!(&bytes[r.start..r.end], br"d\ud83d\ude00");
        // A slice of a slice, and offsets inside a character do not panic.
        let inner = second.slice(1, 3);
        assert_eq!(inner.text, "\u{e9}");
        assert_eq!(&bytes[inner.span.start..inner.span.end], br"\u00e9");
        let widened = second.slice(2, 2);
        assert_eq!(widened.text, "\u{e9}");
        let _ = second.slice(4, 100);
        // A spread text slices without panicking and stays in its region.
        let mut z = Text::plain("abcdef".into(), 0);
        z.spread_over(Span::new(100, 140));
        let zs = z.slice(2, 4);
        assert_eq!((zs.text.as_str(), zs.span), ("cd", Span::new(100, 140)));
        let r = zs.raw_span(0, 1);
        assert!(100 <= r.start && r.end <= 140);
        // Verbatim text slices too.
        let p = Text::plain("hello world".into(), 10);
        let w = p.slice(6, 11);
        assert_eq!((w.text.as_str(), w.span), ("world", Span::new(16, 21)));
    }

    #[test]
    fn invalid_utf8_and_bad_escapes_do_not_panic() {
        let bytes = b"\"ok \xff\xfe \\q \\u12\"".to_vec();
        let t = Text::from_json(&bytes, Span::new(1, bytes.len() - 1), true);
        assert!(t.text.starts_with("ok "));
        assert_eq!(
            decode(&bytes[1..bytes.len() - 1], Encoding::JsonString),
            t.text
        );
        for i in 0..=t.text.len() {
            if t.text.is_char_boundary(i) {
                let _ = t.raw_span(0, i);
            }
        }
    }
}
