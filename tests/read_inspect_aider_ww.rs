//! Reads every Inspect AI, Aider and Who&When sample of the shared corpus through format
//! detection, and checks what was counted by hand (with Python) from the files themselves.

mod common;
use common::{count, read, shared_corpus as corpus};

use std::collections::BTreeMap;
use trajlint::formats::{self, ReadOutput, Severity};
use trajlint::model::{EventKind, Format, Role, SegmentKind, Trajectory};

fn roles(t: &Trajectory) -> BTreeMap<Role, usize> {
    let mut m = BTreeMap::new();
    for turn in &t.turns {
        *m.entry(turn.role).or_insert(0) += 1;
    }
    m
}

/// Results linked to a call (by id or position), checked from both ends.
fn paired(t: &Trajectory) -> usize {
    let mut n = 0;
    for (i, turn) in t.turns.iter().enumerate() {
        if let Some((ct, cc)) = turn.result.as_ref().and_then(|r| r.call) {
            assert_eq!(t.turns[ct].calls[cc].result_turn, Some(i));
            n += 1;
        }
    }
    n
}

fn nonzero_exits(t: &Trajectory) -> usize {
    t.turns
        .iter()
        .filter(|x| {
            x.result
                .as_ref()
                .and_then(|r| r.exit_code)
                .is_some_and(|c| c != 0)
        })
        .count()
}

/// Every span lies inside the file; segments inside their turn; turns do not overlap (unless
/// `shared`, for turns read from a compressed ZIP entry, which all point at the entry).
fn check_spans(rel: &str, bytes: &[u8], out: &ReadOutput, shared: bool) {
    for t in &out.trajectories {
        assert!(t.span.end <= bytes.len(), "{rel}");
        let mut prev_end = 0;
        let mut spans: Vec<_> = t.turns.iter().map(|x| x.span).collect();
        spans.sort();
        for s in spans {
            assert!(s.end <= bytes.len(), "{rel}: {s:?}");
            if shared {
                assert_eq!(s, t.span, "{rel}");
            } else {
                assert!(s.start >= prev_end, "{rel}: overlapping turn at {s:?}");
                prev_end = s.end;
            }
        }
        for turn in &t.turns {
            for seg in &turn.segments {
                let s = seg.text.span;
                assert!(
                    turn.span.start <= s.start && s.end <= turn.span.end,
                    "{rel}: segment {s:?} outside its turn {:?}",
                    turn.span
                );
            }
            for c in &turn.calls {
                assert!(turn.span.start <= c.span.start && c.span.end <= turn.span.end);
            }
        }
    }
}

fn has_issue(out: &ReadOutput, sev: Severity, needle: &str) -> bool {
    out.issues
        .iter()
        .any(|i| i.severity == sev && i.message.contains(needle))
}

// ---------------------------------------------------------------------------------------------

#[test]
fn inspect_json_tool_call_errors() {
    let Some(root) = corpus() else { return };
    let rel = "inspect-ai/tests/log/test_eval_log/log_tool_call_error.json";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Inspect));
    assert_eq!(out.trajectories.len(), 1);
    check_spans(rel, &bytes, &out, false);
    let t = &out.trajectories[0];
    assert_eq!(t.id.as_deref(), Some("1_epoch_4"));
    // The fixture holds only the 11 tool messages, each with a structured error.
    assert_eq!(roles(t), BTreeMap::from([(Role::Tool, 11)]));
    let kinds: Vec<&str> = t
        .turns
        .iter()
        .filter_map(|x| x.result.as_ref())
        .filter(|r| r.is_error)
        .filter_map(|r| r.error_kind.as_deref())
        .collect();
    assert_eq!(
        kinds,
        [
            "parsing",
            "timeout",
            "parsing",
            "unicode_decode",
            "permission",
            "file_not_found",
            "is_a_directory",
            "limit",
            "approval",
            "unknown",
            "output_limit"
        ]
    );
    // No assistant message makes the calls they answer.
    assert_eq!(paired(t), 0);
    let last = t.turns[10].result.as_ref().unwrap();
    assert_eq!(last.call_id.as_deref(), Some("bash_11"));
    assert_eq!(last.name.as_deref(), Some("bash"));
}

