//! One reader per log format, and what they share: JSONL iteration with per-line recovery,
//! read diagnostics, and small helpers to build turns from JSON values.
//!
//! A reader turns bytes into `Trajectory`s and reports what it could not read. It never decides
//! what is live; it never stops at the first bad record.

pub mod aider;
pub mod anthropic;
pub mod autogen;
pub mod claude_code;
pub mod codex;
pub mod codex_exec;
pub mod cursor;
pub mod detect;
pub mod gemini;
pub mod gemini_chat;
pub mod gemini_stream;
pub mod goose;
pub mod inspect;
pub mod managed_agents;
pub mod mini_swe_agent;
pub mod openai_chat;
pub mod openai_responses;
pub mod opencode;
pub mod openhands;
pub mod openhands_sdk;
pub mod pi;
pub mod qwen_code;
pub mod swe_agent;
pub mod text;
pub mod who_and_when;

use crate::json::{self, Doc, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, Trajectory, Turn};
use crate::source::Span;
pub use detect::Shape;
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// Something a reader could not read, or chose to skip, with where it is in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadIssue {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

/// Why a file that holds nothing but whitespace is no log: `not_a_log` says it, and the gate
/// tells it from other files that are no log (a crashed run may leave an empty one).
pub const EMPTY: &str = "the file is empty";

/// What reading one file gives.
#[derive(Debug, Default)]
pub struct ReadOutput {
    pub format: Option<Format>,
    pub trajectories: Vec<Trajectory>,
    pub issues: Vec<ReadIssue>,
    /// The content is whole and no log (a `package.json`, an empty file): a directory's walk
    /// skips it, saying this why. A broken document no format can be told in is not this: it
    /// may be a cut-off log, and a gate must not pass a run it did not see whole.
    pub not_a_log: Option<&'static str>,
    /// Regions of the file whose content was read decompressed (a deflated ZIP entry): a
    /// position inside one is the whole region, no finer.
    pub compressed: Vec<Span>,
    /// The notes said once per file (`note_once`), by message: joined documents read one by
    /// one still say each once.
    once: HashSet<String>,
    /// Records skipped with a warning that may have held content (a message without a role, an
    /// entry that is no object): lost as a record that does not parse is (see `mark_lost`).
    skipped: Vec<Span>,
}

impl ReadOutput {
    pub fn new(format: Format) -> Self {
        ReadOutput {
            format: Some(format),
            ..Default::default()
        }
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.issue(Severity::Error, span, message, None);
    }

    pub fn warn(&mut self, span: Span, message: impl Into<String>) {
        self.issue(Severity::Warning, span, message, None);
    }

    pub fn note(&mut self, span: Span, message: impl Into<String>) {
        self.issue(Severity::Note, span, message, None);
    }

    /// A note said once per file, however often its cause repeats.
    pub fn note_once(&mut self, span: Span, message: String) {
        if self.once.insert(message.clone()) {
            self.note(span, message);
        }
    }

    /// A record skipped that may have held content, said with a warning (once per file when
    /// `once`); no compactable range spans it.
    pub fn skip_record(&mut self, span: Span, message: String, once: bool) {
        self.skipped.push(span);
        if !once || self.once.insert(message.clone()) {
            self.warn(span, message);
        }
    }

    /// Messages of a role the reader does not know: records that may have held content.
    pub fn skip_unknown_role(&mut self, span: Span, role: &str) {
        self.skip_record(
            span,
            format!("skipped messages with role `{role}`, which this reader does not know; the first is here"),
            true,
        );
    }

    /// Adds what another document of the same file read (`note_once`'s notes still once).
    fn absorb(&mut self, other: ReadOutput) {
        self.trajectories.extend(other.trajectories);
        self.compressed.extend(other.compressed);
        self.skipped.extend(other.skipped);
        for issue in other.issues {
            if !other.once.contains(&issue.message) || self.once.insert(issue.message.clone()) {
                self.issues.push(issue);
            }
        }
    }

    pub fn issue(
        &mut self,
        severity: Severity,
        span: Span,
        message: impl Into<String>,
        help: Option<String>,
    ) {
        self.issues.push(ReadIssue {
            severity,
            span,
            message: message.into(),
            help,
        });
    }

    /// A JSON syntax error at its offset, pointing at one byte.
    pub fn json_error(&mut self, e: &json::JsonError, what: &str) {
        let at = Span::new(e.offset, e.offset + 1);
        self.error(at, format!("{what}: {}", e.message));
    }

    /// Puts every issue's span in a file of `len` bytes: an error found at its end ("found end
    /// of input") points at the end, not at a byte past it.
    fn within(&mut self, len: usize) {
        for issue in &mut self.issues {
            issue.span.end = issue.span.end.min(len);
            issue.span.start = issue.span.start.min(issue.span.end);
        }
    }

    /// Gives each trajectory the records lost inside it, between its first turn and its last:
    /// the errors (a line that does not parse, a record without what its kind must hold) and
    /// the records skipped (`skip_record`). One that lies between two trajectories (a run of
    /// its own) or after the last turn (a record cut off at the end) is in none.
    fn mark_lost(&mut self) {
        let errors = self.issues.iter().filter(|i| i.severity == Severity::Error);
        let mut lost: Vec<Span> = errors
            .map(|i| i.span)
            .chain(self.skipped.iter().copied())
            .collect();
        if lost.is_empty() {
            return;
        }
        lost.sort_by_key(|s| s.start);
        for t in &mut self.trajectories {
            let (Some(first), Some(last)) = (
                t.turns.iter().map(|u| u.span.start).min(),
                t.turns.iter().map(|u| u.span.end).max(),
            ) else {
                continue;
            };
            let from = lost.partition_point(|s| s.start < first);
            let to = lost.partition_point(|s| s.start < last);
            t.lost = lost[from..to].to_vec();
        }
    }

    /// Reading failed as a whole: nothing usable came out and at least one error was reported.
    pub fn unreadable(&self) -> bool {
        self.trajectories.is_empty() && self.issues.iter().any(|i| i.severity == Severity::Error)
    }
}

/// One line of a JSON Lines file.
pub struct Line {
    /// Span of the line without its line break.
    pub span: Span,
    pub value: Value,
}

