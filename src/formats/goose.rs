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
//! {thinking}`, `toolRequest {id, toolCall}`, `toolResponse {id, toolResult}`,
//! `frontendToolRequest {id, toolCall}`, `systemNotification {msg}` (shown to the person only),
//! images, confirmations. A `toolCall` is `{status: "success", value: {name, arguments}}` or
//! `{status: "error", error}` (the model wrote a call the harness could not read); a
//! `toolResult` is `{status: "success", value: {content, isError}}` (a plain list of content in
//! older sessions) or `{status: "error", error}`. A content item addressed to the person alone
//! (`annotations.audience` without `assistant`) is not what the agent read.
//!
//! Compaction leaves every message of the conversation in the file but hides it from the agent
//! (`agentVisible: false`), then appends the summary, a user message the agent sees and the
//! person does not (`agentVisible: true, userVisible: false`), a note telling the model to go
//! on, and a copy of the latest request. A summary after a message the agent no longer sees is
//! that compaction's: it replaced everything since the previous one.

use super::{compaction_turn, jsonl_objects, push_content, summary_turn, ReadOutput, Shape};
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
    if has("working_dir") && !has("role") {
        return has("description") || has("message_count") || has("total_tokens");
    }
    is_message(d, v)
}

/// Whether `v` is a Goose message (see `is_record`).
pub fn is_message(d: &Doc, v: &Value) -> bool {
    let role = d.is(v, "role", "user") || d.is(v, "role", "assistant");
    let created = d
        .get(v, "created")
        .is_some_and(|c| matches!(c.kind, Kind::Number));
    let items = d.get(v, "content").map(|c| d.items(c)).unwrap_or_default();
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
    let mut hidden_before = false;
    let mut continuation = false;
    for (k, &(m, span)) in messages.iter().enumerate() {
        let seen = Seen::of(&d, m);
        let hidden = !seen.agent;
        if std::mem::take(&mut continuation) {
            // "Your context was compacted. … Continue …": the harness speaking, not the agent.
            let mut t = Turn::new(Role::Event, span);
            t.event = Some(EventKind::Other("goose.continuation".into()));
            traj.turns.push(t);
        } else if is_summary(&d, m, messages.get(k + 1).map(|n| n.0), hidden_before) {
            summary(&d, m, span, &mut traj);
            continuation = messages
                .get(k + 1)
                .is_some_and(|n| d.is(n.0, "role", "assistant") && !Seen::of(&d, n.0).person);
        } else {
            message(&d, m, span, &mut traj);
        }
        hidden_before = hidden;
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

/// Who a message is shown to (both, unless its metadata says otherwise).
struct Seen {
    agent: bool,
    person: bool,
}

impl Seen {
    fn of(d: &Doc, m: &Value) -> Seen {
        let flag =
            |key: &str| d.path(m, &["metadata", key]).and_then(|v| d.as_bool(v)) != Some(false);
        Seen {
            agent: flag("agentVisible"),
            person: flag("userVisible"),
        }
    }
}

/// Whether `m` is a compaction's summary: a user message the person is not shown, followed by
/// the harness's note to go on (an assistant message the person is not shown either; a later
/// compaction hides both from the agent too), or, with no note, one the agent still sees right
/// after messages it no longer does.
fn is_summary(d: &Doc, m: &Value, next: Option<&Value>, hidden_before: bool) -> bool {
    let seen = Seen::of(d, m);
    if d.is(m, "role", "assistant") || seen.person {
        return false;
    }
    let note_follows = next.is_some_and(|n| d.is(n, "role", "assistant") && !Seen::of(d, n).person);
    note_follows || seen.agent && hidden_before
}

/// A compaction's summary: the compaction event over the message's opening, then the summary.
fn summary(d: &Doc, m: &Value, span: Span, traj: &mut Trajectory) {
    let content = d.get(m, "content");
    traj.turns.push(compaction_turn(
        span,
        content.map(|c| c.span.start),
        "goose.compaction",
        None,
    ));
    if let Some(c) = content {
        traj.turns
            .push(summary_turn(d, c, Span::new(c.span.start, span.end)));
    }
}

/// One message as its turns: the words and calls of its author, and one tool turn per
/// response.
fn message(d: &Doc, m: &Value, span: Span, traj: &mut Trajectory) {
    let role = if d.is(m, "role", "assistant") {
        Role::Assistant
    } else {
        Role::User
    };
    let mut turn = Turn::new(role, span);
    let mut results = Vec::new();
    for item in d.get(m, "content").map(|c| d.items(c)).unwrap_or_default() {
        let ty = d.get_str(item, "type").unwrap_or_default();
        match ty.as_str() {
            "text" | "thinking" => super::push_block(d, item, SegmentKind::Prose, &mut turn),
            "toolRequest" | "frontendToolRequest" => turn.calls.push(call(d, item)),
            "toolResponse" => results.push(result(d, item)),
            // Notifications (shown to the person), confirmations, images and redacted thinking
            // hold nothing the agent wrote or read as text.
            _ => {}
        }
    }
    super::anthropic::finish(turn, results, false, traj);
}

/// A `toolRequest` as a call: its tool's name and arguments, or, for a call the harness could
/// not read, no name and the error it gave.
fn call(d: &Doc, item: &Value) -> ToolCall {
    let tc = d.get(item, "toolCall");
    let value = tc.and_then(|t| d.get(t, "value"));
    let arguments = match value.and_then(|v| d.get(v, "arguments")) {
        Some(a) if matches!(a.kind, Kind::Str { .. }) => d.str(a).unwrap_or_default(),
        Some(a) => d.raw(a).to_string(),
        None => tc.and_then(|t| d.get_str(t, "error")).unwrap_or_default(),
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

/// One item of a tool's output: text, an embedded resource's text, or what stands for an
/// image (its media type).
fn output_item(d: &Doc, c: &Value, t: &mut Turn) {
    let ty = d.get_str(c, "type").unwrap_or_default();
    let v = match ty.as_str() {
        "resource" => d.path(c, &["resource", "text"]),
        "image" | "audio" => d.get(c, "mimeType"),
        _ => d.get(c, "text"),
    };
    if let Some(v) = v.filter(|v| matches!(v.kind, Kind::Str { .. })) {
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
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(roles, [User, Assistant, Tool, Assistant, Tool]);
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

    /// A compaction hides the conversation from the agent and appends its summary, a note to
    /// go on, and a copy of the latest request; a second one replaces what came since.
    #[test]
    fn a_compaction_is_the_summary_after_hidden_messages() {
        let hidden = r#"{"userVisible":true,"agentVisible":false}"#;
        let agent_only = r#"{"userVisible":false,"agentVisible":true}"#;
        let both = r#"{"userVisible":true,"agentVisible":true}"#;
        let msg = |id: &str, role: &str, text: &str, meta: &str| {
            format!(
                r#"{{"id":"{id}","role":"{role}","created":1,"content":[{{"type":"text","text":"{text}"}}],"metadata":{meta}}}"#
            )
        };
        let src = format!(
            "[{}]",
            [
                msg("a", "user", "Fix the flaky test.", hidden),
                msg("b", "assistant", "I will run the suite.", hidden),
                msg("c", "user", "The user wants the flaky test fixed.", agent_only),
                msg("d", "assistant", "Your context was compacted. Continue.", agent_only),
                msg("e", "user", "Fix the flaky test.", both),
                msg("f", "assistant", "Running it now.", both),
                r#"{"role":"assistant","created":2,"content":[{"type":"systemNotification","notificationType":"inlineMessage","msg":"Compacting"}],"metadata":{"userVisible":true,"agentVisible":false}}"#.to_string(),
                msg("g", "user", "Summary two.", agent_only),
            ]
            .join(",\n")
        );
        let out = formats::read(src.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Goose));
        let t = &out.trajectories[0];
        formats::checked::in_order(t);
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Event, User, Event, User, Assistant, Event, User]
        );
        assert_eq!(t.compactions.len(), 2);
        let c = &t.compactions[0];
        assert_eq!((c.turn, c.replaced, c.summary_turn), (2, (0, 1), Some(3)));
        assert!(!c.opaque);
        assert!(t.turns[3].is_summary);
        assert_eq!(t.turns[3].segments[0].kind, SegmentKind::Summary);
        assert!(matches!(
            t.turns[4].event,
            Some(EventKind::Other(ref n)) if n == "goose.continuation"
        ));
        // The notification is no one's words (no turn); the second summary replaced what
        // followed the first compaction.
        let c = &t.compactions[1];
        assert_eq!((c.turn, c.replaced, c.summary_turn), (7, (3, 6), Some(8)));
    }

    /// Two compactions as Goose leaves them: the second hides the first one's summary and
    /// note from the agent too; both are still read as compactions.
    #[test]
    fn an_earlier_summary_hidden_by_a_later_compaction_is_still_one() {
        let msg = |role: &str, text: &str, person: bool, agent: bool| {
            format!(
                r#"{{"role":"{role}","created":1,"content":[{{"type":"text","text":"{text}"}}],"metadata":{{"userVisible":{person},"agentVisible":{agent}}}}}"#
            )
        };
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
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Event, User, Event, User, Assistant, Event, User, Event, User]
        );
        let found: Vec<_> = t
            .compactions
            .iter()
            .map(|c| (c.turn, c.replaced, c.summary_turn))
            .collect();
        assert_eq!(found, [(2, (0, 1), Some(3)), (7, (3, 6), Some(8))]);
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
