//! Sessions of the pi coding agent (`~/.pi/agent/sessions/--<path>--/<time>_<uuid>.jsonl`,
//! documented in pi-mono's `docs/session.md`): a header `{type: "session", version, id, cwd}`,
//! then entries `{type, id, parentId, timestamp}` forming a tree (a branch starts a new child of
//! an earlier entry; the last entry is where the session stands)
//!
//! - `message {message: AgentMessage}`: `role: "user"` (content a string or blocks),
//!   `"assistant"` (`text`, `thinking` and `toolCall {id, name, arguments}` blocks;
//!   `stopReason: "error"` with `errorMessage` when the model call failed), `"toolResult"
//!   {toolCallId, toolName, content, isError}`, `"bashExecution" {command, output, exitCode}` (a
//!   command the user ran), `"custom"` (an extension's message), `"branchSummary"`;
//! - `compaction {summary, firstKeptEntryId}`: the entries before the first kept one are
//!   replaced by the summary; `branch_summary {summary}` and `custom_message {content}` are
//!   context the model is given;
//! - model and thinking changes, labels, names and extension state are no turns.
//!
//! The path from the last entry back to the root is the conversation; entries on abandoned
//! branches are left out (a note says how many).

use super::{compaction_turn, jsonl_objects, push_content, summary_turn, ReadOutput, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

/// Whether a record is one of a pi session's: its header, or a message entry (`message` with a
/// `role`, beside `parentId`).
pub fn is_record(d: &Doc, v: &Value) -> bool {
    let has = |k: &str| d.get(v, k).is_some();
    match d.get_str(v, "type").as_deref() {
        Some("session") => has("version") && has("cwd"),
        Some("message") => has("parentId") && d.path(v, &["message", "role"]).is_some(),
        _ => false,
    }
}

pub fn read(bytes: &[u8], _shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Pi);
    let d = Doc::new(bytes);
    let lines = jsonl_objects(bytes, &mut out);
    let mut traj = Trajectory::new(Format::Pi, Span::new(0, bytes.len()));
    // The branch the session stands on: from the last entry back to the root.
    let parent: HashMap<String, Option<String>> = lines
        .iter()
        .filter_map(|l| {
            let id = d.get_str(&l.value, "id")?;
            (!d.is(&l.value, "type", "session")).then(|| (id, d.get_str(&l.value, "parentId")))
        })
        .collect();
    let leaf = lines
        .iter()
        .rev()
        .filter(|l| !d.is(&l.value, "type", "session"))
        .find_map(|l| d.get_str(&l.value, "id"));
    let mut on_branch: HashSet<String> = HashSet::new();
    let mut at = leaf;
    while let Some(id) = at {
        if !on_branch.insert(id.clone()) {
            break; // (a cycle in a damaged file)
        }
        at = parent.get(&id).cloned().flatten();
    }
    let mut turn_of: HashMap<String, usize> = HashMap::new();
    let mut boundary = 0;
    let mut abandoned = 0;
    for line in &lines {
        let (span, e) = (line.span, &line.value);
        let ty = d.get_str(e, "type").unwrap_or_default();
        if ty == "session" {
            traj.id = d.get_str(e, "id");
            continue;
        }
        let id = d.get_str(e, "id");
        // (Entries without ids are a linear session of the first version: all on it.)
        if id.as_ref().is_some_and(|id| !on_branch.contains(id)) {
            abandoned += 1;
            continue;
        }
        let from = traj.turns.len();
        match ty.as_str() {
            "message" => {
                if let Some(m) = d.get(e, "message") {
                    message(&d, m, span, &mut traj);
                }
            }
            "compaction" => {
                let summary = d.get(e, "summary");
                let first_kept = d
                    .get_str(e, "firstKeptEntryId")
                    .and_then(|k| turn_of.get(&k).copied());
                let replaced = first_kept
                    .unwrap_or(from)
                    .checked_sub(1)
                    .filter(|&last| last >= boundary)
                    .map(|last| (boundary, last));
                let at = summary.map(|s| s.span.start);
                traj.turns
                    .push(compaction_turn(span, at, "pi.compaction", replaced));
                if let Some(s) = summary {
                    traj.turns
                        .push(summary_turn(&d, s, Span::new(s.span.start, span.end)));
                }
                boundary = traj.turns.len();
            }
            "branch_summary" | "custom_message" => {
                let mut t = Turn::new(Role::User, span);
                for key in ["summary", "content"] {
                    if let Some(c) = d.get(e, key) {
                        push_content(&d, c, SegmentKind::Prose, &mut t);
                    }
                }
                traj.turns.push(t);
            }
            _ => {}
        }
        if let (Some(id), true) = (id, traj.turns.len() > from) {
            turn_of.insert(id, from);
        }
    }
    if abandoned > 0 {
        out.note(
            Span::new(0, bytes.len().min(1)),
            format!(
                "skipped {abandoned} {} on branches the session left",
                if abandoned == 1 { "entry" } else { "entries" }
            ),
        );
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

/// One `AgentMessage` as its turns.
fn message(d: &Doc, m: &Value, span: Span, traj: &mut Trajectory) {
    let role = d.get_str(m, "role").unwrap_or_default();
    let content = d.get(m, "content");
    match role.as_str() {
        "assistant" => {
            let mut t = Turn::new(Role::Assistant, span);
            for b in content.map(|c| d.items(c)).unwrap_or_default() {
                if d.is(b, "type", "toolCall") {
                    let args = d.get(b, "arguments");
                    t.calls.push(ToolCall {
                        id: d.get_str(b, "id"),
                        name: d.get_str(b, "name").unwrap_or_default(),
                        arguments: args.map_or_else(String::new, |a| match a.kind {
                            Kind::Str { .. } => d.str(a).unwrap_or_default(),
                            _ => d.raw(a).to_string(),
                        }),
                        span: b.span,
                        result_turn: None,
                    });
                } else {
                    super::push_block(d, b, SegmentKind::Prose, &mut t);
                }
            }
            traj.turns.push(t);
            // The model call itself failed (an API error, an abort).
            if d.is(m, "stopReason", "error") && d.get(m, "errorMessage").is_some() {
                let mut t = Turn::new(Role::Event, Span::new(span.end, span.end));
                t.event = Some(EventKind::Other("pi.error".into()));
                if let Some(em) = d.get(m, "errorMessage") {
                    t.span = em.span;
                    push_content(d, em, SegmentKind::Prose, &mut t);
                }
                // (Its span lies inside the assistant's line: the assistant turn ends there.)
                if let Some(a) = traj.turns.last_mut() {
                    a.span.end = a.span.end.min(t.span.start);
                }
                traj.turns.push(t);
            }
        }
        "toolResult" | "bashExecution" => {
            let mut t = Turn::new(Role::Tool, span);
            if let Some(c) = content.or_else(|| d.get(m, "output")) {
                push_content(d, c, SegmentKind::Output, &mut t);
            }
            let exit_code = d.get(m, "exitCode").and_then(|v| d.as_i64(v));
            t.result = Some(ToolResult {
                call_id: d.get_str(m, "toolCallId"),
                name: d.get_str(m, "toolName"),
                is_error: d.flag(m, "isError") || exit_code.is_some_and(|c| c != 0),
                exit_code,
                ..Default::default()
            });
            traj.turns.push(t);
        }
        _ => {
            // user, custom (an extension's message), branchSummary.
            let mut t = Turn::new(Role::User, span);
            if let Some(c) = content.or_else(|| d.get(m, "summary")) {
                push_content(d, c, SegmentKind::Prose, &mut t);
            }
            traj.turns.push(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::{self, detect};
    use crate::model::{EventKind, Format, Role};

    const SESSION: &str = r#"{"type":"session","version":3,"id":"p-1","timestamp":"t","cwd":"/w"}
{"type":"model_change","id":"a0","parentId":null,"timestamp":"t","provider":"anthropic","modelId":"m"}
{"type":"message","id":"a1","parentId":"a0","timestamp":"t","message":{"role":"user","content":"Fix the date test.","timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"Run it first."},{"type":"text","text":"I'll run the test."},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"pytest tests/test_dates.py"}}],"provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"t","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"1 failed"}],"isError":true,"timestamp":3}}
{"type":"message","id":"b1","parentId":"a3","timestamp":"t","message":{"role":"user","content":"Actually, rename the file first.","timestamp":4}}
{"type":"branch_summary","id":"a4","parentId":"a3","timestamp":"t","fromId":"b1","summary":"The user asked for a rename, then went back."}
{"type":"compaction","id":"a5","parentId":"a4","timestamp":"t","summary":"The date test fails (1 failed).","firstKeptEntryId":"a3","tokensBefore":5000}
{"type":"message","id":"a6","parentId":"a5","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"Retrying."}],"provider":"anthropic","model":"m","stopReason":"error","errorMessage":"529 overloaded","timestamp":5}}
"#;

    #[test]
    fn a_session_reads_along_its_branch_with_calls_failures_and_compaction() {
        assert_eq!(detect::detect(SESSION.as_bytes()), Some(Format::Pi));
        let out = formats::read(SESSION.as_bytes(), None);
        assert!(
            out.issues.iter().all(|i| i.message.contains("branches")),
            "{:?}",
            out.issues
        );
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("p-1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        // (The rewound user message b1 is on an abandoned branch.)
        assert_eq!(
            roles,
            [User, Assistant, Tool, User, Event, User, Assistant, Event]
        );
        let texts: Vec<&str> = t.turns[1]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(texts, ["Run it first.", "I'll run the test."]);
        assert_eq!(t.turns[1].calls[0].name, "bash");
        assert_eq!(t.turns[1].calls[0].result_turn, Some(2));
        assert!(t.turns[2].result.as_ref().unwrap().is_error);
        // The compaction replaced what came before its first kept entry (the tool result).
        match &t.turns[4].event {
            Some(EventKind::Compaction { replaced, .. }) => assert_eq!(*replaced, Some((0, 1))),
            other => panic!("{other:?}"),
        }
        assert!(t.turns[5].is_summary);
        assert_eq!(t.turns[7].segments[0].text.text, "529 overloaded");
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start, "{w:?}");
        }
    }
}