/// Parses every line of a JSONL file. Blank lines are skipped; a line that does not parse is
/// reported (a half-written last line as such) and skipped; non-object lines are reported as
/// warnings and skipped. Reading goes on after every bad line.
pub fn jsonl_objects(bytes: &[u8], out: &mut ReadOutput) -> Vec<Line> {
    let mut lines = Vec::new();
    each_jsonl_object(bytes, out, |l, _| lines.push(l));
    lines
}

/// As `jsonl_objects`, each line handed to `take` as it is parsed (with the output, for what it
/// reports): a reader that is done with a line drops its parse, so a file of many whole runs
/// (an evaluation's output) never holds every run's parse at once.
pub fn each_jsonl_object(
    bytes: &[u8],
    out: &mut ReadOutput,
    mut take: impl FnMut(Line, &mut ReadOutput),
) {
    scan_jsonl(bytes, out, false, |r, out| {
        if let Record::Object(l) = r {
            take(l, out);
        }
    });
}

/// A line of a CLI's stdout: a JSON event, or a message the CLI printed between them.
pub enum Record {
    Object(Line),
    Text(Span),
}

/// As `jsonl_objects`, for the stdout of a CLI that prints its own messages between the JSON
/// events (a failed run's last words, a permission it refused), in file order: a line that does
/// not parse and does not open an object is such a message, not a read error.
pub fn jsonl_records(bytes: &[u8], out: &mut ReadOutput) -> Vec<Record> {
    let mut records = Vec::new();
    scan_jsonl(bytes, out, true, |r, _| records.push(r));
    records
}

/// The event turn of a line a CLI printed (`name` says which CLI): its text as it lies in the
/// file, without the bytes that are not UTF-8 (the offsets stay exact).
pub fn cli_message_turn(bytes: &[u8], span: Span, name: &str) -> Turn {
    let mut t = Turn::new(Role::Event, span);
    t.event = Some(EventKind::Other(name.into()));
    let mut at = span.start;
    for chunk in bytes[span.start..span.end].utf8_chunks() {
        let valid = chunk.valid();
        if !valid.trim().is_empty() {
            t.push_text(
                SegmentKind::Prose,
                crate::text::Text::plain(valid.to_owned(), at),
            );
        }
        at += valid.len() + chunk.invalid().len();
    }
    t
}

fn scan_jsonl(
    bytes: &[u8],
    out: &mut ReadOutput,
    keep_text: bool,
    mut sink: impl FnMut(Record, &mut ReadOutput),
) {
    let mut start = 0;
    let mut runs = ValueRuns::default();
    while start < bytes.len() {
        let nl = memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i);
        let end = nl.unwrap_or(bytes.len());
        let mut content_end = end;
        if content_end > start && bytes[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        let span = Span::new(start, content_end);
        if bytes[start..content_end]
            .iter()
            .any(|c| !c.is_ascii_whitespace())
        {
            // ("[INFO] …" is a message; a broken `{` line is a broken event.)
            let opens_object = || {
                bytes[start..content_end]
                    .iter()
                    .find(|c| !c.is_ascii_whitespace())
                    == Some(&b'{')
            };
            let one = json::parse(bytes, start, content_end);
            let mut run = || runs.read(bytes, start, content_end, usize::MAX);
            if let Some(run) = one.as_ref().err().and_then(|_| run()) {
                for v in run.values {
                    if matches!(v.kind, json::Kind::Object(_)) {
                        sink(
                            Record::Object(Line {
                                span: v.span,
                                value: v,
                            }),
                            out,
                        );
                    } else {
                        out.skip_record(
                            v.span,
                            format!("skipped a JSON {} rather than an object", kind_name(&v)),
                            false,
                        );
                    }
                }
                if let Some(b) = run.broken {
                    broken_value(
                        out,
                        bytes,
                        b.start,
                        &b.error,
                        "a value that is not valid JSON",
                    );
                }
                start = run.next;
                continue;
            }
            match one {
                Err(_) if keep_text && !opens_object() => sink(Record::Text(span), out),
                Ok(v) if matches!(v.kind, json::Kind::Object(_)) => {
                    sink(Record::Object(Line { span, value: v }), out)
                }
                Ok(v) => out.skip_record(
                    v.span,
                    format!(
                        "skipped a line that is a JSON {} rather than an object",
                        kind_name(&v)
                    ),
                    false,
                ),
                Err(e) if nl.is_none() => {
                    let at = Span::new(
                        e.offset.min(content_end.saturating_sub(1)).max(start),
                        content_end,
                    );
                    cut_off(out, at, "line", &e.message);
                }
                Err(e) => out.json_error(&e, "skipped a line that is not valid JSON"),
            }
        }
        start = end + 1;
    }
}

/// A value starting at `start` that does not parse, reported where it starts (its parse may fail
/// far into the next): the last value cut off when it fails at the end of the input, else
/// skipped, as `what` says.
fn broken_value(out: &mut ReadOutput, bytes: &[u8], start: usize, e: &json::JsonError, what: &str) {
    let span = Span::new(start, (e.offset + 1).clamp(start, bytes.len()));
    if e.offset >= bytes.trim_ascii_end().len() {
        cut_off(out, span, "value", &e.message);
    } else {
        out.error(span, format!("skipped {what}: {}", e.message));
    }
}

/// The last line or value of the input does not parse: the log was probably still being written.
fn cut_off(out: &mut ReadOutput, span: Span, what: &str, message: &str) {
    out.issue(
        Severity::Error,
        span,
        format!("the last {what} is cut off: {message}"),
        Some(format!(
            "the log was probably still being written; everything before this {what} was read"
        )),
    );
}

/// JSON values written one after another rather than one per line, read from a line on.
pub struct ValueRun {
    pub values: Vec<Value>,
    /// Where reading goes on: the line after the last value; after a broken value, where the
    /// next one opens (see `next_value`).
    pub next: usize,
    /// The value that did not parse, after `values`.
    pub broken: Option<Broken>,
}

/// A value that did not parse: where it starts, and why.
pub struct Broken {
    pub start: usize,
    pub error: json::JsonError,
}

