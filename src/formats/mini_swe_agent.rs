//! mini-swe-agent `.traj.json` files: one JSON document per run.
//!
//! Before 1.1 the file is a bare array of `{role, content}` messages. From 1.1 (mini-swe-agent
//! 2.x) it is `{"info": {…}, "messages": [...], "trajectory_format": "mini-swe-agent-1.1"}` and
//! each message has an `extra` dict (`actions`, `returncode`, `exception_info`, `timestamp`).
//!
//! The model's action is one fenced block in the assistant text (```` ```mswea_bash_command ````,
//! ```` ```bash ```` in older versions, `<mswea_bash_command>` in the XML config); the harness
//! runs it only when there is exactly one, so that is when it becomes a call (`bash`, the
//! command text). Tool-calling models give `tool_calls` and `role: "tool"` results instead.
//! The observation is the next user (or tool) message,
//! `<returncode>N</returncode>\n<output>…</output>`: a tool turn with exit code N. The harness's
//! answer to a message without exactly one action is its format error: a tool turn too, failed
//! (the action was rejected). The first user message (the task) stays a user turn.
//! 1.1 ends with a `role: "exit"` message (exit status, and the submission), read as an event.

use super::{expect_document, kind_name, push_content, ReadOutput, Shape};
use crate::formats::openai_chat;
use crate::json::{Doc, Kind, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;
use crate::text::Text;

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::MiniSweAgent);
    let d = Doc::new(bytes);
    let Some(doc) = expect_document(shape, &mut out) else {
        return out;
    };
    let mut traj = Trajectory::new(Format::MiniSweAgent, doc.span);
    let messages = match &doc.kind {
        Kind::Array(items) => items.as_slice(),
        Kind::Object(_) => {
            traj.id = d
                .get(doc, "instance_id")
                .and_then(|v| openai_chat::id_string(&d, v));
            match d.get(doc, "messages") {
                Some(m) if matches!(m.kind, Kind::Array(_)) => d.items(m),
                _ => {
                    out.error(
                        Span::new(doc.span.start, doc.span.start + 1),
                        "expected a `messages` list in this mini-swe-agent trajectory",
                    );
                    return out;
                }
            }
        }
        _ => {
            out.error(
                doc.span,
                format!(
                    "expected a mini-swe-agent trajectory (an array or an object), found a JSON {}",
                    kind_name(doc)
                ),
            );
            return out;
        }
    };
    read_messages(&d, messages, &mut traj, &mut out);
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

fn read_messages(d: &Doc, messages: &[Value], traj: &mut Trajectory, out: &mut ReadOutput) {
    // Calls of the latest assistant turn still waiting for their observation.
    let mut awaiting = 0usize;
    // The latest message is the model's and held no action: the harness answers it with its
    // format error ("Please always provide EXACTLY ONE action …"), a rejected action.
    let mut no_action = false;
    for m in messages {
        if !matches!(m.kind, Kind::Object(_)) {
            out.skip_record(
                m.span,
                format!("skipped a message that is a JSON {}", kind_name(m)),
                false,
            );
            continue;
        }
        let role = d.get_str(m, "role").unwrap_or_default();
        let extra = d.get(m, "extra");
        let has_returncode = extra.is_some_and(|e| !Doc::is_null(d.get(e, "returncode")));
        match role.as_str() {
            "system" => traj
                .turns
                .push(text_turn(d, Role::System, m, SegmentKind::Prose)),
            "assistant" => {
                let turn = assistant_turn(d, m);
                awaiting = turn.calls.len();
                no_action = turn.calls.is_empty();
                traj.turns.push(turn);
                continue;
            }
            "tool" => {
                let call_id = d
                    .get(m, "tool_call_id")
                    .and_then(|v| openai_chat::id_string(d, v));
                traj.turns.push(observation_turn(d, m, call_id));
                awaiting = awaiting.saturating_sub(1);
            }
            "user" if awaiting > 0 || has_returncode => {
                traj.turns.push(observation_turn(d, m, None));
                awaiting = awaiting.saturating_sub(1);
            }
            // mini-swe-agent 2 saves no message for a reply it could not parse: the harness's
            // answer says so itself (`extra.interrupt_type`: "FormatError").
            "user" if no_action || interrupted(d, extra) => {
                let mut t = observation_turn(d, m, None);
                if let Some(r) = t.result.as_mut() {
                    r.is_error = true;
                    r.error_kind.get_or_insert_with(|| "format_error".into());
                }
                traj.turns.push(t);
            }
            "user" => {
                traj.turns
                    .push(text_turn(d, Role::User, m, SegmentKind::Prose));
                awaiting = 0;
            }
            "exit" => {
                let mut t = text_turn(d, Role::Event, m, SegmentKind::Output);
                t.event = Some(EventKind::Other("mini-swe-agent.exit".into()));
                traj.turns.push(t);
                awaiting = 0;
            }
            other => out.skip_unknown_role(m.span, other),
        }
        no_action = false;
    }
}