#[test]
fn inspect_json_browser_agent() {
    let Some(root) = corpus() else { return };
    let rel = "inspect-ai/tests/analysis/test_logs/2025-05-12T20-27-36-04-00_browser.json";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Inspect));
    assert_eq!(out.trajectories.len(), 1);
    check_spans(rel, &bytes, &out, false);
    let t = &out.trajectories[0];
    assert_eq!(t.id.as_deref(), Some("1_epoch_1"));
    assert_eq!(
        roles(t),
        BTreeMap::from([(Role::User, 1), (Role::Assistant, 5), (Role::Tool, 4)])
    );
    assert_eq!(paired(t), 4);
    let calls: Vec<&str> = t
        .turns
        .iter()
        .flat_map(|x| &x.calls)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        calls,
        [
            "web_browser_go",
            "web_browser_click",
            "web_browser_click",
            "web_browser_click"
        ]
    );
    assert!(t
        .turns
        .iter()
        .all(|x| x.result.as_ref().is_none_or(|r| !r.is_error)));
    // Text maps back to raw bytes exactly: the user's request is verbatim in the file.
    let seg = &t.turns[0].segments[0].text;
    let at = seg.text.find("https://www.aisi.gov.uk/").unwrap();
    let r = seg.raw_span(at, at + 24);
    assert_eq!(&bytes[r.start..r.end], b"https://www.aisi.gov.uk/");
}

#[test]
fn inspect_eval_zips() {
    let Some(root) = corpus() else { return };
    let rel = "inspect-ai/tests/log/test_eval_log/log_message_deduplication.eval";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Inspect));
    assert_eq!(out.trajectories.len(), 1, "{:?}", out.issues);
    // Every entry is deflated: turns point at the compressed entry, said once in a note.
    check_spans(rel, &bytes, &out, true);
    assert!(has_issue(&out, Severity::Note, "approximate"));
    let t = &out.trajectories[0];
    assert_eq!(t.id.as_deref(), Some("0_epoch_1"));
    assert_eq!(
        roles(t),
        BTreeMap::from([(Role::User, 1), (Role::Assistant, 6), (Role::Tool, 5)])
    );
    assert_eq!(paired(t), 5);
    assert_eq!(t.turns[0].segments[0].text.text, "Guess the number");
    assert_eq!(t.turns[1].calls[0].arguments, r#"{"cmd": "ls"}"#);

    let rel = "inspect-ai/tests/log/test_eval_log/log_read_sample.eval";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Inspect));
    assert_eq!(out.trajectories.len(), 1);
    check_spans(rel, &bytes, &out, true);
    let t = &out.trajectories[0];
    assert_eq!(t.id.as_deref(), Some("1_epoch_1"));
    let r: Vec<Role> = t.turns.iter().map(|x| x.role).collect();
    assert_eq!(r, [Role::System, Role::User, Role::Assistant]);
    assert_eq!(t.turns[2].segments[0].text.text, "Yes\n");

    // A truncated archive is reported, not a panic.
    let cut = &bytes[..bytes.len() - 100];
    let out = formats::read(cut, None);
    assert_eq!(out.format, Some(Format::Inspect));
    assert!(out.unreadable());
}

#[test]
fn inspect_events_only_fixture() {
    let Some(root) = corpus() else { return };
    let rel = "inspect-ai/tests/timeline/fixtures/events/utility_subagent_loop.json";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Inspect));
    assert_eq!(out.trajectories.len(), 1);
    check_spans(rel, &bytes, &out, false);
    assert!(has_issue(&out, Severity::Note, "no samples"));
    let t = &out.trajectories[0];
    // 3 model events (each: its fresh system + user input, then its output) and 1 tool event.
    use Role::*;
    let r: Vec<Role> = t.turns.iter().map(|x| x.role).collect();
    assert_eq!(
        r,
        [System, User, Assistant, Tool, System, User, Assistant, System, User, Assistant]
    );
    assert_eq!(paired(t), 1);
    assert_eq!(t.turns[3].segments[0].text.text, "found it");
}

