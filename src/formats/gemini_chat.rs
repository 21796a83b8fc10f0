//! Gemini CLI's chat recordings as it writes them since they became append-only
//! (`~/.gemini/tmp/<project>/chats/session-*.jsonl`): a log of edits to a conversation,
//! replayed to get the conversation back
//!
//! - the first line is the session's metadata `{sessionId, projectHash, startTime, kind?}`;
//! - a message record `{id, timestamp, type: "user"|"gemini"|"info"|"error"|"warning",
//!   content, toolCalls?, thoughts?, tokens?}` adds a message, or replaces the one with its id
//!   (a model message is written again each time its calls, results or token counts change);
//! - `{"$rewindTo": id}` removes that message and every one after it (the user went back);
//! - `{"$set": {...}}` patches the metadata; with `messages` it replaces the whole
//!   conversation: after a compression, the messages the model keeps and the summary it was
//!   given in place of the rest; after a rewind (as newer CLIs write it), the messages before
//!   the point the user went back to, and nothing new.
//!
//! A message is read as it last stood before the next one began (a later rewrite of an earlier
//! message is the CLI updating its record, not a new turn), with the message reader of the
//! legacy single-document sessions. Rewound messages are not read (a note says how many). A
//! `$set` of messages that drops some and brings new ones is a compaction: an event turn, then
//! the messages it brings that the log had not seen (the summary), read as summary turns.

use super::gemini::session_message;
use super::{compaction_turn, turn_hull, Line, ReadOutput};
use crate::json::{Doc, Kind, Value};
use crate::model::{Format, SegmentKind, Trajectory};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

/// Whether a record is one of a chat recording's: its metadata line, a message record (`type`
/// next to a top-level `content` and an `id`), or a `$rewindTo` / `$set` edit.
pub fn is_record(d: &Doc, rec: &Value) -> bool {
    let has = |k: &str| d.get(rec, k).is_some();
    if has("$rewindTo") || has("$set") {
        return true;
    }
    if has("sessionId") && has("projectHash") {
        return true;
    }
    let message_type = matches!(
        d.get_str(rec, "type").as_deref(),
        Some("gemini" | "user" | "info" | "error" | "warning")
    );
    message_type
        && has("id")
        && has("timestamp")
        && (has("content") || has("toolCalls"))
        && !has("message")
        && !has("uuid")
        && !has("session_id")
}

/// A step of the replayed conversation.
enum Entry<'v> {
    Message {
        id: String,
        record: &'v Value,
    },
    /// A compaction at this line: the messages it dropped, and those it brought that the log
    /// had not seen.
    Compaction {
        span: Span,
        dropped: Vec<String>,
        summary: Vec<&'v Value>,
    },
}

