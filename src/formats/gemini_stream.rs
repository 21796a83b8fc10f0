//! The event stream of Gemini CLI's headless mode (`gemini -p … --output-format stream-json`),
//! the log a CI job keeps of a Gemini CLI run: JSONL events
//!
//! - `init {session_id, model}`;
//! - `message {role: "user"|"assistant", content, delta?}`: an assistant message streams in
//!   chunks (`delta: true`), joined back into one text whose offsets still map to each chunk;
//! - `tool_use {tool_name, tool_id, parameters}` and `tool_result {tool_id, status, output?,
//!   error?: {type, message}}`, paired by `tool_id` (`status: "error"` flags the failure);
//! - `error {severity, message}` and a closing `result {status, error?, stats}`: the CLI's own,
//!   event turns (a successful result, only statistics, is no turn).
//!
//! Consecutive assistant chunks and calls make one assistant turn.

use super::{event_turn, open_assistant, push_content, stream_prose, Line, ReadOutput};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

/// Whether a record is an event of this stream (types other formats do not use, with the
/// fields that make them this one's).
pub fn is_event(d: &Doc, rec: &Value) -> bool {
    let has = |k: &str| d.get(rec, k).is_some();
    match d.get_str(rec, "type").as_deref() {
        Some("init") => has("session_id") && has("model"),
        Some("tool_use") => has("tool_name") && has("tool_id"),
        Some("tool_result") => has("tool_id") && has("status"),
        _ => false,
    }
}

