//! The event stream of OpenCode's non-interactive mode (`opencode run --format json`), the log a
//! CI job keeps of an OpenCode run: JSONL events `{type, timestamp, sessionID, part | error}`
//!
//! - `step_start` / `step_finish {reason, tokens, cost}` bracket one model call;
//! - `text {part: {text}}` and `reasoning {part: {text}}`: the agent's words, one line per
//!   finished part (no deltas);
//! - `tool_use {part: {tool, callID, state}}`: a call in its final state only, so one line holds
//!   both the call (`state.input`) and its result: `status: "completed"` with `output` (a shell
//!   command that exited non-zero says so in `metadata.exit`), or `status: "error"` with
//!   `error`; the line is cut in two where the result starts;
//! - `error {error}`: the run failed (`{name, data: {message}}`, or `{type, message}` in later
//!   versions), an event turn;
//! - `done`: the session went idle.
//!
//! The prompt is a command-line argument, not part of the stream: a run has no user turn. The
//! CLI's own messages (a permission it refused) are plain-text lines between the events, read
//! as event turns. A new `sessionID` starts a trajectory of its own.

use super::{
    cli_message_turn, event_turn, jsonl_records, open_assistant, push_content, ReadOutput, Record,
    Shape,
};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

/// Whether a record is an event of this stream.
pub fn is_event(d: &Doc, rec: &Value) -> bool {
    let has = |k: &str| d.get(rec, k).is_some();
    has("sessionID")
        && match d.get_str(rec, "type").as_deref() {
            Some("step_start" | "step_finish" | "text" | "reasoning" | "tool_use") => has("part"),
            Some("error") => has("error"),
            _ => false,
        }
}

