//! A [`miette::SourceCode`] over a [`SourceFile`] that reads through the file's line index.
//!
//! miette's own implementations for `str` and `[u8]` scan the source from its first byte on
//! every `read_span` (three or more calls per label), so rendering many findings of one large
//! file goes quadratic. Here a read costs a binary search in the line index plus the excerpt it
//! returns. Lines longer than [`LONG_LINE`] bytes (a JSONL record can be megabytes) are cut to a
//! window around the span, with an ellipsis at each cut end: the ellipsis takes the place of the
//! three bytes just outside the window, so byte offsets in the excerpt stay those of the file
//! and miette places labels where they belong.

use crate::source::{SourceFile, Span};
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Lines longer than this (bytes) are cut around the span.
pub const LONG_LINE: usize = 200;
/// Bytes kept on each side of the span in a cut line.
pub const WINDOW: usize = 60;
/// The widest span a cut line can show (a merged pair of labels further apart is shown as two
/// excerpts instead).
const MAX_CUT_SPAN: usize = 400;
const ELLIPSIS: &[u8] = "…".as_bytes();

/// A line-indexed, cutting view of a file for one diagnostic.
pub struct Excerpt<'a> {
    file: &'a SourceFile,
    name: &'a str,
    /// For a log joined from one file per event: each file's displayed name (see
    /// `SourceFile::parts`). An excerpt then stays within its event's file, named by it.
    parts: &'a [(String, String)],
    /// Owned excerpts (cut lines, invalid UTF-8 made valid) handed out by reference.
    slots: Box<[OnceLock<Box<[u8]>>]>,
    next: AtomicUsize,
    /// Bytes of the file looked at so far for excerpts (columns come from the file's marks):
    /// what makes rendering linear, checked by the tests.
    work: AtomicUsize,
}

impl<'a> Excerpt<'a> {
    /// A view for a diagnostic with `labels` labels (miette reads each a few times).
    pub fn new(file: &'a SourceFile, name: &'a str, labels: usize) -> Self {
        let n = 8 * (labels + 1) + 8;
        Excerpt {
            file,
            name,
            parts: &[],
            slots: (0..n).map(|_| OnceLock::new()).collect(),
            next: AtomicUsize::new(0),
            work: AtomicUsize::new(0),
        }
    }

    /// The files a joined log was read from, as displayed (with their URIs).
    pub fn with_parts(mut self, parts: &'a [(String, String)]) -> Self {
        self.parts = parts;
        self
    }

    /// The name of the file holding `offset`, and the lines `[first, end)` of the source that
    /// file spans (the whole source for a log of one file).
    fn holder(&self, offset: usize) -> (&'a str, usize, usize) {
        match self.file.part_of(offset) {
            Some((k, first)) => {
                let end = self
                    .file
                    .parts()
                    .get(k + 1)
                    .map_or(self.file.line_count(), |p| self.file.line_of(p.0));
                let name = self.parts.get(k).map_or(self.name, |p| p.0.as_str());
                (name, first, end)
            }
            None => (self.name, 0, self.file.line_count()),
        }
    }

    /// Bytes of the file looked at so far.
    pub fn work(&self) -> usize {
        self.work.load(Ordering::Relaxed)
    }