/// JSON values written one after another rather than one per line, read line after line. A
/// reader remembers the last value that failed past its line, and where the values it left
/// open start: a parse from one of those would fail at the same place, so a line opening one is
/// not parsed into the lines after it again (a megabyte of `[1,` lines, each read again to the
/// nesting limit, took seconds). A line opening a value that closed inside the failed one is
/// read as any other. (Past the nesting limit, a value left open might have parsed alone, a
/// level shallower: it is not tried, as a file of such lines would be read again at each.)
#[derive(Default)]
pub struct ValueRuns {
    failed: Option<json::JsonError>,
}

impl ValueRuns {
    /// JSON values written one after another, from the line `bytes[start..content_end]` on:
    /// pretty-printed ones (`jq .` output: a line holding only `{` or `[` opens one, which no
    /// JSON Lines record does) or several on one line (event files joined with `cat`, each
    /// written without a final line break); at most `max` (what follows them is then not
    /// looked at, and the position returned is the end of the input: enough to tell a format
    /// by). None when the line is not such a run: it does not open a value, or (not a line of
    /// its own opening one) its first value does not parse or is followed by other text: a
    /// broken line. (Asked of a line that is not one value.)
    pub fn read(
        &mut self,
        bytes: &[u8],
        start: usize,
        content_end: usize,
        max: usize,
    ) -> Option<ValueRun> {
        let line = &bytes[start..content_end];
        if !matches!(line.trim_ascii_start().first(), Some(b'{' | b'[')) {
            return None;
        }
        // A value may run past its line when its line opens it and no more: a lone `{` (`jq
        // .`), or a line that is a value's start cut only by the line's end (`{ "source":
        // "agent",`, as Python's `json.dumps(indent=…)` variants write), with more after it. A
        // line broken before its end is not parsed on into the lines after it, nor is a last
        // line cut off. (Such a line whose value then fails is one broken line, as any other:
        // what follows it is read from the next line on.)
        let opens_at = content_end - line.trim_ascii_start().len();
        let lone = matches!(line.trim_ascii(), b"{" | b"[");
        let failed_with = self.failed.as_ref().filter(|e| {
            // (Innermost first: descending.)
            e.unclosed.binary_search_by(|p| opens_at.cmp(p)).is_ok()
        });
        if failed_with.is_some() {
            // Left open by the value that failed, and reported with it: a lone opener reads on
            // at the next value, said nothing of again; a cut line is a broken line.
            return lone.then(|| ValueRun {
                values: Vec::new(),
                next: next_value(bytes, start, true),
                broken: None,
            });
        }
        let cut = !lone
            && bytes[content_end..]
                .iter()
                .any(|b| !b.is_ascii_whitespace())
            && json::parse_first(&bytes[..content_end], start)
                .is_err_and(|e| e.offset >= start + line.trim_ascii_end().len());
        let opener = lone || cut;
        let mut values = Vec::new();
        let mut at = start;
        // The end of the line `at` is on, found again only once a value crosses it: a thousand
        // values on one line must not each scan to its end.
        let mut line_end = start;
        loop {
            // (Only a value opened by a line of its own may run past its line: a broken line
            // is not parsed on into the lines after it.)
            let end = if opener { bytes.len() } else { content_end };
            let v = match json::parse_first(&bytes[..end], at) {
                Ok(v) => v,
                Err(error) => {
                    if opener {
                        self.failed = Some(error.clone());
                    }
                    // (Values on one line: those before a broken one are kept.)
                    if !lone && values.is_empty() {
                        return None;
                    }
                    return Some(ValueRun {
                        values,
                        next: next_value(bytes, at, opener),
                        broken: Some(Broken { start: at, error }),
                    });
                }
            };
            at = v.span.end;
            values.push(v);
            if values.len() >= max {
                return Some(ValueRun {
                    values,
                    next: bytes.len(),
                    broken: None,
                });
            }
            // What follows on the value's last line: nothing, or the next value.
            if line_end < at {
                line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            }
            match bytes[at..line_end]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
            {
                None => {
                    return (values.len() > 1 || opener).then_some(ValueRun {
                        values,
                        next: line_end + 1,
                        broken: None,
                    })
                }
                Some(k) if matches!(bytes[at + k], b'{' | b'[') => at += k,
                // (Text after a value opened by a line of its own: the values before it are
                // kept.)
                Some(k) if opener => {
                    return Some(ValueRun {
                        values,
                        next: next_value(bytes, at + k, true),
                        broken: Some(Broken {
                            start: at + k,
                            error: json::JsonError {
                                offset: at + k,
                                message: "text after a value".into(),
                                unclosed: Vec::new(),
                            },
                        }),
                    })
                }
                Some(_) => return None,
            }
        }
    }
}

/// Where the next value after a broken one starting at `at` opens, as values written one
/// after another do: at a line's first column (each value of `jq .` output, each event file
/// joined); after a `}` or `]` that closes one, at the first column or, on one line (`cat` of
/// files without a final line break), anywhere. Else the end of the input. (Values on one line
/// are looked for on `at`'s line only; the next line starts over.)
fn next_value(bytes: &[u8], at: usize, opener: bool) -> usize {
    let opens = |b: Option<&u8>| matches!(b, Some(b'{' | b'['));
    let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
    if !opener {
        let joint = (at + 1..line_end)
            .find(|&k| matches!(bytes[k - 1], b'}' | b']') && opens(bytes.get(k)));
        return joint.unwrap_or(line_end + 1);
    }
    let mut from = line_end;
    while from < bytes.len() {
        let start = from + 1;
        if opens(bytes.get(start)) {
            return start;
        }
        if matches!(bytes.get(start), Some(b'}' | b']')) && opens(bytes.get(start + 1)) {
            return start + 1;
        }
        from = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
    }
    bytes.len()
}

