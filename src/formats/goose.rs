//! Goose sessions (block/goose), in the shapes a session leaves on disk or is exported in:
//! - the JSON Lines file of the versions before the session database
//!   (`~/.local/share/goose/sessions/<id>.jsonl`): a metadata line `{working_dir, description,
//!   message_count, total_tokens, …}`, then one message per line;
//! - `goose session export --format json`: the session `{id, working_dir, name, …}` with its
//!   messages under `conversation`;
//! - a bare list of messages.
//!
//! A message is `{id?, role: "user" | "assistant", created, content: [item], metadata?:
//! {userVisible, agentVisible}}`, each item tagged by `type`: `text {text}`, `thinking
//! {thinking}`, `reasoning`, `toolRequest {id, toolCall}`, `toolResponse {id, toolResult}`,
//! `frontendToolRequest {id, toolCall}`, `systemNotification {msg}` (shown to the person only),
//! `summarizationRequested` (a compaction's marker), images, confirmations. A `toolCall` is
//! `{status: "success", value: {name, arguments}}` or `{status: "error", error}` (the model wrote
//! a call the harness could not read); a `toolResult` is `{status: "success", value: {content,
//! isError}}` (a plain list of content in older sessions) or `{status: "error", error}`. An item
//! addressed to the person alone (`annotations.audience` without `assistant`) is not what the
//! agent read.
//!
//! Compactions, as the versions wrote them (the messages before one stay in the file):
//! every message is hidden from the agent (`agentVisible: false`), then come the summary (a user
//! message the person is not shown), a note telling the model to go on (an assistant message the
//! person is not shown), and a copy of the latest request; the versions of autumn 2025 open with
//! a `summarizationRequested` marker. A later
//! compaction hides the summary and note from the agent too: the person never sees them.
//!
//! The summary is read as the compaction's; it replaced everything since the previous one.

