//! The raw input file: its bytes as they lie on disk and a line index for turning byte offsets
//! into line/column only when something is printed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A half-open byte range `[start, end)` into the raw input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    pub const fn len(&self) -> usize {
        self.end - self.start
    }
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }
    pub const fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }
    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl serde::Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.start, self.end].serialize(s)
    }
}

/// One input: its name as given, its bytes, and the offsets where its lines start.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user gave it (or `-` for stdin); printed in diagnostics.
    pub name: String,
    pub path: Option<PathBuf>,
    pub bytes: Arc<[u8]>,
    line_starts: Vec<usize>,
    /// Characters before every `MARK`-th byte (moved on to a character's start), counted once a
    /// column far into a long line is asked for: a file of one long line (events joined with
    /// `cat`) may get thousands of findings, and counting each column from the line's start
    /// would cost findings times line length.
    marks: std::sync::OnceLock<Vec<(usize, usize)>>,
    /// For bytes joined from several files (a conversation kept one event per file): where
    /// each file starts, and its path. Positions are then given in the file a span lies in.
    parts: Vec<(usize, PathBuf)>,
}

/// Bytes between two marks of the character count (see `SourceFile::marks`).
const MARK: usize = 1 << 8;

/// UTF-8's byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// 1-based line and column (in characters) of a byte offset in a text held whole (a
/// configuration or lexicon file; a log's positions go through `SourceFile::line_col`).
pub fn text_line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// Characters in `bytes` as `String::from_utf8_lossy` makes them (an invalid sequence is one).
fn char_count(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + usize::from(!c.invalid().is_empty()))
        .sum()
}

impl SourceFile {
    pub fn new(name: impl Into<String>, path: Option<PathBuf>, bytes: Vec<u8>) -> Self {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', &bytes).map(|i| i + 1))
            .collect();
        SourceFile {
            name: name.into(),
            path,
            bytes: bytes.into(),
            line_starts,
            marks: std::sync::OnceLock::new(),
            parts: Vec::new(),
        }
    }

    /// Bytes joined from the files `parts` (each file's start offset, and its path; each
    /// starting a line), known by `name` as one log.
    pub fn joined(
        name: impl Into<String>,
        path: Option<PathBuf>,
        bytes: Vec<u8>,
        parts: Vec<(usize, PathBuf)>,
    ) -> Self {
        SourceFile {
            parts,
            ..Self::new(name, path, bytes)
        }
    }

    /// The files the bytes were joined from (none for one file).
    pub fn parts(&self) -> &[(usize, PathBuf)] {
        &self.parts
    }

    /// Which of the joined files holds `offset`, and the 0-based line of the joined bytes
    /// where that file begins (None for one file).
    pub fn part_of(&self, offset: usize) -> Option<(usize, usize)> {
        let k = self
            .parts
            .partition_point(|&(start, _)| start <= offset)
            .checked_sub(1)?;
        Some((k, self.line_of(self.parts[k].0)))
    }

    /// As `line_col`, the line counted in the file that holds `offset` when the bytes were
    /// joined from several: (that file's index among the parts, line, column).
    pub fn place(&self, offset: usize) -> (Option<usize>, usize, usize) {
        let (line, col) = self.line_col(offset);
        match self.part_of(offset.min(self.bytes.len())) {
            Some((k, first)) => (Some(k), line - first, col),
            None => (None, line, col),
        }
    }