/// Whether a user message is the harness rejecting the model's reply (`extra.interrupt_type`).
fn interrupted(d: &Doc, extra: Option<&Value>) -> bool {
    extra
        .and_then(|e| d.get_str(e, "interrupt_type"))
        .is_some_and(|k| k == "FormatError")
}

fn text_turn(d: &Doc, role: Role, m: &Value, kind: SegmentKind) -> Turn {
    let mut t = Turn::new(role, m.span);
    if let Some(c) = d.get(m, "content") {
        push_content(d, c, kind, &mut t);
    }
    t
}

/// An assistant message: its text as prose; its action as a call (`tool_calls`, else the one
/// fenced command block, else the parsed `extra.actions`).
fn assistant_turn(d: &Doc, m: &Value) -> Turn {
    let mut t = Turn::new(Role::Assistant, m.span);
    // Thinking is assistant text: the message's `reasoning_content`, or else the reasoning the
    // raw API response kept in `extra.response` (litellm through OpenRouter writes it there, on
    // every message of a reasoning model's run).
    if let Some(c) = d
        .get(m, "reasoning_content")
        .or_else(|| response_reasoning(d, m))
    {
        push_content(d, c, SegmentKind::Prose, &mut t);
    }
    let thinking = t.segments.len();
    if let Some(c) = d.get(m, "content") {
        push_content(d, c, SegmentKind::Prose, &mut t);
    }
    t.calls = openai_chat::tool_calls(d, m);
    if t.calls.is_empty() {
        // The harness parses the action out of the content alone.
        let content: Vec<&Text> = t.segments[thinking..]
            .iter()
            .filter(|s| s.kind == SegmentKind::Prose)
            .map(|s| &s.text)
            .collect();
        if let Some(call) = content.iter().find_map(|text| fenced_action(text)) {
            t.calls.push(call);
        }
    }
    if t.calls.is_empty() {
        if let Some(actions) = d.path(m, &["extra", "actions"]) {
            for a in d.items(actions) {
                if let Some(cmd) = d.get(a, "command").and_then(|c| d.str(c)) {
                    t.calls.push(bash_call(cmd, a.span));
                }
            }
        }
    }
    t
}

/// `extra.response.choices[0].message.reasoning` (or `reasoning_content`): the model's
/// reasoning summary as the provider returned it. (Its `reasoning_details` say the same again,
/// and its `content` is the message's own.)
fn response_reasoning<'a>(d: &Doc, m: &'a Value) -> Option<&'a Value> {
    let choices = d.path(m, &["extra", "response", "choices"])?;
    let message = d.get(d.items(choices).first()?, "message")?;
    ["reasoning", "reasoning_content"]
        .into_iter()
        .find_map(|k| {
            d.get(message, k)
                .filter(|v| matches!(v.kind, Kind::Str { .. }))
        })
}

fn bash_call(command: String, span: Span) -> ToolCall {
    ToolCall {
        id: None,
        name: "bash".into(),
        arguments: command,
        span,
        result_turn: None,
    }
}

/// The action of a text-based response, as mini-swe-agent parses it: the regex
/// ```` ```mswea_bash_command\s*\n(.*?)\n``` ```` (or ```` ```bash ````, or
/// `<mswea_bash_command>(.*?)</mswea_bash_command>`) must match exactly once; the command is
/// the match stripped. The call's span is the whole block.
fn fenced_action(text: &Text) -> Option<ToolCall> {
    for (open, close, fenced) in [
        ("```mswea_bash_command", "\n```", true),
        ("<mswea_bash_command>", "</mswea_bash_command>", false),
        ("```bash", "\n```", true),
    ] {
        let blocks = find_blocks(&text.text, open, close, fenced);
        match blocks.as_slice() {
            [] => continue,
            [(start, body, end)] => {
                let cmd = text.text[body.0..body.1].trim().to_string();
                return Some(bash_call(cmd, text.raw_span(*start, *end)));
            }
            _ => return None,
        }
    }
    None
}

