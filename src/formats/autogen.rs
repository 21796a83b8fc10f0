//! AutoGen AgentChat (0.4 and later) message lists: a `TaskResult` dumped as JSON
//! (`{"messages": [...], "stop_reason": …}`) or its `messages` alone. Each message has a `source`
//! (`user` or an agent's name) and a `type`:
//!
//! - `TextMessage`, `HandoffMessage`, `MultiModalMessage`, `ThoughtEvent`: what the user or an
//!   agent says (a thought is the agent's reasoning);
//! - `ToolCallRequestEvent`: an agent's calls (`content: [{id, name, arguments}]`);
//! - `ToolCallExecutionEvent`: their results (`content: [{content, name, call_id, is_error}]`),
//!   one tool turn each, paired by `call_id`;
//! - `CodeGenerationEvent` / `CodeExecutionEvent`: code an agent wrote and what running it printed
//!   (`result` a string, or in older versions `{output, exit_code}`);
//! - `ToolCallSummaryMessage` (the tool outputs restated for the team), `StopMessage`,
//!   `UserInputRequestedEvent`, `MemoryQueryEvent`, `SelectSpeakerEvent`: the framework's own
//!   events, not words of a participant.

use super::{expect_document, push_content, ReadOutput, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Autogen);
    let d = Doc::new(bytes);
    let Some(doc) = expect_document(shape, &mut out) else {
        return out;
    };
    let messages = match &doc.kind {
        Kind::Array(items) => items.as_slice(),
        _ => d.get(doc, "messages").map_or(&[][..], |m| d.items(m)),
    };
    let mut traj = Trajectory::new(Format::Autogen, doc.span);
    // A code execution answers the latest code generation.
    let mut code_call: Option<(usize, usize)> = None;
    // The turn of the latest ThoughtEvent, while nothing has followed it.
    let mut last_thought: Option<usize> = None;
    for m in messages {
        let ty = d.get_str(m, "type").unwrap_or_default();
        let source = d.get_str(m, "source");
        let speaker = || {
            let role = match source.as_deref() {
                Some("user") => Role::User,
                _ => Role::Assistant,
            };
            let mut t = Turn::new(role, m.span);
            if role == Role::Assistant {
                t.name = source.clone();
            }
            t
        };
        let thought = last_thought.take();
        match ty.as_str() {
            "TextMessage" | "HandoffMessage" | "MultiModalMessage" | "ThoughtEvent" => {
                let mut t = speaker();
                if let Some(c) = d.get(m, "content") {
                    push_content(&d, c, SegmentKind::Prose, &mut t);
                }
                traj.turns.push(t);
                if ty == "ThoughtEvent" {
                    last_thought = Some(traj.turns.len() - 1);
                }
            }
            "ToolCallRequestEvent" => {
                // The text a model wrote with its calls comes first as a ThoughtEvent of the
                // same source: one response, so one turn (its words narrate these calls).
                let mut t = match traj.turns.last() {
                    Some(prev)
                        if thought.is_some_and(|k| k + 1 == traj.turns.len())
                            && prev.name == source =>
                    {
                        let mut prev = traj.turns.pop().expect("a last turn");
                        prev.span = prev.span.cover(m.span);
                        prev
                    }
                    _ => speaker(),
                };
                for c in d.get(m, "content").map_or(&[][..], |c| d.items(c)) {
                    t.calls.push(ToolCall {
                        id: d.get_str(c, "id"),
                        name: d.get_str(c, "name").unwrap_or_default(),
                        arguments: match d.get(c, "arguments") {
                            Some(a) if matches!(a.kind, Kind::Str { .. }) => {
                                d.str(a).unwrap_or_default()
                            }
                            Some(a) => d.raw(a).to_string(),
                            None => String::new(),
                        },
                        span: c.span,
                        result_turn: None,
                    });
                }
                traj.turns.push(t);
            }
            "ToolCallExecutionEvent" => {
                let results = d.get(m, "content").map_or(&[][..], |c| d.items(c));
                if results.is_empty() {
                    traj.turns.push(Turn::new(Role::Event, m.span));
                }
                for r in results {
                    let mut t = Turn::new(Role::Tool, r.span);
                    if let Some(c) = d.get(r, "content") {
                        push_content(&d, c, SegmentKind::Output, &mut t);
                    }
                    t.result = Some(ToolResult {
                        call_id: d.get_str(r, "call_id"),
                        name: d.get_str(r, "name"),
                        is_error: d.flag(r, "is_error"),
                        ..Default::default()
                    });
                    traj.turns.push(t);
                }
            }
            "CodeGenerationEvent" => {
                let mut t = speaker();
                let code = d.get_str(m, "content").unwrap_or_default();
                t.calls.push(ToolCall {
                    id: None,
                    name: "code_execution".into(),
                    arguments: code,
                    span: m.span,
                    result_turn: None,
                });
                traj.turns.push(t);
                code_call = Some((traj.turns.len() - 1, 0));
            }
            "CodeExecutionEvent" => {
                let mut t = Turn::new(Role::Tool, m.span);
                let mut result = ToolResult {
                    call: code_call.take(),
                    ..Default::default()
                };
                match d.get(m, "result") {
                    Some(r) if matches!(r.kind, Kind::Object(_)) => {
                        if let Some(o) = d.get(r, "output") {
                            push_content(&d, o, SegmentKind::Output, &mut t);
                        }
                        result.exit_code = d
                            .get(r, "exit_code")
                            .and_then(|v| d.raw(v).parse::<i64>().ok());
                        result.is_error = result.exit_code.is_some_and(|c| c != 0);
                    }
                    Some(r) => push_content(&d, r, SegmentKind::Output, &mut t),
                    None => {}
                }
                t.result = Some(result);
                traj.turns.push(t);
            }
            _ => {
                // The framework's own events (see the module's doc), and types it may add.
                let mut t = Turn::new(Role::Event, m.span);
                if let Some(c) = d.get(m, "content") {
                    push_content(&d, c, SegmentKind::Prose, &mut t);
                }
                traj.turns.push(t);
            }
        }
    }
    if traj.turns.is_empty() {
        out.warn(doc.span, "no AutoGen message in this document");
    } else {
        out.trajectories.push(traj);
    }
    out
}

