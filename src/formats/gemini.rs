//! Gemini logs, in the two shapes they are kept in:
//!
//! - **Contents**: the Gemini API's `[{role: "user"|"model", parts: [...]}]`, as a JSON array (the
//!   Gemini CLI's `/chat save` checkpoints, an SDK history dumped as JSON) or as a request's
//!   `contents` (with its `systemInstruction`). A part is `text` (a `thought: true` one is
//!   thinking), `functionCall {id?, name, args}`, `functionResponse {id?, name, response}`,
//!   `executableCode` or `codeExecutionResult`; the Python SDK's snake_case names are read too.
//!   A user content's function responses are tool turns, one per response, paired with the
//!   model's calls by `id` where the parts carry one, else in order.
//! - **Gemini CLI sessions** (`~/.gemini/tmp/<project>/chats/session-*.json`):
//!   `{sessionId, messages: [{type: "user"|"gemini"|"info"|"error"|"warning", content, thoughts?,
//!   toolCalls?: [{id, name, args, result: [functionResponse parts], status, resultDisplay?}]}]}`.
//!   A call's result sits inside the message that made it: the message is cut into the
//!   assistant's turns and the results' turns at the places where each result starts.
//!
//! The event stream of the CLI's headless mode (`--output-format stream-json`) is read by
//! `super::gemini_stream`, the append-only chat recordings (`session-*.jsonl`) by
//! `super::gemini_chat`.
//!
//! Error flags: a function response whose `response` holds `error`, a tool call whose `status` is
//! `error`, a code execution whose `outcome` is not `OUTCOME_OK`.

use super::{
    expect_document, jsonl_objects, push_content, push_output, push_raw, ReadOutput, Shape,
};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Gemini);
    if matches!(shape, Shape::JsonLines) {
        // A chat recording or a headless stream: the first record that is either's decides.
        let d = Doc::new(bytes);
        let lines = jsonl_objects(bytes, &mut out);
        let chat = lines
            .iter()
            .find_map(|l| {
                if super::gemini_chat::is_record(&d, &l.value) {
                    Some(true)
                } else {
                    super::gemini_stream::is_event(&d, &l.value).then_some(false)
                }
            })
            .unwrap_or(false);
        return if chat {
            super::gemini_chat::read(bytes, &lines, out)
        } else {
            super::gemini_stream::read(bytes, &lines, out)
        };
    }
    let d = Doc::new(bytes);
    let Some(doc) = expect_document(shape, &mut out) else {
        return out;
    };
    let mut traj = Trajectory::new(Format::Gemini, doc.span);
    match &doc.kind {
        Kind::Array(items) => items.iter().for_each(|c| content(&d, c, &mut traj)),
        Kind::Object(_) => {
            if let Some(messages) = d.get(doc, "messages") {
                traj.id = d.get_str(doc, "sessionId");
                for m in d.items(messages) {
                    session_message(&d, m, &mut traj);
                }
            } else {
                for key in ["systemInstruction", "system_instruction"] {
                    if let Some(s) = d.get(doc, key) {
                        let mut t = Turn::new(Role::System, s.span);
                        for p in parts(&d, s) {
                            if let Some(text) = d.get(p, "text") {
                                push_content(&d, text, SegmentKind::Prose, &mut t);
                            }
                        }
                        traj.turns.push(t);
                    }
                }
                if let Some(contents) = d.get(doc, "contents") {
                    for c in d.items(contents) {
                        content(&d, c, &mut traj);
                    }
                }
            }
        }
        _ => {}
    }
    if traj.turns.is_empty() {
        out.warn(
            doc.span,
            "no Gemini content or session message in this document",
        );
    } else {
        out.trajectories.push(traj);
    }
    out
}

/// Whether a value is a Gemini content (`{role?, parts: [...]}`).
pub fn is_content(d: &Doc, v: &Value) -> bool {
    d.get(v, "parts")
        .is_some_and(|p| matches!(p.kind, Kind::Array(_)))
}

/// Whether a document is a Gemini CLI session (`{sessionId, messages: [{type: "gemini", …}]}`).
pub fn is_session(d: &Doc, v: &Value) -> bool {
    d.get(v, "sessionId").is_some()
        && d.get(v, "messages").is_some_and(|m| {
            d.items(m)
                .iter()
                .any(|x| d.is(x, "type", "gemini") || d.is(x, "type", "user"))
        })
}

fn parts<'v>(d: &Doc, c: &'v Value) -> &'v [Value] {
    d.get(c, "parts").map_or(&[], |p| d.items(p))
}