use super::{compaction_turn, jsonl_objects, push_content, ReadOutput, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

/// Item types only Goose writes (camelCase tool items).
const GOOSE_ITEMS: [&str; 6] = [
    "toolRequest",
    "toolResponse",
    "frontendToolRequest",
    "toolConfirmationRequest",
    "systemNotification",
    "redactedThinking",
];

/// Whether a JSON Lines record is one of a Goose session file's: its metadata line, or a
/// message (`role`, a numeric `created`, a list of `content` items) that Goose's visibility
/// metadata or item types give away.
pub fn is_record(d: &Doc, v: &Value) -> bool {
    let has = |k: &str| d.get(v, k).is_some();
    if !has("role") && (has("working_dir") || has("description")) {
        return has("message_count");
    }
    is_message(d, v)
}

/// Whether `v` is a Goose message (see `is_record`).
pub fn is_message(d: &Doc, v: &Value) -> bool {
    let role = d.is(v, "role", "user") || d.is(v, "role", "assistant");
    let created = d
        .get(v, "created")
        .is_some_and(|c| matches!(c.kind, Kind::Number));
    let Some(content) = d
        .get(v, "content")
        .filter(|c| matches!(c.kind, Kind::Array(_)))
    else {
        return false;
    };
    let items = d.items(content);
    let visibility = d.path(v, &["metadata", "agentVisible"]).is_some();
    role && created
        && (visibility
            || items
                .iter()
                .any(|i| GOOSE_ITEMS.iter().any(|t| d.is(i, "type", t))))
}

/// Whether a JSON document holds Goose messages: an exported session (`conversation`), or a
/// list of messages.
pub fn is_document(d: &Doc, v: &Value) -> bool {
    let list = match &v.kind {
        Kind::Array(_) => v,
        _ => match d.get(v, "conversation") {
            Some(c) => c,
            None => return false,
        },
    };
    d.items(list).iter().take(20).any(|m| is_message(d, m))
}

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Goose);
    let d = Doc::new(bytes);
    let mut traj = Trajectory::new(Format::Goose, Span::new(0, bytes.len()));
    let lines;
    let messages: Vec<(&Value, Span)> = match shape {
        Shape::JsonLines => {
            lines = jsonl_objects(bytes, &mut out);
            lines
                .iter()
                .filter(|l| d.get(&l.value, "role").is_some())
                .map(|l| (&l.value, l.span))
                .collect()
        }
        _ => {
            let Some(doc) = super::expect_document(shape, &mut out) else {
                return out;
            };
            traj.span = doc.span;
            traj.id = d.get_str(doc, "id");
            let list = match &doc.kind {
                Kind::Array(items) => items.as_slice(),
                _ => d.get(doc, "conversation").map_or(&[][..], |c| d.items(c)),
            };
            list.iter().map(|m| (m, m.span)).collect()
        }
    };
    let message_at = |k: usize| messages.get(k).map(|m| m.0);
    // The first turn since the latest compaction.
    let mut boundary = 0;
    let mut k = 0;
    while let Some(&(m, span)) = messages.get(k) {
        // (A marker says nothing itself: the summary follows it.)
        let summary = if has_item(&d, m, "summarizationRequested") {
            message_at(k + 1)
                .filter(|n| d.is(n, "role", "user") && !shown_to_person(&d, n))
                .map(|_| k + 1)
        } else {
            is_summary(&d, m, message_at(k + 1)).then_some(k)
        };
        let Some(at) = summary else {
            message(&d, m, span, &mut traj);
            k += 1;
            continue;
        };
        let (m, span) = messages[at];
        push_summary(&d, m, span, traj.turns.len() > boundary, &mut traj);
        k = at + 1;
        // The harness's note to go on is an event of the run.
        if message_at(k).is_some_and(|n| is_note(&d, n)) {
            let mut t = Turn::new(Role::Event, messages[k].1);
            t.event = Some(EventKind::Other("goose.continuation".into()));
            traj.turns.push(t);
            k += 1;
        }
        boundary = traj.turns.len();
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

/// Whether the person is shown a message (unless its metadata says otherwise).
fn shown_to_person(d: &Doc, m: &Value) -> bool {
    d.path(m, &["metadata", "userVisible"])
        .and_then(|v| d.as_bool(v))
        != Some(false)
}

fn has_item(d: &Doc, m: &Value, ty: &str) -> bool {
    items(d, m).iter().any(|i| d.is(i, "type", ty))
}

fn items<'v>(d: &Doc, m: &'v Value) -> &'v [Value] {
    d.get(m, "content").map(|c| d.items(c)).unwrap_or_default()
}

/// Whether `m` is a compaction's summary (of the versions that write no marker): a user message
/// the person is not shown, followed by the harness's note. (Goose writes both for every
/// compaction; a message only the agent sees with no note after it is a nudge or an answer the
/// harness gave, read as the run's.)
fn is_summary(d: &Doc, m: &Value, next: Option<&Value>) -> bool {
    d.is(m, "role", "user") && !shown_to_person(d, m) && next.is_some_and(|n| is_note(d, n))
}

/// Whether `n`, right after a summary, is the harness's note to go on: an assistant message the
/// person is not shown (a later compaction hides it from the agent too, and keeps it so).
fn is_note(d: &Doc, n: &Value) -> bool {
    d.is(n, "role", "assistant") && !shown_to_person(d, n)
}

/// A compaction's summary: the compaction event over the message's opening (when anything
/// came before it since the previous one: a log may open with a summary), then the summary's
/// text.
fn push_summary(d: &Doc, m: &Value, span: Span, replaced_any: bool, traj: &mut Trajectory) {
    let content = d.get(m, "content");
    let start = content.map_or(span.start, |c| c.span.start);
    if replaced_any {
        traj.turns.push(compaction_turn(
            span,
            content.map(|c| c.span.start),
            "goose.compaction",
            None,
        ));
    }
    let from = if replaced_any { start } else { span.start };
    let mut t = Turn::new(Role::User, Span::new(from, span.end));
    for item in items(d, m).iter().filter(|i| d.is(i, "type", "text")) {
        super::push_block(d, item, SegmentKind::Summary, &mut t);
    }
    t.is_summary = true;
    traj.turns.push(t);
}

