//! The event stream of `codex exec --json` (and of the Codex SDK): JSONL thread events, the
//! log a CI job keeps of a headless Codex run. (Before version 0.44 the stream was the events a
//! rollout keeps as `event_msg`: see `read_legacy`.)
//!
//! - `thread.started {thread_id}` opens a run: each starts a trajectory of its own (item ids
//!   restart with every run, so two runs in one file must not pair with each other);
//! - `turn.started` / `turn.completed` bracket one prompt's work; `turn.failed {error}` and
//!   `error {message}` are the harness's own failures (events, not tool results);
//! - `item.started` / `item.updated` / `item.completed {item}`: the item's kind is its `type`
//!   (`item_type` in early versions). `agent_message` (`assistant_message` early), `reasoning`
//!   and `plan` are the agent's words; `command_execution {command, aggregated_output,
//!   exit_code, status}`, `mcp_tool_call {server, tool, arguments, result, error}`,
//!   `collab_tool_call` and `web_search {query}` are calls whose `item.completed` is the
//!   result; `file_change {changes, status}` is emitted only once done; `todo_list {items:
//!   [{text, completed}]}` is the agent's plan, restated as its steps change.
//!
//! The prompt is a command-line argument, not part of the stream: a run has no user turn.
//! Consecutive agent items make one assistant turn, as in a rollout. A call's started event is
//! its call; its completed event the result. A call seen only completed is cut in two where
//! its output starts, so that the call's turn and the result's never overlap.

use super::{event_turn, open_assistant, push_content, ReadOutput};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;
use crate::text::Text;
use std::collections::HashMap;

/// Whether a record is a thread event of this stream.
pub fn is_event(d: &Doc, rec: &Value) -> bool {
    d.get_str(rec, "type")
        .is_some_and(|t| t.starts_with("item.") || t.starts_with("turn.") || t == "thread.started")
}

pub(super) fn read_events(d: Doc, records: &[(Span, &Value)], mut out: ReadOutput) -> ReadOutput {
    let mut r = Run::new(d, Span::new(0, 0));
    for &(span, rec) in records {
        let ty = d.get_str(rec, "type").unwrap_or_default();
        match ty.as_str() {
            "thread.started" => {
                std::mem::replace(&mut r, Run::new(d, span)).finish(&mut out);
                r.traj.id = d.get_str(rec, "thread_id");
            }
            "turn.started" | "turn.completed" => r.open_assistant = None,
            "turn.failed" | "error" => {
                r.push(event_turn(&d, rec, span, &format!("codex.{ty}")));
            }
            "item.started" | "item.updated" | "item.completed" => {
                if let Some(item) = d.get(rec, "item") {
                    r.item(span, item, ty == "item.completed");
                }
            }
            // `item.plan.delta` streams text its item's completed event holds whole;
            // `request_user_input` is answered by the user outside the stream.
            _ => {}
        }
    }
    r.finish(&mut out);
    out
}

/// Whether a record is an event of the stream `codex exec --json` wrote before version 0.44:
/// `{"id": "0", "msg": {"type": "exec_command_begin", …}}`, the same events a rollout keeps as
/// `event_msg` payloads.
pub fn is_legacy_event(d: &Doc, rec: &Value) -> bool {
    d.get(rec, "id").is_some()
        && d.get(rec, "msg")
            .is_some_and(|m| matches!(m.kind, Kind::Object(_)) && d.get_str(m, "type").is_some())
}

