//! The event stream of Cursor's CLI in print mode (`cursor-agent -p --output-format
//! stream-json`, the binary also named `agent`), the log a CI job keeps of a Cursor run: JSONL
//! events, each with `session_id`
//!
//! - `system/init {cwd, model, permissionMode, apiKeySource}` opens a run;
//! - `user {message: {content: [text blocks]}}` echoes the prompt;
//! - `assistant {message: {content}}`: one line per message between calls; with
//!   `--stream-partial-output` each message streams as deltas (`timestamp_ms`, no
//!   `model_call_id`) and is then printed whole once more (the repeat is dropped);
//! - `thinking/delta {text}` and `thinking/completed`: the model's thinking, in deltas;
//! - `tool_call/started` and `tool_call/completed {call_id, tool_call: {<kind>ToolCall: {args,
//!   result?}}}`, paired by `call_id`. The result is one of `success` (a shell's carries
//!   `exitCode`), `failure`, `error`, `rejected` (and the rarer `timeout`, `permissionDenied`,
//!   `spawnError`): all but a zero-exit success are failures;
//! - `result {subtype, is_error, result}` closes a run that finished; a failed run ends without
//!   it, often with the CLI's error as a plain-text line, read as an event turn;
//! - `connection`, `retry`, `interaction_query`: the CLI's own plumbing, no turns.
//!
//! Consecutive assistant text, thinking and calls make one assistant turn.

use super::{
    cli_message_turn, event_turn, jsonl_records, open_assistant, push_content, push_output,
    push_raw, stream_prose, ReadOutput, Record, Shape,
};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;
use crate::text::Text;
use std::collections::HashMap;

/// Whether a record is an event of this stream: a call event, a thinking event, or the init
/// record (Claude Code's and Amp's, otherwise alike, list their `tools`).
pub fn is_event(d: &Doc, rec: &Value) -> bool {
    let has = |k: &str| d.get(rec, k).is_some();
    match d.get_str(rec, "type").as_deref() {
        Some("tool_call") => has("call_id") && has("tool_call"),
        Some("thinking") => has("subtype") && has("session_id"),
        Some("system") => {
            d.is(rec, "subtype", "init")
                && has("session_id")
                && has("permissionMode")
                && !has("tools")
        }
        // A message line: Claude Code's and Amp's carry `parent_tool_use_id` (or, in session
        // files, `uuid`); a streamed delta carries `timestamp_ms`.
        Some("user" | "assistant") => {
            has("message")
                && has("session_id")
                && (has("timestamp_ms") || has("model_call_id") || !has("parent_tool_use_id"))
                && !has("uuid")
                && !has("sessionId")
        }
        _ => false,
    }
}

pub fn read(bytes: &[u8], _shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Cursor);
    let d = Doc::new(bytes);
    let mut run = Run::new(d, 0);
    for record in jsonl_records(bytes, &mut out) {
        match record {
            Record::Object(line) => run.event(line.span, &line.value, &mut out),
            Record::Text(span) => run.message(cli_message_turn(bytes, span, "cursor.message")),
        }
    }
    run.finish(&mut out);
    out
}

struct Run<'a> {
    d: Doc<'a>,
    traj: Trajectory,
    /// The assistant turn still taking text and calls.
    open: Option<usize>,
    /// The segment (of the open turn) that assistant deltas last streamed into, which the
    /// whole message repeats; and whether the next delta still goes on with it (a call or a
    /// thought in between starts new text).
    streamed: Option<usize>,
    appending: bool,
    /// The segment that thinking deltas are streaming into.
    thinking: Option<usize>,
    /// Calls seen started: call id → (turn, call index).
    started: HashMap<String, (usize, usize)>,
}

