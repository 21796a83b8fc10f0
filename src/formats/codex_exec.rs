//! The event stream of `codex exec --json` (and of the Codex SDK): JSONL thread events, the
//! log a CI job keeps of a headless Codex run.
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
                let call = ToolCall {
                    id: None,
                    name: "todo_list".into(),
                    arguments: d.raw(item).to_string(),
                    span: item.span,
                    result_turn: None,
                };
                let i = self.assistant(span);
                self.traj.turns[i].calls.push(call);
            }
            "command_execution" | "mcp_tool_call" | "collab_tool_call" | "web_search"
            | "file_change" => {
                if !completed {
                    // (Without an id, a later event cannot be told to be this item's.)
                    if id.as_ref().is_none_or(|k| !self.started.contains_key(k)) {
                        let call = self.call(&kind, item, item.span);
                        let i = self.assistant(span);
                        self.traj.turns[i].calls.push(call);
                        let c = self.traj.turns[i].calls.len() - 1;
                        if let Some(k) = id {
                            self.started.insert(k, (i, c));
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
                        let i = self.assistant(Span::new(span.start, cut));
                        self.traj.turns[i].calls.push(call);
                        let c = self.traj.turns[i].calls.len() - 1;
                        if cut < span.end {
                            let mut t =
                                self.result_turn(&kind, item, Span::new(cut, span.end), output);
                            if let Some(r) = t.result.as_mut() {
                                r.call = Some((i, c));
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