/// Whether a value is an AutoGen AgentChat message: a `source` and one of its message types.
pub fn is_message(d: &Doc, v: &Value) -> bool {
    d.get(v, "source").is_some()
        && d.get_str(v, "type").is_some_and(|t| {
            matches!(
                t.as_str(),
                "TextMessage"
                    | "ToolCallRequestEvent"
                    | "ToolCallExecutionEvent"
                    | "ToolCallSummaryMessage"
                    | "HandoffMessage"
                    | "MultiModalMessage"
                    | "ThoughtEvent"
                    | "StopMessage"
                    | "CodeGenerationEvent"
                    | "CodeExecutionEvent"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESULT: &str = r#"{"messages": [
 {"source": "user", "models_usage": null, "metadata": {}, "content": "Weather in Paris, then book a table.", "type": "TextMessage"},
 {"source": "planner", "models_usage": null, "metadata": {}, "content": "I need the weather first.", "type": "ThoughtEvent"},
 {"source": "planner", "models_usage": {"prompt_tokens": 70, "completion_tokens": 15}, "metadata": {}, "content": [{"id": "call_1", "arguments": "{\"city\": \"Paris\"}", "name": "get_weather"}, {"id": "call_2", "arguments": "{\"size\": 2}", "name": "book_table"}], "type": "ToolCallRequestEvent"},
 {"source": "planner", "models_usage": null, "metadata": {}, "content": [{"content": "Error: service unavailable", "name": "get_weather", "call_id": "call_1", "is_error": true}, {"content": "Booked: table 12", "name": "book_table", "call_id": "call_2", "is_error": false}], "type": "ToolCallExecutionEvent"},
 {"source": "planner", "models_usage": null, "metadata": {}, "content": "Error: service unavailable\nBooked: table 12", "type": "ToolCallSummaryMessage"},
 {"source": "coder", "models_usage": null, "metadata": {}, "content": "```python\nprint(1/0)\n```", "type": "CodeGenerationEvent"},
 {"source": "executor", "models_usage": null, "metadata": {}, "result": {"output": "ZeroDivisionError: division by zero", "exit_code": 1, "code_file": null}, "type": "CodeExecutionEvent"}
], "stop_reason": "Maximum number of turns 7 reached."}"#;

    #[test]
    fn a_task_result_reads_as_named_turns_with_paired_calls() {
        let out = crate::formats::read(RESULT.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Autogen));
        let t = &out.trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        assert_eq!(roles, [User, Assistant, Tool, Tool, Event, Assistant, Tool]);
        // The thought and the calls of one response are one turn: the words narrate the calls.
        assert_eq!(t.turns[1].name.as_deref(), Some("planner"));
        assert_eq!(
            t.turns[1].segments[0].text.text,
            "I need the weather first."
        );
        assert_eq!(t.turns[1].calls.len(), 2);
        // Results pair by call id; `is_error` is the flag.
        let r = t.turns[2].result.as_ref().unwrap();
        assert_eq!((r.call, r.is_error), (Some((1, 0)), true));
        let r = t.turns[3].result.as_ref().unwrap();
        assert_eq!((r.call, r.is_error), (Some((1, 1)), false));
        assert_eq!(t.turns[3].segments[0].text.text, "Booked: table 12");
        // The summary restates the outputs for the team: an event, not an agent's words.
        assert_eq!(t.turns[4].role, Event);
        // A code run answers the code written before it, with its exit code.
        let r = t.turns[6].result.as_ref().unwrap();
        assert_eq!(
            (r.call, r.exit_code, r.is_error),
            (Some((5, 0)), Some(1), true)
        );
    }

    #[test]
    fn a_bare_message_list_is_autogen_and_chat_messages_are_not() {
        let list = r#"[{"source": "user", "content": "hi", "type": "TextMessage"}]"#;
        assert_eq!(
            crate::formats::read(list.as_bytes(), None).format,
            Some(Format::Autogen)
        );
        let chat = r#"[{"role": "user", "content": "hi"}]"#;
        assert_eq!(
            crate::formats::read(chat.as_bytes(), None).format,
            Some(Format::OpenaiChat)
        );
    }
}
