//! Qwen Code sessions (`~/.qwen/projects/<project>/chats/<session>.jsonl`; earlier under
//! `~/.qwen/tmp/<hash>/chats/`): one record per line, `{uuid, parentUuid, sessionId,
//! timestamp, type, subtype?, message?, toolCallResult?, systemPayload?}`, where
//!
//! - `message` is a Gemini API content `{role: "user"|"model", parts}` (text, thought,
//!   `functionCall`, `functionResponse`), read by the Gemini content reader;
//! - `type: "user"` is the user's input, `"assistant"` the model's answer with its calls,
//!   `"tool_result"` a call's response (`toolCallResult.status: "error"` or an `error` in the
//!   response flags a failure);
//! - `type: "system"` records carry `systemPayload`: `subtype: "chat_compression"` is a
//!   compaction whose `compressedHistory` opens with the summary the model then sees; the
//!   others (titles, telemetry, checkpoints) are no turns.
//!
//! Records are read in file order; one written again (same `uuid`) is read once, and a
//! sub-agent's records (`isSidechain`) are left out, as in Claude Code sessions, whose lines
//! these otherwise resemble.

use super::gemini::content;
use super::{compaction_turn, jsonl_objects, summary_turn, ReadOutput, Shape};
use crate::json::{Doc, Value};
use crate::model::{Format, Trajectory};
use crate::source::Span;
use std::collections::HashSet;

/// Whether a record is one of these: Claude Code's records are alike, but their `message`
/// holds `content`, never Gemini `parts`, and their system records carry no `systemPayload`.
pub fn is_record(d: &Doc, v: &Value) -> bool {
    let has = |k: &str| d.get(v, k).is_some();
    if !(has("uuid") && has("sessionId")) {
        return false;
    }
    match d.get_str(v, "type").as_deref() {
        Some("user" | "assistant") => d.path(v, &["message", "parts"]).is_some(),
        Some("tool_result") => true,
        Some("system") => has("systemPayload"),
        _ => false,
    }
}