    /// Keeps `data` for the lifetime of the view and lends it out.
    fn own(&self, data: Vec<u8>) -> Result<&[u8], MietteError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = self.slots.get(i).ok_or(MietteError::OutOfBounds)?;
        let _ = slot.set(data.into_boxed_slice());
        slot.get().map(|b| &**b).ok_or(MietteError::OutOfBounds)
    }

    /// The bytes of `[s, e)` as printable UTF-8 of the same length: borrowed when they are,
    /// owned when not (each invalid byte, and each control character but a tab or a line
    /// break, turned into `?`; a C1 control into `¿`, two bytes as it is: the file's escapes
    /// must not reach the terminal, and the offsets must stay the file's).
    fn text(&self, s: usize, e: usize) -> Result<&[u8], MietteError> {
        let raw = &self.file.bytes[s..e];
        self.work.fetch_add(raw.len(), Ordering::Relaxed);
        let controls = raw
            .iter()
            .any(|&b| b < 0x20 && b != b'\t' && b != b'\n' || b == 0x7f || b == 0xc2);
        match std::str::from_utf8(raw) {
            Ok(_) if !controls => Ok(raw),
            _ => self.own(printable(sanitize(raw))),
        }
    }

    /// `[start, end)` of 0-based line `l`, without its line break.
    fn line(&self, l: usize) -> (usize, usize) {
        let start = self.file.line_start(l);
        let next = if l + 1 < self.file.line_count() {
            self.file.line_start(l + 1)
        } else {
            self.file.len()
        };
        let b = &self.file.bytes;
        let mut end = next;
        if end > start && b[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && b[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end.max(start))
    }

    fn is_long(&self, l: usize) -> bool {
        let (s, e) = self.line(l);
        e - s > LONG_LINE
    }

    /// 0-based column of `offset` on its line, as `SourceFile::line_col` counts it (from the
    /// file's marks far into a long line, so a read does not count from the line's start).
    fn column(&self, offset: usize) -> usize {
        self.file.line_col(offset).1 - 1
    }

    /// `data` read from `start` (on 0-based `line`), named by the file that holds it and
    /// its line counted there.
    fn contents(
        &self,
        data: &'a [u8],
        start: usize,
        line: usize,
        column: usize,
        lines: usize,
    ) -> Box<dyn SpanContents<'a> + 'a> {
        let (name, first, _) = self.holder(start);
        Box::new(MietteSpanContents::new_named(
            super::visible(name).into_owned(),
            data,
            (start, data.len()).into(),
            line - first,
            column,
            lines,
        ))
    }
}

fn sanitize(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut rest = raw;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.extend_from_slice(s.as_bytes());
                return out;
            }
            Err(e) => {
                let ok = e.valid_up_to();
                out.extend_from_slice(&rest[..ok]);
                let bad = e.error_len().unwrap_or(rest.len() - ok);
                out.extend(std::iter::repeat_n(b'?', bad));
                rest = &rest[ok + bad..];
            }
        }
    }
}

/// Valid UTF-8 with its control characters replaced in place, byte for byte (see `text`).
fn printable(mut text: Vec<u8>) -> Vec<u8> {
    for i in 0..text.len() {
        match text[i] {
            b'\t' | b'\n' => {}
            // (A CRLF file's line ends are line breaks.)
            b'\r' if text.get(i + 1) == Some(&b'\n') => {}
            b if b < 0x20 || b == 0x7f => text[i] = b'?',
            // U+0080..U+009F are C2 80..C2 9F; U+00BF is C2 BF.
            0xc2 if text.get(i + 1).is_some_and(|&n| (0x80..0xa0).contains(&n)) => {
                text[i + 1] = 0xbf;
            }
            _ => {}
        }
    }
    text
}

fn floor_char(b: &[u8], mut i: usize, min: usize) -> usize {
    while i > min && i < b.len() && (b[i] as i8) < -0x40 {
        i -= 1;
    }
    i
}

fn ceil_char(b: &[u8], mut i: usize, max: usize) -> usize {
    while i < max && (b[i] as i8) < -0x40 {
        i += 1;
    }
    i
}