/// One message as its turns, in file order: its author's words and calls, and a tool turn per
/// response (words on both sides of a response are turns of their own).
fn message(d: &Doc, m: &Value, span: Span, traj: &mut Trajectory) {
    let role = if d.is(m, "role", "assistant") {
        Role::Assistant
    } else {
        Role::User
    };
    let items = items(d, m);
    let split = items.iter().any(|i| d.is(i, "type", "toolResponse"));
    let mut turn = Turn::new(role, span);
    let mut covered: Option<Span> = None;
    let flush = |turn: &mut Turn, covered: &mut Option<Span>, traj: &mut Trajectory| {
        let mut done = std::mem::replace(turn, Turn::new(role, span));
        if done.has_text() || !done.calls.is_empty() {
            if split {
                done.span = covered.unwrap_or(done.span);
            }
            traj.turns.push(done);
        }
        *covered = None;
    };
    for item in items.iter().filter(|i| for_the_agent(d, i)) {
        let ty = d.get_str(item, "type").unwrap_or_default();
        match ty.as_str() {
            "text" | "thinking" | "reasoning" => {
                let field = ["text", "thinking", "reasoning", "content"]
                    .into_iter()
                    .find_map(|f| {
                        d.get(item, f)
                            .filter(|v| matches!(v.kind, Kind::Str { .. }))
                    });
                if let Some(v) = field {
                    push_content(d, v, SegmentKind::Prose, &mut turn);
                }
            }
            "toolRequest" | "frontendToolRequest" => turn.calls.push(call(d, item)),
            "toolResponse" => {
                flush(&mut turn, &mut covered, traj);
                traj.turns.push(result(d, item));
                continue;
            }
            // Notifications (shown to the person), markers, confirmations, images and redacted
            // thinking hold nothing the agent wrote or read as text.
            _ => continue,
        }
        covered = Some(covered.map_or(item.span, |c| c.cover(item.span)));
    }
    flush(&mut turn, &mut covered, traj);
}

/// A `toolRequest` as a call: its tool's name and arguments (neither, for a call the harness
/// could not read).
fn call(d: &Doc, item: &Value) -> ToolCall {
    let tc = d.get(item, "toolCall");
    let value = tc.and_then(|t| d.get(t, "value"));
    // (A call the harness could not read has none: its error is the response's.)
    let arguments = match value.and_then(|v| d.get(v, "arguments")) {
        Some(a) if matches!(a.kind, Kind::Str { .. }) => d.str(a).unwrap_or_default(),
        Some(a) => d.raw(a).to_string(),
        None => String::new(),
    };
    ToolCall {
        id: d.get_str(item, "id"),
        name: value.and_then(|v| d.get_str(v, "name")).unwrap_or_default(),
        arguments,
        span: item.span,
        result_turn: None,
    }
}

/// A `toolResponse` as its own tool turn.
fn result(d: &Doc, item: &Value) -> Turn {
    let mut t = Turn::new(Role::Tool, item.span);
    let tr = d.get(item, "toolResult");
    let failed = tr.is_some_and(|r| d.is(r, "status", "error"));
    let value = tr.and_then(|r| d.get(r, "value"));
    if failed {
        if let Some(e) = tr.and_then(|r| d.get(r, "error")) {
            push_content(d, e, SegmentKind::Output, &mut t);
        }
    } else if let Some(v) = value {
        // `{content, isError}`, or the plain list of older sessions.
        let content = match &v.kind {
            Kind::Array(_) => Some(v),
            _ => d.get(v, "content"),
        };
        for c in content.map(|c| d.items(c)).unwrap_or_default() {
            if for_the_agent(d, c) {
                output_item(d, c, &mut t);
            }
        }
    }
    t.result = Some(ToolResult {
        call_id: d.get_str(item, "id"),
        is_error: failed || value.is_some_and(|v| d.flag(v, "isError")),
        ..Default::default()
    });
    t
}

