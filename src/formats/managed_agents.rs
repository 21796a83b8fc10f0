//! Sessions of Claude Managed Agents (Anthropic's hosted agent harness), as their event stream
//! is saved: one event per line, `{id: "sevt_…", type: "{domain}.{action}", processed_at, …}`,
//! as the sessions API lists or streams them, or each wrapped by an exporter as `{role, kind,
//! content, time, raw: event}`. A JSON list of events, or the list endpoint's `{data: [event]}`,
//! is read the same way.
//!
//! - `user.message {content}` (and `user.define_outcome {description}`, the task with its
//!   definition of done) are the user's; `agent.thread_message_received` is another agent's
//!   message to this one;
//! - `agent.message {content}`, `agent.thinking`, and the calls `agent.tool_use`,
//!   `agent.mcp_tool_use`, `agent.custom_tool_use {name, input}` (the event's `id` is the call's)
//!   are one model response: the agent's consecutive events gather into one assistant turn, as a
//!   `span.model_request_start` opens the next;
//! - `agent.tool_result {tool_use_id}`, `user.tool_result {tool_use_id}` (a self-hosted tool
//!   runner's, or the service's when no runner took the call), `agent.mcp_tool_result
//!   {mcp_tool_use_id}` and `user.custom_tool_result {custom_tool_use_id}`, each with `content`
//!   and `is_error`, are the results;
//! - `system.message {content}` is the harness's;
//! - `agent.thread_context_compacted` is a compaction whose summary the log does not hold;
//! - `session.error` is a failure of the session (a model request that failed), kept as the
//!   harness's words; other `session.*` and `span.*` events (status, usage, timing, outcome
//!   grading) are no turns.

use super::{compaction_turn, open_assistant, push_content, ReadOutput, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

/// The event a record holds: the record itself, or an exporter's wrapper's `raw`.
fn event<'v>(d: &Doc, v: &'v Value) -> Option<&'v Value> {
    let e = d
        .get(v, "raw")
        .filter(|r| matches!(r.kind, Kind::Object(_)))
        .unwrap_or(v);
    let ty = d.get_str(e, "type")?;
    let (domain, action) = ty.split_once('.')?;
    let known =
        matches!(domain, "agent" | "user" | "session" | "span" | "system") && !action.is_empty();
    // (Every persisted event carries when the server recorded it: other logs' `session.start`
    // or `user.message` records with an id and a timestamp are not these.)
    (known && d.get(e, "processed_at").is_some()).then_some(e)
}

/// Whether a JSON Lines record is a Managed Agents session event (or its exporter's wrapper).
pub fn is_event(d: &Doc, v: &Value) -> bool {
    event(d, v).is_some()
}

/// Whether a JSON document is a list of session events (or the list endpoint's `{data: […]}`).
pub fn is_document(d: &Doc, v: &Value) -> bool {
    events_of(d, v).iter().take(5).any(|e| is_event(d, e))
}