#[test]
fn inspect_broken_json_is_reported() {
    let Some(root) = corpus() else { return };
    let rel = "inspect-ai/tests/log/test_eval_log/log_tool_call_error.json";
    let bytes = std::fs::read(root.join(rel)).unwrap();
    let cut = &bytes[..bytes.len() / 2];
    let out = formats::read(cut, None);
    assert_eq!(out.format, Some(Format::Inspect));
    assert!(out.unreadable());
}

// ---------------------------------------------------------------------------------------------

#[test]
fn aider_truncated_history() {
    let Some(root) = corpus() else { return };
    let rel = "aider/aider/chat-history.truncated.md";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Aider));
    assert_eq!(out.trajectories.len(), 1);
    assert!(out.issues.is_empty(), "{:?}", out.issues);
    check_spans(rel, &bytes, &out, false);
    let t = &out.trajectories[0];
    let headers = bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"# aider chat started at"))
        .count();
    assert_eq!(headers, 411);
    let sessions = t
        .turns
        .iter()
        .filter(|x| x.event == Some(EventKind::SessionStart("aider.session".into())))
        .count();
    assert_eq!(sessions, headers);
    // Counted with Python: 699 user blocks, 17 of them `/clear`.
    let resets = t
        .turns
        .iter()
        .filter(|x| x.event == Some(EventKind::Reset))
        .count();
    assert_eq!(resets, 17);
    assert_eq!(count(t, Role::User), 682);
    // 192 assistant replies make SEARCH/REPLACE edits; 179 of them are followed right away by
    // aider's output, which answers them. 18 `/run` or `/test` commands, 17 followed by output.
    // (The other calls were interrupted; `Trajectory::finish` may still pair them with a later,
    // unrelated output block, so only the immediate answers are counted here.)
    let answered_next = |name: &[&str]| -> (usize, usize) {
        let (mut calls, mut next) = (0, 0);
        for (i, turn) in t.turns.iter().enumerate() {
            for c in turn
                .calls
                .iter()
                .filter(|c| name.contains(&c.name.as_str()))
            {
                calls += 1;
                if c.result_turn == Some(i + 1) {
                    assert_eq!(t.turns[i + 1].role, Role::Tool);
                    next += 1;
                }
            }
        }
        (calls, next)
    };
    assert_eq!(answered_next(&["edit"]), (192, 179));
    assert_eq!(answered_next(&["run", "test"]), (18, 17));
    assert!(paired(t) >= 179 + 17);
    // Output blocks with a non-zero `- exit code: N` (lint failures).
    assert_eq!(nonzero_exits(t), 19);
    assert!(count(t, Role::Assistant) > 0);
}

#[test]
fn aider_small_history() {
    let Some(root) = corpus() else { return };
    let rel = "aider/zen-mcp-server/.aider.chat.history.md";
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Aider));
    assert_eq!(out.trajectories.len(), 1);
    check_spans(rel, &bytes, &out, false);
    let t = &out.trajectories[0];
    let sessions = t
        .turns
        .iter()
        .filter(|x| x.event == Some(EventKind::SessionStart("aider.session".into())))
        .count();
    assert_eq!(sessions, 4);
    // 8 user commands (`/add`, `/copy-context`), 12 output blocks, no assistant reply.
    assert_eq!(count(t, Role::User), 8);
    assert_eq!(count(t, Role::Tool), 12);
    assert_eq!(count(t, Role::Assistant), 0);
    assert_eq!(paired(t), 0);
    assert_eq!(nonzero_exits(t), 0);
    // The multi-line `/add` is one turn, one segment per line.
    let add = t
        .turns
        .iter()
        .find(|x| x.role == Role::User && x.segments.len() > 1)
        .unwrap();
    assert!(add.segments[0].text.text.starts_with("/add /home/"));
    assert_eq!(add.segments.len(), 8);
}