/// The object a record of type `ty` must hold under `key` (a Claude Code message, a Codex
/// payload); one of any other shape, or none, is a record lost, said where it lies.
pub fn required_object<'v>(
    d: &Doc,
    rec: &'v Value,
    key: &str,
    ty: &str,
    span: Span,
    out: &mut ReadOutput,
) -> Option<&'v Value> {
    let v = d.get(rec, key);
    if let Some(o) = v.filter(|v| matches!(v.kind, json::Kind::Object(_))) {
        return Some(o);
    }
    let found = v.map_or("missing".into(), |v| {
        format!("a JSON {}, not an object", kind_name(v))
    });
    out.error(
        span,
        format!("skipped a record of type `{ty}` whose `{key}` is {found}"),
    );
    None
}

pub fn kind_name(v: &Value) -> &'static str {
    match v.kind {
        json::Kind::Null => "null",
        json::Kind::Bool(_) => "boolean",
        json::Kind::Number => "number",
        json::Kind::Str { .. } => "string",
        json::Kind::Array(_) => "array",
        json::Kind::Object(_) => "object",
    }
}

/// The parsed document of a whole-document format, or the reason there is none.
pub fn expect_document<'s>(shape: &'s Shape, out: &mut ReadOutput) -> Option<&'s Value> {
    match shape {
        Shape::Document(v) => Some(v),
        Shape::BrokenDocument(e) => {
            out.json_error(e, "not valid JSON");
            None
        }
        _ => {
            out.error(Span::new(0, 1), "expected one JSON document");
            None
        }
    }
}

/// Pushes a string value (or the text blocks of a content list) as segments of `turn`.
/// Handles the shapes message `content` takes across formats: a string; a list of strings or
/// of blocks with `text` (or `content`) fields; one such block. Other block types are left to
/// the caller.
pub fn push_content(d: &Doc, v: &Value, kind: SegmentKind, turn: &mut Turn) {
    match &v.kind {
        json::Kind::Str { .. } => {
            if let Some(t) = d.text(v) {
                turn.push_text(kind, t);
            }
        }
        json::Kind::Array(items) => {
            for item in items {
                match &item.kind {
                    json::Kind::Str { .. } => push_content(d, item, kind, turn),
                    json::Kind::Object(_) => push_block(d, item, kind, turn),
                    _ => {}
                }
            }
        }
        json::Kind::Object(_) => push_block(d, v, kind, turn),
        _ => {}
    }
}

/// A tool's output: its text (a string, or a list of content blocks), else the value's JSON as
/// it stands in the file (a structured response a later turn may cite).
pub fn push_output(d: &Doc, v: &Value, turn: &mut Turn) {
    if matches!(v.kind, json::Kind::Str { .. } | json::Kind::Array(_)) {
        push_content(d, v, SegmentKind::Output, turn);
    } else {
        push_raw(d, v, turn);
    }
}

/// A value's JSON as it stands in the file, as output.
pub fn push_raw(d: &Doc, v: &Value, turn: &mut Turn) {
    turn.push_text(
        SegmentKind::Output,
        crate::text::Text::plain(d.raw(v).to_string(), v.span.start),
    );
}

/// Pushes the text of one content block (`text`, `thinking`, `reasoning`, or nested `content`).
pub fn push_block(d: &Doc, block: &Value, kind: SegmentKind, turn: &mut Turn) {
    // (A bare string among the blocks is text.)
    if matches!(block.kind, json::Kind::Str { .. }) {
        push_content(d, block, kind, turn);
        return;
    }
    let ty = d.get_str(block, "type").unwrap_or_default();
    // A tool's output that holds no text still holds something: the tools a search loaded
    // (Claude Code's ToolSearch answers with `tool_reference` blocks), an image or a document
    // read. Its name or media type stands for it; read as nothing, it looked like an empty
    // result.
    if kind == SegmentKind::Output {
        let stand_in = match ty.as_str() {
            "tool_reference" => d.get(block, "tool_name"),
            "image" | "document" => d
                .get(block, "source")
                .and_then(|s| d.get(s, "media_type"))
                .or_else(|| d.get(block, "type")),
            _ => None,
        };
        if let Some(v) = stand_in.filter(|v| matches!(v.kind, json::Kind::Str { .. })) {
            push_content(d, v, kind, turn);
            return;
        }
    }
    let field = match ty.as_str() {
        "thinking" => "thinking",
        "reasoning" => "reasoning",
        _ => "text",
    };
    if let Some(t) = d.get(block, field).or_else(|| d.get(block, "content")) {
        if matches!(t.kind, json::Kind::Str { .. } | json::Kind::Array(_)) {
            push_content(d, t, kind, turn);
        }
    }
}

/// The open assistant turn (`open`), extended over `span`, or a new one: the readers of event
/// streams gather an agent's consecutive items (words, calls) into one turn.
pub fn open_assistant(traj: &mut Trajectory, open: &mut Option<usize>, span: Span) -> usize {
    match *open {
        Some(i) => {
            let t = &mut traj.turns[i];
            t.span = t.span.cover(span);
            i
        }
        None => {
            traj.turns.push(Turn::new(Role::Assistant, span));
            let i = traj.turns.len() - 1;
            *open = Some(i);
            i
        }
    }
}

/// A chunk of streamed prose: appended to segment `into` of the turn (the text the chunks before
/// it began, still open), or a segment of its own. Returns the segment the text is now in.
pub fn stream_prose(turn: &mut Turn, into: Option<usize>, text: crate::text::Text) -> usize {
    match into.and_then(|k| turn.segments.get_mut(k).map(|seg| (k, seg))) {
        Some((k, seg)) => {
            seg.text.append(text);
            seg.printed = 0..seg.text.text.len();
            k
        }
        None => {
            turn.push_text(SegmentKind::Prose, text);
            turn.segments.len() - 1
        }
    }
}

/// The event turn of a compaction a log records at `span`: it runs up to where the summary the
/// record carries starts (`summary_at`; none: the summary is absent or unreadable), and replaced
/// the turns `replaced` (none: back to the previous compaction).
pub fn compaction_turn(
    span: Span,
    summary_at: Option<usize>,
    name: &str,
    replaced: Option<(usize, usize)>,
) -> Turn {
    let mut t = Turn::new(
        Role::Event,
        Span::new(span.start, summary_at.unwrap_or(span.end)),
    );
    t.event = Some(EventKind::Compaction {
        name: name.into(),
        replaced,
        opaque: summary_at.is_none(),
    });
    t
}