/// The stream of versions before 0.44: a line of the run's configuration, `{"prompt": …}` (the
/// user's task: each prompt after the first starts a run of its own), then events. A call is a
/// `*_begin` event and its result the matching `*_end` (by `call_id`): `exec_command` (the
/// command as an argv, its `stdout`, `stderr` or `aggregated_output`, `exit_code`),
/// `patch_apply` (`changes`; `success`), `mcp_tool_call` (`invocation {server, tool,
/// arguments}`; `result {Ok | Err}`); `web_search_end {query}` is a call with no result the
/// stream keeps; `plan_update {plan: [{step, status}]}` is the agent's plan, as a rollout's
/// `update_plan` call. `agent_message`, `agent_reasoning` are the agent's words; streamed
/// deltas, token counts and diffs are not read.
pub(super) fn read_legacy(d: Doc, records: &[(Span, &Value)], mut out: ReadOutput) -> ReadOutput {
    let mut r = Run::new(d, Span::new(0, 0));
    // Calls begun and not yet ended, by `call_id` ("" without one), oldest first: an id used
    // twice pairs in order.
    let mut begun: HashMap<String, std::collections::VecDeque<(usize, usize)>> = HashMap::new();
    for &(span, rec) in records {
        let prompt = d
            .get(rec, "prompt")
            .filter(|p| d.get(rec, "msg").is_none() && matches!(p.kind, Kind::Str { .. }));
        if let Some(prompt) = prompt {
            if !r.traj.turns.is_empty() {
                std::mem::replace(&mut r, Run::new(d, span)).finish(&mut out);
                begun.clear();
            }
            let mut t = Turn::new(Role::User, span);
            push_content(&d, prompt, SegmentKind::Prose, &mut t);
            r.push(t);
            continue;
        }
        let Some(msg) = d.get(rec, "msg") else {
            continue;
        };
        let ty = d.get_str(msg, "type").unwrap_or_default();
        match ty.as_str() {
            "task_started" | "task_complete" => r.open_assistant = None,
            "agent_message" | "agent_reasoning" => {
                let key = if ty == "agent_message" {
                    "message"
                } else {
                    "text"
                };
                if let Some(text) = d.get(msg, key) {
                    let i = r.assistant(span);
                    push_content(&d, text, SegmentKind::Prose, &mut r.traj.turns[i]);
                }
            }
            "user_message" => {
                if let Some(m) = d.get(msg, "message") {
                    let mut t = Turn::new(Role::User, span);
                    push_content(&d, m, SegmentKind::Prose, &mut t);
                    r.push(t);
                }
            }
            "plan_update" => {
                r.add_call(span, whole_record_call(&d, "update_plan", msg));
            }
            "exec_command_begin" | "patch_apply_begin" | "mcp_tool_call_begin" => {
                let at = r.add_call(span, legacy_call(&d, &ty, msg, msg.span));
                let key = d.get_str(msg, "call_id").unwrap_or_default();
                begun.entry(key).or_default().push_back(at);
            }
            "web_search_end" => {
                r.add_call(span, legacy_call(&d, &ty, msg, msg.span));
            }
            "exec_command_end" | "patch_apply_end" | "mcp_tool_call_end" => {
                let key = d.get_str(msg, "call_id").unwrap_or_default();
                let started = begun.get_mut(&key).and_then(|q| q.pop_front());
                let (call, result_span) = match started {
                    Some(call) => (call, span),
                    // Never seen begun: the record is cut in two where its outcome starts, the
                    // call before, the result after (with no outcome, all call).
                    None => {
                        let cut = OUTCOME_KEYS
                            .iter()
                            .filter_map(|k| d.get(msg, k))
                            .map(|v| v.span.start)
                            .min()
                            .unwrap_or(span.end)
                            .clamp(span.start, span.end);
                        let call =
                            legacy_call(&d, &ty, msg, Span::new(msg.span.start.min(cut), cut));
                        let at = r.add_call(Span::new(span.start, cut), call);
                        if cut == span.end {
                            continue;
                        }
                        (at, Span::new(cut, span.end))
                    }
                };
                let mut t = legacy_result(&d, &ty, msg, result_span);
                if let Some(res) = t.result.as_mut() {
                    res.call = Some(call);
                }
                r.push(t);
            }
            "error" | "stream_error" | "turn_aborted" => {
                r.push(event_turn(&d, msg, span, &format!("codex.{ty}")));
            }
            _ => {}
        }
    }
    r.finish(&mut out);
    out
}

