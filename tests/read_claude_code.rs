//! Reads every Claude Code file of the shared corpus through detection and checks what comes out
//! against counts taken from the files with Python (active branch, side branches of parallel
//! tool calls, split responses), not from this program.

mod common;
use common::{count, read};

/// The Claude Code part of the shared corpus.
fn corpus() -> Option<std::path::PathBuf> {
    common::shared_corpus().map(|p| p.join("claude-code"))
}

use trajlint::formats::Severity;
use trajlint::model::{EventKind, Format, Role, Trajectory};
use trajlint::text::decode;

/// Turns ordered and disjoint inside the file, segments inside their turn and decoding to
/// exactly their text.
fn check_spans(rel: &str, bytes: &[u8], t: &Trajectory) {
    let mut prev_end = 0;
    for (i, turn) in t.turns.iter().enumerate() {
        assert!(
            turn.span.start >= prev_end && turn.span.start <= turn.span.end,
            "{rel}: turn {i} overlaps the one before"
        );
        assert!(turn.span.end <= bytes.len(), "{rel}: turn {i} past the end");
        prev_end = turn.span.end;
        for s in &turn.segments {
            let sp = s.text.span;
            assert!(
                turn.span.start <= sp.start && sp.end <= turn.span.end,
                "{rel}: turn {i} segment outside the turn"
            );
            assert_eq!(
                decode(&bytes[sp.start..sp.end], s.text.encoding),
                s.text.text,
                "{rel}: turn {i} segment does not decode to its text"
            );
        }
    }
}

struct Expect {
    file: &'static str,
    turns: usize,
    users: usize,
    assistants: usize,
    tools: usize,
    systems: usize,
    calls: usize,
    paired: usize,
    error_flags: usize,
    nonzero_exits: usize,
    compactions: usize,
    /// Message records left off the active branch (rewinds), reported in one note.
    skipped: usize,
}