/// A part's field under its JSON name or the Python SDK's snake_case one.
fn field<'v>(d: &Doc, part: &'v Value, camel: &str, snake: &str) -> Option<&'v Value> {
    d.get(part, camel).or_else(|| d.get(part, snake))
}

/// Arguments as the call wrote them: a JSON object's raw text, or a string's content.
fn arguments(d: &Doc, args: Option<&Value>) -> String {
    match args {
        Some(a) if matches!(a.kind, Kind::Str { .. }) => d.str(a).unwrap_or_default(),
        Some(a) => d.raw(a).to_string(),
        None => String::new(),
    }
}

/// One content of the API's history: the model's turn (its text, thinking and calls), or the
/// user's (its text, and one tool turn per function response).
pub(super) fn content(d: &Doc, c: &Value, traj: &mut Trajectory) {
    let role = d.get_str(c, "role").unwrap_or_else(|| "user".into());
    if matches!(role.as_str(), "model" | "assistant") {
        // A code execution's result comes back inside the model's own content: the content is
        // cut there into the model's turn, the result's turn, and the model's turn after it.
        let all = parts(d, c);
        let mut t = Turn::new(Role::Assistant, Span::new(c.span.start, c.span.start));
        for (k, p) in all.iter().enumerate() {
            let end = all.get(k + 1).map_or(c.span.end, |n| n.span.start);
            if let Some(r) = field(d, p, "codeExecutionResult", "code_execution_result") {
                let next = Turn::new(Role::Assistant, Span::new(end, end));
                traj.turns.push(std::mem::replace(&mut t, next));
                let mut out = Turn::new(Role::Tool, Span::new(p.span.start, end));
                if let Some(o) = d.get(r, "output") {
                    push_content(d, o, SegmentKind::Output, &mut out);
                }
                let outcome = d.get_str(r, "outcome").unwrap_or_default();
                let failed = !outcome.is_empty() && outcome != "OUTCOME_OK";
                out.result = Some(ToolResult {
                    is_error: failed,
                    error_kind: failed.then_some(outcome),
                    ..Default::default()
                });
                traj.turns.push(out);
                continue;
            }
            t.span.end = end;
            if let Some(call) = field(d, p, "functionCall", "function_call") {
                t.calls.push(ToolCall {
                    id: d.get_str(call, "id"),
                    name: d.get_str(call, "name").unwrap_or_default(),
                    arguments: arguments(d, d.get(call, "args")),
                    span: p.span,
                    result_turn: None,
                });
            } else if let Some(code) = field(d, p, "executableCode", "executable_code") {
                t.calls.push(ToolCall {
                    id: None,
                    name: "code_execution".into(),
                    arguments: d.get_str(code, "code").unwrap_or_default(),
                    span: p.span,
                    result_turn: None,
                });
            } else if let Some(text) = d.get(p, "text") {
                push_content(d, text, SegmentKind::Prose, &mut t);
            }
        }
        // (The part of the content after the last result, or all of it when it has none.)
        if all.is_empty() {
            t.span = c.span;
        }
        if t.span.end > t.span.start {
            traj.turns.push(t);
        }
        return;
    }
    // The user's content: its text parts and its function responses, each a turn of its own
    // (their spans are the parts', so they never overlap).
    let all = parts(d, c);
    if all.iter().all(|p| response_part(d, p).is_none()) {
        let role = if role == "system" {
            Role::System
        } else {
            Role::User
        };
        let mut t = Turn::new(role, c.span);
        for p in all {
            if let Some(text) = d.get(p, "text") {
                push_content(d, text, SegmentKind::Prose, &mut t);
            }
        }
        traj.turns.push(t);
        return;
    }
    for p in all {
        match response_part(d, p) {
            Some(r) => traj.turns.push(response_turn(d, r, p.span)),
            None => {
                if let Some(text) = d.get(p, "text") {
                    let mut t = Turn::new(Role::User, p.span);
                    push_content(d, text, SegmentKind::Prose, &mut t);
                    traj.turns.push(t);
                }
            }
        }
    }
}

fn response_part<'v>(d: &Doc, p: &'v Value) -> Option<&'v Value> {
    field(d, p, "functionResponse", "function_response")
}