impl<'a> SourceCode for Excerpt<'a> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        // `'b` may be shorter than `'a`; everything lent out lives as long as `self`.
        let this: &'b Excerpt<'b> = self;
        let s = span.offset();
        let e = s + span.len();
        if e > this.file.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first = this.file.line_of(s);
        let last = if e > s {
            this.file.line_of(e - 1)
        } else {
            first
        };

        // No context asked for: the span itself, where it starts (miette's header location).
        if before == 0 && after == 0 {
            let end = if e - s > MAX_CUT_SPAN {
                floor_char(&this.file.bytes, s + MAX_CUT_SPAN, s)
            } else {
                e
            };
            let data = this.text(s, end)?;
            return Ok(this.contents(data, s, first, this.column(s), last - first + 1));
        }

        if first == last && this.is_long(first) {
            if e - s > MAX_CUT_SPAN {
                return Err(MietteError::OutOfBounds);
            }
            let (ls, le) = this.line(first);
            let b = &this.file.bytes;
            let mut ws = floor_char(b, s.saturating_sub(WINDOW).max(ls), ls);
            let mut we = ceil_char(b, (e + WINDOW).min(le), le);
            // Cut only where the ellipsis has room to stand for what it hides.
            if ws < ls + ELLIPSIS.len() {
                ws = ls;
            }
            if we + ELLIPSIS.len() > le {
                we = le;
            }
            let mut data = Vec::with_capacity(we - ws + 2 * ELLIPSIS.len());
            let mut start = ws;
            if ws > ls {
                data.extend_from_slice(ELLIPSIS);
                start = ws - ELLIPSIS.len();
            }
            this.work.fetch_add(we - ws, Ordering::Relaxed);
            data.extend_from_slice(&printable(sanitize(&b[ws..we])));
            if we < le {
                data.extend_from_slice(ELLIPSIS);
            }
            let column = this.column(start);
            let data = this.own(data)?;
            return Ok(this.contents(data, start, first, column, 1));
        }
        // Only a merged context gets here spanning a long line, or the files of two events
        // (a log joined from one file per event): miette then shows the labels in separate
        // excerpts, each named and numbered by its own file.
        let part = |offset: usize| this.file.part_of(offset).map(|(k, _)| k);
        if (first..=last).any(|l| this.is_long(l)) || e > s && part(s) != part(e - 1) {
            return Err(MietteError::OutOfBounds);
        }
        // (Context stays within the event's own file, for a log joined from one per event.)
        let (_, floor, ceiling) = this.holder(s);
        let mut top = first;
        while top > floor && first - top < before && !this.is_long(top - 1) {
            top -= 1;
        }
        let mut bottom = last;
        while bottom + 1 < ceiling && bottom - last < after {
            let (a, z) = this.line(bottom + 1);
            if z - a > LONG_LINE || a >= this.file.len() {
                break;
            }
            bottom += 1;
        }
        let start = this.line(top).0;
        let end = this.line(bottom).1;
        let data = this.text(start, end)?;
        Ok(this.contents(data, start, top, 0, bottom - top + 1))
    }
}