fn events_of<'v>(d: &Doc, v: &'v Value) -> &'v [Value] {
    match &v.kind {
        Kind::Array(items) => items,
        _ => d.get(v, "data").map_or(&[][..], |data| d.items(data)),
    }
}

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::ManagedAgents);
    let d = Doc::new(bytes);
    let mut traj = Trajectory::new(Format::ManagedAgents, Span::new(0, bytes.len()));
    let lines;
    let records: Vec<(&Value, Span)> = match shape {
        Shape::JsonLines => {
            lines = super::jsonl_objects(bytes, &mut out);
            lines.iter().map(|l| (&l.value, l.span)).collect()
        }
        _ => {
            let Some(doc) = super::expect_document(shape, &mut out) else {
                return out;
            };
            traj.span = doc.span;
            events_of(&d, doc).iter().map(|e| (e, e.span)).collect()
        }
    };
    // The assistant turn the agent's events of one response gather into.
    let mut open: Option<usize> = None;
    for &(record, span) in &records {
        let Some(e) = event(&d, record) else {
            out.skip_record(
                span,
                "skipped records that are no session events; the first is here".into(),
                true,
            );
            continue;
        };
        let ty = d.get_str(e, "type").unwrap_or_default();
        match ty.as_str() {
            "agent.message" | "agent.thinking" | "agent.thread_message_sent" => {
                let i = open_assistant(&mut traj, &mut open, span);
                match d.get(e, "content") {
                    Some(c) => push_content(&d, c, SegmentKind::Prose, &mut traj.turns[i]),
                    // (Thinking may be kept without its text; a message may not.)
                    None if ty != "agent.thinking" => no_content(&mut out, span, &ty),
                    None => {}
                }
            }
            "agent.tool_use" | "agent.mcp_tool_use" | "agent.custom_tool_use" => {
                let i = open_assistant(&mut traj, &mut open, span);
                traj.turns[i].calls.push(ToolCall {
                    id: d.get_str(e, "id"),
                    name: d.get_str(e, "name").unwrap_or_default(),
                    arguments: d.get(e, "input").map_or(String::new(), |i| d.raw(i).into()),
                    span,
                    result_turn: None,
                });
            }
            "agent.tool_result"
            | "agent.mcp_tool_result"
            | "user.tool_result"
            | "user.custom_tool_result" => {
                open = None;
                let mut t = Turn::new(Role::Tool, span);
                if let Some(c) = d.get(e, "content") {
                    push_content(&d, c, SegmentKind::Output, &mut t);
                }
                t.result = Some(ToolResult {
                    call_id: ["tool_use_id", "mcp_tool_use_id", "custom_tool_use_id"]
                        .iter()
                        .find_map(|k| d.get_str(e, k)),
                    is_error: d
                        .get(e, "is_error")
                        .and_then(|v| d.as_bool(v))
                        .unwrap_or(false),
                    ..Default::default()
                });
                traj.turns.push(t);
            }
            "user.message" | "user.define_outcome" | "agent.thread_message_received" => {
                open = None;
                let mut t = Turn::new(Role::User, span);
                let said = ["content", "description"].map(|k| d.get(e, k));
                for c in said.iter().flatten() {
                    push_content(&d, c, SegmentKind::Prose, &mut t);
                }
                if said.iter().all(Option::is_none) {
                    no_content(&mut out, span, &ty);
                }
                if let Some(rubric) = d.get(e, "rubric") {
                    push_content(&d, rubric, SegmentKind::Prose, &mut t);
                }
                traj.turns.push(t);
            }
            "agent.thread_context_compacted" => {
                open = None;
                traj.turns.push(compaction_turn(
                    span,
                    None,
                    "managed-agents.thread_context_compacted",
                    None,
                ));
            }
            // The harness's words: its message, or what failed.
            "system.message" | "session.error" => {
                open = None;
                let mut t = Turn::new(Role::System, span);
                let said = d
                    .get(e, "content")
                    .or_else(|| d.path(e, &["error", "message"]));
                if let Some(c) = said {
                    push_content(&d, c, SegmentKind::Prose, &mut t);
                }
                traj.turns.push(t);
            }
            // A new model response, or the user stopping the agent: the next words are another
            // turn's.
            "span.model_request_start" | "user.interrupt" => open = None,
            _ if ty.starts_with("session.") || ty.starts_with("span.") => {}
            // (`user.tool_confirmation`: the call's result says how it went.)
            "user.tool_confirmation" => {}
            _ => out.note_once(
                span,
                format!("skipped `{ty}` events, not known to this reader (further ones are skipped silently)"),
            ),
        }
    }
    traj.finish();
    out.trajectories.push(traj);
    out
}

/// A message event that holds no words: what it said is lost, said once per file.
fn no_content(out: &mut ReadOutput, span: Span, ty: &str) {
    out.skip_record(
        span,
        format!(
            "`{ty}` events with no content; what they said is not in the log (the first is here)"
        ),
        true,
    );
}

#[cfg(test)]
mod tests {
    use crate::formats;
    use crate::model::{Format, Role};

