//! SWE-agent `.traj` files: one pretty-printed JSON document per run.
//!
//! Turns come from `history[]`, the message list as the model saw it: system prompt, task,
//! assistant messages and observations. Function-calling runs (1.x) carry OpenAI-style
//! `tool_calls` on the assistant message and `role: "tool"` observations paired by
//! `tool_call_ids[0]`. Older runs carry the command as `action` text (one call named by its first
//! word) and the observation as the next `role: "user"` message, paired by position.
//! Demonstrations (`is_demo`, `message_type: "demonstration"`) are part of the prompt: system
//! turns. Without a `history`, the `trajectory[]` steps are read instead: one assistant turn
//! (`response`, or `thought`, plus the `action`) and one tool turn (`observation`) per step.
//!
//! SWE-agent records no exit code and no error flag; failures are only text in the observation
//! (tracebacks, the edit linter's "Your proposed edit has introduced new syntax error(s)").

use super::{expect_document, kind_name, push_content, ReadOutput, Shape};
use crate::formats::openai_chat;
use crate::json::{self, Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::SweAgent);
    let d = Doc::new(bytes);
    let Some(doc) = expect_document(shape, &mut out) else {
        return out;
    };
    if !matches!(doc.kind, Kind::Object(_)) {
        out.error(
            Span::new(doc.span.start, doc.span.start + 1),
            format!(
                "expected a SWE-agent trajectory object, found a JSON {}",
                kind_name(doc)
            ),
        );
        return out;
    }
    let mut traj = Trajectory::new(Format::SweAgent, doc.span);
    traj.id = run_id(&d, doc);
    let list = |key: &str| d.get(doc, key).map_or(&[][..], |v| d.items(v));
    let (history, steps) = (list("history"), list("trajectory"));
    if !history.is_empty() {
        read_history(&d, history, &mut traj, &mut out);
        read_tail(&d, history, steps, &mut traj, &mut out);
    } else if !steps.is_empty() {
        read_steps(&d, steps, &mut traj, &mut out);
    } else {
        out.error(
            Span::new(doc.span.start, doc.span.start + 1),
            "no `history` or `trajectory` entries in this SWE-agent file",
        );
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

fn read_history(d: &Doc, history: &[Value], traj: &mut Trajectory, out: &mut ReadOutput) {
    // Calls of the latest assistant turn still waiting for their observation.
    let mut awaiting = 0usize;
    for m in history {
        if !matches!(m.kind, Kind::Object(_)) {
            out.skip_record(
                m.span,
                format!("skipped a history entry that is a JSON {}", kind_name(m)),
                false,
            );
            continue;
        }
        let role = d.get_str(m, "role").unwrap_or_default();
        let mtype = d.get_str(m, "message_type");
        if is_demo(d, m) {
            traj.turns.push(prose_turn(d, Role::System, m));
            continue;
        }
        match role.as_str() {
            "system" => traj.turns.push(prose_turn(d, Role::System, m)),
            "assistant" => {
                let turn = assistant_turn(d, m);
                awaiting = turn.calls.len();
                traj.turns.push(turn);
            }
            "tool" => {
                let call_id = d
                    .get(m, "tool_call_ids")
                    .and_then(|ids| d.items(ids).first())
                    .or_else(|| d.get(m, "tool_call_id"))
                    .and_then(|v| openai_chat::id_string(d, v));
                traj.turns.push(observation_turn(d, m, call_id));
                awaiting = awaiting.saturating_sub(1);
            }
            "user" => {
                let observation = matches!(mtype.as_deref(), None | Some("observation"));
                if awaiting > 0 && observation {
                    traj.turns.push(observation_turn(d, m, None));
                    awaiting -= 1;
                } else {
                    traj.turns.push(prose_turn(d, Role::User, m));
                    awaiting = 0;
                }
            }
            other => out.note_once(
                m.span,
                format!("skipped history messages with role `{other}`; the first is here"),
            ),
        }
    }
}

fn prose_turn(d: &Doc, role: Role, m: &Value) -> Turn {
    let mut t = Turn::new(role, m.span);
    if let Some(c) = d.get(m, "content") {
        push_content(d, c, SegmentKind::Prose, &mut t);
    }
    t
}

/// An assistant message: its thinking blocks and its text (the raw response, or the parsed
/// `thought` when there is no content) as prose; `tool_calls`, else the `action` text, as calls.
fn assistant_turn(d: &Doc, m: &Value) -> Turn {
    let mut t = Turn::new(Role::Assistant, m.span);
    if let Some(tb) = d.get(m, "thinking_blocks") {
        push_content(d, tb, SegmentKind::Prose, &mut t);
    }
    let before = t.segments.len();
    if let Some(c) = d.get(m, "content") {
        push_content(d, c, SegmentKind::Prose, &mut t);
    }
    if t.segments[before..].iter().all(|s| s.text.is_empty()) {
        t.segments.truncate(before);
        if let Some(th) = d.get(m, "thought") {
            push_content(d, th, SegmentKind::Prose, &mut t);
        }
    }
    t.calls = openai_chat::tool_calls(d, m);
    if t.calls.is_empty() {
        if let Some(call) = d.get(m, "action").and_then(|a| action_call(d, a)) {
            t.calls.push(call);
        }
    }
    t
}

/// The `action` command text as one call, named by its first word (`find_file`, `edit`, …).
fn action_call(d: &Doc, a: &Value) -> Option<ToolCall> {
    let text = d.str(a)?;
    let name = text.split_whitespace().next()?.to_string();
    Some(ToolCall {
        id: None,
        name,
        arguments: text,
        span: a.span,
        result_turn: None,
    })
}

fn observation_turn(d: &Doc, m: &Value, call_id: Option<String>) -> Turn {
    let mut t = Turn::new(Role::Tool, m.span);
    if let Some(c) = d.get(m, "content") {
        push_content(d, c, SegmentKind::Output, &mut t);
    }
    end_before_status(&mut t);
    t.result = Some(ToolResult {
        call_id,
        ..Default::default()
    });
    t
}

/// What a command printed ends before the status lines SWE-agent appends to every observation:
/// "(Open file: …)", "(Current directory: …)" and the "bash-$" prompt.
fn end_before_status(t: &mut Turn) {
    for seg in &mut t.segments {
        let text = &seg.text.text;
        let Some(at) = text.rfind("(Open file: ") else {
            continue;
        };
        let status = text[at..].lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('(') && l.ends_with(')') || l.ends_with('$')
        });
        if status && (at == 0 || text[..at].ends_with('\n')) {
            seg.printed.end = at;
        }
    }
}