/// A function response as a tool turn over `span`: its `response` (the Gemini CLI's `output` or
/// `error`, else the whole object) as output.
fn response_turn(d: &Doc, r: &Value, span: Span) -> Turn {
    let mut t = Turn::new(Role::Tool, span);
    let response = d.get(r, "response");
    let error = response
        .and_then(|v| d.get(v, "error"))
        .filter(|e| !matches!(e.kind, Kind::Null));
    let shown = error
        .or_else(|| response.and_then(|v| d.get(v, "output")))
        .or_else(|| response.and_then(|v| d.get(v, "content")));
    match (shown, response) {
        // (A structured response: its JSON text, as a record a later turn may cite.)
        (Some(v), _) => push_output(d, v, &mut t),
        (None, Some(v)) => push_raw(d, v, &mut t),
        (None, None) => {}
    }
    t.result = Some(ToolResult {
        call_id: d.get_str(r, "id"),
        name: d.get_str(r, "name"),
        is_error: error.is_some(),
        exit_code: d
            .get_str(r, "name")
            .filter(|n| n == "run_shell_command")
            .and_then(|_| shell_exit_code(&t)),
        ..Default::default()
    });
    t
}

/// The exit code the shell tool states in its output: the `Exit Code: N` line it appends after
/// what the command printed (only for a code other than 0; `Signal:`, `Background PIDs:` …
/// may follow it), or, with nothing printed, `Command exited with code: N` alone. Read from the
/// end: a line the command printed itself ("echo Exit Code: $?") is not the shell's.
pub(super) fn shell_exit_code(t: &Turn) -> Option<i64> {
    const AFTER: [&str; 3] = ["Signal:", "Background PIDs:", "Process Group PGID:"];
    let text = &t.segments.first()?.text.text;
    let last = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !AFTER.iter().any(|a| l.starts_with(a)))?;
    let rest = last
        .strip_prefix("Exit Code: ")
        .or_else(|| last.strip_prefix("Command exited with code: "))?;
    super::leading_int(rest.trim()).map(|(n, _)| n)
}