#[test]
fn aider_help_s_quoted_documents_are_material_not_the_user_s_words() {
    let log = b"# aider chat started at 2024-08-06 14:00:00\n\n#### /help how do I add files?  \n####   \n#### # Relevant docs:  \n####   \n#### <doc>  \n#### This page is a copy of README.md, adding the front matter above.  \n#### </doc>  \n####   \n#### How do I add files?  \n\nUse `/add <file>`.\n";
    let out = formats::read(log, None);
    assert_eq!(out.format, Some(Format::Aider));
    let user = out.trajectories[0]
        .turns
        .iter()
        .find(|x| x.role == Role::User)
        .unwrap();
    let kinds: Vec<(SegmentKind, &str)> = user
        .segments
        .iter()
        .map(|s| (s.kind, s.text.text.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (SegmentKind::Prose, "/help how do I add files?"),
            (SegmentKind::Prose, "# Relevant docs:"),
            (SegmentKind::Output, "<doc>"),
            (
                SegmentKind::Output,
                "This page is a copy of README.md, adding the front matter above."
            ),
            (SegmentKind::Output, "</doc>"),
            (SegmentKind::Prose, "How do I add files?"),
        ]
    );
}

// ---------------------------------------------------------------------------------------------

/// What Python counted in one Who&When file.
struct Ww {
    file: &'static str,
    question_id: &'static str,
    /// `history` items.
    items: usize,
    /// `Computer_terminal` items.
    terminal: usize,
    /// Agent messages (not the first item) with an executable fenced code block.
    coders: usize,
    /// Terminal answers right after such a message.
    answered: usize,
    /// Terminal answers starting `exitcode: N`, and those with N != 0.
    codes: usize,
    nonzero: usize,
}

const fn ww(
    file: &'static str,
    question_id: &'static str,
    [items, terminal, coders, answered, codes, nonzero]: [usize; 6],
) -> Ww {
    Ww {
        file,
        question_id,
        items,
        terminal,
        coders,
        answered,
        codes,
        nonzero,
    }
}

const WHO_AND_WHEN: [Ww; 18] = [
    ww(
        "Algorithm-Generated/11.json",
        "8e867cd7-cff9-4e6c-867a-ff5ddc2550be",
        [10, 4, 4, 4, 4, 1],
    ),
    ww(
        "Algorithm-Generated/22.json",
        "1f975693-876d-457b-a649-393859e79bf3",
        [6, 2, 2, 1, 2, 0],
    ),
    ww(
        "Algorithm-Generated/24.json",
        "65da0822-a48a-4a68-bbad-8ed1b835a834",
        [10, 4, 2, 2, 2, 0],
    ),
    ww(
        "Algorithm-Generated/47.json",
        "0bb3b44a-ede5-4db5-a520-4e844b0079c5",
        [6, 0, 0, 0, 0, 0],
    ),
    ww(
        "Algorithm-Generated/70.json",
        "14569e28-c88c-43e4-8c32-097d35b9a67d",
        [6, 2, 1, 1, 2, 0],
    ),
    ww(
        "Algorithm-Generated/72.json",
        "7619a514-5fa8-43ef-9143-83b66a43d7a4",
        [10, 5, 4, 4, 4, 1],
    ),
    ww(
        "Algorithm-Generated/77.json",
        "a1e91b78-d3d8-4675-bb8d-62741b4b68a6",
        [10, 5, 4, 4, 5, 1],
    ),
    ww(
        "Algorithm-Generated/80.json",
        "0bdb7c40-671d-4ad1-9ce3-986b159c0ddc",
        [8, 3, 2, 2, 3, 1],
    ),
    ww(
        "Algorithm-Generated/96.json",
        "a26649c6-1cb2-470a-871e-6910c64c3e53",
        [10, 4, 5, 4, 4, 1],
    ),
    ww(
        "Algorithm-Generated/104.json",
        "291b53e665b4dd4365cde995042db4a6f6fecef3fe3a6f4482f23d61bd673918",
        [10, 4, 5, 3, 3, 1],
    ),
    ww(
        "Hand-Crafted/5.json",
        "ed58682d-bc52-4baa-9eb0-4eb81e1edacc",
        [20, 4, 4, 4, 0, 0],
    ),
    ww(
        "Hand-Crafted/7.json",
        "a1e91b78-d3d8-4675-bb8d-62741b4b68a6",
        [25, 6, 6, 6, 0, 0],
    ),
    ww(
        "Hand-Crafted/19.json",
        "6f224e7730ed027cbac73aebb1aea7f954053082041b02b19f4ff126a0a8a208",
        [69, 15, 15, 15, 0, 0],
    ),
    ww(
        "Hand-Crafted/20.json",
        "5f982798-16b9-4051-ab57-cfc7ebdb2a91",
        [67, 15, 16, 15, 0, 0],
    ),
    ww(
        "Hand-Crafted/22.json",
        "b816bfce-3d80-4913-a07d-69b752ce6377",
        [24, 5, 6, 5, 0, 0],
    ),
    ww(
        "Hand-Crafted/24.json",
        "42576abe-0deb-4869-8c63-225c2d75a95a",
        [5, 0, 0, 0, 0, 0],
    ),
    ww(
        "Hand-Crafted/30.json",
        "2ddae3b7a208e3c25f14d82d7a1faaaa1832fbf950b4dac345e755c4c361f294",
        [121, 26, 27, 26, 0, 0],
    ),
    ww(
        "Hand-Crafted/35.json",
        "4dbedc5e1a0205e14b7ff3ba89bce3060dab15d0ada3b7e1351a6f2aa8287aec",
        [44, 10, 10, 10, 0, 0],
    ),
];

