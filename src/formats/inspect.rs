//! Inspect AI eval logs: a `.json` document `{version, status, eval, …, samples[]}` or an `.eval`
//! ZIP holding `header.json` and one `samples/<id>_epoch_<n>.json` per sample.
//!
//! One trajectory per sample (id `<id>_epoch_<epoch>`), turns from `sample.messages[]`
//! (system / user / assistant / tool). Tool calls are `{id, function, arguments}` with the
//! arguments as an object; tool messages pair by `tool_call_id` and carry the structured error
//! `error: {type, message}`. A `tool` event marked `failed` flags its result too. Deduplicated
//! logs keep the conversation in `sample.message_pool` (model events point into it with
//! `input_refs`): when `messages` is empty the pool is read instead. `compaction` events become
//! compaction turns, placed before the summary message they produced (`metadata.summary`) or the
//! output of the next model call. A document with only `events` (timeline fixtures) is read from
//! its model and tool events.
//!
//! Inside an `.eval`, a stored entry is parsed where it lies in the archive, so its offsets are
//! exact. A deflated entry is decompressed and parsed on its own; its text is exact, but every
//! turn and segment points at the whole compressed entry (said once per file in a note).

use super::{expect_document, ReadOutput, Shape};
use crate::json::{self, Doc, Kind, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;
use std::collections::{HashMap, HashSet};
use std::io::Read;

/// How much decompressing an archive may cost: an entry is read up to `entry` bytes, and all
/// of an archive's entries together up to `archive`; past either, an entry is reported and
/// skipped. (Deflate shrinks JSON about tenfold; a ZIP bomb a thousandfold.)
struct Limits {
    entry: u64,
    archive: u64,
}

const LIMITS: Limits = Limits {
    entry: 1 << 30,
    archive: 4 << 30,
};

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Inspect);
    match shape {
        Shape::Zip => read_eval(bytes, &LIMITS, &mut out),
        _ => {
            if let Some(doc) = expect_document(shape, &mut out) {
                read_json(bytes, doc, &mut out);
            }
        }
    }
    out
}

fn read_json(bytes: &[u8], doc: &Value, out: &mut ReadOutput) {
    let d = Doc::new(bytes);
    if let Some(samples) = d.get(doc, "samples") {
        for s in d.items(samples) {
            if let Some(t) = read_sample(&d, s, out) {
                out.trajectories.push(t);
            }
        }
        if d.items(samples).is_empty() {
            out.note(samples.span, "this log's `samples` list is empty");
        }
        return;
    }
    if let Some(events) = d.get(doc, "events") {
        out.note(
            events.span,
            "this log has no samples: turns are read from its model and tool events",
        );
        let mut traj = Trajectory::new(Format::Inspect, doc.span);
        read_events(
            &d,
            d.items(events),
            d.get(doc, "attachments"),
            &mut traj,
            out,
        );
        if !traj.turns.is_empty() {
            out.trajectories.push(traj);
        }
        return;
    }
    out.note(
        Span::new(doc.span.start, doc.span.start + 1),
        "this log holds no samples (written without samples, or only a log header)",
    );
}

// ---------------------------------------------------------------------------------------------
// `.eval` (ZIP)

struct Entry {
    name: String,
    stored: bool,
    encrypted: bool,
    data_start: usize,
    compressed: usize,
}