pub fn read(bytes: &[u8], _shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::QwenCode);
    let d = Doc::new(bytes);
    let lines = jsonl_objects(bytes, &mut out);
    let mut traj = Trajectory::new(Format::QwenCode, Span::new(0, bytes.len()));
    let mut seen: HashSet<String> = HashSet::new();
    let mut sidechain = 0;
    for line in &lines {
        let rec = &line.value;
        if let Some(uuid) = d.get_str(rec, "uuid") {
            if !seen.insert(uuid) {
                continue;
            }
        }
        if d.flag(rec, "isSidechain") {
            sidechain += 1;
            continue;
        }
        if traj.id.is_none() {
            traj.id = d.get_str(rec, "sessionId");
        }
        let ty = d.get_str(rec, "type").unwrap_or_default();
        match ty.as_str() {
            "user" | "assistant" | "tool_result" => {
                let Some(m) = d.get(rec, "message") else {
                    continue;
                };
                let from = traj.turns.len();
                content(&d, m, &mut traj);
                if ty == "tool_result" {
                    let r = d.get(rec, "toolCallResult");
                    let failed = r.is_some_and(|r| {
                        d.is(r, "status", "error")
                            || d.get(r, "error").is_some_and(|e| !Doc::is_null(Some(e)))
                    });
                    for t in &mut traj.turns[from..] {
                        if let Some(res) = t.result.as_mut() {
                            res.is_error |= failed;
                        }
                    }
                }
            }
            "system" if d.is(rec, "subtype", "chat_compression") => {
                let summary = d
                    .path(rec, &["systemPayload", "compressedHistory"])
                    .and_then(|h| d.items(h).first());
                let at = summary.map(|s| s.span.start);
                let name = "qwen-code.chat_compression";
                traj.turns.push(compaction_turn(line.span, at, name, None));
                // (The summary is a content: its text is in its parts.)
                if let Some((s, parts)) = summary.and_then(|s| Some((s, d.get(s, "parts")?))) {
                    traj.turns.push(summary_turn(&d, parts, s.span));
                }
            }
            _ => {}
        }
    }
    if sidechain > 0 {
        out.note(
            Span::new(0, bytes.len().min(1)),
            format!("skipped {sidechain} record(s) of sub-agents (isSidechain)"),
        );
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::formats::{self, detect};
    use crate::model::{EventKind, Format, Role};

    const SESSION: &str = r#"{"uuid":"u1","parentUuid":null,"sessionId":"q-1","timestamp":"t","type":"system","subtype":"session_source","cwd":"/w","version":"0.9.0","systemPayload":{"sourceType":"cli"}}
{"uuid":"u2","parentUuid":"u1","sessionId":"q-1","timestamp":"t","type":"user","cwd":"/w","version":"0.9.0","message":{"role":"user","parts":[{"text":"Fix the date test."}]}}
{"uuid":"u3","parentUuid":"u2","sessionId":"q-1","timestamp":"t","type":"assistant","cwd":"/w","version":"0.9.0","model":"qwen3-coder","message":{"role":"model","parts":[{"text":"Let me check the plan first.","thought":true},{"text":"I'll run the test."},{"functionCall":{"id":"call_1","name":"run_shell_command","args":{"command":"pytest tests/test_dates.py"}}}]}}
{"uuid":"u4","parentUuid":"u3","sessionId":"q-1","timestamp":"t","type":"tool_result","cwd":"/w","version":"0.9.0","message":{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"run_shell_command","response":{"output":"1 failed"}}}]},"toolCallResult":{"callId":"call_1","status":"error","resultDisplay":"1 failed"}}
{"uuid":"u4","parentUuid":"u3","sessionId":"q-1","timestamp":"t","type":"tool_result","cwd":"/w","version":"0.9.0","message":{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"run_shell_command","response":{"output":"1 failed"}}}]}}
{"uuid":"s1","parentUuid":"u3","sessionId":"q-1","timestamp":"t","type":"assistant","isSidechain":true,"agentId":"explore-1","cwd":"/w","version":"0.9.0","message":{"role":"model","parts":[{"text":"Sub-agent words."}]}}
{"uuid":"u5","parentUuid":"u4","sessionId":"q-1","timestamp":"t","type":"system","subtype":"chat_compression","cwd":"/w","version":"0.9.0","systemPayload":{"info":{"originalTokenCount":9000,"newTokenCount":900},"compressedHistory":[{"role":"user","parts":[{"text":"<state_snapshot>The date test fails.</state_snapshot>"}]},{"role":"model","parts":[{"text":"Got it."}]}]}}
{"uuid":"u6","parentUuid":"u5","sessionId":"q-1","timestamp":"t","type":"assistant","cwd":"/w","version":"0.9.0","message":{"role":"model","parts":[{"text":"The test fails; I will fix the parser."}]}}
"#;

    #[test]
    fn a_session_reads_as_gemini_contents_with_failures_and_its_compression() {
        assert_eq!(detect::detect(SESSION.as_bytes()), Some(Format::QwenCode));
        let out = formats::read(SESSION.as_bytes(), None);
        assert!(
            out.issues.iter().all(|i| i.message.contains("sub-agents")),
            "{:?}",
            out.issues
        );
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("q-1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [User, Assistant, Tool, Event, User, Assistant]);
        let texts: Vec<&str> = t.turns[1]
            .segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(
            texts,
            ["Let me check the plan first.", "I'll run the test."]
        );
        assert_eq!(t.turns[1].calls[0].name, "run_shell_command");
        assert_eq!(t.turns[1].calls[0].result_turn, Some(2));
        assert!(t.turns[2].result.as_ref().unwrap().is_error);
        assert!(matches!(
            t.turns[3].event,
            Some(EventKind::Compaction { opaque: false, .. })
        ));
        assert!(t.turns[4].is_summary);
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
    }

    #[test]
    fn claude_code_records_stay_claude_codes() {
        let claude = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.0","type":"user","message":{"role":"user","content":"hi"},"uuid":"a","timestamp":"t"}"#;
        assert_eq!(detect::detect(claude.as_bytes()), Some(Format::ClaudeCode));
    }
}