/// A demonstration's message: part of the prompt, not the run.
fn is_demo(d: &Doc, m: &Value) -> bool {
    d.flag(m, "is_demo") || d.is(m, "message_type", "demonstration")
}

/// The steps SWE-agent left out of `history[]`: the run's last step (mostly `submit`, its
/// observation the final diff or flag) is often only in `trajectory[]`, and so is the
/// observation of the history's last action. Steps are matched to the history's own assistant
/// messages by their `action` text, in order.
fn read_tail(
    d: &Doc,
    history: &[Value],
    steps: &[Value],
    traj: &mut Trajectory,
    out: &mut ReadOutput,
) {
    let action = |v: &Value| d.get_str(v, "action").map(|a| a.trim().to_string());
    let own: Vec<&Value> = history
        .iter()
        .filter(|m| d.get_str(m, "role").as_deref() == Some("assistant") && !is_demo(d, m))
        .collect();
    // In order: each of the history's actions meets the first step after the previous one's
    // with the same action (steps hold retries the history does not). One the steps lack: no
    // telling where the history ends among them, so nothing is added.
    let mut next = 0usize;
    let mut matched = None;
    for m in &own {
        let Some(a) = action(m) else { continue };
        let Some(k) = (next..steps.len()).find(|&k| action(&steps[k]).as_ref() == Some(&a)) else {
            return;
        };
        matched = Some(k);
        next = k + 1;
    }
    let Some(matched) = matched else {
        return;
    };
    // The history's last call, still unanswered: the matched step's observation answers it.
    let unanswered = traj
        .turns
        .last()
        .is_some_and(|t| t.role == Role::Assistant && !t.calls.is_empty());
    if unanswered {
        if let Some(o) = step_observation(d, &steps[matched]) {
            traj.turns.push(step_observation_turn(d, o));
        }
    }
    read_steps(d, &steps[matched + 1..], traj, out);
}