/// Non-overlapping blocks `(block start, (body start, body end), block end)`, left to right.
/// A fenced opener must be followed by white space holding a line break; the body starts after
/// the last line break of that white space (as the greedy `\s*\n` does).
fn find_blocks(
    s: &str,
    open: &str,
    close: &str,
    fenced: bool,
) -> Vec<(usize, (usize, usize), usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = s[from..].find(open).map(|i| from + i) {
        let after = i + open.len();
        let body_start = if fenced {
            let ws = s[after..]
                .find(|c: char| !c.is_whitespace())
                .map_or(s.len(), |k| after + k);
            match s[after..ws].rfind('\n') {
                Some(k) => after + k + 1,
                None => {
                    from = after;
                    continue;
                }
            }
        } else {
            after
        };
        // `(.*?)\n```: the body may be empty only if the closing line break is the opener's.
        let search_from = if fenced {
            body_start.saturating_sub(1)
        } else {
            body_start
        };
        let Some(j) = s[search_from..].find(close).map(|j| search_from + j) else {
            break;
        };
        let body_end = j.max(body_start);
        out.push((i, (body_start, body_end), j + close.len()));
        from = j + close.len();
    }
    out
}

/// An observation: its text as output, the exit code from `extra.returncode` or the
/// `<returncode>N</returncode>` header, errors from `extra.exception_info` or a timeout notice.
fn observation_turn(d: &Doc, m: &Value, call_id: Option<String>) -> Turn {
    let mut t = text_turn(d, Role::Tool, m, SegmentKind::Output);
    let extra = d.get(m, "extra");
    let field = |k: &str| extra.and_then(|e| d.get(e, k));
    let mut header_code = None;
    if let Some(first) = t.segments.first_mut() {
        header_code = returncode_header(&first.text.text);
        first.printed = printed_part(&first.text.text);
    }
    let text = t
        .segments
        .first()
        .map(|s| s.text.text.as_str())
        .unwrap_or("");
    let exit_code = field("returncode")
        .and_then(|v| d.as_i64(v))
        .or(header_code);
    let exception = field("exception_info")
        .and_then(|v| d.str(v))
        .is_some_and(|s| !s.trim().is_empty());
    let timed_out = text.starts_with("The last command")
        && text.lines().next().is_some_and(|l| l.contains("timed out"));
    let error_kind = field("exception_type")
        .and_then(|v| d.str(v))
        .or_else(|| timed_out.then(|| "timeout".to_string()));
    t.result = Some(ToolResult {
        call_id,
        exit_code,
        is_error: exception || timed_out,
        error_kind,
        ..Default::default()
    });
    t
}

/// `<returncode>N</returncode>` at the start of an observation (after an optional
/// `<exception>…</exception>` line).
fn returncode_header(text: &str) -> Option<i64> {
    let head = text.trim_start();
    if !(head.starts_with("<returncode>") || head.starts_with("<exception>")) {
        return None;
    }
    let i = head.find("<returncode>")? + "<returncode>".len();
    let j = head[i..].find("</returncode>")? + i;
    head[i..j].trim().parse().ok()
}