#[test]
fn who_and_when_logs() {
    let Some(root) = corpus() else { return };
    for w in WHO_AND_WHEN {
        let Ww {
            file,
            question_id: id,
            items,
            terminal,
            coders,
            answered,
            codes,
            nonzero,
        } = w;
        let rel = format!("who-and-when/{file}");
        let (bytes, out) = read(&root, &rel);
        assert_eq!(out.format, Some(Format::WhoAndWhen), "{rel}");
        assert_eq!(out.trajectories.len(), 1, "{rel}");
        assert!(out.issues.is_empty(), "{rel}: {:?}", out.issues);
        check_spans(&rel, &bytes, &out, false);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some(id), "{rel}");
        assert_eq!(t.turns.len(), items, "{rel}");
        // The task comes first as a user turn; everyone else but the terminal is an agent.
        assert_eq!(t.turns[0].role, Role::User, "{rel}");
        assert_eq!(count(t, Role::User), 1, "{rel}");
        assert_eq!(count(t, Role::Tool), terminal, "{rel}");
        assert_eq!(count(t, Role::Assistant), items - 1 - terminal, "{rel}");
        assert!(t
            .turns
            .iter()
            .filter(|x| x.role == Role::Assistant)
            .all(|x| x.name.is_some()));
        let calls = t.turns.iter().map(|x| x.calls.len()).sum::<usize>();
        assert_eq!(calls, coders, "{rel}");
        assert_eq!(paired(t), answered, "{rel}");
        let with_code = t
            .turns
            .iter()
            .filter(|x| x.result.as_ref().is_some_and(|r| r.exit_code.is_some()))
            .count();
        assert_eq!(with_code, codes, "{rel}");
        assert_eq!(nonzero_exits(t), nonzero, "{rel}");
    }
}

#[test]
fn who_and_when_magentic_one_agents() {
    let Some(root) = corpus() else { return };
    let (_, out) = read(&root, "who-and-when/Hand-Crafted/19.json");
    let t = &out.trajectories[0];
    let surfer = t
        .turns
        .iter()
        .filter(|x| x.name.as_deref() == Some("WebSurfer"))
        .collect::<Vec<_>>();
    assert_eq!(surfer.len(), 15);
    // WebSurfer reports what its browser saw: an observation answering the orchestrator's latest
    // instruction to it, past the orchestrator's thoughts in between.
    assert!(surfer.iter().all(|x| x.role == Role::Tool));
    for x in &surfer {
        let (call_turn, _) = x.result.as_ref().unwrap().call.expect("paired");
        assert_eq!(t.turns[call_turn].calls[0].name, "WebSurfer");
    }
    assert_eq!(t.turns[0].name.as_deref(), Some("human"));
}

#[test]
fn who_and_when_broken_json_is_reported() {
    let Some(root) = corpus() else { return };
    let bytes = std::fs::read(root.join("who-and-when/Algorithm-Generated/47.json")).unwrap();
    let out = formats::read(&bytes[..bytes.len() - 10], None);
    assert_eq!(out.format, Some(Format::WhoAndWhen));
    assert!(out.unreadable());
}
