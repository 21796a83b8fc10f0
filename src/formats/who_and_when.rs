//! Who&When failure-attribution logs: one JSON document per failed task,
//! `{history: [{content, role, name?}], question, question_ID, mistake_agent, mistake_step, …}`.
//!
//! One trajectory per file (id = `question_ID`); each `history` item is one turn, so turn `i` is
//! step `i` of the labels (`mistake_step`). Two flavours:
//! - Hand-Crafted (Magentic-One): `role` is the agent label (`"Orchestrator (-> WebSurfer)"`,
//!   `"WebSurfer"`, `"human"`). WebSurfer and FileSurfer report what their browser did in agent
//!   messages: they stay assistant turns.
//! - Algorithm-Generated (AG2 CaptainAgent): `name` is the agent and `role` is AG2's own
//!   `"user"`/`"assistant"` bookkeeping, not who spoke. The first item is the task handed to the
//!   group (a user turn whatever its role). `Computer_terminal` runs the code blocks of the
//!   message before it and answers `exitcode: N (execution succeeded|failed)`: it is a tool turn
//!   answering an `execute_code` call on that message (positional pairing).
//!
//! The per-agent `system_prompt` map and the labels are metadata and are not read as turns (that
//! would shift turn indices away from `mistake_step`).

use super::{expect_document, push_content, ReadOutput, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::WhoAndWhen);
    let Some(doc) = expect_document(shape, &mut out) else {
        return out;
    };
    let d = Doc::new(bytes);
    let history = match d.get(doc, "history") {
        Some(h) if matches!(h.kind, Kind::Array(_)) => h,
        Some(h) => {
            out.error(h.span, "`history` is not a list");
            return out;
        }
        None => {
            out.error(
                Span::new(doc.span.start, doc.span.start + 1),
                "no `history` list in this Who&When log",
            );
            return out;
        }
    };
    let mut traj = Trajectory::new(Format::WhoAndWhen, doc.span);
    traj.id = d.get(doc, "question_ID").and_then(|v| match v.kind {
        Kind::Str { .. } => d.str(v),
        Kind::Number => Some(d.raw(v).to_string()),
        _ => None,
    });
    // Magentic-One: an agent's report answers the orchestrator's latest instruction to it, even
    // with orchestrator thoughts in between.
    let mut instructed: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, item) in d.items(history).iter().enumerate() {
        if !matches!(item.kind, Kind::Object(_)) {
            out.skip_record(
                item.span,
                format!("history item {i} is not an object; skipped"),
                false,
            );
            continue;
        }
        let mut turn = step_turn(&d, item, i == 0, &traj);
        let at = traj.turns.len();
        if let Some(c) = turn.calls.first().filter(|c| is_surfer(&c.name)) {
            instructed.insert(c.name.to_ascii_lowercase(), at);
        }
        if let (Some(r), Some(name)) = (turn.result.as_mut(), turn.name.as_deref()) {
            if let Some(t) = instructed.remove(&name.to_ascii_lowercase()) {
                r.call = Some((t, 0));
            }
        }
        traj.turns.push(turn);
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

fn step_turn(d: &Doc, item: &Value, first: bool, traj: &Trajectory) -> Turn {
    let role = d.get_str(item, "role");
    let name = d.get_str(item, "name");
    let label = name.clone().or_else(|| role.clone());
    // Magentic-One's WebSurfer and FileSurfer report what their tools saw: observations of
    // the environment, answering the orchestrator's instruction to them.
    // So does the runtime when it crashes, even inside an orchestrator record: "Next speaker
    // Assistant\nError processing publish message\nTraceback …" is its report, not the
    // orchestrator's words.
    let crashed = d
        .get(item, "content")
        .is_some_and(|c| d.raw(c).contains(RUNTIME_CRASH));
    // AG2's web agents post what their browser shows as their own message ("Address: …\nTitle:
    // …\nViewport position: …"): an observation, like WebSurfer's.
    let page = d
        .get(item, "content")
        .and_then(|c| d.str(c))
        .is_some_and(|c| is_browser_page(&c));
    let terminal = crashed
        || page
        || [&name, &role]
            .into_iter()
            .flatten()
            .any(|s| is_terminal(s) || is_surfer(s));
    let role_s = role.as_deref().unwrap_or("");
    let turn_role = if terminal {
        Role::Tool
    } else if first || role_s == "human" || (role_s == "user" && name.is_none()) {
        Role::User
    } else {
        Role::Assistant
    };
    let mut t = Turn::new(turn_role, item.span);
    t.name = label;
    let kind = if terminal {
        SegmentKind::Output
    } else {
        SegmentKind::Prose
    };
    if let Some(c) = d.get(item, "content") {
        push_content(d, c, kind, &mut t);
    }
    match turn_role {
        Role::Tool => {
            let mut exit_code = None;
            if let Some(first) = t.segments.first_mut() {
                if let Some((code, printed_from)) = exit_code_line(&first.text.text) {
                    exit_code = Some(code);
                    first.printed.start = printed_from;
                }
            }
            t.result = Some(if page {
                // What the agent's own browser shows: no call of this log asked for it (an
                // id that none has keeps it from answering a code block before it).
                ToolResult {
                    call_id: Some("browser".into()),
                    name: Some("browser".into()),
                    ..Default::default()
                }
            } else {
                // The terminal runs the code of the message right before it.
                let call = traj
                    .turns
                    .len()
                    .checked_sub(1)
                    .filter(|&p| !traj.turns[p].calls.is_empty())
                    .map(|p| (p, 0));
                ToolResult {
                    call,
                    exit_code,
                    name: Some("execute_code".into()),
                    ..Default::default()
                }
            });
        }
        Role::Assistant => {
            if let Some(call) = code_call(&t) {
                t.calls.push(call);
            } else if let Some(target) = role_s.split("(->").nth(1) {
                // "Orchestrator (-> WebSurfer)": an instruction the named agent carries out.
                let target = target.trim().trim_end_matches(')').trim();
                if is_surfer(target) {
                    t.calls.push(crate::model::ToolCall {
                        id: None,
                        name: target.to_string(),
                        arguments: t.segments.iter().map(|s| s.text.text.as_str()).collect(),
                        span: item.span,
                        result_turn: None,
                    });
                }
            }
        }
        _ => {}
    }
    t
}

/// Whether a message is a text browser's render of a page: its header lines `Address:`,
/// `Title:` and `Viewport position:` (autogen's SimpleTextBrowser, which AG2's and
/// Magentic-One's surfers share).
fn is_browser_page(content: &str) -> bool {
    let mut lines = content.lines();
    lines.next().is_some_and(|l| l.starts_with("Address: "))
        && lines.take(3).any(|l| l.starts_with("Viewport position: "))
}

/// The line the Magentic-One runtime logs before the traceback of an agent that crashed.
const RUNTIME_CRASH: &str = "Error processing publish message";

fn is_surfer(label: &str) -> bool {
    let norm: String = label
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    norm == "websurfer" || norm == "filesurfer"
}

fn is_terminal(label: &str) -> bool {
    let norm: String = label
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    norm == "computerterminal"
}

/// `exitcode: N (execution …)` at the start of the terminal's answer, and where what the code
/// printed starts: after the `Code output:` label that follows.
fn exit_code_line(text: &str) -> Option<(i64, usize)> {
    let rest = text.trim_start().strip_prefix("exitcode:")?.trim_start();
    let (code, after) = super::leading_int(rest)?;
    let line_end = after.find('\n').map_or(after.len(), |k| k + 1);
    let next = after[line_end..].trim_start();
    let printed = next
        .strip_prefix("Code output:")
        .unwrap_or(&after[line_end..]);
    Some((code, text.len() - printed.len()))
}

/// Languages the AG2 terminal executes.
const EXECUTABLE: [&str; 6] = ["python", "py", "python3", "sh", "bash", "shell"];

/// One `execute_code` call for the executable fenced code blocks of an agent message, with their
/// code (one block after another) as the arguments.
fn code_call(t: &Turn) -> Option<ToolCall> {
    let mut code = String::new();
    let mut span: Option<Span> = None;
    for s in &t.segments {
        for Fenced { open, body, end } in code_blocks(&s.text.text) {
            let lang = s.text.text[open.0..open.1]
                .trim_start()
                .trim_start_matches('`')
                .trim()
                .to_ascii_lowercase();
            if !EXECUTABLE.contains(&lang.as_str()) {
                continue;
            }
            if !code.is_empty() {
                code.push('\n');
            }
            code.push_str(&s.text.text[body.0..body.1]);
            let raw = s.text.raw_span(open.0, end);
            span = Some(span.map_or(raw, |sp| sp.cover(raw)));
        }
    }
    Some(ToolCall {
        id: None,
        name: "execute_code".into(),
        arguments: code,
        span: span?,
        result_turn: None,
    })
}

/// A fenced code block, in decoded offsets.
struct Fenced {
    /// The opening line (``` and the language).
    open: (usize, usize),
    body: (usize, usize),
    /// End of the closing line.
    end: usize,
}

/// Fenced blocks opened by a line starting with ```` ``` ````. An unclosed block runs to the end.
fn code_blocks(text: &str) -> Vec<Fenced> {
    let mut blocks = Vec::new();
    let mut open: Option<((usize, usize), usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let end = start + content.len();
        let fence = content.trim_start().starts_with("```");
        match open {
            None if fence => open = Some(((start, end), at)),
            Some((o, body)) if fence && content.trim() == "```" => {
                // The body ends before the closing line's own line break.
                let body_end = start.saturating_sub(1).max(body);
                blocks.push(Fenced {
                    open: o,
                    body: (body, body_end),
                    end,
                });
                open = None;
            }
            _ => {}
        }
    }
    if let Some((o, body)) = open {
        blocks.push(Fenced {
            open: o,
            body: (body.min(text.len()), text.len()),
            end: text.len(),
        });
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats;

    fn read_str(src: &str) -> ReadOutput {
        formats::read(src.as_bytes(), None)
    }

    const AG2: &str = r#"{"is_correct": false, "question": "q", "question_ID": "abc-1", "level": "1",
 "history": [
  {"content": "You are given: a task.\nexitcode: 1 (execution failed)", "role": "assistant", "name": "PythonDebugging_Expert"},
  {"content": "Let me run:\n```python\nprint(\"hi\")\n```\nand\n```sh\nls\n```\nDone.", "role": "user", "name": "Validation_Expert"},
  {"content": "exitcode: 1 (execution failed)\nCode output: Traceback", "role": "user", "name": "Computer_terminal"},
  {"content": "No code here.", "role": "assistant", "name": "PythonDebugging_Expert"},
  {"content": "There is no code from the last 1 message for me to execute.", "role": "user", "name": "Computer_terminal"},
  {"content": "TERMINATE", "role": "assistant", "name": "PythonDebugging_Expert"}
 ],
 "mistake_agent": "Validation_Expert", "mistake_step": "1", "mistake_reason": "r",
 "system_prompt": {"Validation_Expert": "Your role"}}"#;

    #[test]
    fn ag2_roles_calls_and_exit_codes() {
        let out = read_str(AG2);
        assert_eq!(out.format, Some(Format::WhoAndWhen));
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("abc-1"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(roles, [User, Assistant, Tool, Assistant, Tool, Assistant]);
        assert_eq!(t.turns[1].name.as_deref(), Some("Validation_Expert"));
        // The first item is the task: no exit code, no call even though it quotes one.
        assert!(t.turns[0].calls.is_empty() && t.turns[0].result.is_none());
        let call = &t.turns[1].calls[0];
        assert_eq!(call.name, "execute_code");
        assert_eq!(call.arguments, "print(\"hi\")\nls");
        assert_eq!(call.result_turn, Some(2));
        let r = t.turns[2].result.as_ref().unwrap();
        assert_eq!(r.exit_code, Some(1));
        assert_eq!(r.call, Some((1, 0)));
        let r = t.turns[4].result.as_ref().unwrap();
        assert_eq!((r.exit_code, r.call), (None, None));
        // The call's span covers both fenced blocks in the raw JSON, escapes included.
        let raw = &AG2[call.span.start..call.span.end];
        assert!(raw.starts_with("```python\\nprint(\\\"hi\\\")"), "{raw}");
        assert!(raw.ends_with("ls\\n```"), "{raw}");
        let turn = &t.turns[1];
        assert!(turn.span.start <= call.span.start && call.span.end <= turn.span.end);
    }

    #[test]
    fn decoded_sub_span_maps_back() {
        let out = read_str(AG2);
        let seg = &out.trajectories[0].turns[1].segments[0].text;
        let s = seg.text.find("print").unwrap();
        let r = seg.raw_span(s, s + "print(\"hi\")".len());
        assert_eq!(&AG2[r.start..r.end], r#"print(\"hi\")"#);
    }

    #[test]
    fn magentic_one_labels() {
        let src = r#"{"history": [
  {"content": "What year?", "role": "human"},
  {"content": "Initial plan: ComputerTerminal runs ```python code blocks", "role": "Orchestrator (thought)"},
  {"content": "Please look it up.", "role": "Orchestrator (-> WebSurfer)"},
  {"content": "I typed 'year' into the search bar.", "role": "WebSurfer"},
  {"content": "exitcode: 0 (execution succeeded)\nCode output: 3", "role": "ComputerTerminal"}
 ], "question": "q", "question_ID": 42, "mistake_agent": "WebSurfer", "mistake_step": "3"}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("42"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        // WebSurfer reports what its tools saw: an observation answering the orchestrator's
        // instruction to it.
        assert_eq!(roles, [User, Assistant, Assistant, Tool, Tool]);
        assert_eq!(t.turns[3].name.as_deref(), Some("WebSurfer"));
        assert_eq!(t.turns[2].calls[0].name, "WebSurfer");
        assert_eq!(t.turns[3].result.as_ref().unwrap().call, Some((2, 0)));
        // A fence mentioned inside a sentence is not a code block.
        assert!(t.turns[1].calls.is_empty());
        let r = t.turns[4].result.as_ref().unwrap();
        assert_eq!((r.exit_code, r.call), (Some(0), None));
    }

    #[test]
    fn a_browser_page_an_agent_posts_is_an_observation() {
        let src = r#"{"history": [
  {"content": "How many edits?", "role": "assistant", "name": "Manager"},
  {"content": "Let me count them:\n```python\nprint(1)\n```", "role": "user", "name": "WebServing_Expert"},
  {"content": "Address: bing: edits to the page\nTitle: edits - Search\nViewport position: Showing page 1 of 1.\n=======================\nI will find 10 results", "role": "user", "name": "WebServing_Expert"},
  {"content": "Address: the page of results is summarized below; I will look further.", "role": "user", "name": "WebServing_Expert"}
 ], "question": "q", "question_ID": 9}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        assert_eq!(t.turns[2].role, Role::Tool);
        assert_eq!(t.turns[2].segments[0].kind, SegmentKind::Output);
        // The page answers the agent's browser, not the code block right before it.
        assert_eq!(t.turns[2].result.as_ref().unwrap().call, None);
        assert_eq!(t.turns[1].calls[0].result_turn, None);
        // Without the browser's header lines, the agent is speaking.
        assert_eq!(t.turns[3].role, Role::Assistant);
    }

    #[test]
    fn the_runtime_s_crash_in_an_orchestrator_record_is_its_report() {
        let src = r#"{"history": [
  {"content": "What year?", "role": "human"},
  {"content": "Assistant, please verify the years.", "role": "Orchestrator (thought)"},
  {"content": "Next speaker Assistant\nError processing publish message\nTraceback (most recent call last):\n  File \"runtime.py\", line 410\nopenai.BadRequestError: Error code: 400", "role": "Orchestrator (thought)"}
 ], "question": "q", "question_ID": 7}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        use Role::*;
        assert_eq!(roles, [User, Assistant, Tool]);
        let lex = crate::extract::lexicon::Lexicon::builtin();
        let facts = crate::analysis::analyze(t, src.as_bytes(), &lex).facts;
        let errors: Vec<(usize, &str)> = facts
            .iter()
            .filter(|f| f.subkind == crate::extract::Subkind::Error)
            .map(|f| (f.turn, f.text.as_str()))
            .collect();
        assert_eq!(
            errors,
            [(2, "openai.BadRequestError: Error code: 400")],
            "{errors:#?}"
        );
    }

    #[test]
    fn bad_input() {
        let out = formats::read(br#"{"question_ID": "x", "history": 3}"#, None);
        assert!(out.unreadable());
        let out = formats::read(br#"{"question_ID": "x"}"#, None);
        assert!(out.unreadable());
        let out = formats::read(
            br#"{"mistake_agent": "a", "history": [1, {"role": "human", "content": null}, {"name": "X", "content": "```python\nunclosed"}]}"#,
            None,
        );
        let t = &out.trajectories[0];
        assert_eq!(t.turns.len(), 2);
        assert_eq!(t.turns[1].calls[0].arguments, "unclosed");
        assert!(out.issues.iter().any(|i| i.message.contains("item 0")));
        let out = formats::read(br#"{"question_ID": "x", "history": [{"#, None);
        assert!(out.unreadable());
        assert_eq!(exit_code_line("exitcode: -9 (x)"), Some((-9, 16)));
        assert_eq!(exit_code_line("exitcode:"), None);
        let ran = "exitcode: 1 (execution failed)\nCode output: Traceback";
        let (code, from) = exit_code_line(ran).unwrap();
        assert_eq!((code, &ran[from..]), (1, " Traceback"));
    }
}