/// The summary a compaction put in place of the turns it replaced: the text of `v` (a string
/// or content blocks) over `span`.
pub fn summary_turn(d: &Doc, v: &Value, span: Span) -> Turn {
    let mut t = Turn::new(Role::User, span);
    push_content(d, v, SegmentKind::Summary, &mut t);
    t.is_summary = true;
    t
}

/// The smallest range of turns holding every one of `ranges`.
pub fn turn_hull(ranges: impl IntoIterator<Item = (usize, usize)>) -> Option<(usize, usize)> {
    ranges
        .into_iter()
        .reduce(|(a, b), (x, y)| (a.min(x), b.max(y)))
}

/// A harness's own event turn (`name`) over `span`, with the message `rec` carries (`message`,
/// or `error.message`).
pub fn event_turn(d: &Doc, rec: &Value, span: Span, name: &str) -> Turn {
    let mut t = Turn::new(Role::Event, span);
    t.event = Some(EventKind::Other(name.into()));
    let message = d
        .get(rec, "message")
        .or_else(|| d.get(rec, "error").and_then(|e| d.get(e, "message")));
    if let Some(m) = message {
        push_content(d, m, SegmentKind::Prose, &mut t);
    }
    t
}

/// The integer a status line gives after its label (`-9` in "exit code -9 …"), and the text
/// after it.
pub fn leading_int(s: &str) -> Option<(i64, &str)> {
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(s.len(), |(i, _)| i);
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// The error of a JSON document cut off (it ends inside a value): a log still being written, or
/// truncated. A document broken earlier (a `tsconfig.json` with comments, a text log whose lines
/// open with `[`) is no log.
fn document_cut_off<'s>(bytes: &[u8], shape: &'s Shape) -> Option<&'s json::JsonError> {
    match shape {
        Shape::BrokenDocument(e) if e.offset >= bytes.trim_ascii_end().len() => Some(e),
        _ => None,
    }
}

pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The bytes with every byte order mark that opens a line read as three spaces, or `None`
/// when no line opens with one (the file is read as it is, without a copy), or when the bytes
/// are an archive: its compressed data may hold those bytes anywhere.
fn unmarked_lines(bytes: &[u8]) -> Option<Vec<u8>> {
    if detect::is_zip(bytes) {
        return None;
    }
    let inner = memchr::memmem::find_iter(bytes, b"\n\xEF\xBB\xBF").map(|i| i + 1);
    let mut marks = bytes
        .starts_with(BOM)
        .then_some(0)
        .into_iter()
        .chain(inner)
        .peekable();
    marks.peek()?;
    let mut copy = bytes.to_vec();
    for at in marks {
        copy[at..at + BOM.len()].copy_from_slice(b"   ");
    }
    Some(copy)
}

/// Reads bytes in the named format (or the detected one).
pub fn read(bytes: &[u8], forced: Option<Format>) -> ReadOutput {
    // A UTF-8 byte order mark is no content: it is read as three spaces, whitespace to every
    // reader, so that offsets into the file stay exact. (Editors on Windows write one; a JSON
    // parser rejects it.) One opening a later line is a joined file's own (`cat a.jsonl
    // b.jsonl`), read so too.
    let unmarked: Vec<u8>;
    let bytes = match unmarked_lines(bytes) {
        Some(copy) => {
            unmarked = copy;
            &unmarked[..]
        }
        None => bytes,
    };
    let shape = detect::shape(bytes);
    // Invalid UTF-8 is read as U+FFFD (offsets stay exact); say where it starts, once.
    let utf8_issue = match (&shape, std::str::from_utf8(bytes)) {
        (Shape::Zip, _) | (_, Ok(_)) => None,
        (_, Err(e)) => Some(e.valid_up_to()),
    };
    // Documents one after another are each read as the file they came from.
    let documents = match shape {
        Shape::JsonLines | Shape::BrokenDocument(_) => detect::documents(bytes),
        _ => None,
    };
    let detected = || match &documents {
        // (The first that tells: an empty `[]` of a run that wrote nothing does not.)
        Some(d) => d
            .docs
            .iter()
            .find_map(|doc| detect::detect_shape(bytes, doc)),
        None => detect::detect_shape(bytes, &shape),
    };
    let format = match forced.or_else(detected) {
        Some(f) => f,
        None => {
            let mut out = ReadOutput::default();
            if bytes.iter().all(|b| b.is_ascii_whitespace()) {
                out.error(Span::new(0, 0), EMPTY);
                out.not_a_log = Some(EMPTY);
            } else if let Some(e) = document_cut_off(bytes, &shape) {
                out.json_error(
                    e,
                    "not valid JSON, and no known log format can be told in it",
                );
            } else {
                out.not_a_log = Some("no known log format matches this file");
                out.issue(
                    Severity::Error,
                    Span::new(0, bytes.len().min(1)),
                    "not a trajectory: no known log format matches this content",
                    Some(format!(
                        "name the format with --input-format ({})",
                        Format::ALL.map(|f| f.name()).join(", ")
                    )),
                );
            }
            out.within(bytes.len());
            return out;
        }
    };
    let mut out = match &documents {
        Some(documents) => {
            let mut out = ReadOutput::default();
            for doc in &documents.docs {
                // (Each in its own format: files of two harnesses joined are each read.)
                let f = forced
                    .or_else(|| detect::detect_shape(bytes, doc))
                    .unwrap_or(format);
                out.absorb(read_as(f, bytes, doc));
            }
            if let Some((start, e)) = &documents.broken {
                broken_value(
                    &mut out,
                    bytes,
                    *start,
                    e,
                    "an array that is not valid JSON, and what follows it",
                );
            }
            out
        }
        None => read_as(format, bytes, &shape),
    };
    out.format = Some(format);
    if let Some(at) = utf8_issue {
        // (The plain-text readers keep the valid runs around the bytes as pieces of text; JSON
        // strings decode them as the replacement character.)
        let (read_as, help) = if matches!(format, Format::Text | Format::Aider) {
            (
                "left out of the text",
                "byte offsets stay exact; the text around the bytes is read",
            )
        } else {
            (
                "read as U+FFFD",
                "byte offsets stay exact; only the decoded text shows the replacement",
            )
        };
        out.issue(
            Severity::Warning,
            Span::new(at, at + 1),
            format!("invalid UTF-8 (byte 0x{:02x}); {read_as}", bytes[at]),
            Some(help.into()),
        );
    }
    for t in &mut out.trajectories {
        t.finish();
    }
    out.mark_lost();
    if out.trajectories.is_empty() && !out.unreadable() {
        out.error(
            Span::new(0, bytes.len().min(1)),
            format!("read as {} but found no conversation in it", format.name()),
        );
    }
    out.within(bytes.len());
    out
}