fn read_eval(bytes: &[u8], limits: &Limits, out: &mut ReadOutput) {
    let head = Span::new(0, bytes.len().min(4));
    let mut zip = match zip::ZipArchive::new(std::io::Cursor::new(bytes)) {
        Ok(z) => z,
        Err(e) => {
            out.issue(
                super::Severity::Error,
                head,
                format!("not a readable ZIP archive: {e}"),
                Some(
                    "an .eval log still being written has no ZIP directory yet; read it once the run has finished".into(),
                ),
            );
            return;
        }
    };
    let mut samples = 0usize;
    let mut decompressed = 0u64;
    for i in 0..zip.len() {
        let entry = match zip.by_index_raw(i) {
            Ok(f) => Entry {
                name: f.name().to_string(),
                stored: f.compression() == zip::CompressionMethod::Stored,
                encrypted: f.encrypted(),
                data_start: usize::try_from(f.data_start()).unwrap_or(usize::MAX),
                compressed: usize::try_from(f.compressed_size()).unwrap_or(usize::MAX),
            },
            Err(e) => {
                out.warn(head, format!("ZIP entry {i} could not be read: {e}"));
                continue;
            }
        };
        if !(entry.name.starts_with("samples/") && entry.name.ends_with(".json")) {
            continue;
        }
        samples += 1;
        let start = entry.data_start.min(bytes.len());
        let span = Span::new(
            start,
            entry
                .data_start
                .saturating_add(entry.compressed)
                .min(bytes.len()),
        );
        if entry.stored && !entry.encrypted {
            // The entry's bytes are the JSON itself: parse it in place, offsets are exact.
            let d = Doc::new(bytes);
            match json::parse(bytes, after_mark(&bytes[..span.end], span.start), span.end) {
                Ok(v) => {
                    if let Some(t) = read_sample(&d, &v, out) {
                        out.trajectories.push(t);
                    }
                }
                Err(e) => out.json_error(&e, &format!("{}: not valid JSON", entry.name)),
            }
            continue;
        }
        out.compressed.push(span);
        let mut buf = Vec::new();
        let limit = limits
            .entry
            .min(limits.archive.saturating_sub(decompressed));
        let read = match zip.by_index(i) {
            // (A size declared past the limit is not decompressed to find out.)
            Ok(f) if f.size() >= limit => Ok(false),
            Ok(f) => {
                let declared = f.size();
                read_capped(
                    f,
                    declared,
                    usize::try_from(limit).unwrap_or(usize::MAX),
                    &mut buf,
                )
            }
            Err(e) => Err(std::io::Error::other(e)),
        };
        decompressed += buf.len() as u64;
        let whole = match read {
            Ok(whole) => whole,
            Err(e) => {
                out.error(
                    span,
                    format!("{}: could not be decompressed: {e}", entry.name),
                );
                continue;
            }
        };
        if !whole {
            let message = if limit < limits.entry {
                format!(
                    "{}: not read: the archive's entries before it decompressed to {} bytes, and at most {} are read from one archive",
                    entry.name, decompressed - buf.len() as u64, limits.archive
                )
            } else {
                format!(
                    "{}: larger than {} bytes decompressed; not read",
                    entry.name, limits.entry
                )
            };
            out.error(span, message);
            continue;
        }
        let v = match json::parse(&buf, after_mark(&buf, 0), buf.len()) {
            Ok(v) => v,
            Err(e) => {
                out.error(
                    span,
                    format!(
                        "{}: not valid JSON at byte {} of the decompressed entry: {}",
                        entry.name, e.offset, e.message
                    ),
                );
                continue;
            }
        };
        // (Its issues are said at the entry, named by it; what is said once per file is
        // said once over the entries.)
        let mut sub = ReadOutput {
            once: std::mem::take(&mut out.once),
            ..ReadOutput::default()
        };
        let traj = read_sample(&Doc::new(&buf), &v, &mut sub);
        out.once = sub.once;
        for issue in sub.issues {
            out.issue(
                issue.severity,
                span,
                format!("{}: {}", entry.name, issue.message),
                issue.help,
            );
        }
        if let Some(mut t) = traj {
            spread_over(&mut t, span);
            out.trajectories.push(t);
        }
        out.note_once(
            span,
            "positions inside compressed ZIP entries are approximate: each turn of a sample read from a deflated entry points at the whole compressed entry".into(),
        );
    }
    if samples == 0 {
        out.note(head, "this .eval log holds no samples (only its header)");
    }
}

/// Where an entry's JSON starts: past a byte order mark, which is no content here as at a
/// file's start. (`bytes` ends where the entry does.)
fn after_mark(bytes: &[u8], start: usize) -> usize {
    start
        + if bytes[start..].starts_with(super::BOM) {
            super::BOM.len()
        } else {
            0
        }
}