    pub fn read(path: &Path) -> std::io::Result<Self> {
        let bytes = std::fs::read(path)?;
        Ok(Self::new(
            path.display().to_string(),
            Some(path.to_path_buf()),
            bytes,
        ))
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte offset where 0-based `line` starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line.min(self.line_starts.len() - 1)]
    }

    /// 0-based line holding `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// 1-based line and 1-based column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.bytes.len());
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let col = if offset - start <= MARK {
            char_count(&self.bytes[start..offset])
        } else {
            self.chars_before(offset) - self.chars_before(start)
        };
        // A byte order mark opening the line (a file's, or an event file's of a log joined from
        // them) is no column: editors and code scanning count from after it.
        let mark = usize::from(offset >= start + 3 && self.bytes[start..].starts_with(BOM));
        (line + 1, col + 1 - mark)
    }

    /// Characters before `offset` (a line's start, or any offset: a count splits exactly at a
    /// byte that does not continue a character, which a mark and a line's start are).
    fn chars_before(&self, offset: usize) -> usize {
        let marks = self.marks.get_or_init(|| {
            let mut marks = vec![(0, 0)];
            let mut at = MARK;
            while at < self.bytes.len() {
                let mut mark = at;
                while self.bytes.get(mark).is_some_and(|b| b & 0xC0 == 0x80) {
                    mark += 1;
                }
                let &(last, chars) = marks.last().unwrap_or(&(0, 0));
                marks.push((mark, chars + char_count(&self.bytes[last..mark])));
                at = mark + MARK;
            }
            marks
        });
        let k = marks
            .partition_point(|&(at, _)| at <= offset)
            .saturating_sub(1);
        let (at, chars) = marks.get(k).copied().unwrap_or((0, 0));
        chars + char_count(&self.bytes[at..offset])
    }

    /// The raw bytes of a span, clamped to the file.
    pub fn slice(&self, span: Span) -> &[u8] {
        let end = span.end.min(self.bytes.len());
        &self.bytes[span.start.min(end)..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Far into a long line, the column is counted from marks: the same as from the line's
    /// start, multi-byte characters and invalid bytes included.
    #[test]
    fn columns_far_into_a_long_line_are_counted_as_near_ones() {
        let mut bytes = b"first line\n".to_vec();
        for k in 0..40_000 {
            bytes.extend_from_slice(if k % 7 == 0 {
                "é—x".as_bytes()
            } else {
                b"ab\xffc"
            });
        }
        let src = SourceFile::new("t", None, bytes.clone());
        let start = 11;
        for offset in [
            start + 5,
            start + MARK - 1,
            start + MARK + 1,
            bytes.len() - 3,
            bytes.len(),
        ] {
            let want = String::from_utf8_lossy(&bytes[start..offset])
                .chars()
                .count()
                + 1;
            assert_eq!(src.line_col(offset), (2, want), "{offset}");
        }
    }

    /// Bytes joined from several files are placed in the file that holds them, lines counted
    /// from that file's first.
    #[test]
    fn a_joined_source_places_offsets_in_their_own_file() {
        let src = SourceFile::joined(
            "events/*.json",
            None,
            b"{\"a\": 1}\n{\"b\":\n 2}\n{}\n".to_vec(),
            vec![
                (0, "e0.json".into()),
                (9, "e1.json".into()),
                (19, "e2.json".into()),
            ],
        );
        assert_eq!(src.place(0), (Some(0), 1, 1));
        assert_eq!(src.place(9), (Some(1), 1, 1));
        // `2` is on the second line of e1.json: line 3 of the joined bytes.
        assert_eq!(src.line_col(16), (3, 2));
        assert_eq!(src.place(16), (Some(1), 2, 2));
        assert_eq!(src.place(20), (Some(2), 1, 2));
        let one = SourceFile::new("t", None, b"ab\ncd".to_vec());
        assert_eq!(one.place(4), (None, 2, 2));
        assert_eq!(one.part_of(4), None);
    }

    #[test]
    fn line_col_counts_characters_from_one() {
        let src = SourceFile::new("t", None, "ab\né x\n".as_bytes().to_vec());
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(1), (1, 2));
        assert_eq!(src.line_col(3), (2, 1));
        // 'é' is two bytes; the 'x' after "é " is the third character.
        assert_eq!(src.line_col(6), (2, 3));
        assert_eq!(src.line_count(), 3);
    }

    #[test]
    fn a_byte_order_mark_is_no_column() {
        // As an editor shows it: `{` after the mark is column 1, `"` column 2; the mark
        // itself (offset 0) stays column 1.
        let src = SourceFile::new("t", None, b"\xEF\xBB\xBF{\"a\"}\n{}".to_vec());
        assert_eq!(src.line_col(0), (1, 1));
        assert_eq!(src.line_col(3), (1, 1));
        assert_eq!(src.line_col(4), (1, 2));
        assert_eq!(src.line_col(9), (2, 1));
        // Far into a long first line, as near.
        let long = [BOM, "x".repeat(1000).as_bytes()].concat();
        let src = SourceFile::new("t", None, long);
        assert_eq!(src.line_col(3 + 900), (1, 901));
    }
}