pub(super) fn read(bytes: &[u8], lines: &[Line], mut out: ReadOutput) -> ReadOutput {
    let d = Doc::new(bytes);
    let mut traj = Trajectory::new(Format::Gemini, Span::new(0, bytes.len()));
    let mut entries: Vec<Entry> = Vec::new();
    // The ids of the messages in `entries`.
    let mut present: HashSet<String> = HashSet::new();
    let mut rewound = 0;
    for line in lines {
        let rec = &line.value;
        if let Some(id) = d.get_str(rec, "$rewindTo") {
            let at = entries
                .iter()
                .position(|e| matches!(e, Entry::Message { id: m, .. } if *m == id))
                .unwrap_or(0);
            for e in entries.drain(at..) {
                if let Entry::Message { id, .. } = e {
                    present.remove(&id);
                    rewound += 1;
                }
            }
        } else if let Some(set) = d.get(rec, "$set") {
            if let Some(messages) = d
                .get(set, "messages")
                .filter(|m| matches!(m.kind, Kind::Array(_)))
            {
                let kept: HashSet<String> = d
                    .items(messages)
                    .iter()
                    .filter_map(|m| d.get_str(m, "id"))
                    .collect();
                let dropped: Vec<String> = present
                    .iter()
                    .filter(|id| !kept.contains(*id))
                    .cloned()
                    .collect();
                let new: Vec<&Value> = d
                    .items(messages)
                    .iter()
                    .filter(|m| d.get_str(m, "id").is_none_or(|id| !present.contains(&id)))
                    .collect();
                // Keeping the first messages, adding none: the conversation was cut back (a
                // rewind written as a rewrite), not compressed, which always brings its summary.
                // (Messages an earlier compression dropped are no longer in the conversation.)
                let cut_off = |e: &Entry| match e {
                    Entry::Message { id, .. } => present.contains(id) && !kept.contains(id),
                    Entry::Compaction { .. } => false,
                };
                let cut = (!dropped.is_empty() && new.is_empty())
                    .then(|| entries.iter().position(cut_off))
                    .flatten()
                    .filter(|&at| entries[at..].iter().all(cut_off));
                if let Some(at) = cut {
                    for e in entries.drain(at..) {
                        if let Entry::Message { id, .. } = e {
                            present.remove(&id);
                            rewound += 1;
                        }
                    }
                } else if !dropped.is_empty() {
                    for id in &dropped {
                        present.remove(id);
                    }
                    for m in &new {
                        present.insert(d.get_str(m, "id").unwrap_or_default());
                    }
                    entries.push(Entry::Compaction {
                        span: line.span,
                        dropped,
                        summary: new,
                    });
                } else {
                    for m in new {
                        let id = d.get_str(m, "id").unwrap_or_default();
                        present.insert(id.clone());
                        entries.push(Entry::Message { id, record: m });
                    }
                }
            }
            if let Some(id) = d.get_str(set, "sessionId") {
                traj.id = Some(id);
            }
        } else if d.get(rec, "type").is_some() && d.get(rec, "id").is_some() {
            let id = d.get_str(rec, "id").unwrap_or_default();
            let known = present.contains(&id);
            match entries.last_mut() {
                // The message just written, written again as it grows.
                Some(Entry::Message { id: last, record }) if *last == id => *record = rec,
                // An earlier message updated after later ones began: read as it stood.
                _ if known => {}
                _ => {
                    present.insert(id.clone());
                    entries.push(Entry::Message { id, record: rec });
                }
            }
        } else if let Some(id) = d.get_str(rec, "sessionId") {
            traj.id.get_or_insert(id);
        }
    }
    // The turns each message was read as, for the compactions that drop it.
    let mut turns_of: HashMap<&str, (usize, usize)> = HashMap::new();
    for e in &entries {
        match e {
            Entry::Message { id, record } => {
                let from = traj.turns.len();
                session_message(&d, record, &mut traj);
                if traj.turns.len() > from {
                    turns_of.insert(id, (from, traj.turns.len() - 1));
                }
            }
            Entry::Compaction {
                span,
                dropped,
                summary,
            } => {
                // What it replaced: the turns of the messages it dropped (the ones it keeps
                // stay as they were).
                let replaced = turn_hull(
                    dropped
                        .iter()
                        .filter_map(|id| turns_of.get(id.as_str()).copied()),
                );
                let at = summary.first().map(|m| m.span.start);
                traj.turns
                    .push(compaction_turn(*span, at, "gemini.compression", replaced));
                for m in summary {
                    let from = traj.turns.len();
                    session_message(&d, m, &mut traj);
                    for t in &mut traj.turns[from..] {
                        t.is_summary = true;
                        for s in &mut t.segments {
                            if s.kind == SegmentKind::Prose {
                                s.kind = SegmentKind::Summary;
                            }
                        }
                    }
                }
            }
        }
    }
    if rewound > 0 {
        out.note(
            Span::new(0, bytes.len().min(1)),
            format!("skipped {rewound} message(s) the conversation was rewound past"),
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

    const META: &str = r#"{"sessionId":"s-1","projectHash":"ab12","startTime":"2026-08-02T10:00:00.000Z","lastUpdated":"2026-08-02T10:00:00.000Z","kind":"main"}"#;

    fn log(lines: &[&str]) -> String {
        let mut all = vec![META];
        all.extend_from_slice(lines);
        all.join("\n") + "\n"
    }

    #[test]
    fn a_message_is_read_as_it_last_stood_before_the_next_began() {
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Run the tests."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Running them."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Running them.","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"pytest"},"status":"executing","timestamp":"t"}]}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Running them.","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"pytest"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"1 failed"}}}],"status":"error","timestamp":"t"}]}"#,
            r#"{"$set":{"lastUpdated":"2026-08-02T10:01:00.000Z"}}"#,
            r#"{"id":"u2","timestamp":"t","type":"user","content":"Why?"}"#,
            // A late rewrite of an earlier message (token counts) is no new turn.
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Running them, again.","tokens":{"input":1,"output":1,"cached":0,"total":2}}"#,
        ]);
        assert_eq!(detect::detect(src.as_bytes()), Some(Format::Gemini));
        let out = formats::read(src.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("s-1"));
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [User, Assistant, Tool, User]);
        // The call comes from the record that holds its result, paired and failed.
        assert_eq!(t.turns[1].calls[0].result_turn, Some(2));
        assert!(t.turns[2].result.as_ref().unwrap().is_error);
        assert_eq!(t.turns[2].segments[0].text.text, "1 failed");
        let lines: Vec<&str> = src.lines().collect();
        let line_of = |at: usize| src[..at].matches('\n').count();
        assert_eq!(line_of(t.turns[1].span.start), 4, "{}", lines[4]);
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
    }

    #[test]
    fn the_cli_s_own_user_messages_are_not_the_person_s() {
        // Newer CLIs open with a context message and record each tool response again as a user
        // message of `functionResponse` parts.
        let src = log(&[
            r#"{"$set":{"messages":[{"id":"env","timestamp":"t","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nAlways use pnpm.\n</session_context>"}]}]}}"#,
            r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Fix the failing date test."}]}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"I'll run the tests.","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"pytest -q"},"status":"success","timestamp":"t","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"1 failed"}}}]}]}"#,
            r#"{"id":"u2","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"1 failed"}}}]}"#,
            r#"{"id":"g2","timestamp":"t","type":"gemini","content":"The parser drops the timezone."}"#,
        ]);
        let t = &formats::read(src.as_bytes(), None).trajectories[0];
        use Role::*;
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [System, User, Assistant, Tool, Assistant]);
        // A user message with no text and no response (an image alone) is still a user turn.
        let bare = log(&[r#"{"id":"u1","timestamp":"t","type":"user","content":[]}"#]);
        let t = &formats::read(bare.as_bytes(), None).trajectories[0];
        assert_eq!(t.turns.len(), 1);
        assert_eq!(t.turns[0].role, User);
    }

    /// A rewind written as a `$set` of the messages before the point the user went back to:
    /// the messages after it are not read, and it is no compaction (nothing was summarized).
    #[test]
    fn a_rewrite_that_only_cuts_the_tail_is_a_rewind() {
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Fix the parser."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"I'll add a test later."}"#,
            r#"{"id":"u2","timestamp":"t","type":"user","content":"Also rename it."}"#,
            r#"{"id":"g2","timestamp":"t","type":"gemini","content":"Renaming."}"#,
            r#"{"$set":{"messages":[{"id":"u1","timestamp":"t","type":"user","content":"Fix the parser."},{"id":"g1","timestamp":"t","type":"gemini","content":"I'll add a test later."}]}}"#,
            r#"{"id":"u3","timestamp":"t","type":"user","content":"Now the docs."}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        assert!(out
            .issues
            .iter()
            .any(|i| i.message.contains("skipped 2 message")));
        let t = &out.trajectories[0];
        let texts = crate::formats::checked::first_texts(t);
        assert_eq!(
            texts,
            ["Fix the parser.", "I'll add a test later.", "Now the docs."]
        );
        assert!(t.turns.iter().all(|u| u.event.is_none() && !u.is_summary));
        // After a compression, too: what it dropped is no longer in the conversation.
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Fix the parser."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Fixed."}"#,
            r#"{"$set":{"messages":[{"id":"s1","timestamp":"t","type":"user","content":"Parser fixed."}]}}"#,
            r#"{"id":"u2","timestamp":"t","type":"user","content":"Now the docs."}"#,
            r#"{"id":"g2","timestamp":"t","type":"gemini","content":"Docs done."}"#,
            r#"{"id":"u3","timestamp":"t","type":"user","content":"And the tests."}"#,
            r#"{"$set":{"messages":[{"id":"s1","timestamp":"t","type":"user","content":"Parser fixed."},{"id":"u2","timestamp":"t","type":"user","content":"Now the docs."},{"id":"g2","timestamp":"t","type":"gemini","content":"Docs done."}]}}"#,
            r#"{"id":"u4","timestamp":"t","type":"user","content":"Instead, the changelog."}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        assert!(out
            .issues
            .iter()
            .any(|i| i.message.contains("skipped 1 message")));
        let t = &out.trajectories[0];
        let texts: Vec<&str> = t
            .turns
            .iter()
            .map(|u| u.segments.first().map_or("", |s| s.text.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                "Fix the parser.",
                "Fixed.",
                "",
                "Parser fixed.",
                "Now the docs.",
                "Docs done.",
                "Instead, the changelog."
            ]
        );
        assert_eq!(t.compactions.len(), 1);
        // A `$set` whose `messages` is no list says nothing about them.
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Fix the parser."}"#,
            r#"{"$set":{"messages":null}}"#,
        ]);
        let t = &formats::read(src.as_bytes(), None).trajectories[0];
        assert_eq!(t.turns.len(), 1);
        assert!(t.compactions.is_empty());
        // Dropping from the middle without a summary is still a compaction: context was lost.
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Fix the parser."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"I'll add a test later."}"#,
            r#"{"id":"u2","timestamp":"t","type":"user","content":"Also rename it."}"#,
            r#"{"$set":{"messages":[{"id":"u2","timestamp":"t","type":"user","content":"Also rename it."}]}}"#,
        ]);
        let t = &formats::read(src.as_bytes(), None).trajectories[0];
        assert!(matches!(
            t.turns.last().unwrap().event,
            Some(EventKind::Compaction {
                replaced: Some((0, 1)),
                ..
            })
        ));
    }

    #[test]
    fn rewound_messages_are_not_read_and_a_compression_replaces_what_it_drops() {
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Fix the parser."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"I'll add a test later."}"#,
            r#"{"id":"u2","timestamp":"t","type":"user","content":"Also rename it."}"#,
            r#"{"id":"g2","timestamp":"t","type":"gemini","content":"Renaming."}"#,
            r#"{"$rewindTo":"u2"}"#,
            r#"{"id":"u3","timestamp":"t","type":"user","content":"Now the docs."}"#,
            r#"{"$set":{"messages":[{"id":"s1","timestamp":"t","type":"user","content":[{"text":"<state_snapshot>parser fixed</state_snapshot>"}]},{"id":"u3","timestamp":"t","type":"user","content":"Now the docs."}]}}"#,
            r#"{"id":"g3","timestamp":"t","type":"gemini","content":"Done."}"#,
        ]);
        let out = formats::read(src.as_bytes(), None);
        assert!(out
            .issues
            .iter()
            .any(|i| i.message.contains("skipped 2 message")));
        let t = &out.trajectories[0];
        let texts: Vec<(Role, bool, &str)> = t
            .turns
            .iter()
            .map(|u| {
                let text = u.segments.first().map_or("", |s| s.text.text.as_str());
                (u.role, u.is_summary, text)
            })
            .collect();
        use Role::*;
        assert_eq!(
            texts,
            [
                (User, false, "Fix the parser."),
                (Assistant, false, "I'll add a test later."),
                (User, false, "Now the docs."),
                (Event, false, ""),
                (User, true, "<state_snapshot>parser fixed</state_snapshot>"),
                (Assistant, false, "Done."),
            ]
        );
        // It replaced the turns of the messages it dropped, not the one it kept.
        match &t.turns[3].event {
            Some(EventKind::Compaction { replaced, .. }) => assert_eq!(*replaced, Some((0, 1))),
            other => panic!("{other:?}"),
        }
        for w in t.turns.windows(2) {
            assert!(w[0].span.end <= w[1].span.start);
        }
    }

    #[test]
    fn a_headless_stream_is_still_read_as_one() {
        let stream = r#"{"type":"init","timestamp":"t","session_id":"g","model":"m"}
{"type":"message","timestamp":"t","role":"assistant","content":"Hi","delta":true}
"#;
        let out = formats::read(stream.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Gemini));
        assert_eq!(out.trajectories[0].id.as_deref(), Some("g"));
    }

    #[test]
    fn the_shell_s_exit_code_is_read() {
        let exit = |t: &crate::model::Turn| t.result.as_ref().and_then(|r| r.exit_code);
        // Recorded: the shell tool's output ends on its code; another tool's text does not count.
        let src = log(&[
            r#"{"id":"u1","timestamp":"t","type":"user","content":"Find the uses."}"#,
            r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Searching.","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"grep -rn foo ."},"status":"success","timestamp":"t","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: (empty)\nExit Code: 1"}}}]},{"id":"c2","name":"read_file","args":{"path":"notes.txt"},"status":"success","timestamp":"t","result":[{"functionResponse":{"id":"c2","name":"read_file","response":{"output":"Exit Code: 3"}}}]}]}"#,
        ]);
        let t = &formats::read(src.as_bytes(), None).trajectories[0];
        let codes: Vec<Option<i64>> = t
            .turns
            .iter()
            .filter(|u| u.result.is_some())
            .map(exit)
            .collect();
        assert_eq!(codes, [Some(1), None]);
        // The shell's own line closes the output (a code of 0 writes none): a line the command
        // printed is not it.
        let shell = |output: &str| {
            let src = log(&[&format!(
                r#"{{"id":"g1","timestamp":"t","type":"gemini","content":"Running.","toolCalls":[{{"id":"c1","name":"run_shell_command","args":{{"command":"x"}},"status":"success","timestamp":"t","result":[{{"functionResponse":{{"id":"c1","name":"run_shell_command","response":{{"output":"{output}"}}}}}}]}}]}}"#
            )]);
            let t = &formats::read(src.as_bytes(), None).trajectories[0];
            t.turns.iter().find_map(exit)
        };
        assert_eq!(shell("Output: step 1\\nExit Code: 2\\nstep 2 done"), None);
        assert_eq!(
            shell("Output: Exit Code: 0\\nfailed\\nExit Code: 2"),
            Some(2)
        );
        assert_eq!(shell("Output: x\\nExit Code: 1\\nSignal: (none)"), Some(1));
        // Streamed: a command that printed nothing says its code alone.
        let stream = r#"{"type":"init","timestamp":"t","session_id":"g","model":"m"}
{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"c1","parameters":{"command":"false"}}
{"type":"tool_result","timestamp":"t","tool_id":"c1","status":"success","output":"Command exited with code: 1"}
"#;
        let t = &formats::read(stream.as_bytes(), None).trajectories[0];
        assert_eq!(t.turns.iter().find_map(exit), Some(1));
        // Another tool's output saying so is data.
        let read = stream
            .replace("run_shell_command", "read_file")
            .replace(r#"{"command":"false"}"#, r#"{"file_path":"deploy.log"}"#);
        let t = &formats::read(read.as_bytes(), None).trajectories[0];
        assert_eq!(t.turns.iter().find_map(exit), None);
    }
}