pub(super) fn read(bytes: &[u8], lines: &[Line], mut out: ReadOutput) -> ReadOutput {
    let d = Doc::new(bytes);
    let mut traj = Trajectory::new(Format::Gemini, Span::new(0, bytes.len()));
    // The assistant turn still taking chunks and calls, and whether the last event was a chunk
    // of its text (the next one continues it).
    let mut open: Option<usize> = None;
    let mut chunk_open = false;
    // The ids of the shell tool's calls: only its results state an exit code.
    let mut shell_calls: std::collections::HashSet<String> = std::collections::HashSet::new();
    for line in lines {
        let (span, rec) = (line.span, &line.value);
        let ty = d.get_str(rec, "type").unwrap_or_default();
        let continues_text = std::mem::take(&mut chunk_open);
        match ty.as_str() {
            // Each run of the CLI starts with its own `init`: a log several runs were appended
            // to holds one trajectory per run. User messages just before it (a wrapper's task
            // prompt, written before it starts the CLI) open the run it starts.
            "init" => {
                open = None;
                // (A run's own prompt, the message after its init, stays with it, even in a
                // run that ended there.)
                let own = traj
                    .turns
                    .iter()
                    .rposition(|t| t.role != Role::User)
                    .map_or(0, |k| k + 1)
                    .max(usize::from(traj.id.is_some()));
                if own > 0 && !traj.turns.is_empty() {
                    let mut next = Trajectory::new(Format::Gemini, Span::new(0, bytes.len()));
                    next.turns = traj.turns.split_off(own);
                    out.trajectories.push(std::mem::replace(&mut traj, next));
                }
                traj.id = d.get_str(rec, "session_id");
            }
            "message" if d.is(rec, "role", "assistant") => {
                let i = open_assistant(&mut traj, &mut open, span);
                let turn = &mut traj.turns[i];
                if let Some(text) = d.get(rec, "content").and_then(|c| d.text(c)) {
                    let last =
                        turn.segments.len().checked_sub(1).filter(|&k| {
                            continues_text && turn.segments[k].kind == SegmentKind::Prose
                        });
                    stream_prose(turn, last, text);
                    // (Only text just written is what the next chunk continues.)
                    chunk_open = true;
                }
            }
            "message" => {
                open = None;
                let mut t = Turn::new(Role::User, span);
                if let Some(c) = d.get(rec, "content") {
                    push_content(&d, c, SegmentKind::Prose, &mut t);
                }
                traj.turns.push(t);
            }
            "tool_use" => {
                if d.is(rec, "tool_name", "run_shell_command") {
                    if let Some(id) = d.get_str(rec, "tool_id") {
                        shell_calls.insert(id);
                    }
                }
                let call = ToolCall {
                    id: d.get_str(rec, "tool_id"),
                    name: d.get_str(rec, "tool_name").unwrap_or_default(),
                    arguments: d.get(rec, "parameters").map_or_else(String::new, |p| {
                        match p.kind {
                            Kind::Str { .. } => d.str(p).unwrap_or_default(),
                            _ => d.raw(p).to_string(),
                        }
                    }),
                    span,
                    result_turn: None,
                };
                let i = open_assistant(&mut traj, &mut open, span);
                traj.turns[i].calls.push(call);
            }
            "tool_result" => {
                open = None;
                let mut t = Turn::new(Role::Tool, span);
                let error = d
                    .get(rec, "error")
                    .filter(|e| !matches!(e.kind, Kind::Null));
                let output = d
                    .get(rec, "output")
                    .or_else(|| error.and_then(|e| d.get(e, "message")));
                if let Some(o) = output {
                    push_content(&d, o, SegmentKind::Output, &mut t);
                }
                let call_id = d.get_str(rec, "tool_id");
                // (The result names no tool: its call does.)
                let shell = call_id.as_ref().is_some_and(|id| shell_calls.contains(id));
                // `output` is the CLI's display of the result, not what the model read: empty
                // for a file read, absent for an edit's diff. Only the shell's display is its
                // output.
                let shown_nothing = t.segments.iter().all(|s| s.text.text.trim().is_empty());
                t.result = Some(ToolResult {
                    output_unrecorded: !shell && shown_nothing,
                    call_id,
                    is_error: d.is(rec, "status", "error") || error.is_some(),
                    error_kind: error.and_then(|e| d.get_str(e, "type")),
                    exit_code: shell.then(|| super::gemini::shell_exit_code(&t)).flatten(),
                    ..Default::default()
                });
                traj.turns.push(t);
            }
            "error" => {
                open = None;
                traj.turns.push(event_turn(&d, rec, span, "gemini.error"));
            }
            "result" if !d.is(rec, "status", "success") => {
                open = None;
                traj.turns
                    .push(event_turn(&d, rec, span, "gemini.result.error"));
            }
            "result" => open = None,
            // A successful result (statistics only), and types a later version may add.
            _ => {}
        }
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::formats::{self, detect};
    use crate::model::{Format, Role};

    const RUN: &str = r#"{"type":"init","timestamp":"2026-01-05T10:00:00.000Z","session_id":"g-1","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-01-05T10:00:00.001Z","role":"user","content":"Fix the failing date test."}
{"type":"message","timestamp":"2026-01-05T10:00:01.000Z","role":"assistant","content":"I'll run the","delta":true}
{"type":"message","timestamp":"2026-01-05T10:00:01.100Z","role":"assistant","content":" tests first.","delta":true}
{"type":"tool_use","timestamp":"2026-01-05T10:00:01.200Z","tool_name":"run_shell_command","tool_id":"run_shell_command-1","parameters":{"command":"pytest -q"}}
{"type":"tool_result","timestamp":"2026-01-05T10:00:03.000Z","tool_id":"run_shell_command-1","status":"error","output":"1 failed","error":{"type":"shell_error","message":"exit code 1"}}
{"type":"tool_use","timestamp":"2026-01-05T10:00:04.000Z","tool_name":"read_file","tool_id":"read_file-2","parameters":{"absolute_path":"/w/dates.py"}}
{"type":"tool_result","timestamp":"2026-01-05T10:00:04.100Z","tool_id":"read_file-2","status":"success","output":"def parse(s): ..."}
{"type":"error","timestamp":"2026-01-05T10:00:05.000Z","severity":"warning","message":"Loop detected, stopping execution"}
{"type":"result","timestamp":"2026-01-05T10:00:05.100Z","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"},"stats":{"total_tokens":10}}
"#;

    #[test]
    fn a_headless_stream_reads_as_turns_with_joined_chunks_and_paired_calls() {
        assert_eq!(detect::detect(RUN.as_bytes()), Some(Format::Gemini));
        let out = formats::read(RUN.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("g-1"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Tool, Assistant, Tool, Event, Event]
        );
        // The two chunks are one sentence, and a phrase across them maps to both lines.
        let text = &t.turns[1].segments[0].text;
        assert_eq!(text.text, "I'll run the tests first.");
        let s = text.text.find("the tests").unwrap();
        let raw = text.raw_span(s, s + "the tests".len());
        assert_eq!(&RUN[raw.start..raw.start + 3], "the");
        assert_eq!(&RUN[raw.end - 5..raw.end], "tests");
        // The failed call is paired and flagged; the read succeeded.
        assert_eq!(t.turns[1].calls[0].result_turn, Some(2));
        let r = t.turns[2].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("shell_error"));
        assert_eq!(t.turns[2].segments[0].text.text, "1 failed");
        assert!(!t.turns[4].result.as_ref().unwrap().is_error);
        assert_eq!(
            t.turns[6].segments[0].text.text,
            "Reached max session turns"
        );
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
    }

    /// A run that ended after its prompt keeps it: the next run's init starts a trajectory of
    /// its own.
    #[test]
    fn a_run_that_logged_only_its_prompt_keeps_it() {
        let src = r#"{"type":"init","timestamp":"t","session_id":"a","model":"m"}
{"type":"message","timestamp":"t","role":"user","content":"Task A"}
{"type":"init","timestamp":"t","session_id":"b","model":"m"}
{"type":"message","timestamp":"t","role":"user","content":"Task B"}
{"type":"message","timestamp":"t","role":"assistant","content":"I'll add it.","delta":true}
"#;
        let out = formats::read(src.as_bytes(), None);
        let runs: Vec<(Option<String>, usize)> = out
            .trajectories
            .iter()
            .map(|t| (t.id.clone(), t.turns.len()))
            .collect();
        assert_eq!(runs, [(Some("a".into()), 1), (Some("b".into()), 2)]);
    }

    #[test]
    fn each_run_is_a_trajectory_and_chunks_join_only_text_to_text() {
        let src = r#"{"type":"message","role":"user","content":"Figma URL: https://example.com/d/1"}
{"type":"init","timestamp":"t","session_id":"a","model":"m"}
{"type":"message","timestamp":"t","role":"assistant","content":"Checking","delta":true}
{"type":"tool_use","timestamp":"t","tool_name":"ls","tool_id":"ls-1","parameters":{}}
{"type":"message","timestamp":"t","role":"assistant","content":null,"delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"Done.","delta":true}
{"type":"result","timestamp":"t","status":"success"}
{"type":"message","role":"user","content":"Figma URL: https://example.com/d/2"}
{"type":"init","timestamp":"t","session_id":"b","model":"m"}
{"type":"message","timestamp":"t","role":"assistant","content":"Second run.","delta":true}
"#;
        let out = formats::read(src.as_bytes(), None);
        let ids: Vec<_> = out.trajectories.iter().map(|t| t.id.clone()).collect();
        assert_eq!(ids, [Some("a".to_string()), Some("b".to_string())]);
        // A wrapper's prompt written before `init` opens the run that `init` starts.
        let roles: Vec<Vec<Role>> = out
            .trajectories
            .iter()
            .map(|t| t.turns.iter().map(|u| u.role).collect())
            .collect();
        assert_eq!(
            roles,
            [
                vec![Role::User, Role::Assistant],
                vec![Role::User, Role::Assistant]
            ]
        );
        // A chunk after a call and an empty chunk starts text of its own.
        let texts: Vec<&str> = out.trajectories[0].turns[1]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(texts, ["Checking", "Done."]);
        // The second run's turn does not reach back over the first run's lines.
        let second = &out.trajectories[1].turns[0];
        assert!(second.span.start > out.trajectories[0].turns[0].span.end);
    }

    #[test]
    fn a_successful_result_is_no_turn() {
        let ok = RUN.replace(
            r#""status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"},"#,
            r#""status":"success","#,
        );
        let out = formats::read(ok.as_bytes(), None);
        assert_eq!(out.trajectories[0].turns.len(), 6);
    }
}