/// One message of a Gemini CLI session.
pub(super) fn session_message(d: &Doc, m: &Value, traj: &mut Trajectory) {
    let ty = d.get_str(m, "type").unwrap_or_default();
    let role = match ty.as_str() {
        "user" => Role::User,
        "gemini" => Role::Assistant,
        // `info`, `error`, `warning`: what the CLI itself reported.
        _ => Role::Event,
    };
    let content = d.get(m, "content");
    if role != Role::Assistant {
        let mut t = Turn::new(role, m.span);
        if let Some(c) = content {
            push_content(d, c, SegmentKind::Prose, &mut t);
        }
        if role == Role::User {
            // Newer CLIs record each tool response again as a user message of
            // `functionResponse` parts: the calls' own `result` already holds it.
            let responds =
                content.is_some_and(|c| d.items(c).iter().any(|p| response_part(d, p).is_some()));
            if t.segments.is_empty() && responds {
                return;
            }
            // The CLI's own opening message (the date, the OS, GEMINI.md), and hooks' context.
            const OWN: [&str; 3] = [
                "<session_context>",
                "<hook_context>",
                "This is the Gemini CLI.",
            ];
            let head = t.segments.first().map_or("", |s| s.text.text.trim_start());
            if OWN.iter().any(|p| head.starts_with(p)) {
                t.role = Role::System;
            }
        }
        traj.turns.push(t);
        return;
    }
    // The message in pieces, in the order they lie in the file: prose (its thoughts and its
    // text), each call, each result. Consecutive prose and calls make one assistant turn; each
    // result a tool turn. A turn runs up to where the next one starts.
    enum Piece<'v> {
        Prose(&'v Value),
        Call(&'v Value),
        Result(&'v Value, &'v Value),
    }
    let mut pieces: Vec<(usize, Piece)> = Vec::new();
    if let Some(thoughts) = d.get(m, "thoughts") {
        for th in d.items(thoughts) {
            for key in ["subject", "description"] {
                if let Some(v) = d.get(th, key) {
                    pieces.push((v.span.start, Piece::Prose(v)));
                }
            }
        }
    }
    if let Some(c) = content {
        pieces.push((c.span.start, Piece::Prose(c)));
    }
    if let Some(calls) = d.get(m, "toolCalls") {
        for call in d.items(calls) {
            pieces.push((call.span.start, Piece::Call(call)));
            if let Some(result) = d
                .get(call, "result")
                .filter(|r| !matches!(r.kind, Kind::Null))
            {
                pieces.push((result.span.start, Piece::Result(call, result)));
            }
        }
    }
    pieces.sort_by_key(|(at, _)| *at);
    let mut turn = Turn::new(Role::Assistant, Span::new(m.span.start, m.span.start));
    let mut open = true;
    for (k, (at, piece)) in pieces.iter().enumerate() {
        let end = pieces.get(k + 1).map_or(m.span.end, |(next, _)| *next);
        match piece {
            Piece::Prose(v) => {
                if !open {
                    turn = Turn::new(Role::Assistant, Span::new(*at, *at));
                    open = true;
                }
                push_content(d, v, SegmentKind::Prose, &mut turn);
                turn.span.end = end;
            }
            Piece::Call(call) => {
                if !open {
                    turn = Turn::new(Role::Assistant, Span::new(*at, *at));
                    open = true;
                }
                // The call's own fields, up to where its result starts.
                let call_end = d
                    .get(call, "result")
                    .filter(|r| !matches!(r.kind, Kind::Null))
                    .map_or(call.span.end, |r| r.span.start);
                turn.calls.push(ToolCall {
                    id: d.get_str(call, "id"),
                    name: d.get_str(call, "name").unwrap_or_default(),
                    arguments: arguments(d, d.get(call, "args")),
                    span: Span::new(call.span.start, call_end),
                    result_turn: None,
                });
                turn.span.end = end;
            }
            Piece::Result(call, result) => {
                if open {
                    traj.turns.push(std::mem::replace(
                        &mut turn,
                        Turn::new(Role::Assistant, Span::new(0, 0)),
                    ));
                    open = false;
                }
                let response = d
                    .items(result)
                    .iter()
                    .find_map(|p| response_part(d, p))
                    .or_else(|| response_part(d, result));
                let mut t = match response {
                    Some(r) => response_turn(d, r, Span::new(*at, end)),
                    None => {
                        let mut t = Turn::new(Role::Tool, Span::new(*at, end));
                        push_content(d, result, SegmentKind::Output, &mut t);
                        t
                    }
                };
                let r = t.result.get_or_insert_with(ToolResult::default);
                r.call_id = d.get_str(call, "id");
                r.is_error |= d.is(call, "status", "error");
                traj.turns.push(t);
            }
        }
    }
    if open {
        if pieces.is_empty() {
            turn.span = m.span;
        }
        traj.turns.push(turn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str) -> ReadOutput {
        crate::formats::read(s.as_bytes(), None)
    }

    #[test]
    fn api_contents_read_as_turns_with_calls_and_their_responses() {
        let doc = r#"[
 {"role": "user", "parts": [{"text": "Raise the retry limit to 5."}]},
 {"role": "model", "parts": [{"text": "Thinking it over", "thought": true}, {"text": "I'll search for it."},
   {"functionCall": {"name": "grep", "args": {"pattern": "retry_limit"}}},
   {"functionCall": {"name": "grep", "args": {"pattern": "max_retries"}}}]},
 {"role": "user", "parts": [{"functionResponse": {"name": "grep", "response": {"error": "permission denied"}}},
   {"functionResponse": {"name": "grep", "response": {"output": "client.py:12: max_retries = 3"}}}]},
 {"role": "model", "parts": [{"function_call": {"name": "edit", "args": {"file": "client.py"}}}]},
 {"role": "user", "parts": [{"function_response": {"name": "edit", "response": {"result": "ok"}}}]}
]"#;
        let out = read_str(doc);
        assert_eq!(out.format, Some(Format::Gemini));
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(roles, [User, Assistant, Tool, Tool, Assistant, Tool]);
        assert_eq!(t.turns[1].segments.len(), 2, "thinking and text are prose");
        assert_eq!(t.turns[1].calls.len(), 2);
        // Responses answer the calls in order; an `error` in the response is a failure.
        let first = t.turns[2].result.as_ref().unwrap();
        assert_eq!((first.call, first.is_error), (Some((1, 0)), true));
        assert_eq!(t.turns[2].segments[0].text.text, "permission denied");
        let second = t.turns[3].result.as_ref().unwrap();
        assert_eq!((second.call, second.is_error), (Some((1, 1)), false));
        // snake_case parts (the Python SDK's model_dump) read the same; a structured response
        // is kept as its JSON text.
        assert_eq!(t.turns[4].calls[0].name, "edit");
        assert_eq!(t.turns[5].result.as_ref().unwrap().call, Some((4, 0)));
        assert_eq!(t.turns[5].segments[0].text.text, r#"{"result": "ok"}"#);
        // Each response turn is its own part: the spans do not overlap.
        assert!(t.turns[2].span.end <= t.turns[3].span.start);
    }

    #[test]
    fn code_run_inside_a_model_content_cuts_it_into_turns() {
        let doc = r#"[{"role": "user", "parts": [{"text": "What is 2**10?"}]},
 {"role": "model", "parts": [{"executableCode": {"language": "PYTHON", "code": "print(2**10)"}},
   {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "NameError"}},
   {"text": "The run failed; it is 1024."}]}]"#;
        let t = &read_str(doc).trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        assert_eq!(roles, [User, Assistant, Tool, Assistant]);
        let r = t.turns[2].result.as_ref().unwrap();
        assert_eq!((r.call, r.is_error), (Some((1, 0)), true));
        assert_eq!(
            t.turns[3].segments[0].text.text,
            "The run failed; it is 1024."
        );
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
        for u in &t.turns {
            for s in &u.segments {
                assert!(u.span.start <= s.text.span.start && s.text.span.end <= u.span.end);
            }
        }
    }

    #[test]
    fn a_request_body_reads_its_system_instruction_and_contents() {
        let doc = r#"{"systemInstruction": {"parts": [{"text": "You are a release bot."}]},
            "contents": [{"role": "user", "parts": [{"text": "Tag v2"}]}]}"#;
        let t = &read_str(doc).trajectories[0];
        assert_eq!(t.turns[0].role, Role::System);
        assert_eq!(t.turns[1].segments[0].text.text, "Tag v2");
    }

    /// A Gemini CLI session: a message's calls hold their results.
    const SESSION: &str = r#"{"sessionId": "s-1", "projectHash": "h", "messages": [
 {"id": "1", "timestamp": "t", "type": "user", "content": "Why does the export fail?"},
 {"id": "2", "timestamp": "t", "type": "gemini", "content": "Let me read the script.",
  "thoughts": [{"subject": "Plan", "description": "Read it first.", "timestamp": "t"}],
  "toolCalls": [
   {"id": "read-1", "name": "read_file", "args": {"path": "run.sh"},
    "result": [{"functionResponse": {"id": "read-1", "name": "read_file", "response": {"output": "exit 3"}}}],
    "status": "success", "timestamp": "t"},
   {"id": "shell-2", "name": "run_shell_command", "args": {"command": "./run.sh"},
    "result": [{"functionResponse": {"id": "shell-2", "name": "run_shell_command", "response": {"output": "Exit Code: 3"}}}],
    "status": "error", "timestamp": "t"}]},
 {"id": "3", "timestamp": "t", "type": "info", "content": "Request cancelled."},
 {"id": "4", "timestamp": "t", "type": "gemini", "content": "The script exits with 3 on purpose."}
]}"#;

    #[test]
    fn a_cli_session_is_cut_into_assistant_and_result_turns() {
        let out = read_str(SESSION);
        assert_eq!(out.format, Some(Format::Gemini));
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("s-1"));
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Tool, Assistant, Tool, Event, Assistant]
        );
        // The text and the thoughts are the first turn's prose, with the first call.
        let texts: Vec<&str> = t.turns[1]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(texts, ["Let me read the script.", "Plan", "Read it first."]);
        assert_eq!(t.turns[1].calls[0].name, "read_file");
        // Results pair by id; a call whose status is `error` failed.
        let r = t.turns[2].result.as_ref().unwrap();
        assert_eq!((r.call, r.is_error), (Some((1, 0)), false));
        assert_eq!(t.turns[2].segments[0].text.text, "exit 3");
        let r = t.turns[4].result.as_ref().unwrap();
        assert_eq!((r.call, r.is_error), (Some((3, 0)), true));
        // The turns cut from one message follow each other without overlapping, and every
        // segment and call lies inside its turn.
        for w in t.turns.windows(2) {
            assert!(
                w[0].span.end <= w[1].span.start,
                "{:?} {:?}",
                w[0].span,
                w[1].span
            );
        }
        for u in &t.turns {
            for s in &u.segments {
                assert!(u.span.start <= s.text.span.start && s.text.span.end <= u.span.end);
            }
            for c in &u.calls {
                assert!(u.span.start <= c.span.start && c.span.end <= u.span.end);
            }
        }
    }

    #[test]
    fn other_chat_documents_are_not_gemini() {
        let chat = r#"{"messages": [{"role": "user", "content": "hi"}]}"#;
        assert_eq!(read_str(chat).format, Some(Format::OpenaiChat));
        let anthropic = r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]"#;
        assert_eq!(read_str(anthropic).format, Some(Format::Anthropic));
    }
}