const FILES: &[Expect] = &[
    Expect {
        file: "claude-code-log/dag_compact_after_rewind.jsonl",
        turns: 10,
        users: 5,
        assistants: 4,
        tools: 0,
        systems: 0,
        calls: 0,
        paired: 0,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 1,
        skipped: 2,
    },
    Expect {
        file: "claude-code-log/dag_compact_after_rewind_preserved.jsonl",
        turns: 10,
        users: 5,
        assistants: 4,
        tools: 0,
        systems: 0,
        calls: 0,
        paired: 0,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 1,
        skipped: 2,
    },
    Expect {
        file: "claude-code-log/edge_cases.jsonl",
        // (Its TodoWrite record, `assistant_004`, is of another session, `todowrite_session`,
        // linked to nothing here: a trajectory of its own, see `SESSIONS`.)
        turns: 11,
        // (edge_008 is a command's output, `<local-command-stdout>`: the harness's. The last
        // record's content is a list of one bare string, "wow error": a user's text.)
        users: 6,
        assistants: 3,
        tools: 1,
        systems: 1,
        calls: 2,
        paired: 1,
        error_flags: 1,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "claude-code-log/minimal_showcase/55550000-0000-4000-8000-000000000001.jsonl",
        turns: 11,
        users: 1,
        assistants: 5,
        tools: 5,
        systems: 0,
        calls: 5,
        paired: 5,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "claude-code-log/representative_messages.jsonl",
        turns: 11,
        users: 4,
        assistants: 5,
        tools: 2,
        systems: 0,
        calls: 2,
        paired: 2,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "claude-code-log/todowrite_examples.jsonl",
        turns: 11,
        users: 2,
        assistants: 6,
        tools: 3,
        systems: 0,
        calls: 3,
        paired: 3,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "claude-code-transcripts/sample_session.json",
        turns: 34,
        users: 6,
        assistants: 15,
        tools: 12,
        systems: 0,
        calls: 12,
        paired: 12,
        error_flags: 1,
        nonzero_exits: 1,
        compactions: 1,
        skipped: 0,
    },
    Expect {
        file: "claude-code-transcripts/sample_session.jsonl",
        turns: 7,
        users: 2,
        assistants: 3,
        tools: 2,
        systems: 0,
        calls: 2,
        paired: 2,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        turns: 366,
        // and the two prompts queued while the agent worked (lines 497 and 603)
        users: 5,
        assistants: 171,
        tools: 186,
        // the two background jobs' <task-notification> lines, and the harness's note that the
        // person interrupted a tool use (line 495)
        systems: 3,
        calls: 186,
        paired: 186,
        error_flags: 7,
        nonzero_exits: 5,
        compactions: 1,
        skipped: 0,
    },
    Expect {
        file: "spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl",
        turns: 6,
        users: 1,
        assistants: 3,
        tools: 2,
        systems: 0,
        calls: 2,
        paired: 2,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
        turns: 4,
        users: 1,
        assistants: 1,
        tools: 0,
        systems: 2,
        calls: 0,
        paired: 0,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
        turns: 67,
        users: 1,
        assistants: 33,
        tools: 33,
        systems: 0,
        calls: 33,
        paired: 33,
        error_flags: 8,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
        turns: 5,
        users: 1,
        assistants: 1,
        tools: 0,
        systems: 3,
        calls: 0,
        paired: 0,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        turns: 341,
        users: 2,
        assistants: 160,
        tools: 177,
        // a background job's <task-notification> line
        systems: 1,
        calls: 177,
        paired: 177,
        error_flags: 13,
        nonzero_exits: 10,
        compactions: 1,
        skipped: 0,
    },
    Expect {
        file: "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
        turns: 35,
        users: 1,
        assistants: 15,
        tools: 19,
        systems: 0,
        calls: 19,
        paired: 19,
        error_flags: 2,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl",
        turns: 7,
        users: 1,
        assistants: 1,
        tools: 0,
        systems: 5,
        calls: 0,
        paired: 0,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        turns: 486,
        // (line 1485 is what /compact printed)
        users: 4,
        assistants: 236,
        tools: 242,
        systems: 3,
        calls: 242,
        paired: 242,
        error_flags: 12,
        nonzero_exits: 1,
        compactions: 1,
        skipped: 0,
    },
    Expect {
        file: "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
        turns: 17,
        users: 1,
        assistants: 4,
        tools: 12,
        systems: 0,
        calls: 12,
        paired: 12,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl",
        turns: 2,
        users: 1,
        assistants: 1,
        tools: 0,
        systems: 0,
        calls: 0,
        paired: 0,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/short.jsonl",
        turns: 5,
        users: 1,
        assistants: 1,
        tools: 2,
        // the harness's note of the interruption (line 13)
        systems: 1,
        calls: 2,
        paired: 2,
        error_flags: 2,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/subagent.jsonl",
        turns: 33,
        users: 2,
        assistants: 13,
        tools: 16,
        // with the harness's note of the interruption (line 69)
        systems: 2,
        calls: 16,
        paired: 16,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
    Expect {
        file: "spotter/tool_heavy.jsonl",
        turns: 19,
        // and "/mcp", queued while the agent worked (line 9)
        users: 4,
        assistants: 5,
        tools: 6,
        // and the output of /mcp (line 22), and the harness's two notes of an interruption
        // (lines 18 and 39)
        systems: 4,
        calls: 6,
        paired: 6,
        error_flags: 0,
        nonzero_exits: 0,
        compactions: 0,
        skipped: 0,
    },
];

/// Files that hold records of more than one session, not linked to each other: one trajectory
/// each (the table counts the first).
const SESSIONS: [(&str, usize); 1] = [("claude-code-log/edge_cases.jsonl", 2)];

#[test]
fn every_claude_code_file() {
    let Some(root) = corpus() else {
        return;
    };
    for w in FILES {
        let rel = w.file;
        let (bytes, out) = read(&root, rel);
        assert_eq!(out.format, Some(Format::ClaudeCode), "{rel}");
        // (edge_cases.jsonl breaks two records on purpose: its own test below.)
        let lost = out
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .count();
        let broken = if rel == "claude-code-log/edge_cases.jsonl" {
            2
        } else {
            0
        };
        assert_eq!(lost, broken, "{rel}: {:?}", out.issues);
        let sessions = SESSIONS.iter().find(|(f, _)| *f == rel).map_or(1, |s| s.1);
        assert_eq!(out.trajectories.len(), sessions, "{rel}");
        let t = &out.trajectories[0];
        check_spans(rel, &bytes, t);
        assert_eq!(t.turns.len(), w.turns, "{rel}: turns");
        assert_eq!(count(t, Role::User), w.users, "{rel}: users");
        assert_eq!(count(t, Role::Assistant), w.assistants, "{rel}: assistants");
        assert_eq!(count(t, Role::Tool), w.tools, "{rel}: tools");
        assert_eq!(count(t, Role::System), w.systems, "{rel}: systems");
        let calls: usize = t.turns.iter().map(|x| x.calls.len()).sum();
        assert_eq!(calls, w.calls, "{rel}: calls");
        let results: Vec<_> = t.turns.iter().filter_map(|x| x.result.as_ref()).collect();
        let paired = results.iter().filter(|r| r.call.is_some()).count();
        assert_eq!(paired, w.paired, "{rel}: paired results");
        let errors = results.iter().filter(|r| r.is_error).count();
        assert_eq!(errors, w.error_flags, "{rel}: error flags");
        let nonzero = results
            .iter()
            .filter(|r| r.exit_code.is_some_and(|c| c != 0))
            .count();
        assert_eq!(nonzero, w.nonzero_exits, "{rel}: non-zero exit codes");
        assert_eq!(t.compactions.len(), w.compactions, "{rel}: compactions");
        for c in &t.compactions {
            let s = c.summary_turn.expect("a summary follows every compaction");
            assert!(t.turns[s].is_summary, "{rel}");
            assert!(!c.opaque, "{rel}");
        }
        let skipped_note = out
            .issues
            .iter()
            .find(|i| i.message.contains("not on the active branch"));
        match w.skipped {
            0 => assert!(skipped_note.is_none(), "{rel}: {skipped_note:?}"),
            n => {
                let note = skipped_note.unwrap_or_else(|| panic!("{rel}: no skipped note"));
                assert_eq!(note.severity, Severity::Note);
                assert!(
                    note.message.contains(&format!("skipped {n} message")),
                    "{rel}"
                );
            }
        }
        // The loop warning of a preserved-segment compaction is gone.
        assert!(
            !out.issues.iter().any(|i| i.message.contains("loops back")),
            "{rel}"
        );
    }
}

fn texts(t: &Trajectory) -> Vec<String> {
    t.turns
        .iter()
        .map(|x| match &x.event {
            Some(EventKind::Compaction { .. }) => "<compaction>".to_string(),
            _ if x.is_summary => "<summary>".to_string(),
            _ => x
                .segments
                .first()
                .map_or(String::new(), |s| s.text.text.clone()),
        })
        .collect()
}

#[test]
fn spotter_main_sessions_compact_once_each() {
    let Some(root) = corpus() else {
        return;
    };
    let mut total = 0;
    for (file, session) in [
        (
            "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
            "258c7280-ae70-4798-800f-63464d01a85d",
        ),
        (
            "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
            "8463c716-a2ea-4c14-9efa-87158ebd9f20",
        ),
        (
            "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
        ),
    ] {
        let (bytes, out) = read(&root, file);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some(session));
        for c in &t.compactions {
            total += 1;
            assert_eq!(c.kind, "claude-code.compact_boundary");
            let boundary = &t.turns[c.turn];
            let raw = std::str::from_utf8(&bytes[boundary.span.start..boundary.span.end]).unwrap();
            assert!(raw.contains(r#""subtype":"compact_boundary""#), "{file}");
            // The boundary's logical parent is the last turn before it: the whole history
            // before the boundary was replaced.
            assert_eq!(c.replaced, (0, c.turn - 1), "{file}");
            let s = &t.turns[c.summary_turn.unwrap()];
            assert_eq!(s.role, Role::User);
            assert!(s.segments[0]
                .text
                .text
                .starts_with("This session is being continued from a previous conversation"));
            // Work goes on after the summary.
            assert!(t.turns.len() > c.summary_turn.unwrap() + 10);
        }
    }
    assert_eq!(total, 3);
}

#[test]
fn dag_files_read_the_active_branch() {
    let Some(root) = corpus() else {
        return;
    };
    let (_, out) = read(&root, "claude-code-log/dag_compact_after_rewind.jsonl");
    let t = &out.trajectories[0];
    assert_eq!(
        texts(t),
        [
            "Start",
            "Ready",
            "Second attempt",
            "Second answer",
            "Keep going",
            "Kept going",
            "<compaction>",
            "<summary>",
            "After compaction",
            "Final answer"
        ]
    );
    assert_eq!(t.compactions[0].replaced, (0, 5));

    // The boundary's logical parent (b2a2) is a preserved message re-linked after the summary:
    // the history before the boundary is still read, and the preserved messages (b2a, b2u2,
    // b2a2) are not counted as replaced.
    let (_, out) = read(
        &root,
        "claude-code-log/dag_compact_after_rewind_preserved.jsonl",
    );
    let t = &out.trajectories[0];
    assert_eq!(
        texts(t),
        [
            "Start",
            "Ready",
            "Second attempt",
            "Second answer",
            "Keep going",
            "<compaction>",
            "<summary>",
            "Kept going",
            "After compaction",
            "Final answer"
        ]
    );
    assert_eq!(t.compactions[0].replaced, (0, 2));
    assert_eq!(t.compactions[0].summary_turn, Some(6));
}

#[test]
fn edge_cases_skip_non_objects_with_warnings() {
    let Some(root) = corpus() else {
        return;
    };
    let (bytes, out) = read(&root, "claude-code-log/edge_cases.jsonl");
    // A bare string, a number and an array, each on its own line.
    let warnings: Vec<_> = out
        .issues
        .iter()
        .filter(|i| i.severity == Severity::Warning)
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    for (w, kind) in warnings.iter().zip(["string", "number", "array"]) {
        assert!(w.message.contains(kind), "{}", w.message);
    }
    let raw: Vec<&str> = warnings
        .iter()
        .map(|w| std::str::from_utf8(&bytes[w.span.start..w.span.end]).unwrap())
        .collect();
    assert_eq!(raw, [r#""massive error""#, "42", "[1]"]);
    // A user record whose message misspells `content` ("contenst"), and one whose message is a
    // bare string ("message": "error"), are records lost.
    let errors: Vec<_> = out
        .issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let line = |k: usize| &bytes[errors[k].span.start..errors[k].span.end];
    assert!(
        line(0).ends_with(br#""is_error": false}]}}"#)
            && errors[0].message.contains("no `content`"),
        "{}",
        String::from_utf8_lossy(line(0))
    );
    assert!(
        line(1).ends_with(br#""uuid": "edge_011", "message": "error"}"#),
        "{}",
        String::from_utf8_lossy(line(1))
    );
    let t = &out.trajectories[0];
    // The failing tool's result carries its error flag; the special characters decode.
    let r = t.turns.iter().find_map(|x| x.result.as_ref()).unwrap();
    assert!(r.is_error);
    assert!(t
        .turns
        .iter()
        .any(|x| x.segments.iter().any(|s| s.text.text.contains("café"))));
}

#[test]
fn subagent_files_are_their_own_conversations() {
    let Some(root) = corpus() else {
        return;
    };
    let (_, out) = read(
        &root,
        "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
    );
    let t = &out.trajectories[0];
    assert_eq!(t.id.as_deref(), Some("aac57f5"));
    // The first response made six parallel WebSearch calls, written on six lines whose parent
    // links put five of them (and their results) on side branches.
    assert_eq!(t.turns[1].calls.len(), 6);
    assert!(t.turns[1].calls.iter().all(|c| c.name == "WebSearch"));
    assert!(t.turns[1].calls.iter().all(|c| c.result_turn.is_some()));
    assert!(t.turns[2..8].iter().all(|x| x.role == Role::Tool));

    // The compaction helper: the hook reminders it was sent (parents in the main session), the
    // summarisation prompt, and the summary it wrote.
    let (_, out) = read(
        &root,
        "spotter/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl",
    );
    let t = &out.trajectories[0];
    assert_eq!(t.id.as_deref(), Some("acompact-fffbd0"));
    assert_eq!(
        t.turns.iter().map(|x| x.role).collect::<Vec<_>>(),
        [Role::System, Role::System, Role::User, Role::Assistant]
    );
    assert!(t.turns[2].segments[0]
        .text
        .text
        .starts_with("Your task is to create a detailed summary"));
    assert!(t.turns[3].segments[0].text.text.contains("<summary>"));
    assert!(out
        .issues
        .iter()
        .any(|i| i.severity == Severity::Note && i.message.contains("not in this file")));
}

#[test]
fn web_export_summary_is_a_compaction() {
    let Some(root) = corpus() else {
        return;
    };
    let (_, out) = read(&root, "claude-code-transcripts/sample_session.json");
    let t = &out.trajectories[0];
    let c = &t.compactions[0];
    assert_eq!(c.kind, "claude-code.compact_summary");
    assert_eq!(c.summary_turn, Some(c.turn + 1));
    assert!(t.turns[c.turn + 1].segments[0]
        .text
        .text
        .starts_with("This is a session continuation summary"));
}

/// A failed Bash result starts with "Exit code N": a file print's first line is the one after
/// it, so a missing file is a not_found pointing at the command's own message.
#[test]
fn a_failed_print_is_read_after_its_exit_code_line() {
    let session = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-10-01T00:00:00Z","message":{"role":"user","content":"Show the retry settings."}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-10-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"cat src/config/retry.rs","description":"Show"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","timestamp":"2025-10-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"Exit code 1\ncat: src/config/retry.rs: No such file or directory","is_error":true}]}}
"#;
    let facts = common::facts_of(session);
    assert_eq!(facts.len(), 1, "{facts:#?}");
    assert_eq!(facts[0].subkind, trajlint::extract::Subkind::NotFound);
    assert_eq!(
        facts[0].text,
        "cat: src/config/retry.rs: No such file or directory"
    );
}

/// A compaction replaces turns of the log: a boundary right after another one, or opening the
/// log (a session resumed after a compaction whose turns are in another file), replaced none
/// of them and is no compaction (it named the range `2..1`, or the boundary itself).
#[test]
fn a_boundary_with_nothing_before_it_replaces_nothing() {
    let rec = |parent: &str, uuid: &str, body: &str| {
        format!(
            r#"{{"parentUuid": {parent}, "isSidechain": false, "uuid": "{uuid}", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", {body}}}"#
        )
    };
    let boundary =
        r#""type": "system", "subtype": "compact_boundary", "content": "Conversation compacted""#;
    let summary = r#""type": "user", "isCompactSummary": true, "message": {"role": "user", "content": "Summary: we looked at the parser."}"#;
    let user = r#""type": "user", "message": {"role": "user", "content": "Fix the parser."}"#;
    let twice = [
        rec("null", "u0", user),
        rec("\"u0\"", "b0", boundary),
        rec("\"b0\"", "b1", boundary),
        rec("\"b1\"", "s0", summary),
    ]
    .join("\n");
    let opening = [
        rec("null", "b0", boundary),
        rec("\"b0\"", "s0", summary),
        rec("\"s0\"", "u1", user),
    ]
    .join("\n");
    let compactions = |log: &str| {
        let out = trajlint::formats::read(log.as_bytes(), None);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        out.trajectories[0]
            .compactions
            .iter()
            .map(|c| (c.turn, c.replaced))
            .collect::<Vec<_>>()
    };
    assert_eq!(compactions(&twice), [(1, (0, 0))]);
    assert_eq!(compactions(&opening), []);
}