impl<'a> Run<'a> {
    /// A run whose first line starts at `start`.
    fn new(d: Doc<'a>, start: usize) -> Run<'a> {
        Run {
            d,
            traj: Trajectory::new(Format::Cursor, Span::new(start, start)),
            open: None,
            streamed: None,
            appending: false,
            thinking: None,
            started: HashMap::new(),
        }
    }

    fn finish(mut self, out: &mut ReadOutput) {
        if let Some(last) = self.traj.turns.last() {
            self.traj.span.end = self.traj.span.end.max(last.span.end);
            out.trajectories.push(self.traj);
        }
    }

    /// A turn of the CLI's own, not JSON.
    fn message(&mut self, t: Turn) {
        self.traj.span.end = t.span.end;
        self.push(t);
    }

    /// A turn of its own: whatever was open is closed.
    fn push(&mut self, t: Turn) -> usize {
        self.close();
        self.traj.turns.push(t);
        self.traj.turns.len() - 1
    }

    fn close(&mut self) {
        self.open = None;
        self.streamed = None;
        self.appending = false;
        self.thinking = None;
    }

    fn assistant(&mut self, span: Span) -> usize {
        open_assistant(&mut self.traj, &mut self.open, span)
    }

    fn event(&mut self, span: Span, rec: &Value, out: &mut ReadOutput) {
        let d = self.d;
        self.traj.span.end = span.end;
        let ty = d.get_str(rec, "type").unwrap_or_default();
        match ty.as_str() {
            // Each run opens with its init: a log that several runs were appended to holds one
            // trajectory per run (call ids are per run).
            "system" if d.is(rec, "subtype", "init") => {
                self.traj.span.end = self.traj.turns.last().map_or(span.start, |t| t.span.end);
                // (What the CLI printed before its first init, stderr merged into the log,
                // belongs to this run.)
                let preamble =
                    self.traj.id.is_none() && self.traj.turns.iter().all(|t| t.role == Role::Event);
                if !preamble {
                    std::mem::replace(self, Run::new(d, span.start)).finish(out);
                }
                self.traj.id = d.get_str(rec, "session_id");
            }
            "user" => {
                let mut t = Turn::new(Role::User, span);
                if let Some(c) = d.path(rec, &["message", "content"]) {
                    push_content(&d, c, SegmentKind::Prose, &mut t);
                }
                self.push(t);
            }
            "assistant" => self.words(span, rec),
            "thinking" => {
                let i = self.assistant(span);
                self.appending = false;
                match d.get(rec, "text").and_then(|t| d.text(t)) {
                    Some(text) => {
                        let turn = &mut self.traj.turns[i];
                        self.thinking = Some(stream_prose(turn, self.thinking, text));
                    }
                    // `completed`: the next thinking is a new one.
                    None => self.thinking = None,
                }
            }
            "tool_call" => self.tool_call(span, rec),
            "result" if !d.is(rec, "subtype", "success") || d.flag(rec, "is_error") => {
                let mut t = event_turn(&d, rec, span, "cursor.result.error");
                if let Some(r) = d.get(rec, "result") {
                    push_content(&d, r, SegmentKind::Prose, &mut t);
                }
                self.push(t);
            }
            "result" => self.close(),
            "error" => {
                let t = event_turn(&d, rec, span, "cursor.error");
                self.push(t);
            }
            _ => {}
        }
    }

    /// An assistant line: a delta extends the text streaming in; a whole message that repeats
    /// what streamed is dropped; any other whole message is text of its own.
    fn words(&mut self, span: Span, rec: &Value) {
        let d = self.d;
        let delta = d.get(rec, "timestamp_ms").is_some() && d.get(rec, "model_call_id").is_none();
        let Some(content) = d.path(rec, &["message", "content"]) else {
            return;
        };
        let mut texts: Vec<Text> = Vec::new();
        match &content.kind {
            Kind::Str { .. } => texts.extend(d.text(content)),
            _ => {
                for b in d.items(content) {
                    if let Some(t) = d.get(b, "text").and_then(|t| d.text(t)) {
                        texts.push(t);
                    }
                }
            }
        }
        let i = self.assistant(span);
        self.thinking = None;
        let turn = &mut self.traj.turns[i];
        if !delta {
            let whole: String = texts.iter().map(|t| t.text.as_str()).collect();
            let repeats = self
                .streamed
                .take()
                .and_then(|s| turn.segments.get(s))
                .is_some_and(|seg| seg.text.text.trim() == whole.trim());
            self.appending = false;
            if !repeats {
                for t in texts {
                    turn.push_text(SegmentKind::Prose, t);
                }
            }
            return;
        }
        for text in texts {
            let current = self.streamed.filter(|_| self.appending);
            self.streamed = Some(stream_prose(turn, current, text));
            self.appending = true;
        }
    }

    fn tool_call(&mut self, span: Span, rec: &Value) {
        let d = self.d;
        let Some(payload) = d.get(rec, "tool_call") else {
            return;
        };
        // The call is the one field whose key names its kind (`shellToolCall`).
        let Some((kind, body)) = d.fields(payload).iter().find_map(|(k, v)| {
            let k = d.key_str(k);
            k.strip_suffix("ToolCall")
                .filter(|name| !name.is_empty() && matches!(v.kind, Kind::Object(_)))
                .map(|name| (name.to_string(), v))
        }) else {
            return;
        };
        let id = d.get_str(rec, "call_id");
        let result = d.get(body, "result");
        if d.is(rec, "subtype", "started") {
            // (A second start of the same call is not a second call.)
            if id.as_ref().is_some_and(|k| self.started.contains_key(k)) {
                return;
            }
            let call = self.call(&kind, body, body.span, id.clone());
            let i = self.assistant(span);
            // (The message the call follows may still be repeated whole after it.)
            self.appending = false;
            self.thinking = None;
            self.traj.turns[i].calls.push(call);
            if let Some(k) = id {
                self.started
                    .insert(k, (i, self.traj.turns[i].calls.len() - 1));
            }
            return;
        }
        if !d.is(rec, "subtype", "completed") {
            return;
        }
        let paired = id.as_ref().and_then(|k| self.started.remove(k));
        let (call, result_span) = match paired {
            Some(call) => (call, span),
            None => {
                // Seen only completed: the call is the line up to its result, the result the rest.
                let cut = result
                    .map_or(span.end, |r| r.span.start)
                    .clamp(span.start, span.end);
                let call_span = Span::new(body.span.start.min(cut), cut);
                let call = self.call(&kind, body, call_span, id.clone());
                let i = self.assistant(Span::new(span.start, cut));
                self.traj.turns[i].calls.push(call);
                (
                    (i, self.traj.turns[i].calls.len() - 1),
                    Span::new(cut, span.end),
                )
            }
        };
        if result_span.is_empty() {
            return;
        }
        let mut t = Turn::new(Role::Tool, result_span);
        let mut r = ToolResult {
            call_id: id,
            call: Some(call),
            name: Some(kind.clone()),
            ..Default::default()
        };
        if let Some(result) = result {
            self.outcome(&kind, result, &mut t, &mut r);
        }
        t.result = Some(r);
        self.push(t);
    }

    /// The call, named by its kind (`shell`, `read`, `grep`, an MCP tool as `server.tool`).
    /// A shell call keeps its command and description: the rest of its arguments is the CLI's
    /// bookkeeping (parse trees, deny lists, thresholds), words no obligation is about.
    fn call(&self, kind: &str, body: &Value, span: Span, id: Option<String>) -> ToolCall {
        let d = self.d;
        let args = d.get(body, "args");
        let name = match kind {
            "mcp" => {
                let tool =
                    args.and_then(|a| d.get_str(a, "toolName").or_else(|| d.get_str(a, "name")));
                match (args.and_then(|a| d.get_str(a, "providerIdentifier")), tool) {
                    (Some(p), Some(t)) => format!("{p}.{t}"),
                    (None, Some(t)) => t,
                    _ => "mcp".to_string(),
                }
            }
            _ => kind.to_string(),
        };
        let arguments = match (kind, args) {
            ("shell", Some(a)) => {
                let mut o = serde_json::Map::new();
                for key in ["command", "workingDirectory", "description"] {
                    if let Some(v) = d.get_str(a, key).filter(|v| !v.is_empty()) {
                        o.insert(key.into(), v.into());
                    }
                }
                serde_json::Value::Object(o).to_string()
            }
            (_, Some(a)) => d.raw(a).to_string(),
            (_, None) => String::new(),
        };
        ToolCall {
            id,
            name,
            arguments,
            span,
            result_turn: None,
        }
    }

    /// What a completed call gave: its output as text and whether it failed.
    fn outcome(&self, kind: &str, result: &Value, t: &mut Turn, r: &mut ToolResult) {
        let d = self.d;
        // One key holds the outcome (`isBackground` and timings sit beside it): a known one,
        // else the first that holds an object.
        const OUTCOMES: [&str; 8] = [
            "success",
            "failure",
            "error",
            "rejected",
            "timeout",
            "permissionDenied",
            "spawnError",
            "partialResult",
        ];
        let fields: Vec<(String, &Value)> = d
            .fields(result)
            .iter()
            .map(|(k, v)| (d.key_str(k), v))
            .collect();
        let Some((key, value)) = fields
            .iter()
            .find(|(k, _)| OUTCOMES.contains(&k.as_str()))
            .or_else(|| {
                fields
                    .iter()
                    .find(|(_, v)| matches!(v.kind, Kind::Object(_)))
            })
            .map(|(k, v)| (k.clone(), *v))
        else {
            return;
        };
        if matches!(value.kind, Kind::Null) {
            r.is_error = key != "success";
            return;
        }
        let field = |names: &[&str]| names.iter().find_map(|n| d.get(value, n));
        // (A failure's text is in the first of its fields that says something.)
        let said = |names: &[&str]| {
            names
                .iter()
                .filter_map(|n| d.get(value, n))
                .find(|v| d.str(v).is_none_or(|s| !s.trim().is_empty()))
        };
        let exit_code = field(&["exitCode"]).and_then(|v| d.as_i64(v));
        r.exit_code = exit_code;
        let output = match key.as_str() {
            "success" => {
                // (An MCP tool's own failure is a success of the call that says `isError`.)
                r.is_error = exit_code.is_some_and(|c| c != 0)
                    || field(&["isError"]).and_then(|v| d.as_bool(v)) == Some(true);
                match kind {
                    // (`files: []` is a glob that matched nothing, an empty `workspaceResults` a
                    // grep.)
                    "glob" => field(&["files"]),
                    "grep" => match field(&["workspaceResults"]) {
                        Some(w) if empty_container(w) => return,
                        w => w,
                    },
                    _ => field(&[
                        "interleavedOutput",
                        "stdout",
                        "content",
                        "output",
                        "message",
                        "text",
                    ]),
                }
            }
            _ => {
                r.is_error = true;
                r.error_kind = Some(key.clone());
                said(&[
                    "interleavedOutput",
                    "stderr",
                    "stdout",
                    "errorMessage",
                    "error",
                    "message",
                    "reason",
                ])
            }
        };
        match output {
            // (No text: the outcome as it stands, grep's matches, a rejection without a reason.)
            Some(o) => push_output(&d, o, t),
            None => push_raw(&d, value, t),
        }
    }
}

fn empty_container(v: &Value) -> bool {
    match &v.kind {
        Kind::Array(a) => a.is_empty(),
        Kind::Object(o) => o.is_empty(),
        Kind::Null => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::{self, detect};
    use crate::model::{Format, Role};

    const S: &str = r#""session_id":"c-1""#;

    fn stream(lines: &[&str]) -> String {
        lines.join("\n").replace("SID", S) + "\n"
    }

    #[test]
    fn a_partial_output_stream_reads_as_turns_with_deltas_joined_and_repeats_dropped() {
        let src = stream(&[
            r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w",SID,"model":"Auto","permissionMode":"default"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Fix the date test."}]},SID}"#,
            r#"{"type":"thinking","subtype":"delta","text":"Run the",SID,"timestamp_ms":1}"#,
            r#"{"type":"thinking","subtype":"delta","text":" tests.",SID,"timestamp_ms":2}"#,
            r#"{"type":"thinking","subtype":"completed",SID,"timestamp_ms":3}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll run"}]},SID,"timestamp_ms":4}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":" the tests."}]},SID,"timestamp_ms":5}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll run the tests."}]},SID,"model_call_id":"m-0","timestamp_ms":6}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"call-1\nfc_1","tool_call":{"shellToolCall":{"args":{"command":"pytest -q","workingDirectory":"","parsingResult":{"parsingFailed":false},"timeoutBehavior":"TIMEOUT_BEHAVIOR_BACKGROUND"}},"toolCallId":"call-1\nfc_1"},"model_call_id":"m-0",SID,"timestamp_ms":7}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"call-2","tool_call":{"readToolCall":{"args":{"path":"/w/CHANGELOG.md"}}},SID,"timestamp_ms":8}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"call-1\nfc_1","tool_call":{"shellToolCall":{"args":{"command":"pytest -q"},"result":{"failure":{"command":"pytest -q","exitCode":1,"stdout":"","stderr":"","interleavedOutput":"1 failed, 3 passed"},"isBackground":false}}},SID,"timestamp_ms":9}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"call-2","tool_call":{"readToolCall":{"result":{"error":{"errorMessage":"File not found: /w/CHANGELOG.md"}}}},SID,"timestamp_ms":10}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"One test fails."}]},SID,"timestamp_ms":11}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"One test fails."}]},SID}"#,
            r#"{"type":"result","subtype":"success","duration_ms":10,"is_error":false,"result":"I'll run the tests.One test fails.",SID}"#,
        ]);
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Cursor));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("c-1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [User, Assistant, Tool, Tool, Assistant]);
        // Thinking and text, each joined from its deltas; the whole repeat is dropped.
        let texts: Vec<&str> = t.turns[1]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(texts, ["Run the tests.", "I'll run the tests."]);
        let final_texts: Vec<&str> = t.turns[4]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(final_texts, ["One test fails."]);
        // The shell call keeps its command, not the CLI's bookkeeping.
        let calls = &t.turns[1].calls;
        assert_eq!(calls[0].name, "shell");
        assert_eq!(calls[0].arguments, r#"{"command":"pytest -q"}"#);
        assert!(!calls[0].arguments.contains("TIMEOUT"));
        assert_eq!(calls[1].name, "read");
        // Results pair by call id (a newline inside it included) and carry their failures.
        assert_eq!(calls[0].result_turn, Some(2));
        assert_eq!(calls[1].result_turn, Some(3));
        let r = t.turns[2].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.exit_code, Some(1));
        assert_eq!(t.turns[2].segments[0].text.text, "1 failed, 3 passed");
        let r = t.turns[3].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("error"));
        assert_eq!(
            t.turns[3].segments[0].text.text,
            "File not found: /w/CHANGELOG.md"
        );
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
    }

    #[test]
    fn whole_messages_without_partial_output_are_each_kept() {
        let src = stream(&[
            r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w",SID,"model":"Auto","permissionMode":"default"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Checking."}]},SID}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"globToolCall":{"args":{"globPattern":"**/*.toml"}}},SID}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"a","tool_call":{"globToolCall":{"args":{"globPattern":"**/*.toml"},"result":{"success":{"pattern":"**/*.toml","files":[],"totalFiles":0}}}},SID}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Checking."}]},SID}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        let t = &out.trajectories[0];
        assert_eq!(t.turns.len(), 3);
        // A glob that matched nothing gives no output; a success is no failure.
        assert!(t.turns[1].segments.is_empty());
        assert!(!t.turns[1].result.as_ref().unwrap().is_error);
        // The same words again, after a call, are a new message (nothing streamed them).
        assert_eq!(t.turns[2].segments[0].text.text, "Checking.");
    }

    #[test]
    fn rejections_calls_seen_only_completed_and_a_failed_runs_last_words() {
        let src = stream(&[
            r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w",SID,"model":"Auto","permissionMode":"default"}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"r","tool_call":{"shellToolCall":{"args":{"command":"rm -rf build"}}},SID}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"r","tool_call":{"shellToolCall":{"result":{"rejected":{"command":"rm -rf build","workingDirectory":"/w","reason":"","isReadonly":false}}}},SID}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"t","tool_call":{"taskToolCall":{"args":{"prompt":"find the config"},"result":{"success":{"output":"config.toml"}}}},SID}"#,
            r#"{"type":"connection","subtype":"reconnecting",SID,"timestamp_ms":1,"attempt":1}"#,
            "RetriableError: [unavailable] connection lost",
        ]);
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Assistant, Tool, Assistant, Tool, Event]);
        let r = t.turns[1].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("rejected"));
        // (No reason given: the rejection as it stands.)
        assert!(t.turns[1].segments[0].text.text.contains("rm -rf build"));
        // Seen only completed, the task call is cut in two where its result starts.
        assert_eq!(t.turns[2].calls[0].name, "task");
        assert_eq!(t.turns[2].calls[0].result_turn, Some(3));
        assert!(t.turns[2].span.end <= t.turns[3].span.start);
        assert_eq!(t.turns[3].segments[0].text.text, "config.toml");
        assert_eq!(
            t.turns[4].segments[0].text.text,
            "RetriableError: [unavailable] connection lost"
        );
    }

    #[test]
    fn a_log_without_its_init_or_under_a_line_of_stderr_is_still_cursors() {
        let body = stream(&[
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Run ls."}]},SID}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Listing."}]},SID,"timestamp_ms":1}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"lsToolCall":{"args":{"path":"/w"}}},SID}"#,
        ]);
        assert_eq!(detect::detect(body.as_bytes()), Some(Format::Cursor));
        let init = r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"c-1","model":"Auto","permissionMode":"default"}"#;
        let src = format!("Warning: a newer version is available\n{init}\n{body}");
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Cursor));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        // The warning belongs to the run it precedes.
        assert_eq!(out.trajectories.len(), 1);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("c-1"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::Event, Role::User, Role::Assistant]);
    }

    #[test]
    fn thinking_or_a_call_between_deltas_starts_new_text_and_repeats_still_drop() {
        let src = stream(&[
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Alpha "}]},SID,"timestamp_ms":1}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"beta."}]},SID,"timestamp_ms":2}"#,
            r#"{"type":"thinking","subtype":"delta","text":"Hmm",SID,"timestamp_ms":3}"#,
            r#"{"type":"thinking","subtype":"completed",SID,"timestamp_ms":4}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Gamma."}]},SID,"timestamp_ms":5}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"readToolCall":{"args":{"path":"/w/a"}}},SID}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"a","tool_call":{"readToolCall":{"args":{"path":"/w/a"}}},SID}"#,
            r#"{"type":"tool_call","subtype":"updated","call_id":"a","tool_call":{"readToolCall":{"args":{"path":"/w/a"}}},SID}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Gamma."}]},SID,"model_call_id":"m","timestamp_ms":6}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"a","tool_call":{"readToolCall":{"result":{"localExecutionTimeMs":4,"success":{"content":"x"}}}},SID}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        let t = &out.trajectories[0];
        let texts: Vec<&str> = t.turns[0]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(texts, ["Alpha beta.", "Hmm", "Gamma."]);
        // One call, however often it is said to start; the outcome is the known key.
        assert_eq!(t.turns[0].calls.len(), 1);
        assert_eq!(t.turns[0].calls[0].id.as_deref(), Some("a"));
        let r = t.turns[1].result.as_ref().unwrap();
        assert!(!r.is_error);
        assert_eq!(t.turns[1].segments[0].text.text, "x");
    }

    #[test]
    fn a_line_that_is_not_utf8_keeps_exact_offsets() {
        let mut src = stream(&[
            r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w",SID,"model":"Auto","permissionMode":"default"}"#,
        ])
        .into_bytes();
        src.extend_from_slice(b"Error: \xff\xfe build failed");
        let out = formats::read(&src, Some(Format::Cursor));
        let t = &out.trajectories[0];
        let turn = &t.turns[0];
        assert!(turn.span.end <= src.len());
        for seg in &turn.segments {
            let raw = seg.text.raw_span(0, seg.text.text.len());
            assert!(raw.end <= turn.span.end);
            assert_eq!(&src[raw.start..raw.end], seg.text.text.as_bytes());
        }
        let texts: Vec<&str> = turn.segments.iter().map(|s| s.text.text.as_str()).collect();
        assert_eq!(texts, ["Error: ", " build failed"]);
    }

    #[test]
    fn claude_codes_init_lists_its_tools_and_stays_claude_code() {
        let claude = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none"}"#;
        assert_eq!(detect::detect(claude.as_bytes()), Some(Format::ClaudeCode));
    }
}