/// `trajectory[]` steps: `{response, thought, action, observation, …}`.
fn read_steps(d: &Doc, steps: &[Value], traj: &mut Trajectory, out: &mut ReadOutput) {
    for step in steps {
        if !matches!(step.kind, Kind::Object(_)) {
            out.skip_record(
                step.span,
                format!(
                    "skipped a trajectory step that is a JSON {}",
                    kind_name(step)
                ),
                false,
            );
            continue;
        }
        let text_of = |key: &str| {
            d.get(step, key)
                .filter(|v| d.str(v).is_some_and(|s| !s.trim().is_empty()))
        };
        let prose = text_of("response").or_else(|| text_of("thought"));
        let action = d.get(step, "action");
        let call = action.and_then(|a| action_call(d, a));
        let observation = step_observation(d, step);
        // The assistant parts and the observation interleave in the step object (action,
        // observation, response, thought): the two turns get disjoint spans.
        let parts: Vec<Span> = prose
            .map(|v| v.span)
            .into_iter()
            .chain(call.as_ref().map(|c| c.span))
            .collect();
        if let Some(first) = parts.first() {
            let mut span = parts.iter().fold(*first, |a, b| a.cover(*b));
            if let Some(o) = observation {
                if span.start < o.span.end && o.span.start < span.end {
                    span = prose.map_or(*first, |v| v.span);
                }
            }
            let mut t = Turn::new(Role::Assistant, span);
            if let Some(p) = prose {
                push_content(d, p, SegmentKind::Prose, &mut t);
            }
            t.calls.extend(call);
            traj.turns.push(t);
        }
        if let Some(o) = observation {
            traj.turns.push(step_observation_turn(d, o));
        }
    }
}

/// A step's `observation`, when it holds text.
fn step_observation<'v>(d: &Doc, step: &'v Value) -> Option<&'v Value> {
    d.get(step, "observation")
        .filter(|v| matches!(v.kind, Kind::Str { .. } | Kind::Array(_)))
}

/// The tool turn of a step's observation, paired by position with the call before it.
fn step_observation_turn(d: &Doc, o: &Value) -> Turn {
    let mut t = Turn::new(Role::Tool, o.span);
    push_content(d, o, SegmentKind::Output, &mut t);
    end_before_status(&mut t);
    t.result = Some(ToolResult::default());
    t
}