/// Reads bytes of a known shape in `format`.
fn read_as(format: Format, bytes: &[u8], shape: &Shape) -> ReadOutput {
    match format {
        Format::ClaudeCode => claude_code::read(bytes, shape),
        Format::Codex => codex::read(bytes, shape),
        Format::Cursor => cursor::read(bytes, shape),
        Format::Opencode => opencode::read(bytes, shape),
        Format::QwenCode => qwen_code::read(bytes, shape),
        Format::Pi => pi::read(bytes, shape),
        Format::Goose => goose::read(bytes, shape),
        Format::ManagedAgents => managed_agents::read(bytes, shape),
        Format::Openhands => openhands::read(bytes, shape),
        Format::SweAgent => swe_agent::read(bytes, shape),
        Format::MiniSweAgent => mini_swe_agent::read(bytes, shape),
        Format::OpenaiChat => openai_chat::read(bytes, shape),
        Format::OpenaiResponses => openai_responses::read(bytes, shape),
        Format::Anthropic => anthropic::read(bytes, shape),
        Format::Gemini => gemini::read(bytes, shape),
        Format::Inspect => inspect::read(bytes, shape),
        Format::Aider => aider::read(bytes, shape),
        Format::WhoAndWhen => who_and_when::read(bytes, shape),
        Format::Autogen => autogen::read(bytes, shape),
        Format::Text => text::read(bytes, shape),
    }
}

/// Test support for the format readers.
#[cfg(test)]
pub(crate) mod checked {
    use super::*;

    /// Reads `src` as `format` and checks every trajectory's spans (see [`spans`]).
    pub fn read(src: &str, format: Format, calls_inside: bool) -> ReadOutput {
        let out = super::read(src.as_bytes(), Some(format));
        for t in &out.trajectories {
            spans(src.as_bytes(), t, calls_inside);
        }
        out
    }

    /// The text of each turn's first segment, in order.
    pub fn first_texts(t: &Trajectory) -> Vec<&str> {
        t.turns
            .iter()
            .map(|u| u.segments[0].text.text.as_str())
            .collect()
    }

    /// Turns follow each other in the file, their spans disjoint and increasing.
    pub fn in_order(t: &Trajectory) {
        for w in t.turns.windows(2) {
            assert!(
                w[0].span.end <= w[1].span.start,
                "{:?} before {:?}",
                w[0].span,
                w[1].span
            );
        }
    }