pub fn read(bytes: &[u8], _shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Opencode);
    let d = Doc::new(bytes);
    let mut traj = Trajectory::new(Format::Opencode, Span::new(0, bytes.len()));
    let mut open: Option<usize> = None;
    for record in jsonl_records(bytes, &mut out) {
        let line = match record {
            Record::Object(line) => line,
            Record::Text(span) => {
                open = None;
                traj.turns
                    .push(cli_message_turn(bytes, span, "opencode.message"));
                continue;
            }
        };
        let (span, rec) = (line.span, &line.value);
        let session = d.get_str(rec, "sessionID");
        if session.is_some() && traj.id.is_some() && session != traj.id {
            open = None;
            let next = Trajectory::new(Format::Opencode, Span::new(0, bytes.len()));
            let done = std::mem::replace(&mut traj, next);
            if !done.turns.is_empty() {
                out.trajectories.push(done);
            }
        }
        if traj.id.is_none() {
            traj.id = session;
        }
        let part = d.get(rec, "part");
        match d.get_str(rec, "type").as_deref() {
            Some("step_start" | "step_finish") => open = None,
            Some("text" | "reasoning") => {
                let i = open_assistant(&mut traj, &mut open, span);
                if let Some(text) = part.and_then(|p| d.get(p, "text")) {
                    push_content(&d, text, SegmentKind::Prose, &mut traj.turns[i]);
                }
            }
            Some("tool_use") => {
                if let Some(part) = part {
                    tool_use(&d, span, part, &mut traj, &mut open);
                }
            }
            Some("error") => {
                open = None;
                let mut t = event_turn(&d, rec, span, "opencode.error");
                // (The named errors of earlier versions keep their message in `data`, or say
                // only their name; an error may also be a bare string.)
                for path in [
                    &["error", "data", "message"][..],
                    &["error", "name"],
                    &["error"],
                ] {
                    if !t.segments.is_empty() {
                        break;
                    }
                    if let Some(m) = d.path(rec, path).filter(|m| d.str(m).is_some()) {
                        push_content(&d, m, SegmentKind::Prose, &mut t);
                    }
                }
                traj.turns.push(t);
            }
            _ => {}
        }
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

/// A finished call: the call on the open assistant turn up to where its result starts, the
/// result a tool turn of its own.
fn tool_use(d: &Doc, span: Span, part: &Value, traj: &mut Trajectory, open: &mut Option<usize>) {
    let state = d.get(part, "state");
    let field = |k: &str| state.and_then(|s| d.get(s, k));
    let failed = state.is_some_and(|s| d.is(s, "status", "error"));
    let output = if failed {
        field("error")
    } else {
        field("output")
    };
    // The result starts at its text, or (when there is none) at what else the final state
    // says of it: its metadata, its status.
    let cut = output
        .or_else(|| field("metadata"))
        .or_else(|| field("status"))
        .map_or(span.end, |o| o.span.start)
        .clamp(span.start, span.end);
    let name = d.get_str(part, "tool").unwrap_or_default();
    let input = field("input");
    let call = ToolCall {
        id: d.get_str(part, "callID"),
        name: name.clone(),
        arguments: input.map_or_else(String::new, |v| match v.kind {
            Kind::Str { .. } => d.str(v).unwrap_or_default(),
            _ => d.raw(v).to_string(),
        }),
        span: input
            .map(|v| v.span)
            .filter(|s| s.end <= cut)
            .unwrap_or(Span::new(span.start, cut)),
        result_turn: None,
    };
    let i = open_assistant(traj, open, Span::new(span.start, cut));
    traj.turns[i].calls.push(call);
    let c = traj.turns[i].calls.len() - 1;
    *open = None;
    if cut >= span.end {
        return;
    }
    let mut t = Turn::new(Role::Tool, Span::new(cut, span.end));
    if let Some(o) = output {
        push_content(d, o, SegmentKind::Output, &mut t);
    }
    let exit_code = field("metadata")
        .and_then(|m| d.get(m, "exit"))
        .and_then(|v| d.as_i64(v));
    t.result = Some(ToolResult {
        call_id: d.get_str(part, "callID"),
        call: Some((i, c)),
        name: Some(name.clone()),
        // (`invalid` is the tool a call to one that does not exist becomes.)
        is_error: failed || exit_code.is_some_and(|c| c != 0) || name == "invalid",
        error_kind: failed.then(|| "error".to_string()),
        exit_code,
        ..Default::default()
    });
    traj.turns.push(t);
}

#[cfg(test)]
mod tests {
    use crate::formats::{self, detect};
    use crate::model::{Format, Role};

    fn stream(lines: &[&str]) -> String {
        lines.join("\n") + "\n"
    }

    const RUN: &[&str] = &[
        r#"{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"id":"prt_1","messageID":"msg_1","sessionID":"ses_1","type":"step-start"}}"#,
        r#"{"type":"text","timestamp":2,"sessionID":"ses_1","part":{"id":"prt_2","messageID":"msg_1","sessionID":"ses_1","type":"text","text":"I'll build it first.","time":{"start":1,"end":2}}}"#,
        r#"{"type":"tool_use","timestamp":3,"sessionID":"ses_1","part":{"type":"tool","tool":"bash","callID":"call_1","state":{"status":"completed","input":{"command":"go build","description":"Build"},"output":"./main.go:4:2: \"errors\" imported and not used\n","title":"Build","metadata":{"output":"x","exit":1,"truncated":false},"time":{"start":2,"end":3}},"id":"prt_3","sessionID":"ses_1","messageID":"msg_1"}}"#,
        r#"{"type":"tool_use","timestamp":4,"sessionID":"ses_1","part":{"type":"tool","tool":"read","callID":"call_2","state":{"status":"error","input":{"filePath":"/w/missing.go"},"error":"File not found: /w/missing.go","time":{"start":3,"end":4}},"id":"prt_4","sessionID":"ses_1","messageID":"msg_1"}}"#,
        r#"{"type":"step_finish","timestamp":5,"sessionID":"ses_1","part":{"id":"prt_5","reason":"tool-calls","messageID":"msg_1","sessionID":"ses_1","type":"step-finish","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}}"#,
        "permission requested: external_directory (/etc/*); auto-rejecting",
        r#"{"type":"text","timestamp":6,"sessionID":"ses_1","part":{"id":"prt_6","messageID":"msg_2","sessionID":"ses_1","type":"text","text":"The build fails on an unused import.","time":{"start":5,"end":6}}}"#,
        r#"{"type":"error","timestamp":7,"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"Invalid Authentication","statusCode":401,"isRetryable":false}}}"#,
    ];

    #[test]
    fn a_run_reads_as_turns_with_each_call_cut_from_its_result() {
        let src = stream(RUN);
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Opencode));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("ses_1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [Assistant, Tool, Assistant, Tool, Event, Assistant, Event]
        );
        assert_eq!(t.turns[0].segments[0].text.text, "I'll build it first.");
        // A completed bash call that exited 1 failed; its output is the result's text.
        let call = &t.turns[0].calls[0];
        assert_eq!(call.name, "bash");
        assert_eq!(call.result_turn, Some(1));
        assert!(call.arguments.contains("go build"));
        let r = t.turns[1].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.exit_code, Some(1));
        assert!(t.turns[1].segments[0]
            .text
            .text
            .contains("imported and not used"));
        // An errored call carries its error as text.
        let r = t.turns[3].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(
            t.turns[3].segments[0].text.text,
            "File not found: /w/missing.go"
        );
        // The CLI's own line, and the run's error with its message from `data`.
        assert!(t.turns[4].segments[0]
            .text
            .text
            .starts_with("permission requested"));
        assert_eq!(t.turns[6].segments[0].text.text, "Invalid Authentication");
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start, "{w:?}");
        }
    }

    #[test]
    fn a_session_with_nothing_said_is_no_trajectory_and_a_bare_state_keeps_its_failure() {
        let src = stream(&[
            "permission requested: bash (rm *); auto-rejecting",
            r#"{"type":"step_start","timestamp":1,"sessionID":"ses_a","part":{"type":"step-start"}}"#,
            r#"{"type":"step_finish","timestamp":2,"sessionID":"ses_a","part":{"type":"step-finish","reason":"stop"}}"#,
            r#"{"type":"tool_use","timestamp":3,"sessionID":"ses_b","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"make"},"metadata":{"exit":2}}}}"#,
            r#"{"type":"error","timestamp":4,"sessionID":"ses_b","error":{"name":"MessageAbortedError","data":{}}}"#,
            r#"{"type":"error","timestamp":5,"sessionID":"ses_b","error":"socket hang up"}"#,
        ]);
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Opencode));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let ids: Vec<_> = out.trajectories.iter().map(|t| t.id.as_deref()).collect();
        // (The CLI's line opens the first session's trajectory; ses_a itself said nothing.)
        assert_eq!(ids, [Some("ses_a"), Some("ses_b")]);
        assert_eq!(out.trajectories[0].turns.len(), 1);
        let t = &out.trajectories[1];
        let r = t.turns[1].result.as_ref().unwrap();
        assert_eq!((r.is_error, r.exit_code), (true, Some(2)));
        assert_eq!(t.turns[2].segments[0].text.text, "MessageAbortedError");
        assert_eq!(t.turns[3].segments[0].text.text, "socket hang up");
    }

    #[test]
    fn a_zero_exit_is_no_failure_and_each_session_is_a_trajectory() {
        let src = stream(&[
            r#"{"type":"tool_use","timestamp":3,"sessionID":"ses_a","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"a.go\n","metadata":{"exit":0}}}}"#,
            r#"{"type":"text","timestamp":6,"sessionID":"ses_b","part":{"type":"text","text":"Second run.","time":{"start":5,"end":6}}}"#,
            r#"{"type":"error","timestamp":7,"sessionID":"ses_b","error":{"type":"provider.rate-limit","message":"Error 429: slow down","status":429}}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        let ids: Vec<_> = out.trajectories.iter().map(|t| t.id.as_deref()).collect();
        assert_eq!(ids, [Some("ses_a"), Some("ses_b")]);
        assert!(
            !out.trajectories[0].turns[1]
                .result
                .as_ref()
                .unwrap()
                .is_error
        );
        let last = &out.trajectories[1].turns[1];
        assert_eq!(last.segments[0].text.text, "Error 429: slow down");
    }
}