/// The run's instance id: `info.instance_id`, else `replay_config.problem_statement.id`
/// (`replay_config` is an object or, in some versions, a JSON string). The top-level
/// `environment` names the deployment (`swe_main`, `main`), not the run, so it is not used.
fn run_id(d: &Doc, doc: &Value) -> Option<String> {
    if let Some(id) = d
        .path(doc, &["info", "instance_id"])
        .and_then(|v| openai_chat::id_string(d, v))
    {
        return Some(id);
    }
    let rc = d.get(doc, "replay_config")?;
    match rc.kind {
        Kind::Object(_) => d
            .path(rc, &["problem_statement", "id"])
            .and_then(|v| openai_chat::id_string(d, v)),
        Kind::Str { .. } => {
            let s = d.str(rc)?;
            let v = json::parse_all(s.as_bytes()).ok()?;
            let inner = Doc::new(s.as_bytes());
            inner
                .path(&v, &["problem_statement", "id"])
                .and_then(|x| openai_chat::id_string(&inner, x))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats;

    fn read_as(src: &str) -> ReadOutput {
        read_checked(src, true)
    }

    /// Reads and checks spans; `calls_inside` as in [`formats::checked::spans`].
    fn read_checked(src: &str, calls_inside: bool) -> ReadOutput {
        formats::checked::read(src, Format::SweAgent, calls_inside)
    }

    const FUNCTION_CALLING: &str = r#"{
  "environment": "main",
  "history": [
    {"role": "system", "content": "SETTING: ...", "agent": "main", "message_type": "system_prompt"},
    {"role": "user", "content": "Fix the issue", "agent": "main", "message_type": "observation"},
    {"role": "assistant", "content": "Let me find it.", "thought": "Let me find it.",
     "action": "find_file missing_colon.py", "agent": "main",
     "tool_calls": [{"function": {"arguments": "{\"file_name\":\"missing_colon.py\"}", "name": "find_file"}, "id": "call_1", "type": "function"}],
     "message_type": "action"},
    {"role": "tool", "content": "Found 1 matches\r\n/repo/tests/missing_colon.py", "agent": "main", "tool_call_ids": ["call_1"], "message_type": "observation"}
  ],
  "info": {"exit_status": "submitted"},
  "replay_config": "{\"problem_statement\": {\"id\": \"SWE-agent__test-repo-i1\"}}"
}"#;

    #[test]
    fn function_calling_history() {
        let out = read_as(FUNCTION_CALLING);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("SWE-agent__test-repo-i1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [System, User, Assistant, Tool]);
        let c = &t.turns[2].calls[0];
        assert_eq!(
            (c.id.as_deref(), c.name.as_str()),
            (Some("call_1"), "find_file")
        );
        assert_eq!(c.arguments, r#"{"file_name":"missing_colon.py"}"#);
        assert_eq!(c.result_turn, Some(3));
        let r = t.turns[3].result.as_ref().unwrap();
        assert_eq!(r.call_id.as_deref(), Some("call_1"));
        assert_eq!(r.exit_code, None);
        // The \r\n escape maps back to its raw bytes.
        let s = &t.turns[3].segments[0].text;
        let i = s.text.find('\r').unwrap();
        let raw = s.raw_span(i, i + 2);
        assert_eq!(&FUNCTION_CALLING[raw.start..raw.end], r"\r\n");
        // Only the content is prose, not the duplicated thought.
        assert_eq!(t.turns[2].segments.len(), 1);
    }

    #[test]
    fn v0_history_pairs_by_position_and_demos_are_system() {
        let src = r#"{"environment": "swe_main", "history": [
  {"role": "system", "content": "SETTING", "agent": "primary"},
  {"role": "user", "content": "Here is a demonstration", "is_demo": true, "agent": "primary"},
  {"role": "user", "content": "ISSUE: broken", "agent": "primary"},
  {"role": "assistant", "content": "Look.\n```\nfind_file \"x.py\"\n```", "thought": "Look.", "action": "find_file \"x.py\"\n"},
  {"role": "user", "content": "Found 1 matches\n(Open file: n/a)\nbash-$"},
  {"role": "assistant", "content": "", "thought": "Run it.", "action": "python x.py\n"},
  {"role": "user", "content": "Traceback (most recent call last):\n  ..."},
  {"role": "assistant", "content": "Done", "action": "submit\n"}
], "info": {"instance_id": "x__y-1", "exit_status": "submitted"}}"#;
        let out = read_as(src);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("x__y-1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [System, System, User, Assistant, Tool, Assistant, Tool, Assistant]
        );
        let c = &t.turns[3].calls[0];
        assert_eq!(c.name, "find_file");
        assert_eq!(c.arguments, "find_file \"x.py\"\n");
        assert_eq!(c.result_turn, Some(4));
        assert_eq!(t.turns[6].result.as_ref().unwrap().call, Some((5, 0)));
        // Empty content falls back to the thought.
        assert_eq!(t.turns[5].segments[0].text.text, "Run it.");
        assert_eq!(t.turns[7].calls[0].result_turn, None);
    }

    #[test]
    fn steps_the_history_leaves_out_are_read_from_the_trajectory() {
        // The history ends on the `ls` action, unanswered; the trajectory holds its
        // observation and a last step (`submit`, its diff) that the history lacks.
        let src = r#"{"history": [
  {"role": "system", "content": "You are an agent."},
  {"role": "user", "content": "Fix the bug."},
  {"role": "assistant", "content": "Look.", "action": "ls\n"}
], "trajectory": [
  {"action": "ls\n", "observation": "a.py\n", "response": "Look."},
  {"action": "submit\n", "observation": "diff --git a/a.py b/a.py\n", "response": "Done, submitting."}
]}"#;
        let out = read_checked(src, false);
        let t = &out.trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [System, User, Assistant, Tool, Assistant, Tool]);
        assert_eq!(t.turns[2].calls[0].result_turn, Some(3));
        assert_eq!(t.turns[3].segments[0].text.text, "a.py\n");
        assert_eq!(t.turns[4].calls[0].name, "submit");
        assert_eq!(t.turns[4].calls[0].result_turn, Some(5));
        assert!(t.turns[5].segments[0].text.text.starts_with("diff --git"));
        // A history that has every step reads none twice.
        let whole = src.replace(
            r#"{"role": "assistant", "content": "Look.", "action": "ls\n"}"#,
            r#"{"role": "assistant", "content": "Look.", "action": "ls\n"},
  {"role": "user", "content": "a.py\n"},
  {"role": "assistant", "content": "Done, submitting.", "action": "submit\n"},
  {"role": "user", "content": "diff --git a/a.py b/a.py\n"}"#,
        );
        let out = read_checked(&whole, false);
        assert_eq!(out.trajectories[0].turns.len(), 6);
        // A retry the steps hold and the history does not (a format error), and an action the
        // history repeats: matched in order, no step read twice.
        let retried = r#"{"history": [
  {"role": "user", "content": "Fix the bug."},
  {"role": "assistant", "content": "Open.", "action": "open a.py"},
  {"role": "user", "content": "lines 1-100"},
  {"role": "assistant", "content": "Down.", "action": "scroll_down"},
  {"role": "user", "content": "lines 101-200"},
  {"role": "assistant", "content": "Down.", "action": "scroll_down"},
  {"role": "user", "content": "lines 201-300"}
], "trajectory": [
  {"action": "open a.py", "observation": "lines 1-100", "response": "Open."},
  {"action": "bad", "observation": "Your output was not formatted correctly", "response": "?"},
  {"action": "scroll_down", "observation": "lines 101-200", "response": "Down."},
  {"action": "scroll_down", "observation": "lines 201-300", "response": "Down."},
  {"action": "submit", "observation": "diff --git a/a.py b/a.py", "response": "Submit."}
]}"#;
        let out = read_checked(retried, false);
        let t = &out.trajectories[0];
        let texts = crate::formats::checked::first_texts(t);
        assert_eq!(
            texts,
            [
                "Fix the bug.",
                "Open.",
                "lines 1-100",
                "Down.",
                "lines 101-200",
                "Down.",
                "lines 201-300",
                "Submit.",
                "diff --git a/a.py b/a.py"
            ]
        );
    }

    #[test]
    fn trajectory_steps_when_history_is_absent() {
        let src = r#"{"trajectory": [
  {"action": "ls\n", "observation": "a.py\n", "response": "List files.\n```\nls\n```", "thought": "List files.", "state": "{}"},
  {"action": "submit\n", "observation": null, "response": "", "thought": "Submit."}
], "history": []}"#;
        let out = read_checked(src, false);
        let t = &out.trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Assistant, Tool, Assistant]);
        assert_eq!(t.turns[0].calls[0].result_turn, Some(1));
        assert_eq!(
            t.turns[0].segments[0].text.text,
            "List files.\n```\nls\n```"
        );
        assert_eq!(t.turns[2].segments[0].text.text, "Submit.");
        assert_eq!(t.turns[2].calls[0].name, "submit");
    }

    #[test]
    fn bad_input() {
        let out = read_as(r#"{"history": [{"role": "user", "content": "x"}"#);
        assert!(out.trajectories.is_empty());
        assert!(out.unreadable());
        let out = read_as(r#"{"environment": "main", "info": {}}"#);
        assert!(out.trajectories.is_empty() && out.unreadable());
        let out = read_as(
            r#"{"history": [7, {"role": "critic", "content": "x"}, {"role": "user", "content": "task"}]}"#,
        );
        assert_eq!(out.trajectories[0].turns.len(), 1);
        assert_eq!(out.issues.len(), 2, "{:?}", out.issues);
        let out = read_as("[1, 2]");
        assert!(out.unreadable());
    }
}