/// A call that is the record itself: a todo list or plan the agent writes whole each time.
fn whole_record_call(d: &Doc, name: &str, v: &Value) -> ToolCall {
    ToolCall {
        id: None,
        name: name.into(),
        arguments: d.raw(v).to_string(),
        span: v.span,
        result_turn: None,
    }
}

/// The fields of a legacy `*_end` that say how the call went.
const OUTCOME_KEYS: [&str; 6] = [
    "aggregated_output",
    "stdout",
    "stderr",
    "result",
    "success",
    "exit_code",
];

/// A legacy `*_begin` (or an `*_end` seen alone) as the call a rollout records.
fn legacy_call(d: &Doc, ty: &str, msg: &Value, span: Span) -> ToolCall {
    let raw = |v: Option<&Value>| v.map_or(String::new(), |v| d.raw(v).to_string());
    let (name, arguments) = if ty.starts_with("exec_command") {
        // (As a rollout's `shell` call: `{"command": ["bash", "-lc", "…"]}`.)
        let arguments = d
            .get(msg, "command")
            .map_or(String::new(), |c| format!("{{\"command\": {}}}", d.raw(c)));
        ("shell".to_string(), arguments)
    } else if ty.starts_with("patch_apply") {
        ("apply_patch".to_string(), raw(d.get(msg, "changes")))
    } else if ty.starts_with("web_search") {
        (
            "web_search".to_string(),
            d.get_str(msg, "query").unwrap_or_default(),
        )
    } else {
        let invocation = d.get(msg, "invocation");
        let field = |k: &str| invocation.and_then(|i| d.get_str(i, k)).unwrap_or_default();
        let (server, tool) = (field("server"), field("tool"));
        let name = if server.is_empty() {
            tool
        } else {
            format!("{server}.{tool}")
        };
        (name, raw(invocation.and_then(|i| d.get(i, "arguments"))))
    };
    ToolCall {
        id: d.get_str(msg, "call_id"),
        name,
        arguments,
        span,
        result_turn: None,
    }
}

/// A legacy `*_end`: the output the model saw, and whether the call failed.
fn legacy_result(d: &Doc, ty: &str, msg: &Value, span: Span) -> Turn {
    let mut t = Turn::new(Role::Tool, span);
    let non_empty = |k: &str| {
        d.get(msg, k)
            .filter(|v| d.str(v).is_some_and(|s| !s.is_empty()))
    };
    // What a command or a patch printed. (`aggregated_output` interleaves both streams; early
    // versions had only these.)
    let streams: &[&str] = if non_empty("aggregated_output").is_some() {
        &["aggregated_output"]
    } else {
        &["stdout", "stderr"]
    };
    if ty != "mcp_tool_call_end" {
        for v in streams.iter().filter_map(|k| non_empty(k)) {
            push_content(d, v, SegmentKind::Output, &mut t);
        }
    }
    let (kind, is_error, exit_code) = match ty {
        "exec_command_end" => {
            // (A number, or one written as a string or with a fraction.)
            let code = d.get(msg, "exit_code").and_then(|v| {
                let text = d.str(v).unwrap_or_else(|| d.raw(v).to_string());
                let n: f64 = text.trim().parse().ok()?;
                (n.fract() == 0.0 && n.abs() < 1e15).then_some(n as i64)
            });
            ("command_execution", code.is_some_and(|c| c != 0), code)
        }
        "patch_apply_end" => {
            let failed = d.get(msg, "success").and_then(|v| d.as_bool(v)) == Some(false);
            ("file_change", failed, None)
        }
        _ => {
            // `result`: `{"Ok": {"content": [blocks], "isError": …}}` or `{"Err": "…"}`.
            let result = d.get(msg, "result");
            let ok = result.and_then(|r| d.get(r, "Ok"));
            let err = result.and_then(|r| d.get(r, "Err"));
            if let Some(content) = ok.and_then(|o| d.get(o, "content")) {
                push_content(d, content, SegmentKind::Output, &mut t);
            }
            if let Some(e) = err {
                push_content(d, e, SegmentKind::Output, &mut t);
            }
            let flagged = ok
                .and_then(|o| d.get(o, "isError").or_else(|| d.get(o, "is_error")))
                .and_then(|v| d.as_bool(v))
                == Some(true);
            ("mcp_tool_call", err.is_some() || flagged, None)
        }
    };
    t.result = Some(ToolResult {
        call_id: d.get_str(msg, "call_id"),
        name: Some(kind.to_string()),
        is_error,
        exit_code,
        ..Default::default()
    });
    t
}