    /// Turn spans lie in the file and do not overlap; segments lie in their turn and decode
    /// from exactly their raw bytes; with `calls_inside`, every call's span lies in its turn's
    /// (not so where a step's action and observation interleave, SWE-agent's `trajectory[]`).
    pub fn spans(bytes: &[u8], t: &Trajectory, calls_inside: bool) {
        let mut spans: Vec<Span> = t.turns.iter().map(|t| t.span).collect();
        spans.sort();
        for w in spans.windows(2) {
            assert!(w[0].end <= w[1].start, "overlapping turns {w:?}");
        }
        for turn in &t.turns {
            assert!(turn.span.end <= bytes.len());
            for s in &turn.segments {
                assert!(turn.span.start <= s.text.span.start && s.text.span.end <= turn.span.end);
                let raw = &bytes[s.text.span.start..s.text.span.end];
                assert_eq!(crate::text::decode(raw, s.text.encoding), s.text.text);
            }
            for c in turn.calls.iter().filter(|_| calls_inside) {
                assert!(turn.span.start <= c.span.start && c.span.end <= turn.span.end);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: [&str; 3] = [
        r#"{"id":"e1","timestamp":"t","source":"user","kind":"MessageEvent","llm_message":{"role":"user","content":[{"type":"text","text":"Fix the test."}]}}"#,
        r#"{"id":"e2","timestamp":"t","source":"agent","kind":"ActionEvent","thought":[{"type":"text","text":"Running it."}],"action":{"kind":"TerminalAction","command":"pytest"},"tool_name":"terminal","tool_call_id":"c1","llm_response_id":"r1"}"#,
        r#"{"id":"e3","timestamp":"t","source":"environment","kind":"ObservationEvent","tool_name":"terminal","tool_call_id":"c1","action_id":"e2","observation":{"content":[{"type":"text","text":"1 failed"}],"exit_code":1}}"#,
    ];

    #[test]
    fn marks_opening_lines_are_read_as_spaces_but_an_archive_is_read_as_it_is() {
        let joined = b"\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBF{\"b\":2}\n{\"c\":\"\xEF\xBB\xBF\"}\n";
        let unmarked = unmarked_lines(joined).unwrap();
        // (A mark inside a line is content: only those opening one go.)
        assert_eq!(
            unmarked,
            b"   {\"a\":1}\n   {\"b\":2}\n{\"c\":\"\xEF\xBB\xBF\"}\n".to_vec()
        );
        assert_eq!(unmarked_lines(b"{\"a\":1}\n{\"b\":2}\n"), None);
        // Compressed data may hold the same bytes: changing them would break the archive.
        assert_eq!(
            unmarked_lines(b"PK\x03\x04\x14\x00\n\xEF\xBB\xBF\x00"),
            None
        );
    }

    /// Each of `EVENTS` pretty-printed, as `jq .` writes it.
    fn pretty_events() -> Vec<String> {
        EVENTS
            .iter()
            .map(|e| {
                let v: serde_json::Value = serde_json::from_str(e).unwrap();
                serde_json::to_string_pretty(&v).unwrap()
            })
            .collect()
    }

    /// The text of each turn's span, and its role.
    fn turns(src: &str) -> Vec<(Role, String)> {
        let out = read(src.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Openhands), "{:?}", out.issues);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        t.turns
            .iter()
            .map(|u| (u.role, src[u.span.start..u.span.end].to_string()))
            .collect()
    }

    /// Event files joined with `cat` (each written without a final line break, so all on one
    /// line) and pretty-printed values (`jq .`) read as the same events one per line do, each
    /// turn spanning exactly its value.
    #[test]
    fn values_one_after_another_read_as_records() {
        let lines = turns(&EVENTS.join("\n"));
        assert_eq!(
            lines.iter().map(|(r, _)| *r).collect::<Vec<_>>(),
            [Role::User, Role::Assistant, Role::Tool]
        );
        assert_eq!(turns(&EVENTS.concat()), lines);
        let pretty = pretty_events();
        let pretty_turns = turns(&pretty.join("\n"));
        assert_eq!(pretty_turns.len(), 3);
        for ((_, p), want) in pretty_turns.iter().zip(&pretty) {
            assert_eq!(p, want);
        }
        // Pretty-printed files joined with `cat`: "}{" between them.
        assert_eq!(turns(&pretty.concat()).len(), 3);
    }

    /// A broken value among pretty-printed ones (a comma lost, a file cut off) is one error, named
    /// where the value starts: reading goes on at the next line that opens a value at its first
    /// column, and the values before and after it are read. On one line, at the next `}{`.
    #[test]
    fn a_broken_value_among_others_costs_only_itself() {
        let pretty = pretty_events();
        for broken in 0..3 {
            let mut values = pretty.clone();
            // A comma lost at the end of the first line that has one.
            let comma = values[broken].find(",\n").unwrap();
            values[broken].remove(comma);
            let src = values.join("\n");
            let out = read(src.as_bytes(), None);
            assert_eq!(out.format, Some(Format::Openhands), "{:?}", out.issues);
            assert_eq!(out.issues.len(), 1, "{broken}: {:?}", out.issues);
            let issue = &out.issues[0];
            assert_eq!(issue.severity, Severity::Error);
            // Named where the broken value starts, not where its parse failed.
            let line = src[..issue.span.start].matches('\n').count() + 1;
            let before: usize = values[..broken].iter().map(|v| v.lines().count()).sum();
            assert_eq!(line, before + 1, "{broken}: {:?}", issue);
            let failed = before + values[broken][..comma].lines().count() + 1;
            assert_eq!(src[..issue.span.end - 1].matches('\n').count() + 1, failed);
            assert_eq!(out.trajectories[0].turns.len(), 2, "{broken}");
        }
        // One pretty-printed document with text after it is that broken document, not a run.
        let events: Vec<serde_json::Value> = EVENTS
            .iter()
            .map(|e| serde_json::from_str(e).unwrap())
            .collect();
        let doc = serde_json::to_string_pretty(&events).unwrap();
        let out = read(format!("{doc}}}\n").as_bytes(), None);
        assert!(out.trajectories.is_empty());
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert!(
            out.issues[0].message.contains("after the JSON value"),
            "{:?}",
            out.issues
        );
        // Joined on one line, the last cut off: the values before it, and the hint that the
        // log may still be being written.
        let src = format!("{}{}{}\n", EVENTS[0], EVENTS[1], &EVENTS[2][..40]);
        let out = read(src.as_bytes(), None);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert!(out.issues[0]
            .message
            .starts_with("the last value is cut off"));
        assert_eq!(out.trajectories[0].turns.len(), 2);
        // One cut off in the middle: reading goes on where a `}` is followed by the next `{`.
        let src = format!(
            "{}{}{}{}\n",
            EVENTS[0],
            &EVENTS[1][..40],
            EVENTS[2],
            EVENTS[2]
        );
        let out = read(src.as_bytes(), None);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert_eq!(out.issues[0].span.start, EVENTS[0].len());
        let last = src.len() - 1 - EVENTS[2].len();
        let turns = &out.trajectories[0].turns;
        assert_eq!(turns[0].span.start, 0);
        assert!(turns.iter().any(|t| t.span.start >= last), "{turns:?}");
    }

    /// A stray `[` line left open before pretty-printed values costs only itself: the values
    /// that closed inside it are read. Lines each opening an array left open (`[1,`) are each
    /// one broken line, however many, and the values after them are read.
    #[test]
    fn values_left_open_cost_their_lines_and_no_more() {
        let pretty = pretty_events();
        let src = format!("[\n{}\n", pretty.join("\n"));
        let out = read(src.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Openhands), "{:?}", out.issues);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert_eq!(out.issues[0].span.start, 0);
        assert_eq!(out.trajectories[0].turns.len(), 3);

        // Past the nesting limit twice over, then pretty-printed values.
        let k = 2 * json::MAX_DEPTH + 100;
        let src = format!(
            "{}\n{}{}\n{}\n",
            EVENTS[0],
            "[1,\n".repeat(k),
            pretty[1],
            pretty[2]
        );
        let out = read(src.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Openhands), "{:?}", out.issues);
        let lines: Vec<usize> = out
            .issues
            .iter()
            .map(|i| src[..i.span.start].matches('\n').count() + 1)
            .collect();
        assert_eq!(lines, (2..k + 2).collect::<Vec<_>>());
        assert!(out.issues.iter().all(|i| i.severity == Severity::Error));
        let turns = &out.trajectories[0].turns;
        assert_eq!(turns.len(), 3);
        assert_eq!(&src[turns[2].span.start..turns[2].span.end], pretty[2]);

        // A record cut off mid-write whose inner objects open lines of their own (`indent=0`):
        // one error, where it starts, naming where the value broke (the next record's `{`), and
        // the next record is read.
        let flat = |e: &str| {
            let v: serde_json::Value = serde_json::from_str(e).unwrap();
            let mut s = Vec::new();
            let f = serde_json::ser::PrettyFormatter::with_indent(b"");
            serde::Serialize::serialize(&v, &mut serde_json::Serializer::with_formatter(&mut s, f))
                .unwrap();
            String::from_utf8(s).unwrap()
        };
        let second = flat(EVENTS[1]);
        let inner = second.find("\n{").expect("an inner object at column 0") + 1;
        let cut = &second[..second[inner..].find(",\n").unwrap() + inner + 1];
        let src = format!("{}\n{cut}\n{}\n", flat(EVENTS[0]), flat(EVENTS[2]));
        let out = read(src.as_bytes(), None);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert!(out.issues[0].message.ends_with("(found '{')"));
        assert_eq!(out.issues[0].span.start, flat(EVENTS[0]).len() + 1);
        assert_eq!(out.trajectories[0].turns.len(), 2);
    }