/// Whether a content item reaches the agent: not one addressed to the person alone.
fn for_the_agent(d: &Doc, c: &Value) -> bool {
    match d.path(c, &["annotations", "audience"]) {
        Some(a) => d
            .items(a)
            .iter()
            .any(|x| d.str(x).as_deref() == Some("assistant")),
        None => true,
    }
}

/// One item of a tool's output: its text, an embedded resource's text, or what stands for
/// content that is no text (a binary resource, a link, an image: its URI, name or media type;
/// read as nothing, the result looked empty).
fn output_item(d: &Doc, c: &Value, t: &mut Turn) {
    let ty = d.get_str(c, "type").unwrap_or_default();
    let resource = d.get(c, "resource");
    let candidates = match ty.as_str() {
        "resource" => [
            resource.and_then(|r| d.get(r, "text")),
            resource.and_then(|r| d.get(r, "uri")),
            resource.and_then(|r| d.get(r, "mimeType")),
        ],
        "resource_link" => [d.get(c, "uri"), d.get(c, "name"), None],
        "image" | "audio" => [d.get(c, "mimeType"), d.get(c, "type"), None],
        _ => [d.get(c, "text"), None, None],
    };
    if let Some(v) = candidates
        .into_iter()
        .flatten()
        .find(|v| matches!(v.kind, Kind::Str { .. }))
    {
        push_content(d, v, SegmentKind::Output, t);
    }
}

#[cfg(test)]
mod tests {
    use crate::formats;
    use crate::model::{EventKind, Format, Role, SegmentKind};