struct Run<'a> {
    d: Doc<'a>,
    traj: Trajectory,
    open_assistant: Option<usize>,
    /// Calls whose started event was read: item id → (turn, call index).
    started: HashMap<String, (usize, usize)>,
}

impl<'a> Run<'a> {
    fn new(d: Doc<'a>, span: Span) -> Run<'a> {
        Run {
            d,
            traj: Trajectory::new(Format::Codex, span),
            open_assistant: None,
            started: HashMap::new(),
        }
    }

    fn finish(self, out: &mut ReadOutput) {
        if !self.traj.turns.is_empty() {
            out.trajectories.push(self.traj);
        }
    }

    fn push(&mut self, t: Turn) -> usize {
        self.open_assistant = None;
        self.traj.span = self.traj.span.cover(t.span);
        self.traj.turns.push(t);
        self.traj.turns.len() - 1
    }

    /// The open assistant turn, extended over `span`, or a new one.
    fn assistant(&mut self, span: Span) -> usize {
        self.traj.span = self.traj.span.cover(span);
        open_assistant(&mut self.traj, &mut self.open_assistant, span)
    }

    /// Adds `call` to the open assistant turn (extended over `span`): where it now is.
    fn add_call(&mut self, span: Span, call: ToolCall) -> (usize, usize) {
        let i = self.assistant(span);
        self.traj.turns[i].calls.push(call);
        (i, self.traj.turns[i].calls.len() - 1)
    }

    fn item(&mut self, span: Span, item: &Value, completed: bool) {
        let d = self.d;
        let kind = d
            .get_str(item, "type")
            .or_else(|| d.get_str(item, "item_type"))
            .unwrap_or_default();
        let id = d.get_str(item, "id");
        match kind.as_str() {
            // Their text is whole only once completed.
            "agent_message" | "assistant_message" | "reasoning" | "plan" if completed => {
                let i = self.assistant(span);
                if let Some(text) = d.get(item, "text") {
                    push_content(&d, text, SegmentKind::Prose, &mut self.traj.turns[i]);
                }
            }
            "todo_list" => {
                // Every state of the list is a write of it: a later one marks steps done.
                self.add_call(span, whole_record_call(&d, "todo_list", item));
            }
            "command_execution" | "mcp_tool_call" | "collab_tool_call" | "web_search"
            | "file_change" => {
                if !completed {
                    // (Without an id, a later event cannot be told to be this item's.)
                    if id.as_ref().is_none_or(|k| !self.started.contains_key(k)) {
                        let at = self.add_call(span, self.call(&kind, item, item.span));
                        if let Some(k) = id {
                            self.started.insert(k, at);
                        }
                    }
                    return;
                }
                let output = self.output(&kind, item);
                match id.and_then(|k| self.started.remove(&k)) {
                    // The stream keeps no result of a web search: its completion says nothing
                    // the model saw (an empty result turn would read as a search that found
                    // nothing).
                    Some(_) if kind == "web_search" => {}
                    Some(call) => {
                        let mut t = self.result_turn(&kind, item, span, output);
                        if let Some(r) = t.result.as_mut() {
                            r.call = Some(call);
                        }
                        self.push(t);
                    }
                    None => {
                        // Never seen started: the call is the record up to where its output
                        // starts, the result the rest (a web search has no output: all call).
                        let cut = output
                            .map_or(span.end, |o| o.span.start)
                            .clamp(span.start, span.end);
                        let call_span = Span::new(item.span.start.min(cut), cut);
                        let call = self.call(&kind, item, call_span);
                        let at = self.add_call(Span::new(span.start, cut), call);
                        if cut < span.end {
                            let mut t =
                                self.result_turn(&kind, item, Span::new(cut, span.end), output);
                            if let Some(r) = t.result.as_mut() {
                                r.call = Some(at);
                            }
                            self.push(t);
                        }
                    }
                }
            }
            "error" => {
                self.push(event_turn(&d, item, span, "codex.error"));
            }
            _ => {}
        }
    }

    /// The call an item makes, named as the rollouts name it (`shell`, `apply_patch`,
    /// `server.tool`) so that its kind is read the same way.
    fn call(&self, kind: &str, item: &Value, span: Span) -> ToolCall {
        let d = self.d;
        let raw = |key: &str| match d.get(item, key) {
            Some(v) if matches!(v.kind, Kind::Str { .. }) => d.str(v).unwrap_or_default(),
            Some(v) => d.raw(v).to_string(),
            None => String::new(),
        };
        let (name, arguments) = match kind {
            "command_execution" => ("shell".to_string(), raw("command")),
            "file_change" => ("apply_patch".to_string(), raw("changes")),
            "web_search" => ("web_search".to_string(), raw("query")),
            "collab_tool_call" => (format!("collab.{}", raw("tool")), raw("prompt")),
            _ => {
                let (server, tool) = (raw("server"), raw("tool"));
                let name = if server.is_empty() {
                    tool
                } else {
                    format!("{server}.{tool}")
                };
                (name, raw("arguments"))
            }
        };
        ToolCall {
            id: d.get_str(item, "id"),
            name,
            arguments,
            span,
            result_turn: None,
        }
    }

    /// Where a completed call's output is: the command's output, the MCP error or result, the
    /// status of a file change.
    fn output<'v>(&self, kind: &str, item: &'v Value) -> Option<&'v Value> {
        let d = self.d;
        let error = d
            .get(item, "error")
            .filter(|e| !matches!(e.kind, Kind::Null));
        match kind {
            // (`output` in some early versions.)
            "command_execution" => d
                .get(item, "aggregated_output")
                .or_else(|| d.get(item, "output")),
            "mcp_tool_call" => error.or_else(|| {
                d.get(item, "result")
                    .filter(|r| !matches!(r.kind, Kind::Null))
            }),
            "collab_tool_call" => d.get(item, "agents_states"),
            "file_change" => d.get(item, "status"),
            _ => None,
        }
    }

    fn result_turn(&self, kind: &str, item: &Value, span: Span, output: Option<&Value>) -> Turn {
        let d = self.d;
        let mut t = Turn::new(Role::Tool, span);
        if let Some(o) = output {
            match &o.kind {
                // An MCP result `{content: [blocks], structured_content}`, an error `{message}`.
                Kind::Object(_) => {
                    let inner = d.get(o, "content").or_else(|| d.get(o, "message"));
                    match inner {
                        Some(v) => push_content(&d, v, SegmentKind::Output, &mut t),
                        // (A collab call's agent states: the JSON as it stands.)
                        None => t.push_text(
                            SegmentKind::Output,
                            Text::plain(d.raw(o).to_string(), o.span.start),
                        ),
                    }
                }
                _ => push_content(&d, o, SegmentKind::Output, &mut t),
            }
        }
        let status = d.get_str(item, "status").unwrap_or_default();
        let exit_code = d
            .get(item, "exit_code")
            .and_then(|v| d.raw(v).parse::<i64>().ok());
        let error = d
            .get(item, "error")
            .is_some_and(|e| !matches!(e.kind, Kind::Null));
        t.result = Some(ToolResult {
            call_id: d.get_str(item, "id"),
            name: Some(kind.to_string()),
            is_error: error
                || matches!(status.as_str(), "failed" | "declined")
                || exit_code.is_some_and(|c| c != 0),
            exit_code,
            ..Default::default()
        });
        t
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::{self, detect};
    use crate::model::{Format, Role};

    fn lines(ls: &[&str]) -> String {
        ls.join("\n") + "\n"
    }

    const RUN: &[&str] = &[
        r#"{"type":"thread.started","thread_id":"th-1"}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Running the tests**"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"I'll run the tests."}}"#,
        r#"{"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"bash -lc 'cargo test'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        r#"{"type":"item.started","item":{"id":"item_3","type":"todo_list","items":[{"text":"Fix the parser","completed":false}]}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"bash -lc 'cargo test'","aggregated_output":"error[E0425]: cannot find value\n","exit_code":101,"status":"failed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_4","type":"file_change","changes":[{"path":"src/parse.rs","kind":"update"}],"status":"completed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"E0425"},"result":null,"error":{"message":"connection refused"},"status":"failed"}}"#,
        r#"{"type":"item.updated","item":{"id":"item_3","type":"todo_list","items":[{"text":"Fix the parser","completed":true}]}}"#,
        r#"{"type":"item.completed","item":{"id":"item_6","type":"web_search","query":"rust E0425"}}"#,
        r#"{"type":"item.started","item":{"id":"item_7","type":"web_search","query":"E0425 docs"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_7","type":"web_search","query":"E0425 docs","action":{"type":"search","query":"E0425 docs"}}}"#,
        r#"{"type":"turn.failed","error":{"message":"stream disconnected"}}"#,
    ];

    /// The stream before version 0.44 (`{"id", "msg"}` events after a configuration line and
    /// the prompt).
    const LEGACY: &[&str] = &[
        r#"{"sandbox":"danger-full-access","approval":"Never","provider":"openai","workdir":"/w","model":"codex-mini-latest"}"#,
        r#"{"prompt":"Fix the failing test in parser.rs"}"#,
        r#"{"id":"1","msg":{"type":"task_started"}}"#,
        r#"{"id":"1","msg":{"type":"agent_reasoning","text":"**Running the tests**"}}"#,
        r#"{"id":"1","msg":{"type":"agent_message","message":"I'll run the tests first."}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"call_1","command":["bash","-lc","cargo test"],"cwd":"/w"}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_output_delta","call_id":"call_1","stream":"stdout","chunk":"Y29t"}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"call_1","stdout":"","stderr":"error[E0425]: cannot find value `x`\n","exit_code":101}}"#,
        r#"{"id":"1","msg":{"type":"plan_update","plan":[{"step":"Fix parser.rs","status":"in_progress"}]}}"#,
        r#"{"id":"1","msg":{"type":"patch_apply_begin","call_id":"call_2","auto_approved":true,"changes":{"/w/src/parser.rs":{"update":{"unified_diff":"@@ -1 +1 @@\n-x\n+y\n"}}}}}"#,
        r#"{"id":"1","msg":{"type":"patch_apply_end","call_id":"call_2","stdout":"Success. Updated the following files:\nM src/parser.rs\n","stderr":"","success":true}}"#,
        r#"{"id":"1","msg":{"type":"mcp_tool_call_begin","call_id":"call_3","invocation":{"server":"docs","tool":"search","arguments":{"q":"E0425"}}}}"#,
        r#"{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"call_3","invocation":{"server":"docs","tool":"search","arguments":{"q":"E0425"}},"duration":{"secs":0,"nanos":1},"result":{"Err":"connection refused"}}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"call_9","aggregated_output":"ok\n","exit_code":0}}"#,
        r#"{"id":"1","msg":{"type":"token_count","input_tokens":100,"output_tokens":20}}"#,
        r#"{"id":"1","msg":{"type":"task_complete","last_agent_message":"done"}}"#,
        r#"{"id":"2","msg":{"type":"error","message":"stream disconnected"}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"dup","command":["a"]}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"dup","command":["b"]}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"dup","stdout":"A out","exit_code":"0"}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"dup","stdout":"B out","exit_code":"1"}}"#,
        r#"{"prompt":null}"#,
        r#"{"prompt":"Now run clippy"}"#,
        r#"{"id":"1","msg":{"type":"agent_message","message":"Running clippy."}}"#,
    ];

    #[test]
    fn a_stream_of_the_versions_before_0_44_reads_as_turns_with_paired_calls() {
        let src = lines(LEGACY);
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Codex));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        assert_eq!(
            out.trajectories.len(),
            2,
            "a second prompt starts a second run"
        );
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [
                User, Assistant, Tool, Assistant, Tool, Assistant, Tool, Assistant, Tool, Event,
                Assistant, Tool, Tool
            ]
        );
        // One call id begun twice pairs in order; an exit code written as a string still counts.
        let dup: Vec<(&str, Option<usize>)> = t.turns[10]
            .calls
            .iter()
            .map(|c| (c.arguments.as_str(), c.result_turn))
            .collect();
        assert_eq!(
            dup,
            [
                (r#"{"command": ["a"]}"#, Some(11)),
                (r#"{"command": ["b"]}"#, Some(12))
            ]
        );
        let r = t.turns[12].result.as_ref().unwrap();
        assert_eq!((r.exit_code, r.is_error), (Some(1), true));
        assert_eq!(
            t.turns[0].segments[0].text.text,
            "Fix the failing test in parser.rs"
        );
        let texts: Vec<&str> = t.turns[1]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(
            texts,
            ["**Running the tests**", "I'll run the tests first."]
        );
        let calls: Vec<(&str, &str, Option<usize>)> = t
            .turns
            .iter()
            .flat_map(|u| &u.calls)
            .map(|c| (c.name.as_str(), c.arguments.as_str(), c.result_turn))
            .collect();
        assert_eq!(
            calls[0],
            (
                "shell",
                r#"{"command": ["bash","-lc","cargo test"]}"#,
                Some(2)
            )
        );
        assert_eq!(calls[1].0, "update_plan");
        assert_eq!(calls[2].0, "apply_patch");
        assert_eq!(calls[2].2, Some(4));
        assert_eq!(calls[3], ("docs.search", r#"{"q":"E0425"}"#, Some(6)));
        // An end never begun: its call is the record up to its output, its result the rest.
        assert_eq!(calls[4], ("shell", "", Some(8)));
        assert!(t.turns[7].span.end <= t.turns[8].span.start);
        let results: Vec<(bool, Option<i64>, String)> = [2, 4, 6, 8]
            .iter()
            .map(|&k| {
                let r = t.turns[k].result.as_ref().unwrap();
                let text: Vec<&str> = t.turns[k]
                    .segments
                    .iter()
                    .map(|s| s.text.text.as_str())
                    .collect();
                (r.is_error, r.exit_code, text.join("|"))
            })
            .collect();
        assert_eq!(
            results,
            [
                (
                    true,
                    Some(101),
                    "error[E0425]: cannot find value `x`\n".to_string()
                ),
                (
                    false,
                    None,
                    "Success. Updated the following files:\nM src/parser.rs\n".to_string()
                ),
                (true, None, "connection refused".to_string()),
                (false, Some(0), "ok\n".to_string()),
            ]
        );
        let second = &out.trajectories[1];
        assert_eq!(second.turns.len(), 2);
        assert_eq!(second.turns[0].segments[0].text.text, "Now run clippy");
        // Spans lie in the file, each turn after the one before.
        for w in t.turns.windows(2) {
            assert!(
                w[0].span.end <= w[1].span.start,
                "{:?}",
                (w[0].span, w[1].span)
            );
        }
    }

    #[test]
    fn an_exec_stream_reads_as_turns_with_paired_calls() {
        let src = lines(RUN);
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Codex));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("th-1"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [Assistant, Tool, Assistant, Tool, Assistant, Tool, Assistant, Event]
        );
        // Reasoning, message, the command started and the todo list: one response.
        let first = &t.turns[0];
        assert_eq!(first.segments.len(), 2);
        let names: Vec<&str> = first.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["shell", "todo_list"]);
        assert_eq!(first.calls[0].arguments, "bash -lc 'cargo test'");
        assert_eq!(first.calls[0].result_turn, Some(1));
        let r = t.turns[1].result.as_ref().unwrap();
        assert_eq!((r.exit_code, r.is_error), (Some(101), true));
        assert_eq!(
            t.turns[1].segments[0].text.text,
            "error[E0425]: cannot find value\n"
        );
        // Seen only completed, a file change is cut in two where its status starts.
        assert_eq!(t.turns[2].calls[0].name, "apply_patch");
        assert_eq!(t.turns[2].calls[0].result_turn, Some(3));
        assert!(t.turns[2].span.end <= t.turns[3].span.start);
        assert!(!t.turns[3].result.as_ref().unwrap().is_error);
        // An MCP error is the result, flagged.
        assert_eq!(t.turns[4].calls[0].name, "docs.search");
        let r = t.turns[5].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(t.turns[5].segments[0].text.text, "connection refused");
        // The todo update and the web search (no output: a call alone) make one turn.
        let names: Vec<&str> = t.turns[6].calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["todo_list", "web_search", "web_search"]);
        assert_eq!(t.turns[6].calls[1].result_turn, None);
        // Seen started, a web search's completion is no result either: the stream keeps none.
        assert_eq!(t.turns[6].calls[2].result_turn, None);
        assert_eq!(t.turns[7].segments[0].text.text, "stream disconnected");
        // Turns never overlap, and each lies in the file.
        for w in t.turns.windows(2) {
            assert!(
                w[0].span.end <= w[1].span.start,
                "{:?}",
                (w[0].span, w[1].span)
            );
        }
    }

    #[test]
    fn the_todo_list_is_a_plan_whose_completed_items_discharge() {
        let src = lines(RUN);
        let out = formats::read(src.as_bytes(), None);
        let lex = crate::extract::lexicon::Lexicon::builtin();
        let a = crate::analysis::analyze(&out.trajectories[0], src.as_bytes(), &lex);
        let step = a
            .facts
            .iter()
            .find(|f| f.text == "Fix the parser")
            .expect("the pending item is a plan step");
        assert_eq!(step.turn, 0);
        assert_eq!(step.status, crate::extract::Status::Discharged);
    }

    #[test]
    fn each_run_is_a_trajectory_and_early_item_shapes_are_read() {
        let src = lines(&[
            r#"{"type":"thread.started","thread_id":"a"}"#,
            r#"{"type":"item.completed","item":{"id":"item_0","item_type":"assistant_message","text":"Done."}}"#,
            r#"{"type":"item.completed","item":{"id":"item_1","item_type":"command_execution","command":"ls","output":"docs\n","exit_code":0,"status":"completed"}}"#,
            r#"{"type":"thread.started","thread_id":"b"}"#,
            r#"{"type":"item.started","item":{"id":"item_0","item_type":"command_execution","command":"make","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        assert_eq!(out.trajectories.len(), 2);
        let (a, b) = (&out.trajectories[0], &out.trajectories[1]);
        assert_eq!(a.turns[0].segments[0].text.text, "Done.");
        // (An early version's `output` for the command's output.)
        assert_eq!(a.turns[1].segments[0].text.text, "docs\n");
        assert_eq!(a.turns[0].calls[0].result_turn, Some(1));
        // A run cut off while its command ran: the call, with no result.
        assert_eq!(b.id.as_deref(), Some("b"));
        assert_eq!(b.turns.len(), 1);
        assert_eq!(b.turns[0].calls[0].arguments, "make");
        assert_eq!(b.turns[0].calls[0].result_turn, None);
        // A stream read from its middle (no thread line) is still this format.
        let tail = lines(&RUN[2..5]);
        assert_eq!(detect::detect(tail.as_bytes()), Some(Format::Codex));
    }
}