    /// Files that each hold one JSON array, joined with `cat` (with or without a line break
    /// between them, pretty-printed or not), read as each file alone: a trajectory each, at
    /// its own bytes.
    #[test]
    fn arrays_joined_read_as_the_files_they_came_from() {
        let a = r#"[{"role": "user", "content": "Find the config."}, {"role": "assistant", "content": "It is in etc/."}]"#;
        let b = r#"[{"role": "user", "content": "Run the tests."}, {"role": "assistant", "content": "They pass."}]"#;
        let pretty = |s: &str| {
            let v: serde_json::Value = serde_json::from_str(s).unwrap();
            serde_json::to_string_pretty(&v).unwrap()
        };
        let alone: Vec<Vec<String>> = [a, b]
            .iter()
            .map(|s| {
                let out = read(s.as_bytes(), None);
                assert_eq!(out.format, Some(Format::OpenaiChat));
                checked::first_texts(&out.trajectories[0])
                    .iter()
                    .map(|t| t.to_string())
                    .collect()
            })
            .collect();
        for (first, second, sep) in [
            (a.to_string(), b.to_string(), "\n"),
            (a.to_string(), b.to_string(), ""),
            (pretty(a), pretty(b), "\n"),
        ] {
            let src = format!("{first}{sep}{second}\n");
            let out = read(src.as_bytes(), None);
            assert_eq!(out.format, Some(Format::OpenaiChat), "{sep:?}");
            assert!(out.issues.is_empty(), "{:?}", out.issues);
            assert_eq!(out.trajectories.len(), 2);
            for (k, t) in out.trajectories.iter().enumerate() {
                let texts: Vec<&str> = checked::first_texts(t);
                assert_eq!(texts, alone[k]);
                let (from, to) = if k == 0 {
                    (0, first.len())
                } else {
                    (first.len() + sep.len(), src.len())
                };
                assert!(t
                    .turns
                    .iter()
                    .all(|u| u.span.start >= from && u.span.end <= to));
            }
        }
        // One array alone is a document as before.
        assert_eq!(read(a.as_bytes(), None).trajectories.len(), 1);
        // The last one cut off (a results file still being written): those before it are
        // read, and the cut is said where the cut array starts.
        let src = format!("{a}\n{a}\n{}", &b[..40]);
        let out = read(src.as_bytes(), None);
        assert_eq!(out.trajectories.len(), 2);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert!(out.issues[0]
            .message
            .starts_with("the last value is cut off"));
        assert_eq!(out.issues[0].span.start, 2 * (a.len() + 1));
        // Broken in the middle: those before it are read; it and what follows it are an error
        // where it starts (where the next one would open cannot be told).
        let src = format!("{a}\n{}\n{b}\n", &b[..40]);
        let out = read(src.as_bytes(), None);
        assert_eq!(out.trajectories.len(), 1);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert_eq!(out.issues[0].severity, Severity::Error);
        assert!(out.issues[0].message.starts_with("skipped an array"));
        assert_eq!(out.issues[0].span.start, a.len() + 1);
        // An empty first array (a run that wrote nothing) does not decide the format; a byte
        // order mark opening each file joined on one line is no content.
        let out = read(format!("[]\n{a}\n").as_bytes(), None);
        assert_eq!(out.trajectories.len(), 1, "{:?}", out.issues);
        let out = read(format!("\u{FEFF}{a}\u{FEFF}{b}").as_bytes(), None);
        assert_eq!(out.trajectories.len(), 2, "{:?}", out.issues);
        // Files of two harnesses joined: each read in its own format.
        let events = format!("[{}]", EVENTS.join(","));
        let out = read(format!("{events}\n{a}\n").as_bytes(), None);
        let formats: Vec<Format> = out.trajectories.iter().map(|t| t.format).collect();
        assert_eq!(formats, [Format::Openhands, Format::OpenaiChat]);
    }

    /// A note said once per file is said once for the whole file, not once per joined array.
    #[test]
    fn a_note_once_per_file_is_once_over_joined_arrays() {
        let run = r#"[{"id":0,"source":"user","action":"message","args":{"content":"Fix it."}},{"id":1,"source":"agent","action":"frobnicate","args":{}}]"#;
        let notes = |src: &str| {
            let out = read(src.as_bytes(), None);
            assert_eq!(out.format, Some(Format::Openhands));
            let notes: Vec<usize> = out.issues.iter().map(|i| i.span.start).collect();
            (out.trajectories.len(), notes)
        };
        // (Said at the event.)
        assert_eq!(notes(run), (1, vec![run.find(r#"{"id":1"#).unwrap()]));
        let (runs, at) = notes(&format!("{run}\n{run}\n{run}\n"));
        assert_eq!(runs, 3);
        assert_eq!(at, notes(run).1, "the first array's note alone");
        // So for chat arrays with a role the reader skips.
        let chat = r#"[{"role":"user","content":"Fix it."},{"role":"critic","content":"meh"}]"#;
        let out = read(format!("{chat}\n{chat}\n").as_bytes(), None);
        assert_eq!(out.trajectories.len(), 2);
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert!(out.issues[0].message.contains("role `critic`"));
    }

    /// A line holding a value and then something that is not one stays a broken line.
    #[test]
    fn a_value_followed_by_junk_is_still_a_broken_line() {
        let src = format!("{}\n{} x\n{}\n", EVENTS[0], EVENTS[1], EVENTS[2]);
        let out = read(src.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Openhands));
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert_eq!(out.issues[0].severity, Severity::Error);
        assert_eq!(out.trajectories[0].turns.len(), 2);
    }
}