/// Decompresses an entry into `buf` while it stays under `limit` bytes; false when it does not
/// (what was read is then of no use). The buffer grows to the size the entry declares and by
/// doubling past it, never beyond the limit: a lying or hostile entry costs at most the limit,
/// not the twice it that unbounded doubling reaches.
fn read_capped(
    mut r: impl Read,
    declared: u64,
    limit: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<bool> {
    // (The declared size is trusted up to `FIRST_RESERVE`: a header that lies large must not
    // allocate the limit for a few bytes.)
    const FIRST_RESERVE: usize = 16 << 20;
    buf.reserve(
        usize::try_from(declared)
            .unwrap_or(limit)
            .min(limit)
            .min(FIRST_RESERVE),
    );
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(true),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.len() + n >= limit {
            return Ok(false);
        }
        if buf.capacity() < buf.len() + n {
            let grow = buf.len().max(n).min(limit - buf.len());
            buf.reserve_exact(grow);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Points every span of a trajectory read from a decompressed entry at the compressed entry.
fn spread_over(t: &mut Trajectory, span: Span) {
    t.span = span;
    t.compressed = true;
    for turn in &mut t.turns {
        turn.span = span;
        for s in &mut turn.segments {
            s.text.spread_over(span);
        }
        for c in &mut turn.calls {
            c.span = span;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One sample

fn read_sample(d: &Doc, s: &Value, out: &mut ReadOutput) -> Option<Trajectory> {
    if !matches!(s.kind, Kind::Object(_)) {
        out.warn(s.span, "skipped a sample that is not a JSON object");
        return None;
    }
    let mut traj = Trajectory::new(Format::Inspect, s.span);
    traj.id = sample_id(d, s);
    let messages = d.get(s, "messages").map_or(&[][..], |m| d.items(m));
    let pool = d.get(s, "message_pool").map_or(&[][..], |m| d.items(m));
    let events = d.get(s, "events").map_or(&[][..], |e| d.items(e));
    let attachments = d.get(s, "attachments");
    let mut list: Vec<&Value> = messages.iter().collect();
    if list.is_empty() && !pool.is_empty() {
        list = pool.iter().collect();
        // The pool holds model inputs: the final output message is not among them.
        let last = d
            .path(s, &["output", "choices"])
            .and_then(|c| d.items(c).first())
            .and_then(|c| d.get(c, "message"));
        if let Some(m) = last {
            let ids: HashSet<String> = pool.iter().filter_map(|p| d.get_str(p, "id")).collect();
            if d.get_str(m, "id").is_none_or(|id| !ids.contains(&id)) {
                list.push(m);
            }
        }
        out.note_once(
            d.get(s, "message_pool").map_or(s.span, |p| p.span),
            "messages read from the sample's message_pool (a deduplicated log)".into(),
        );
    }
    if list.is_empty() {
        if !events.is_empty() {
            out.note_once(
                s.span,
                "a sample without messages: turns are read from its model and tool events".into(),
            );
            read_events(d, events, attachments, &mut traj, out);
        }
    } else {
        let scan = scan_events(d, events, &list);
        let mut anchored: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, c) in scan.compactions.iter().enumerate() {
            if let Some(a) = &c.anchor {
                anchored.entry(a.as_str()).or_default().push(k);
            }
        }
        let mut placed = vec![false; scan.compactions.len()];
        for m in list {
            if let Some(ks) = d.get_str(m, "id").and_then(|id| anchored.get(id.as_str())) {
                for &k in ks {
                    if !placed[k] {
                        placed[k] = true;
                        traj.turns.push(compaction_turn(&scan.compactions[k]));
                    }
                }
            }
            push_message(d, m, &scan.tool_failures, attachments, &mut traj, out);
        }
        for (k, c) in scan.compactions.iter().enumerate() {
            if !placed[k] {
                out.note(
                    c.span,
                    "a compaction event that could not be placed among the sample's messages was not read as a turn",
                );
            }
        }
    }
    push_sample_end(d, s, &mut traj);
    if traj.turns.is_empty() {
        out.note(s.span, "a sample without any message was skipped");
        return None;
    }
    Some(traj)
}

fn sample_id(d: &Doc, s: &Value) -> Option<String> {
    let id = d.get(s, "id").and_then(|v| match v.kind {
        Kind::Str { .. } => d.str(v),
        Kind::Number => Some(d.raw(v).to_string()),
        _ => None,
    })?;
    Some(match d.get(s, "epoch").and_then(|e| d.as_i64(e)) {
        Some(e) => format!("{id}_epoch_{e}"),
        None => id,
    })
}

/// A sample-level error or limit, as an event turn at the end.
fn push_sample_end(d: &Doc, s: &Value, traj: &mut Trajectory) {
    if let Some(err) = d
        .get(s, "error")
        .filter(|e| matches!(e.kind, Kind::Object(_)))
    {
        let mut t = Turn::new(Role::Event, err.span);
        t.event = Some(EventKind::Other("inspect.sample_error".into()));
        if let Some(m) = d.get(err, "message").and_then(|m| d.text(m)) {
            t.push_text(SegmentKind::Output, m);
        }
        traj.turns.push(t);
    }
    if let Some(lim) = d
        .get(s, "limit")
        .filter(|e| matches!(e.kind, Kind::Object(_)))
    {
        let mut t = Turn::new(Role::Event, lim.span);
        t.event = Some(EventKind::Other("inspect.sample_limit".into()));
        traj.turns.push(t);
    }
}

struct CompactionEv {
    span: Span,
    kind: String,
    /// The id of the message the compaction turn goes before.
    anchor: Option<String>,
    /// A summary message was found for it.
    summarized: bool,
}

#[derive(Default)]
struct EventScan {
    /// Tool call id → error type (None when only `failed` is set).
    tool_failures: HashMap<String, Option<String>>,
    compactions: Vec<CompactionEv>,
}

/// One pass over the events: failed tool calls, and where each compaction goes.
fn scan_events(d: &Doc, events: &[Value], messages: &[&Value]) -> EventScan {
    let mut scan = EventScan::default();
    let summaries: Vec<String> = messages
        .iter()
        .filter(|m| is_summary_message(d, m))
        .filter_map(|m| d.get_str(m, "id"))
        .collect();
    let mut next_summary = 0;
    let mut waiting: Vec<usize> = Vec::new();
    for e in events {
        match d.get_str(e, "event").as_deref() {
            Some("tool") => {
                let failed = d.flag(e, "failed");
                let kind = d.get(e, "error").and_then(|err| d.get_str(err, "type"));
                if failed || kind.is_some() {
                    if let Some(id) = d.get_str(e, "id") {
                        scan.tool_failures.insert(id, kind);
                    }
                }
            }
            Some("compaction") => {
                let kind = d.get_str(e, "type").unwrap_or_else(|| "summary".into());
                let mut anchor = None;
                if kind == "summary" && next_summary < summaries.len() {
                    anchor = Some(summaries[next_summary].clone());
                    next_summary += 1;
                }
                let summarized = anchor.is_some();
                if anchor.is_none() {
                    waiting.push(scan.compactions.len());
                }
                scan.compactions.push(CompactionEv {
                    span: e.span,
                    kind,
                    anchor,
                    summarized,
                });
            }
            Some("model") => {
                let id = output_message(d, e).and_then(|m| d.get_str(m, "id"));
                for k in waiting.drain(..) {
                    scan.compactions[k].anchor = id.clone();
                }
            }
            _ => {}
        }
    }
    scan
}

fn compaction_turn(c: &CompactionEv) -> Turn {
    let mut t = Turn::new(Role::Event, c.span);
    t.event = Some(EventKind::Compaction {
        name: format!("inspect.compaction.{}", c.kind),
        replaced: None,
        opaque: !c.summarized,
    });
    t
}

fn output_message<'v>(d: &Doc, model_event: &'v Value) -> Option<&'v Value> {
    d.path(model_event, &["output", "choices"])
        .and_then(|c| d.items(c).first())
        .and_then(|c| d.get(c, "message"))
}

fn is_summary_message(d: &Doc, m: &Value) -> bool {
    d.is(m, "role", "user")
        && d.path(m, &["metadata", "summary"])
            .and_then(|v| d.as_bool(v))
            .unwrap_or(false)
}

// ---------------------------------------------------------------------------------------------
// Messages

/// Pushes the turn of one ChatMessage. Returns whether a turn was pushed.
fn push_message(
    d: &Doc,
    m: &Value,
    tool_failures: &HashMap<String, Option<String>>,
    attachments: Option<&Value>,
    traj: &mut Trajectory,
    out: &mut ReadOutput,
) -> bool {
    let role = d.get_str(m, "role").unwrap_or_default();
    let (role, kind) = match role.as_str() {
        "system" => (Role::System, SegmentKind::Prose),
        "user" => (Role::User, SegmentKind::Prose),
        "assistant" => (Role::Assistant, SegmentKind::Prose),
        "tool" => (Role::Tool, SegmentKind::Output),
        other => {
            out.note_once(
                m.span,
                format!("skipped messages with the unknown role {other:?}"),
            );
            return false;
        }
    };
    let mut t = Turn::new(role, m.span);
    let summary = is_summary_message(d, m);
    let kind = if summary { SegmentKind::Summary } else { kind };
    t.is_summary = summary;
    if let Some(c) = d.get(m, "content") {
        push_content(d, c, kind, attachments, &mut t, out);
    }
    if role == Role::Assistant {
        if let Some(calls) = d.get(m, "tool_calls") {
            for c in d.items(calls) {
                t.calls.push(tool_call(d, c, attachments));
            }
        }
    }
    if role == Role::Tool {
        let call_id = d.get_str(m, "tool_call_id");
        let err = d
            .get(m, "error")
            .filter(|e| matches!(e.kind, Kind::Object(_)));
        let mut result = ToolResult {
            name: d.get_str(m, "function"),
            is_error: err.is_some(),
            error_kind: err.and_then(|e| d.get_str(e, "type")),
            ..Default::default()
        };
        if let Some(msg) = err
            .and_then(|e| d.get(e, "message"))
            .and_then(|v| d.text(v))
        {
            if !msg.is_empty() {
                t.push_text(SegmentKind::Output, msg);
            }
        }
        if let Some(failure) = call_id.as_ref().and_then(|id| tool_failures.get(id)) {
            result.is_error = true;
            if result.error_kind.is_none() {
                result.error_kind = failure.clone();
            }
        }
        result.call_id = call_id;
        t.result = Some(result);
    }
    traj.turns.push(t);
    true
}

fn tool_call(d: &Doc, c: &Value, attachments: Option<&Value>) -> ToolCall {
    ToolCall {
        id: d.get_str(c, "id"),
        name: d.get_str(c, "function").unwrap_or_default(),
        arguments: d
            .get(c, "arguments")
            .map(|a| match a.kind {
                // Older logs and some providers keep the arguments as a JSON string (stored
                // once for the sample when long).
                Kind::Str { .. } => {
                    let text = d.str(a).unwrap_or_default();
                    stored(d, attachments, &text)
                        .and_then(|v| d.str(v))
                        .unwrap_or(text)
                }
                _ => with_attachments(d, a, attachments),
            })
            .unwrap_or_default(),
        span: c.span,
        result_turn: None,
    }
}

/// The value a string Inspect stored once for the sample (`attachment://KEY`) stands for, in
/// the sample's `attachments`; none for another string or a key they lack.
fn stored<'v>(d: &Doc, attachments: Option<&'v Value>, text: &str) -> Option<&'v Value> {
    let key = text.strip_prefix("attachment://")?.trim();
    d.get(attachments?, key)
}

/// A JSON value's text as it stands in the file, with each string Inspect stored once for the
/// sample (`attachment://KEY`, as it does for long tool-call arguments) replaced by the stored
/// text, as a JSON string. (Arguments are matched as text, not spanned: a replacement is safe.)
fn with_attachments(d: &Doc, v: &Value, attachments: Option<&Value>) -> String {
    let raw = d.raw(v);
    if attachments.is_none() || !raw.contains("attachment://") {
        return raw.to_string();
    }
    fn walk(d: &Doc, v: &Value, attachments: &Value, out: &mut Vec<(Span, String)>) {
        match &v.kind {
            Kind::Str { .. } => {
                let text = d
                    .str(v)
                    .and_then(|s| stored(d, Some(attachments), &s))
                    .and_then(|a| d.str(a));
                if let Some(text) = text {
                    out.push((v.span, serde_json::Value::String(text).to_string()));
                }
            }
            Kind::Array(items) => items.iter().for_each(|i| walk(d, i, attachments, out)),
            Kind::Object(fields) => fields
                .iter()
                .for_each(|(_, f)| walk(d, f, attachments, out)),
            _ => {}
        }
    }
    let mut swaps = Vec::new();
    if let Some(a) = attachments {
        walk(d, v, a, &mut swaps);
    }
    // (Spans are of this same value, in order: every cut falls on a string's quotes.)
    let between = |a: usize, b: usize| String::from_utf8_lossy(&d.bytes[a..b]).into_owned();
    let mut text = String::with_capacity(raw.len());
    let mut at = v.span.start;
    for (span, with) in swaps {
        text.push_str(&between(at, span.start));
        text.push_str(&with);
        at = span.end;
    }
    text.push_str(&between(at, v.span.end));
    text
}

/// Message content: a string or a list of content blocks (`text`, `reasoning`; images, audio,
/// documents and data blocks carry no text).
/// (Text Inspect stored once for the sample, `attachment://KEY`, is read from the sample's
/// `attachments[KEY]`, its segment spanning it there.)
fn push_content(
    d: &Doc,
    c: &Value,
    kind: SegmentKind,
    attachments: Option<&Value>,
    t: &mut Turn,
    out: &mut ReadOutput,
) {
    let push = |v: &Value, t: &mut Turn, out: &mut ReadOutput| {
        let Some(mut text) = d.text(v) else { return };
        if text.text.starts_with("attachment://") {
            match stored(d, attachments, &text.text).and_then(|a| d.text(a)) {
                Some(stored) => text = stored,
                // (The reference stays as the text: what the message held is unknown, not
                // empty.)
                None => out.note_once(
                    v.span,
                    "text stored as an `attachment://` reference that the sample's attachments do not hold was not read".into(),
                ),
            }
        }
        if !text.is_empty() {
            t.push_text(kind, text);
        }
    };
    match &c.kind {
        Kind::Str { .. } => push(c, t, out),
        Kind::Array(blocks) => {
            for b in blocks {
                match &b.kind {
                    Kind::Str { .. } => push(b, t, out),
                    Kind::Object(_) => {
                        let field = match d.get_str(b, "type").as_deref() {
                            Some("text") | None => "text",
                            Some("reasoning") => {
                                if d.flag(b, "redacted") {
                                    // Encrypted reasoning; a readable summary may sit beside it.
                                    "summary"
                                } else {
                                    "reasoning"
                                }
                            }
                            Some(_) => continue,
                        };
                        if let Some(v) = d.get(b, field) {
                            push(v, t, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Events only

/// Reads turns from a timeline: each model call's new input messages and its output, each tool
/// event's result, and compaction events in place.
fn read_events(
    d: &Doc,
    events: &[Value],
    attachments: Option<&Value>,
    traj: &mut Trajectory,
    out: &mut ReadOutput,
) {
    let has_tool_events = events.iter().any(|e| d.is(e, "event", "tool"));
    let none = HashMap::new();
    for e in events {
        match d.get_str(e, "event").as_deref() {
            Some("model") => {
                let input = d.get(e, "input").map_or(&[][..], |i| d.items(i));
                // Earlier messages were read from earlier events: take what follows the last
                // assistant message (the whole input for a fresh conversation).
                let from = input
                    .iter()
                    .rposition(|m| d.is(m, "role", "assistant"))
                    .map_or(0, |i| i + 1);
                for m in &input[from..] {
                    if has_tool_events && d.is(m, "role", "tool") {
                        continue;
                    }
                    push_message(d, m, &none, attachments, traj, out);
                }
                if let Some(m) = output_message(d, e) {
                    push_message(d, m, &none, attachments, traj, out);
                }
            }
            Some("tool") => traj.turns.push(tool_event_turn(d, e, attachments, out)),
            Some("compaction") => {
                let kind = d.get_str(e, "type").unwrap_or_else(|| "summary".into());
                traj.turns.push(compaction_turn(&CompactionEv {
                    span: e.span,
                    summarized: kind == "summary",
                    kind,
                    anchor: None,
                }));
            }
            _ => {}
        }
    }
}

fn tool_event_turn(d: &Doc, e: &Value, attachments: Option<&Value>, out: &mut ReadOutput) -> Turn {
    let mut t = Turn::new(Role::Tool, e.span);
    if let Some(r) = d.get(e, "result") {
        push_content(d, r, SegmentKind::Output, attachments, &mut t, out);
    }
    let err = d
        .get(e, "error")
        .filter(|v| matches!(v.kind, Kind::Object(_)));
    if let Some(msg) = err
        .and_then(|v| d.get(v, "message"))
        .and_then(|v| d.text(v))
    {
        if !msg.is_empty() {
            t.push_text(SegmentKind::Output, msg);
        }
    }
    let failed = d.flag(e, "failed");
    t.result = Some(ToolResult {
        call_id: d.get_str(e, "id"),
        name: d.get_str(e, "function"),
        is_error: failed || err.is_some(),
        error_kind: err.and_then(|v| d.get_str(v, "type")),
        ..Default::default()
    });
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{self, Severity};
    use std::io::Write;

    #[test]
    fn an_entry_is_read_under_its_limit_and_never_grows_past_it() {
        /// Gives at most 100 bytes a read, as a decompressor gives what it has.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(out.len()).min(100);
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let data = vec![b'x'; 9_000];
        // Declared far too small (a lying header): read whole, grown by doubling.
        let mut buf = Vec::new();
        assert!(read_capped(Trickle(&data), 10, 10_000, &mut buf).unwrap());
        assert_eq!(buf, data);
        assert!(buf.capacity() <= 10_000, "{}", buf.capacity());
        // At the limit: refused, the buffer no larger than the limit.
        let mut buf = Vec::new();
        assert!(!read_capped(Trickle(&data), 10, 9_000, &mut buf).unwrap());
        assert!(buf.capacity() <= 9_000, "{}", buf.capacity());
        // Declared as it is: one allocation.
        let mut buf = Vec::new();
        assert!(read_capped(&data[..], 9_000, 10_000, &mut buf).unwrap());
        assert_eq!(buf.capacity(), 9_000);
    }

    fn read_str(src: &str) -> ReadOutput {
        formats::read(src.as_bytes(), Some(Format::Inspect))
    }

    fn raw(src: &[u8], s: Span) -> &[u8] {
        &src[s.start..s.end]
    }

    const LOG: &str = r#"{"version": 2, "status": "success", "eval": {"task": "t"},
 "samples": [{"id": 7, "epoch": 2, "messages": [
  {"role": "system", "content": "Be brief."},
  {"role": "user", "content": "List \"files\"\nplease", "source": "input"},
  {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "think"}, {"type": "text", "text": "Sure."}],
   "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}, "type": "function"},
                  {"id": "c2", "function": "bash", "arguments": {"cmd": "cat x"}}]},
  {"role": "tool", "tool_call_id": "c2", "function": "bash", "content": "no such file",
   "error": {"type": "file_not_found", "message": "x: not found"}},
  {"role": "tool", "tool_call_id": "c1", "function": "bash", "content": [{"type": "text", "text": "a\nb"}]},
  {"role": "assistant", "content": "Done."}
 ], "events": [{"event": "tool", "id": "c1", "failed": true, "uuid": "u"}]},
 {"id": "s2", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}]}"#;

    #[test]
    fn text_stored_as_an_attachment_is_read_from_the_sample_s_attachments() {
        let src = r#"{"eval": {"task": "t"}, "samples": [{"id": "s1", "messages": [
  {"role": "user", "content": "List the files"},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}}, {"id": "c2", "function": "bash", "arguments": {"cmd": "ls /gone"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "attachment://ddd"},
  {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "attachment://eee"}]}
], "attachments": {"ddd": "total 0\nfile.txt"}}]}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        // Resolved: the stored text, its span that of the stored value.
        let seg = &t.turns[2].segments[0];
        assert_eq!(seg.text.text, "total 0\nfile.txt");
        let at = src.find("\"total 0").unwrap() + 1;
        assert_eq!(seg.text.span.start, at);
        // Not held: the reference stays (the output is unknown, not empty), and a note says so.
        assert_eq!(t.turns[3].segments[0].text.text, "attachment://eee");
        assert!(out.issues.iter().any(|i| i.message.contains("do not hold")));
    }

    #[test]
    fn attachments_in_tool_call_arguments_and_tool_events_are_read() {
        // A sample read from its events: a long argument and a tool event's result stored once.
        let src = r#"{"eval": {"task": "t"}, "samples": [{"id": "s1", "messages": [], "events": [
 {"event": "model", "input": [{"role": "user", "content": "Write the config"}],
  "output": {"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [{"id": "k", "function": "write", "arguments": {"path": "a.toml", "text": "attachment://aaa", "mode": "attachment://zzz"}}]}}]}},
 {"event": "tool", "id": "k", "function": "write", "result": "attachment://bbb"}
], "attachments": {"aaa": "[server]\nport = \"80\"", "bbb": "wrote a.toml"}}]}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        let call = &t.turns[1].calls[0];
        // (Arguments kept as one JSON string, stored whole, read as the stored text.)
        let whole = src.replace(
            r#""arguments": {"path": "a.toml", "text": "attachment://aaa", "mode": "attachment://zzz"}"#,
            r#""arguments": "attachment://aaa""#,
        );
        assert_ne!(whole, src);
        let w = read_str(&whole);
        assert_eq!(
            w.trajectories[0].turns[1].calls[0].arguments,
            "[server]\nport = \"80\""
        );
        // The stored text as a JSON string; a key the attachments lack stays the reference.
        let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
        assert_eq!(args["text"], "[server]\nport = \"80\"");
        assert_eq!(args["path"], "a.toml");
        assert_eq!(args["mode"], "attachment://zzz");
        let seg = &t.turns[2].segments[0];
        assert_eq!(seg.text.text, "wrote a.toml");
        assert_eq!(seg.text.span.start, src.find("\"wrote").unwrap() + 1);
    }

    #[test]
    fn samples_turns_pairing_and_errors() {
        let out = read_str(LOG);
        assert_eq!(out.trajectories.len(), 2, "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("7_epoch_2"));
        assert_eq!(out.trajectories[1].id.as_deref(), Some("s2"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(roles, [System, User, Assistant, Tool, Tool, Assistant]);
        let a = &t.turns[2];
        assert_eq!(a.segments.len(), 2);
        assert_eq!(a.segments[0].text.text, "think");
        assert_eq!(a.calls.len(), 2);
        assert_eq!(a.calls[0].arguments, r#"{"cmd": "ls"}"#);
        // Pairing by id, out of order.
        assert_eq!(a.calls[0].result_turn, Some(4));
        assert_eq!(a.calls[1].result_turn, Some(3));
        let r = t.turns[3].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("file_not_found"));
        assert_eq!(r.name.as_deref(), Some("bash"));
        assert_eq!(t.turns[3].segments[1].text.text, "x: not found");
        // The tool event's `failed` flag marks the other result.
        assert!(t.turns[4].result.as_ref().unwrap().is_error);
        // Spans: turns are their message objects, inside the sample, not overlapping.
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
        for turn in &t.turns {
            assert!(t.span.start <= turn.span.start && turn.span.end <= t.span.end);
            for s in &turn.segments {
                assert!(turn.span.start <= s.text.span.start && s.text.span.end <= turn.span.end);
            }
        }
    }

    #[test]
    fn decoded_sub_span_maps_back() {
        let out = read_str(LOG);
        let seg = &out.trajectories[0].turns[1].segments[0].text;
        assert_eq!(seg.text, "List \"files\"\nplease");
        let s = seg.text.find('"').unwrap();
        let e = seg.text.find("please").unwrap();
        assert_eq!(raw(LOG.as_bytes(), seg.raw_span(s, e)), br#"\"files\"\n"#);
    }

    #[test]
    fn message_pool_and_compaction_events() {
        let src = r#"{"samples": [{"id": 1, "epoch": 1, "messages": [],
  "message_pool": [
    {"id": "m1", "role": "user", "content": "go"},
    {"id": "m2", "role": "assistant", "content": "", "tool_calls": [{"id": "t1", "function": "f", "arguments": {}}]},
    {"id": "m3", "role": "tool", "tool_call_id": "t1", "content": "ok"},
    {"id": "m4", "role": "user", "content": "[CONTEXT COMPACTION SUMMARY] we ran f", "metadata": {"summary": true}}],
  "output": {"choices": [{"message": {"id": "m5", "role": "assistant", "content": "done"}}]},
  "events": [
    {"event": "model", "input_refs": [[0, 1]], "output": {"choices": [{"message": {"id": "m2"}}]}},
    {"event": "compaction", "type": "summary", "tokens_before": 10, "tokens_after": 2},
    {"event": "compaction", "type": "trim"},
    {"event": "model", "input_refs": [[0, 4]], "output": {"choices": [{"message": {"id": "m5"}}]}},
    {"event": "compaction", "type": "edit"}]}]}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        let desc: Vec<(Role, bool)> = t.turns.iter().map(|t| (t.role, t.is_summary)).collect();
        use Role::*;
        assert_eq!(
            desc,
            [
                (User, false),
                (Assistant, false),
                (Tool, false),
                (Event, false),
                (User, true),
                (Event, false),
                (Assistant, false)
            ]
        );
        assert_eq!(t.turns[4].segments[0].kind, SegmentKind::Summary);
        assert_eq!(t.compactions.len(), 2);
        assert_eq!(t.compactions[0].kind, "inspect.compaction.summary");
        assert_eq!(t.compactions[0].summary_turn, Some(4));
        assert!(!t.compactions[0].opaque);
        assert_eq!(t.compactions[1].kind, "inspect.compaction.trim");
        assert!(t.compactions[1].opaque);
        assert!(out
            .issues
            .iter()
            .any(|i| i.message.contains("message_pool")));
        // The last compaction has no later model call: reported, not placed.
        assert!(out
            .issues
            .iter()
            .any(|i| i.message.contains("could not be placed")));
        assert_eq!(t.turns[1].calls[0].result_turn, Some(2));
    }

    #[test]
    fn events_only_document() {
        let src = r#"{"events": [
 {"event": "span_begin", "id": "s", "uuid": "a"},
 {"event": "model", "uuid": "m1", "input": [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}],
  "output": {"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [{"id": "k", "function": "search", "arguments": {"q": 1}}]}}]}},
 {"event": "tool", "uuid": "t1", "id": "k", "function": "search", "result": "found", "error": {"type": "timeout", "message": "slow"}},
 {"event": "model", "uuid": "m2", "input": [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"},
   {"role": "assistant", "content": ""}, {"role": "tool", "content": "found"}],
  "output": {"choices": [{"message": {"role": "assistant", "content": "answer"}}]}}]}"#;
        let out = read_str(src);
        assert_eq!(out.trajectories.len(), 1, "{:?}", out.issues);
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(roles, [System, User, Assistant, Tool, Assistant]);
        let r = t.turns[3].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("timeout"));
        assert_eq!(t.turns[2].calls[0].result_turn, Some(3));
    }

    fn zip_of(entries: &[(&str, &str, bool)]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut buf);
            for (name, body, deflate) in entries {
                let method = if *deflate {
                    zip::CompressionMethod::Deflated
                } else {
                    zip::CompressionMethod::Stored
                };
                let opts = zip::write::SimpleFileOptions::default().compression_method(method);
                w.start_file(*name, opts).unwrap();
                w.write_all(body.as_bytes()).unwrap();
            }
            w.finish().unwrap();
        }
        buf.into_inner()
    }

    const SAMPLE: &str = r#"{"id": "a", "epoch": 1, "messages": [
  {"role": "user", "content": "say \"hi\""},
  {"role": "assistant", "content": "hi"}]}"#;

    #[test]
    fn eval_zip_stored_entries_have_exact_offsets() {
        let bytes = zip_of(&[
            ("header.json", r#"{"version": 2}"#, false),
            ("samples/a_epoch_1.json", SAMPLE, false),
        ]);
        let out = formats::read(&bytes, None);
        assert_eq!(out.format, Some(Format::Inspect));
        assert_eq!(out.trajectories.len(), 1, "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("a_epoch_1"));
        let seg = &t.turns[0].segments[0].text;
        assert_eq!(seg.text, "say \"hi\"");
        let s = seg.text.find('"').unwrap();
        assert_eq!(raw(&bytes, seg.raw_span(s, s + 3)), br#"\"hi"#);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
    }

    /// What is said once per file is said once over the archive's deflated entries (each
    /// read on its own), at the first entry that gives cause, named by it.
    #[test]
    fn a_note_once_per_file_is_once_over_the_entries() {
        let odd = SAMPLE.replace(
            r#"{"role": "assistant""#,
            r#"{"role": "critic", "content": "meh"}, {"role": "assistant""#,
        );
        let bytes = zip_of(&[
            ("header.json", r#"{"version": 2}"#, false),
            ("samples/a_epoch_1.json", &odd, true),
            ("samples/b_epoch_1.json", &odd, true),
        ]);
        let out = formats::read(&bytes, None);
        assert_eq!(out.trajectories.len(), 2, "{:?}", out.issues);
        let notes: Vec<&str> = out
            .issues
            .iter()
            .filter(|i| i.message.contains("unknown role"))
            .map(|i| i.message.as_str())
            .collect();
        assert_eq!(
            notes,
            [r#"samples/a_epoch_1.json: skipped messages with the unknown role "critic""#]
        );
    }

    #[test]
    fn eval_zip_deflated_entries_point_at_the_entry() {
        let bytes = zip_of(&[
            ("header.json", r#"{"version": 2}"#, true),
            ("samples/a_epoch_1.json", SAMPLE, true),
            ("samples/b_epoch_1.json", SAMPLE, true),
        ]);
        let out = formats::read(&bytes, None);
        assert_eq!(out.trajectories.len(), 2, "{:?}", out.issues);
        let notes = out
            .issues
            .iter()
            .filter(|i| i.message.contains("approximate"))
            .count();
        assert_eq!(notes, 1);
        for t in &out.trajectories {
            assert!(t.span.end <= bytes.len() && !t.span.is_empty());
            for turn in &t.turns {
                assert_eq!(turn.span, t.span);
                for s in &turn.segments {
                    assert_eq!(s.text.span, t.span);
                    assert_eq!(s.text.raw_span(1, 3), t.span);
                }
            }
        }
        assert_eq!(
            out.trajectories[0].turns[0].segments[0].text.text,
            "say \"hi\""
        );
    }

    /// A byte order mark opening an entry is no content, stored or deflated; a stored entry's
    /// offsets stay exact.
    #[test]
    fn entries_opening_with_a_byte_order_mark_are_read() {
        let marked = format!("\u{FEFF}{SAMPLE}");
        let bytes = zip_of(&[
            ("samples/a_epoch_1.json", &marked, false),
            ("samples/b_epoch_1.json", &marked, true),
        ]);
        let out = formats::read(&bytes, None);
        assert_eq!(out.trajectories.len(), 2, "{:?}", out.issues);
        assert!(
            out.issues.iter().all(|i| i.severity == Severity::Note),
            "{:?}",
            out.issues
        );
        let seg = &out.trajectories[0].turns[0].segments[0].text;
        assert_eq!(raw(&bytes, seg.raw_span(0, 3)), b"say");
    }

    /// A mark is looked for in the entry's own bytes only.
    #[test]
    fn a_mark_is_the_entry_s_own() {
        let bytes = b"\xEF\xBB\xBF{}";
        assert_eq!(after_mark(bytes, 0), 3);
        assert_eq!(after_mark(&bytes[..1], 0), 0);
        assert_eq!(after_mark(&bytes[..3], 3), 3);
    }

    /// Entries past what one archive may decompress in all are reported and skipped, each
    /// naming the archive's limit; those before are read.
    #[test]
    fn an_archive_decompresses_at_most_its_limit() {
        let bytes = zip_of(&[
            ("header.json", r#"{"version": 2}"#, true),
            ("samples/a_epoch_1.json", SAMPLE, true),
            ("samples/b_epoch_1.json", SAMPLE, true),
            ("samples/c_epoch_1.json", SAMPLE, true),
        ]);
        let limits = Limits {
            entry: 1 << 20,
            archive: 2 * SAMPLE.len() as u64 + 1,
        };
        let mut out = ReadOutput::new(Format::Inspect);
        read_eval(&bytes, &limits, &mut out);
        assert_eq!(out.trajectories.len(), 2, "{:?}", out.issues);
        let errors: Vec<_> = out
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0]
            .message
            .starts_with("samples/c_epoch_1.json: not read"));
        assert!(errors[0]
            .message
            .contains(&format!("decompressed to {} bytes", 2 * SAMPLE.len())));
        // Under a larger limit, the same archive is read whole.
        let mut out = ReadOutput::new(Format::Inspect);
        read_eval(&bytes, &LIMITS, &mut out);
        assert_eq!(out.trajectories.len(), 3);
    }

    #[test]
    fn bad_input_is_reported() {
        // A truncated ZIP.
        let mut bytes = zip_of(&[("samples/a_epoch_1.json", SAMPLE, true)]);
        bytes.truncate(bytes.len() / 2);
        let out = formats::read(&bytes, None);
        assert!(out.unreadable());
        // A sample entry that is not JSON, beside a good one.
        let bytes = zip_of(&[
            ("samples/x_epoch_1.json", "{not json", true),
            ("samples/a_epoch_1.json", SAMPLE, false),
        ]);
        let out = formats::read(&bytes, None);
        assert_eq!(out.trajectories.len(), 1);
        assert!(out
            .issues
            .iter()
            .any(|i| i.severity == Severity::Error && i.message.contains("x_epoch_1")));
        // Unknown roles and non-object samples.
        let out = read_str(
            r#"{"eval": {}, "status": "error", "samples": [3, {"id": 1, "messages": [{"role": "robot", "content": "x"}, {"role": "user", "content": "y"}]}]}"#,
        );
        assert_eq!(out.trajectories.len(), 1);
        assert_eq!(out.trajectories[0].turns.len(), 1);
        assert!(out.issues.iter().any(|i| i.message.contains("robot")));
        // A header-only log.
        let out = read_str(r#"{"version": 2, "status": "started", "eval": {}}"#);
        assert!(out.trajectories.is_empty());
        assert!(out.unreadable());
    }
}