    const SESSION: &str = r#"{"working_dir":"/repo","description":"Raise the timeout","schedule_id":null,"message_count":6,"total_tokens":900}
{"id":"m1","role":"user","created":1730000000,"content":[{"type":"text","text":"Raise the timeout in config."}],"metadata":{"userVisible":true,"agentVisible":true}}
{"id":"m2","role":"assistant","created":1730000001,"content":[{"type":"text","text":"Let me find the setting."},{"type":"toolRequest","id":"tr1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"grep -rn timeout config/"}}}}],"metadata":{"userVisible":true,"agentVisible":true}}
{"id":"m3","role":"user","created":1730000002,"content":[{"type":"toolResponse","id":"tr1","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"","annotations":{"audience":["assistant"]}},{"type":"text","text":"(no matches)","annotations":{"audience":["user"]}}],"isError":false}}}],"metadata":{"userVisible":true,"agentVisible":true}}
{"id":"m4","role":"assistant","created":1730000003,"content":[{"type":"toolRequest","id":"tr2","toolCall":{"status":"error","error":"-32602: could not parse the arguments"}}],"metadata":{"userVisible":true,"agentVisible":true}}
{"id":"m5","role":"user","created":1730000004,"content":[{"type":"toolResponse","id":"tr2","toolResult":{"status":"error","error":"-32602: could not parse the arguments"}}],"metadata":{"userVisible":true,"agentVisible":true}}
"#;

    #[test]
    fn a_session_file_is_read_as_its_turns() {
        let out = formats::checked::read(SESSION, Format::Goose, true);
        assert_eq!(
            formats::read(SESSION.as_bytes(), None).format,
            Some(Format::Goose)
        );
        let t = &out.trajectories[0];
        use Role::*;
        assert_eq!(roles(t), [User, Assistant, Tool, Assistant, Tool]);
        let c = &t.turns[1].calls[0];
        assert_eq!(
            (c.id.as_deref(), c.name.as_str()),
            (Some("tr1"), "developer__shell")
        );
        assert_eq!(c.arguments, r#"{"command":"grep -rn timeout config/"}"#);
        assert_eq!(c.result_turn, Some(2));
        // What the agent read is the item addressed to it: an empty output, not the person's
        // "(no matches)".
        let r = &t.turns[2];
        assert!(r.segments.iter().all(|s| s.text.text.is_empty()));
        assert!(!r.result.as_ref().unwrap().is_error);
        // A call the harness could not read, and the error it answered with.
        assert_eq!(t.turns[3].calls[0].name, "");
        let e = &t.turns[4];
        assert!(e.result.as_ref().unwrap().is_error);
        assert_eq!(
            e.segments[0].text.text,
            "-32602: could not parse the arguments"
        );
        assert_eq!(t.turns[4].result.as_ref().unwrap().call, Some((3, 0)));
    }

    fn msg(role: &str, text: &str, person: bool, agent: bool) -> String {
        format!(
            r#"{{"role":"{role}","created":1,"content":[{{"type":"text","text":"{text}"}}],"metadata":{{"userVisible":{person},"agentVisible":{agent}}}}}"#
        )
    }

    fn roles(t: &crate::model::Trajectory) -> Vec<Role> {
        t.turns.iter().map(|u| u.role).collect()
    }

    /// Each compaction as (its turn, what it replaced, its summary turn).
    fn compactions(t: &crate::model::Trajectory) -> Vec<(usize, (usize, usize), Option<usize>)> {
        t.compactions
            .iter()
            .map(|c| (c.turn, c.replaced, c.summary_turn))
            .collect()
    }

    /// A compaction hides the conversation from the agent and appends its summary, a note to
    /// go on, and a copy of the latest request. A message only the agent sees that follows
    /// neither a hidden conversation nor precedes such a note is no summary (a nudge, an
    /// elicitation's answer); a summary a log opens with replaced nothing it shows.
    #[test]
    fn a_compaction_is_the_summary_the_person_is_not_shown() {
        let notification = r#"{"role":"assistant","created":2,"content":[{"type":"systemNotification","notificationType":"inlineMessage","msg":"Compacting"}],"metadata":{"userVisible":true,"agentVisible":false}}"#;
        let src = format!(
            "[{}]",
            [
                msg("user", "Fix the flaky test.", true, false),
                msg("assistant", "I will run the suite.", true, false),
                notification.to_string(),
                msg("user", "The user wants the flaky test fixed.", false, true),
                msg(
                    "assistant",
                    "Your context was compacted. Continue.",
                    false,
                    true
                ),
                msg("user", "Fix the flaky test.", true, true),
                msg("assistant", "Running it now.", true, true),
                notification.to_string(),
                msg(
                    "user",
                    "Keep working. The goal is not yet complete.",
                    false,
                    true
                ),
                msg("assistant", "Still on it.", true, true),
            ]
            .join(",\n")
        );
        assert_eq!(
            formats::read(src.as_bytes(), None).format,
            Some(Format::Goose)
        );
        let t = &formats::checked::read(&src, Format::Goose, true).trajectories[0];
        use Role::*;
        assert_eq!(
            roles(t),
            [User, Assistant, Event, User, Event, User, Assistant, User, Assistant]
        );
        assert_eq!(t.compactions.len(), 1);
        let c = &t.compactions[0];
        assert_eq!((c.turn, c.replaced, c.summary_turn), (2, (0, 1), Some(3)));
        assert!(!c.opaque);
        assert!(t.turns[3].is_summary);
        assert_eq!(t.turns[3].segments[0].kind, SegmentKind::Summary);
        assert!(matches!(
            t.turns[4].event,
            Some(EventKind::Other(ref n)) if n == "goose.continuation"
        ));
        // The nudge after the notification is a message of the run, read as one.
        assert!(!t.turns[7].is_summary);
        assert_eq!(t.turns[7].segments[0].kind, SegmentKind::Prose);

        // No note after it: a message only the agent sees is the run's (Goose writes the note
        // with every summary), even after messages hidden from the agent (a logged command).
        let src = [
            msg("user", "cargo build", true, false),
            msg(
                "user",
                "Keep working. The goal is not yet complete.",
                false,
                true,
            ),
            msg("assistant", "Still on it.", true, true),
        ]
        .join("\n");
        let t = &formats::checked::read(&src, Format::Goose, true).trajectories[0];
        assert_eq!(roles(t), [User, User, Assistant]);
        assert!(t.compactions.is_empty() && !t.turns[1].is_summary);

        // A log that opens with a summary shows nothing it replaced: the summary alone.
        let src = [
            msg("user", "Summary: run the tests.", false, true),
            msg("assistant", "Your context was compacted.", false, true),
            msg("user", "Go.", true, true),
        ]
        .join("\n");
        let t = &formats::checked::read(&src, Format::Goose, true).trajectories[0];
        assert_eq!(roles(t), [User, Event, User]);
        assert!(t.turns[0].is_summary && t.compactions.is_empty());
    }

    /// The autumn 2025 versions open a compaction with a `summarizationRequested` marker; a
    /// later compaction hides the summary and note before it from the agent too (the person never
    /// saw them): both are compactions.
    #[test]
    fn a_marked_compaction_and_the_one_after_it() {
        let marker = r#"{"role":"assistant","created":1,"content":[{"type":"summarizationRequested","msg":"Conversation compacted and summarized"}],"metadata":{"userVisible":true,"agentVisible":false}}"#;
        let note = "The previous message contains a summary that was prepared because a context limit was reached.";
        let src = format!(
            "[{}]",
            [
                msg("user", "Find the config loader.", true, false),
                msg("assistant", "I will grep for it.", true, false),
                marker.to_string(),
                msg("user", "SUMMARY ONE: the config loader.", false, false),
                msg("assistant", note, false, false),
                msg("user", "Now fix it.", true, false),
                msg("assistant", "Fixing it now.", true, false),
                marker.to_string(),
                msg("user", "SUMMARY TWO: fixing the loader.", false, true),
                msg("assistant", note, false, true),
                msg("user", "Go on.", true, true),
            ]
            .join(",\n")
        );
        let t = &formats::checked::read(&src, Format::Goose, true).trajectories[0];
        use Role::*;
        assert_eq!(
            roles(t),
            [User, Assistant, Event, User, Event, User, Assistant, Event, User, Event, User]
        );
        assert_eq!(compactions(t), [(2, (0, 1), Some(3)), (7, (3, 6), Some(8))]);
        assert!(t.turns[3].is_summary && t.turns[8].is_summary);

        // A marker before a message the person wrote (and sees) marks no summary.
        let src = [
            marker.to_string(),
            msg("user", "Please carry on.", true, true),
        ]
        .join("\n");
        let t = &formats::checked::read(&src, Format::Goose, true).trajectories[0];
        assert_eq!(roles(t), [User]);
        assert!(t.compactions.is_empty() && !t.turns[0].is_summary);
    }

    /// Words on both sides of a tool response are turns of their own (their spans disjoint); a
    /// `reasoning` item is the agent's words; text addressed to the person alone is not read; a
    /// binary resource or a link is no empty output.
    #[test]
    fn items_around_responses_reasoning_and_stand_ins() {
        let src = r#"{"role": "assistant", "created": 1, "content": [{"type": "reasoning", "text": "I will run the tests later."}, {"type": "text", "text": "Shown to you only.", "annotations": {"audience": ["user"]}}, {"type": "toolRequest", "id": "r1", "toolCall": {"status": "success", "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}, {"type": "toolRequest", "id": "r2", "toolCall": {"status": "error", "error": "-32602: bad arguments"}}]}
{"role": "user", "created": 2, "content": [{"type": "text", "text": "before"}, {"type": "toolResponse", "id": "r1", "toolResult": {"status": "success", "value": {"content": [{"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAEC", "mimeType": "application/octet-stream"}}]}}}, {"type": "text", "text": "after"}, {"type": "toolResponse", "id": "r2", "toolResult": {"status": "success", "value": [{"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt"}]}}]}
"#;
        let out = formats::checked::read(src, Format::Goose, true);
        assert_eq!(
            formats::read(src.as_bytes(), None).format,
            Some(Format::Goose)
        );
        let t = &out.trajectories[0];
        formats::checked::in_order(t);
        use Role::*;
        assert_eq!(roles(t), [Assistant, User, Tool, User, Tool]);
        let words: Vec<&str> = t.turns[0]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(words, ["I will run the tests later."]);
        // A call the harness could not read has no arguments (its error is not what it asked).
        assert_eq!(t.turns[0].calls[1].arguments, "");
        assert_eq!(t.turns[2].segments[0].text.text, "file:///a.bin");
        assert_eq!(t.turns[4].segments[0].text.text, "file:///b.txt");
        assert_eq!(t.turns[4].result.as_ref().unwrap().call, Some((0, 1)));
    }

    /// Two compactions as Goose leaves them: the second hides the first one's summary and
    /// note from the agent too; both are still read as compactions.
    #[test]
    fn an_earlier_summary_hidden_by_a_later_compaction_is_still_one() {
        let lines = [
            msg("user", "Fix the flaky test.", true, false),
            msg("assistant", "I will run the suite.", true, false),
            msg("user", "Summary one.", false, false),
            msg(
                "assistant",
                "Your context was compacted. Continue.",
                false,
                false,
            ),
            msg("user", "Fix the flaky test.", true, false),
            msg("assistant", "Running it again.", true, false),
            msg("user", "Summary two.", false, true),
            msg(
                "assistant",
                "Your context was compacted. Continue.",
                false,
                true,
            ),
            msg("user", "Fix the flaky test.", true, true),
        ];
        let src = lines.join("\n");
        let out = formats::checked::read(&src, Format::Goose, true);
        assert_eq!(
            formats::read(src.as_bytes(), None).format,
            Some(Format::Goose)
        );
        let t = &out.trajectories[0];
        use Role::*;
        assert_eq!(
            roles(t),
            [User, Assistant, Event, User, Event, User, Assistant, Event, User, Event, User]
        );
        assert_eq!(compactions(t), [(2, (0, 1), Some(3)), (7, (3, 6), Some(8))]);
        assert_eq!(t.turns[8].segments[0].text.text, "Summary two.");
        // The harness's notes are no one's words.
        assert!(!t.turns[4].has_text() && !t.turns[9].has_text());
    }

    /// An exported session: its id, its messages under `conversation`, results in the older
    /// plain-list shape, and an embedded resource's text.
    #[test]
    fn an_exported_session_is_read() {
        let src = r#"{"id":"20251201_1","working_dir":"/repo","name":"timeout","conversation":[
 {"role":"user","created":1,"content":[{"type":"text","text":"Show the config."}]},
 {"role":"assistant","created":2,"content":[{"type":"toolRequest","id":"t1","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"view","path":"config.toml"}}}}]},
 {"role":"user","created":3,"content":[{"type":"toolResponse","id":"t1","toolResult":{"status":"success","value":[{"type":"resource","resource":{"uri":"file:///repo/config.toml","text":"timeout = 30"}}]}}]}
],"message_count":3}"#;
        let out = formats::checked::read(src, Format::Goose, true);
        assert_eq!(
            formats::read(src.as_bytes(), None).format,
            Some(Format::Goose)
        );
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("20251201_1"));
        assert_eq!(t.turns.len(), 3);
        assert_eq!(t.turns[2].segments[0].text.text, "timeout = 30");
        assert_eq!(t.turns[2].result.as_ref().unwrap().call, Some((1, 0)));
    }
}