/// What the command printed: inside the `<output>…</output>` tags of a tagged observation
/// (from the line after the opening tag), else all of it.
fn printed_part(text: &str) -> std::ops::Range<usize> {
    let head = text.trim_start();
    let tagged = head.starts_with("<returncode>") || head.starts_with("<exception>");
    let Some(open) = text.find("<output>").filter(|_| tagged) else {
        return 0..text.len();
    };
    let mut start = open + "<output>".len();
    start += usize::from(text[start..].starts_with('\n'));
    let end = text[start..]
        .rfind("</output>")
        .map_or(text.len(), |k| start + k);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats;

    fn read_as(src: &str) -> ReadOutput {
        formats::checked::read(src, Format::MiniSweAgent, true)
    }

    const PRE_1_1: &str = r#"[
 {"role": "system", "content": "You are a helpful assistant."},
 {"role": "user", "content": "Please solve this issue: x"},
 {"role": "assistant", "content": "Look first.\n\n```mswea_bash_command\ncat \"a.py\"\n```"},
 {"role": "user", "content": "<returncode>1</returncode>\n<output>\ncat: a.py: No such file or directory\n</output>"},
 {"role": "assistant", "content": "Two blocks:\n```mswea_bash_command\nls\n```\n```mswea_bash_command\npwd\n```"},
 {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
 {"role": "assistant", "content": "Old style.\n```bash\nsleep 100\n```"},
 {"role": "user", "content": "The last command <command>sleep 100</command> timed out and has been killed.\nThe output of the command was:\n"},
 {"role": "assistant", "content": "Submit.\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
 {"role": "user", "content": "diff --git a/a.py b/a.py"}
]"#;

    #[test]
    fn pre_1_1_bare_array() {
        let out = read_as(PRE_1_1);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [System, User, Assistant, Tool, Assistant, Tool, Assistant, Tool, Assistant, Tool]
        );
        let c = &t.turns[2].calls[0];
        assert_eq!(
            (c.name.as_str(), c.arguments.as_str()),
            ("bash", "cat \"a.py\"")
        );
        assert_eq!(
            &PRE_1_1[c.span.start..c.span.end],
            r#"```mswea_bash_command\ncat \"a.py\"\n```"#
        );
        assert_eq!(c.result_turn, Some(3));
        let r = t.turns[3].result.as_ref().unwrap();
        assert_eq!(r.exit_code, Some(1));
        assert!(!r.is_error);
        // What `cat` printed is inside the tags.
        assert_eq!(
            t.turns[3].segments[0].printed_text(),
            "cat: a.py: No such file or directory\n"
        );
        assert_eq!(
            t.turns[7].segments[0].printed_text(),
            t.turns[7].segments[0].text.text
        );
        assert!(t.turns[4].calls.is_empty());
        // Two blocks are no action: the harness's answer is a rejection, of no call.
        let r = t.turns[5].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(
            (r.error_kind.as_deref(), r.call, r.exit_code),
            (Some("format_error"), None, None)
        );
        assert_eq!(t.turns[6].calls[0].arguments, "sleep 100");
        let r = t.turns[7].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("timeout"));
        assert_eq!(r.exit_code, None);
        // The submission output answers the submit call, with no exit code.
        let r = t.turns[9].result.as_ref().unwrap();
        assert_eq!((r.call, r.exit_code), (Some((8, 0)), None));
        // A sub-span of the decoded observation maps back to the raw escape.
        let s = &t.turns[3].segments[0].text;
        let i = s.text.find('\n').unwrap();
        let raw = s.raw_span(i - 1, i + 2);
        assert_eq!(&PRE_1_1[raw.start..raw.end], r">\n<");
    }

    #[test]
    fn reasoning_kept_in_the_raw_response_is_thinking_prose() {
        // litellm through OpenRouter: the reasoning summary sits in `extra.response`, whose
        // `content` repeats the message's and whose `reasoning_details` repeat the summary. A
        // command block in the reasoning is not the action.
        let src = r#"{"info": {"mini_version": "1.15.0"}, "messages": [
  {"role": "system", "content": "sys"},
  {"role": "user", "content": "task"},
  {"role": "assistant", "content": "THOUGHT: list it.\n\n```bash\nls\n```",
   "extra": {"response": {"choices": [{"message": {"role": "assistant",
     "content": "THOUGHT: list it.\n\n```bash\nls\n```",
     "reasoning": "**Planning**\n\nI will run the tests later.\n```bash\nrm -rf /\n```",
     "reasoning_details": [{"type": "reasoning.text", "text": "**Planning**"}]}}]}}},
  {"role": "user", "content": "<returncode>0</returncode>\n<output>\na\n</output>"}
 ], "trajectory_format": "mini-swe-agent-1"}"#;
        let out = read_as(src);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let turn = &out.trajectories[0].turns[2];
        let texts: Vec<&str> = turn.segments.iter().map(|s| s.text.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "**Planning**\n\nI will run the tests later.\n```bash\nrm -rf /\n```",
                "THOUGHT: list it.\n\n```bash\nls\n```"
            ]
        );
        let commands: Vec<&str> = turn.calls.iter().map(|c| c.arguments.as_str()).collect();
        assert_eq!(commands, ["ls"]);
        // Each text's span is its own string in the file: the message's content, not the copy
        // in the response.
        let starts: Vec<usize> = turn.segments.iter().map(|s| s.text.span.start).collect();
        assert_eq!(starts[1], src.find("THOUGHT").unwrap());
        assert_eq!(starts[0], src.find("**Planning").unwrap());
    }

    #[test]
    fn format_1_1_with_extra_and_tool_calls() {
        let src = r#"{"info": {"mini_version": "2.0.0", "exit_status": "Submitted"},
 "instance_id": "django__django-1",
 "messages": [
  {"role": "system", "content": "sys"},
  {"role": "user", "content": "task"},
  {"role": "assistant", "content": "x\n```mswea_bash_command\nfalse\n```", "extra": {"actions": [{"command": "false"}]}},
  {"role": "user", "content": "<exception>boom</exception>\n<returncode>-1</returncode>\n<output>\n</output>",
   "extra": {"returncode": -1, "exception_info": "An error occurred", "exception_type": "TimeoutExpired"}},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}],
   "extra": {"actions": [{"command": "ls", "tool_call_id": "call_9"}]}},
  {"role": "tool", "tool_call_id": "call_9", "content": "<returncode>0</returncode>\n<output>\na\n</output>", "extra": {"returncode": 0}},
  {"role": "exit", "content": "diff", "extra": {"exit_status": "Submitted", "submission": "diff"}}
 ],
 "trajectory_format": "mini-swe-agent-1.1"}"#;
        let out = read_as(src);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("django__django-1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [System, User, Assistant, Tool, Assistant, Tool, Event]
        );
        let r = t.turns[3].result.as_ref().unwrap();
        assert_eq!(r.exit_code, Some(-1));
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("TimeoutExpired"));
        let c = &t.turns[4].calls[0];
        assert_eq!(
            (c.id.as_deref(), c.arguments.as_str()),
            (Some("call_9"), r#"{"command": "ls"}"#)
        );
        assert_eq!(c.result_turn, Some(5));
        assert_eq!(t.turns[5].result.as_ref().unwrap().exit_code, Some(0));
        assert_eq!(
            t.turns[6].event,
            Some(EventKind::Other("mini-swe-agent.exit".into()))
        );
    }

    #[test]
    fn a_format_error_after_a_result_is_the_harness_rejecting_a_reply() {
        // mini-swe-agent 2 keeps no message for the reply it could not parse: its format error
        // follows the last observation directly.
        let src = r#"{"info": {"mini_version": "2.4.6", "exit_status": "Submitted"},
 "trajectory_format": "mini-swe-agent-1.1",
 "messages": [
  {"role": "system", "content": "You are a helpful assistant."},
  {"role": "user", "content": "Please solve this issue."},
  {"role": "assistant", "content": "THOUGHT: look.\n\n```mswea_bash_command\ngrep -n slugify src/text.py\n```", "extra": {"actions": [{"command": "grep -n slugify src/text.py"}]}},
  {"role": "user", "content": "<returncode>1</returncode>\n<output>\n</output>", "extra": {"raw_output": "", "returncode": 1}},
  {"role": "user", "content": "Format error:\n\n<error>\nExpected exactly 1 action, found 2.\n</error>", "extra": {"interrupt_type": "FormatError", "n_actions": 2}},
  {"role": "assistant", "content": "THOUGHT: fine.\n\n```mswea_bash_command\nls src\n```", "extra": {"actions": [{"command": "ls src"}]}}
 ]}"#;
        let out = read_as(src);
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(roles, [System, User, Assistant, Tool, Tool, Assistant]);
        let r = t.turns[4].result.as_ref().unwrap();
        assert!(r.is_error);
        assert_eq!(r.error_kind.as_deref(), Some("format_error"));
    }

    #[test]
    fn blocks_follow_the_harness_regex() {
        let one = |s: &str| find_blocks(s, "```bash", "\n```", true);
        assert_eq!(one("```bash\nls\n```").len(), 1);
        assert_eq!(one("```bash  \n\nls\n```")[0].1, (11, 13));
        assert!(one("```bash ls\n```").is_empty());
        assert_eq!(one("```bash\n\n```")[0].1, (9, 9));
        assert!(one("```bashful\nls\n```").is_empty());
        assert!(one("```bash\nunterminated").is_empty());
        assert_eq!(
            returncode_header("<returncode>2</returncode>\n<output>"),
            Some(2)
        );
        assert_eq!(returncode_header("output <returncode>2</returncode>"), None);
    }

    #[test]
    fn bad_input() {
        let out = read_as(r#"[{"role": "user", "content": "<returncode>0</returncode>"}"#);
        assert!(out.unreadable());
        let out = read_as(r#"{"info": {}}"#);
        assert!(out.unreadable());
        let out = read_as(r#"[1, {"role": "critic"}, {"role": "user", "content": "task"}]"#);
        assert_eq!(out.trajectories[0].turns.len(), 1);
        assert_eq!(out.issues.len(), 2);
        let out = read_as("3");
        assert!(out.unreadable());
    }
}