    /// An exporter's wrappers around the events: the agent's words and calls of one response
    /// are one turn, each result its own, paired by the call event's id; status, timing and
    /// usage events are no turns.
    #[test]
    fn a_session_s_events_are_its_turns() {
        let log = [
            r#"{"role":"system","kind":"status_running","raw":{"id":"sevt_1","processed_at":"t","type":"session.status_running"}}"#,
            r#"{"role":"user","kind":"message","raw":{"id":"sevt_2","processed_at":"t","type":"user.message","content":[{"type":"text","text":"Fetch the paper and summarize it."}]}}"#,
            r#"{"role":"system","kind":"model_request_start","raw":{"id":"sevt_3","processed_at":"t","type":"span.model_request_start"}}"#,
            r#"{"role":"agent","kind":"message","content":"I'll fetch it.","raw":{"id":"sevt_4","processed_at":"t","type":"agent.message","content":[{"type":"text","text":"I'll fetch it."}]}}"#,
            r#"{"role":"agent","kind":"tool_use","raw":{"id":"sevt_5","processed_at":"t","type":"agent.tool_use","name":"web_fetch","input":{"url":"https://doi.org/10.1/x"}}}"#,
            r#"{"role":"system","kind":"model_request_end","raw":{"id":"sevt_6","processed_at":"t","type":"span.model_request_end","is_error":false}}"#,
            r#"{"role":"agent","kind":"tool_result","raw":{"id":"sevt_7","processed_at":"t","type":"agent.tool_result","tool_use_id":"sevt_5","is_error":true,"content":[{"type":"text","text":"Web fetch error: url_not_accessible"}]}}"#,
            r#"{"role":"system","kind":"model_request_start","raw":{"id":"sevt_8","processed_at":"t","type":"span.model_request_start"}}"#,
            r#"{"role":"agent","kind":"message","raw":{"id":"sevt_9","processed_at":"t","type":"agent.message","content":[{"type":"text","text":"The DOI is not reachable; I will search for a preprint."}]}}"#,
            r#"{"role":"system","kind":"error","raw":{"id":"sevt_10","processed_at":"t","type":"session.error","error":{"type":"model_overloaded_error","message":"Overloaded"}}}"#,
        ]
        .join("\n");
        let out = formats::read(log.as_bytes(), None);
        assert_eq!(out.format, Some(Format::ManagedAgents));
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(roles, [User, Assistant, Tool, Assistant, System]);
        assert_eq!(
            t.turns[0].segments[0].text.text,
            "Fetch the paper and summarize it."
        );
        let call = &t.turns[1].calls[0];
        assert_eq!(
            (call.name.as_str(), call.arguments.as_str()),
            ("web_fetch", r#"{"url":"https://doi.org/10.1/x"}"#)
        );
        assert_eq!(call.result_turn, Some(2));
        let result = t.turns[2].result.as_ref().unwrap();
        assert!(result.is_error);
        // The text is read from the event, at its offsets in the file.
        let seg = &t.turns[2].segments[0];
        assert_eq!(
            &log[seg.text.span.start..seg.text.span.end],
            "Web fetch error: url_not_accessible"
        );
        assert_eq!(
            t.turns[3].segments[0].text.text,
            "The DOI is not reachable; I will search for a preprint."
        );
    }

    /// The sessions API's own listing: bare events in `{data: […]}`; a compaction the log keeps
    /// no summary of; an MCP call, a custom tool's result from the client, a tool runner's
    /// result and the harness's message.
    #[test]
    fn a_listing_of_bare_events_is_read_the_same_way() {
        let doc = r#"{"data": [
 {"id": "sevt_1", "type": "user.message", "processed_at": "t", "content": [{"type": "text", "text": "Open a ticket for the outage."}]},
 {"id": "sevt_2", "type": "agent.mcp_tool_use", "processed_at": "t", "name": "create_issue", "mcp_server_name": "linear", "input": {"title": "Outage"}},
 {"id": "sevt_3", "type": "agent.mcp_tool_result", "processed_at": "t", "mcp_tool_use_id": "sevt_2", "content": [{"type": "text", "text": "LIN-42"}]},
 {"id": "sevt_4", "type": "agent.custom_tool_use", "processed_at": "t", "name": "notify", "input": {"channel": "ops"}},
 {"id": "sevt_5", "type": "user.custom_tool_result", "processed_at": "t", "custom_tool_use_id": "sevt_4", "content": [{"type": "text", "text": "sent"}]},
 {"id": "sevt_6", "type": "agent.thread_context_compacted", "processed_at": "t"},
 {"id": "sevt_7", "type": "agent.message", "processed_at": "t", "content": [{"type": "text", "text": "Filed LIN-42 and told ops."}]},
 {"id": "sevt_8", "type": "agent.tool_use", "processed_at": "t", "name": "bash", "input": {"command": "make"}},
 {"id": "sevt_9", "type": "user.tool_result", "processed_at": "t", "tool_use_id": "sevt_8", "is_error": true, "content": [{"type": "text", "text": "no tool runner took the call"}]},
 {"id": "sevt_10", "type": "system.message", "processed_at": "t", "content": [{"type": "text", "text": "The session resumed."}]}
], "next_page": null}"#;
        let out = formats::read(doc.as_bytes(), None);
        assert_eq!(out.format, Some(Format::ManagedAgents));
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Tool, Assistant, Tool, Event, Assistant, Tool, System]
        );
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        assert_eq!(t.turns[1].calls[0].result_turn, Some(2));
        assert_eq!(t.turns[3].calls[0].result_turn, Some(4));
        // (A runner's result, or the service's when none took the call.)
        assert_eq!(t.turns[6].calls[0].result_turn, Some(7));
        assert!(t.turns[7].result.as_ref().unwrap().is_error);
        assert_eq!(t.compactions.len(), 1);
    }

    /// A message whose words the log does not hold is said, not read as a silent turn.
    #[test]
    fn a_message_without_content_is_reported() {
        let log = [
            r#"{"id":"sevt_1","type":"user.message","processed_at":"t","content":[{"type":"text","text":"Go."}]}"#,
            r#"{"id":"sevt_2","type":"agent.thinking","processed_at":"t"}"#,
            r#"{"id":"sevt_3","type":"agent.message","processed_at":"t"}"#,
        ]
        .join("\n");
        let out = formats::read(log.as_bytes(), None);
        assert_eq!(out.format, Some(Format::ManagedAgents));
        assert_eq!(out.issues.len(), 1, "{:?}", out.issues);
        assert!(out.issues[0].message.contains("agent.message"));
    }

    /// Other logs name their records `session.start` or `user.message` too, with an id and a
    /// timestamp: without `processed_at` they are no session events.
    #[test]
    fn records_without_processed_at_are_not_its_events() {
        let other = [
            r#"{"type":"session.start","id":"a1","timestamp":"2026-01-01T00:00:00Z","data":{"sessionId":"s"}}"#,
            r#"{"type":"user.message","id":"a2","timestamp":"2026-01-01T00:00:01Z","data":{"content":"Fix the build."}}"#,
        ]
        .join("\n");
        let out = formats::read(other.as_bytes(), None);
        assert_ne!(out.format, Some(Format::ManagedAgents));
    }
}