/// A label span as the renderer shows it: inside the file, on one line, at most `max` bytes.
pub fn one_line(file: &SourceFile, span: Span, max: usize) -> Span {
    let b = &file.bytes;
    let s = span.start.min(b.len());
    let mut e = span.end.clamp(s, b.len());
    if let Some(nl) = memchr::memchr(b'\n', &b[s..e]) {
        e = s + nl;
        if e > s && b[e - 1] == b'\r' {
            e -= 1;
        }
    }
    if e - s > max {
        e = floor_char(b, s + max, s);
    }
    Span::new(s, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Control characters are replaced byte for byte (offsets stay the file's); a CRLF line end,
    /// a tab and a line break stay.
    #[test]
    fn printable_keeps_the_length_and_the_line_breaks() {
        let raw = "a\x1b[31mb\x07\u{9b}c\r\nd\te\r".as_bytes().to_vec();
        let out = printable(raw.clone());
        assert_eq!(out.len(), raw.len());
        assert_eq!(String::from_utf8(out).unwrap(), "a?[31mb?¿c\r\nd\te?");
    }

    fn read(x: &Excerpt, s: usize, e: usize, ctx: usize) -> (String, usize, usize, usize) {
        let c = x.read_span(&(s, e - s).into(), ctx, ctx).unwrap();
        (
            String::from_utf8(c.data().to_vec()).unwrap(),
            c.span().offset(),
            c.line(),
            c.column(),
        )
    }

    #[test]
    fn short_lines_with_context() {
        let f = SourceFile::new("t", None, b"one\ntwo\nthree\nfour\n".to_vec());
        let x = Excerpt::new(&f, "t", 1);
        assert_eq!(read(&x, 4, 7, 1), ("one\ntwo\nthree".into(), 0, 0, 0));
        assert_eq!(read(&x, 9, 11, 0), ("hr".into(), 9, 2, 1));
    }

    #[test]
    fn long_line_is_cut_with_offsets_kept() {
        let mut text = "a".repeat(1000);
        text.replace_range(500..503, "XYZ");
        let f = SourceFile::new("t", None, format!("short\n{text}\nend\n").into_bytes());
        let x = Excerpt::new(&f, "t", 1);
        let at = 6 + 500;
        let (data, start, line, col) = read(&x, at, at + 3, 1);
        assert!(data.starts_with('…') && data.ends_with('…'), "{data}");
        assert_eq!(line, 1);
        assert_eq!(start, at - WINDOW - 3);
        assert_eq!(col, 500 - WINDOW - 3);
        // The label's bytes sit at the same offset from the excerpt's start as in the file.
        assert_eq!(&data.as_bytes()[at - start..at - start + 3], b"XYZ");
        assert!(data.len() < 2 * WINDOW + 20);
    }

    /// A long line's window shows its control characters as short lines do: a terminal escape
    /// or a carriage return in a log must not reach the terminal from either.
    #[test]
    fn long_line_window_hides_control_characters() {
        let line = format!(
            "{} 10%\r50%\x1b]0;title\x07\x1b[2J done XYZ",
            "x".repeat(1000)
        );
        let f = SourceFile::new("t", None, format!("{line}\n").into_bytes());
        let x = Excerpt::new(&f, "t", 1);
        let at = line.find("XYZ").unwrap();
        let (data, start, _, _) = read(&x, at, at + 3, 1);
        assert!(
            data.ends_with(" 10%?50%?]0;title??[2J done XYZ"),
            "{data:?}"
        );
        assert_eq!(&data.as_bytes()[at - start..at - start + 3], b"XYZ");
    }

    #[test]
    fn reads_cost_the_excerpt_not_the_file() {
        // 200,000 short lines and one long one at the end: a read near the end looks at its
        // lines only, never at the file from its start (miette's own `SourceCode` for `[u8]`
        // scans from byte 0 on every read).
        let mut text = "{\"k\": 1}\n".repeat(200_000);
        text.push_str(&"x".repeat(50_000));
        text.push_str("TARGET\n");
        let f = SourceFile::new("t", None, text.into_bytes());
        let x = Excerpt::new(&f, "t", 4);
        let near_end = 200_000 * 9 - 5;
        for _ in 0..4 {
            read(&x, near_end, near_end + 3, 1);
        }
        let at = f.len() - 7;
        read(&x, at, at + 6, 1);
        let c = x.read_span(&(at, 6).into(), 0, 0).unwrap();
        assert_eq!(c.column(), 50_000);
        // Four short reads (three lines each) and one cut window: the long line's prefix is not
        // counted for its columns.
        assert!(x.work() < 4 * 30 + 2 * WINDOW + 20, "{}", x.work());
    }

    #[test]
    fn invalid_utf8_keeps_its_length() {
        let f = SourceFile::new("t", None, b"ab\xffcd\n".to_vec());
        let x = Excerpt::new(&f, "t", 1);
        assert_eq!(read(&x, 3, 5, 1).0, "ab?cd");
    }

    #[test]
    fn labels_are_cut_to_one_line() {
        let f = SourceFile::new("t", None, b"abc\r\ndef".to_vec());
        assert_eq!(one_line(&f, Span::new(1, 8), 100), Span::new(1, 3));
        assert_eq!(one_line(&f, Span::new(5, 8), 2), Span::new(5, 7));
    }
}
