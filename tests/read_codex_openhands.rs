//! Reads every Codex and OpenHands file of the shared corpus through detection and checks what
//! comes out against counts taken from the files by hand (with Python), not from this program.

mod common;
use common::{count, read, shared_corpus as corpus};

use trajlint::formats::{self, ReadOutput, Severity};
use trajlint::model::{EventKind, Format, Role, Trajectory};
use trajlint::text::decode;

/// Spans: turns ordered and disjoint inside the file, segments inside their turn, and every
/// segment's raw bytes decode to exactly its text.
fn check_spans(rel: &str, bytes: &[u8], t: &Trajectory) {
    assert!(t.span.end <= bytes.len(), "{rel}: trajectory span");
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

fn results(t: &Trajectory) -> usize {
    t.turns.iter().filter(|x| x.result.is_some()).count()
}

fn paired(t: &Trajectory) -> usize {
    t.turns
        .iter()
        .filter(|x| x.result.as_ref().is_some_and(|r| r.call.is_some()))
        .count()
}

fn calls(t: &Trajectory) -> usize {
    t.turns.iter().map(|x| x.calls.len()).sum()
}

fn nonzero_exits(t: &Trajectory) -> usize {
    t.turns
        .iter()
        .filter(|x| {
            x.result
                .as_ref()
                .is_some_and(|r| r.exit_code.is_some_and(|c| c != 0))
        })
        .count()
}

fn exit_codes_set(t: &Trajectory) -> usize {
    t.turns
        .iter()
        .filter(|x| x.result.as_ref().is_some_and(|r| r.exit_code.is_some()))
        .count()
}

fn error_flags(t: &Trajectory) -> usize {
    t.turns
        .iter()
        .filter(|x| x.result.as_ref().is_some_and(|r| r.is_error))
        .count()
}

fn errors(out: &ReadOutput) -> usize {
    out.issues
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .count()
}

// ---------------------------------------------------------------------------------------------
// Codex

const CODEX: &str = "codex/claude-code-log";

#[test]
fn codex_structured_session() {
    let Some(root) = corpus() else {
        return;
    };
    let rel = format!(
        "{CODEX}/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    );
    let (bytes, out) = read(&root, &rel);
    assert_eq!(out.format, Some(Format::Codex));
    assert_eq!(out.trajectories.len(), 1);
    let t = &out.trajectories[0];
    check_spans(&rel, &bytes, t);
    assert_eq!(
        t.id.as_deref(),
        Some("11111111-1111-4111-8111-111111111111")
    );
    // user (response item wins over its event_msg copy), reasoning + exec_command,
    // output, apply_patch, output, mcp lookup, output, final message (again not doubled).
    let roles: Vec<Role> = t.turns.iter().map(|x| x.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(calls(t), 3);
    assert_eq!(results(t), 3);
    assert_eq!(paired(t), 3);
    assert_eq!(nonzero_exits(t), 0);
    assert_eq!(
        t.turns[1].segments[0].text.text,
        "I will inspect the synthetic directory."
    );
    assert_eq!(t.turns[3].calls[0].name, "apply_patch");
    assert!(t.turns[3].calls[0]
        .arguments
        .starts_with("*** Begin Patch\n"));
    assert_eq!(t.turns[4].segments[0].text.text, "Done!");
    // The encrypted reasoning never becomes text.
    assert!(!t
        .turns
        .iter()
        .flat_map(|x| &x.segments)
        .any(|s| s.text.text.contains("SYNTHETIC_ENCRYPTED")));
    // The unknown record type is noted once.
    assert!(out
        .issues
        .iter()
        .any(|i| i.severity == Severity::Note && i.message.contains("future_synthetic_record")));
    assert_eq!(errors(&out), 0);
}

#[test]
fn codex_parent_and_subagent_sessions() {
    let Some(root) = corpus() else {
        return;
    };
    // Parent: event_msg user message (no response-item copy), spawn_agent call and its output.
    let rel = format!(
        "{CODEX}/sessions/2026/01/03/rollout-2026-01-03T04-05-06-22222222-2222-4222-8222-222222222222.jsonl"
    );
    let (bytes, out) = read(&root, &rel);
    assert_eq!(out.format, Some(Format::Codex));
    assert_eq!(out.trajectories.len(), 1);
    let t = &out.trajectories[0];
    check_spans(&rel, &bytes, t);
    assert_eq!(
        t.id.as_deref(),
        Some("22222222-2222-4222-8222-222222222222")
    );
    let roles: Vec<Role> = t.turns.iter().map(|x| x.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
    assert_eq!(paired(t), 1);
    assert_eq!(t.turns[1].calls[0].name, "spawn_agent");

    // Child: replays the parent's first items, then its own user/agent messages (events only).
    let rel = format!(
        "{CODEX}/sessions/2026/01/03/rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl"
    );
    let (bytes, out) = read(&root, &rel);
    assert_eq!(out.format, Some(Format::Codex));
    assert_eq!(out.trajectories.len(), 1);
    let t = &out.trajectories[0];
    check_spans(&rel, &bytes, t);
    assert_eq!(
        t.id.as_deref(),
        Some("33333333-3333-4333-8333-333333333333")
    );
    let roles: Vec<Role> = t.turns.iter().map(|x| x.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::User, Role::Assistant]
    );
    // The replayed spawn call has no output in this file.
    assert_eq!(calls(t), 1);
    assert_eq!(results(t), 0);
    assert_eq!(
        t.turns[3].segments[0].text.text,
        "The fixtures are fully synthetic."
    );
}

#[test]
fn codex_legacy_session() {
    let Some(root) = corpus() else {
        return;
    };
    let rel = format!("{CODEX}/sessions/rollout-44444444-4444-4444-8444-444444444444.jsonl");
    let (bytes, out) = read(&root, &rel);
    assert_eq!(out.format, Some(Format::Codex));
    assert_eq!(out.trajectories.len(), 1);
    let t = &out.trajectories[0];
    check_spans(&rel, &bytes, t);
    assert_eq!(
        t.id.as_deref(),
        Some("44444444-4444-4444-8444-444444444444")
    );
    let roles: Vec<Role> = t.turns.iter().map(|x| x.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    assert_eq!(out.issues.len(), 0);
}

#[test]
fn codex_malformed_last_line() {
    let Some(root) = corpus() else {
        return;
    };
    let rel = format!("{CODEX}/malformed/rollout-66666666-6666-4666-8666-666666666666.jsonl");
    let (bytes, out) = read(&root, &rel);
    assert_eq!(out.format, Some(Format::Codex));
    // The cut-off last line is an error pointing into that line; what comes before is read.
    assert_eq!(errors(&out), 1);
    let last_line = bytes.len()
        - bytes
            .iter()
            .rev()
            .skip(1)
            .position(|&b| b == b'\n')
            .unwrap()
        - 1;
    let e = out
        .issues
        .iter()
        .find(|i| i.severity == Severity::Error)
        .unwrap();
    assert!(e.span.start >= last_line, "{:?}", e);
    assert_eq!(out.trajectories.len(), 1);
    let t = &out.trajectories[0];
    check_spans(&rel, &bytes, t);
    assert_eq!(
        t.id.as_deref(),
        Some("66666666-6666-4666-8666-666666666666")
    );
    assert_eq!(t.turns.len(), 1);
    assert_eq!(t.turns[0].role, Role::User);
    assert_eq!(
        t.turns[0].segments[0].text.text,
        "Safe line before malformed input."
    );
}

// ---------------------------------------------------------------------------------------------
// OpenHands

struct Expect {
    id: Option<&'static str>,
    turns: usize,
    users: usize,
    assistants: usize,
    systems: usize,
    calls: usize,
    results: usize,
    paired: usize,
    exit_codes: usize,
    nonzero: usize,
    errors: usize,
    run_error: bool,
}

fn check_openhands(rel: &str, want: &[Expect]) {
    let Some(root) = corpus() else {
        return;
    };
    let (bytes, out) = read(&root, rel);
    assert_eq!(out.format, Some(Format::Openhands), "{rel}");
    assert_eq!(errors(&out), 0, "{rel}: {:?}", out.issues);
    assert_eq!(out.trajectories.len(), want.len(), "{rel}");
    for (k, (t, w)) in out.trajectories.iter().zip(want).enumerate() {
        let what = format!("{rel} #{k}");
        check_spans(&what, &bytes, t);
        assert_eq!(t.id.as_deref(), w.id, "{what}");
        let run_error = t
            .turns
            .last()
            .is_some_and(|x| x.event == Some(EventKind::Other("openhands.run_error".into())));
        assert_eq!(run_error, w.run_error, "{what}: run error");
        assert_eq!(
            t.turns.len(),
            w.turns + usize::from(w.run_error),
            "{what}: turns"
        );
        assert_eq!(count(t, Role::User), w.users, "{what}: users");
        assert_eq!(
            count(t, Role::Assistant),
            w.assistants,
            "{what}: assistants"
        );
        assert_eq!(count(t, Role::System), w.systems, "{what}: systems");
        assert_eq!(calls(t), w.calls, "{what}: calls");
        assert_eq!(results(t), w.results, "{what}: results");
        assert_eq!(paired(t), w.paired, "{what}: paired");
        assert_eq!(exit_codes_set(t), w.exit_codes, "{what}: exit codes");
        assert_eq!(nonzero_exits(t), w.nonzero, "{what}: non-zero exit codes");
        assert_eq!(error_flags(t), w.errors, "{what}: error flags");
        assert!(
            t.compactions.is_empty(),
            "{what}: the samples ran without a condenser"
        );
    }
}

#[test]
fn openhands_runtime_basic() {
    check_openhands(
        "openhands/tests/runtime/trajs/basic.json",
        &[Expect {
            id: None,
            turns: 4,
            users: 1,
            assistants: 2,
            systems: 0,
            calls: 1,
            results: 1,
            paired: 1,
            exit_codes: 0,
            nonzero: 0,
            errors: 0,
            run_error: false,
        }],
    );
}

#[test]
fn openhands_runtime_gui_mode() {
    // State changes and null observations are not turns; the http.server run timed out with
    // exit code -1 and success false, which is an exit code, not an error flag.
    check_openhands(
        "openhands/tests/runtime/trajs/basic_gui_mode.json",
        &[Expect {
            id: None,
            turns: 10,
            users: 1,
            assistants: 5,
            systems: 0,
            calls: 4,
            results: 4,
            paired: 4,
            exit_codes: 2,
            nonzero: 1,
            errors: 0,
            run_error: false,
        }],
    );
}

#[test]
fn openhands_runtime_interactions() {
    check_openhands(
        "openhands/tests/runtime/trajs/basic_interactions.json",
        &[Expect {
            id: None,
            turns: 6,
            users: 3,
            assistants: 3,
            systems: 0,
            calls: 0,
            results: 0,
            paired: 0,
            exit_codes: 0,
            nonzero: 0,
            errors: 0,
            run_error: false,
        }],
    );
}

#[test]
fn openhands_runtime_wrong_initial_state() {
    check_openhands(
        "openhands/tests/runtime/trajs/wrong_initial_state.json",
        &[Expect {
            id: None,
            turns: 8,
            users: 1,
            assistants: 4,
            systems: 0,
            calls: 3,
            results: 3,
            paired: 3,
            exit_codes: 1,
            nonzero: 0,
            errors: 0,
            run_error: false,
        }],
    );
}

#[test]
fn openhands_eval_output_jsonl() {
    // Three runs, one per line. Each has a system action, the user's task, and a recall pair:
    // in the first the recall added two microagents' knowledge (a system turn); in the others
    // it added nothing and is no turn. Two runs have an `error` observation without a cause (a
    // rejected tool call): an error-flagged result that answers no call. The third run ends
    // with a run-level `error` (maximum iteration).
    check_openhands(
        "openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl",
        &[
            Expect {
                id: Some("ponylang__ponyc-4595"),
                turns: 48,
                users: 1,
                assistants: 23,
                systems: 2,
                calls: 22,
                results: 22,
                paired: 22,
                exit_codes: 13,
                nonzero: 5,
                errors: 0,
                run_error: false,
            },
            Expect {
                id: Some("ponylang__ponyc-4593"),
                turns: 68,
                users: 1,
                assistants: 33,
                systems: 1,
                calls: 32,
                results: 33,
                paired: 32,
                exit_codes: 12,
                nonzero: 2,
                errors: 1,
                run_error: false,
            },
            Expect {
                id: Some("ponylang__ponyc-4588"),
                turns: 101,
                users: 1,
                assistants: 49,
                systems: 1,
                calls: 49,
                results: 50,
                paired: 49,
                exit_codes: 24,
                nonzero: 12,
                errors: 1,
                run_error: true,
            },
        ],
    );
}

#[test]
fn openhands_eval_grep_exit_1_is_not_an_error_flag() {
    let Some(root) = corpus() else {
        return;
    };
    let rel = "openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl";
    let (bytes, out) = read(&root, rel);
    let t = &out.trajectories[2];
    // Event 16 (record 3): `grep -n "iso" …/match.c`, exit code 1, success false, empty output.
    let grep = t
        .turns
        .iter()
        .find(|x| {
            x.result
                .as_ref()
                .is_some_and(|r| r.call_id.as_deref() == Some("15"))
        })
        .expect("the result of event 15");
    let r = grep.result.as_ref().unwrap();
    assert_eq!(r.exit_code, Some(1));
    assert!(!r.is_error);
    assert_eq!(r.name.as_deref(), Some("execute_bash"));
    let call = t.call_of(t.turns.iter().position(|x| std::ptr::eq(x, grep)).unwrap());
    assert!(call.unwrap().arguments.contains(r#"grep -n \"iso\""#));
    assert!(std::str::from_utf8(&bytes[grep.span.start..grep.span.end])
        .unwrap()
        .starts_with(r#"{"id":16,"#));
}

#[test]
fn openhands_resolver_mock_output() {
    // The old flat format: no ids, no sources; results pair by position. Run observations carry
    // `exit_code`; IPython ones have none.
    check_openhands(
        "openhands/tests/unit/resolver/mock_output/output.jsonl",
        &[
            Expect {
                id: Some("neubig/pr-viewer#5"),
                turns: 8,
                users: 1,
                assistants: 4,
                systems: 0,
                calls: 3,
                results: 3,
                paired: 3,
                exit_codes: 2,
                nonzero: 0,
                errors: 0,
                run_error: false,
            },
            Expect {
                id: Some("neubig/pr-viewer#1"),
                turns: 44,
                users: 1,
                assistants: 22,
                systems: 0,
                calls: 21,
                results: 21,
                paired: 21,
                exit_codes: 1,
                nonzero: 0,
                errors: 0,
                run_error: false,
            },
        ],
    );
}

#[test]
fn openhands_truncated_and_broken_input() {
    let Some(root) = corpus() else {
        return;
    };
    // A run file cut in the middle of its last record: the complete runs are read.
    let full = std::fs::read(
        root.join("openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"),
    )
    .unwrap();
    let cut = &full[..full.len() - 5000];
    let out = formats::read(cut, None);
    assert_eq!(out.format, Some(Format::Openhands));
    assert_eq!(out.trajectories.len(), 2);
    assert!(out
        .issues
        .iter()
        .any(|i| i.severity == Severity::Error && i.message.contains("cut off")));
    // An event array cut short does not parse: one error, no panic, no trajectory.
    let full = std::fs::read(root.join("openhands/tests/runtime/trajs/basic.json")).unwrap();
    let out = formats::read(&full[..full.len() / 2], None);
    assert_eq!(out.format, Some(Format::Openhands));
    assert!(out.trajectories.is_empty());
    assert!(out.unreadable());
}

#[test]
fn every_prefix_of_small_files_reads_without_panic() {
    let Some(root) = corpus() else {
        return;
    };
    for rel in [
        "codex/claude-code-log/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
        "codex/claude-code-log/sessions/rollout-44444444-4444-4444-8444-444444444444.jsonl",
        "openhands/tests/runtime/trajs/basic_interactions.json",
        "claude-code/claude-code-log/dag_compact_after_rewind_preserved.jsonl",
        "claude-code/claude-code-log/edge_cases.jsonl",
    ] {
        let bytes = std::fs::read(root.join(rel)).unwrap();
        for end in (0..=bytes.len()).step_by(3) {
            let cut = &bytes[..end];
            let out = formats::read(cut, None);
            for t in &out.trajectories {
                check_spans(rel, cut, t);
            }
            for i in &out.issues {
                assert!(i.span.start <= cut.len(), "{rel}[..{end}]: issue past the end");
            }
        }
    }
}

/// Codex's shell tool runs `["bash", "-lc", script]`: an `rg` with exit code 1 found nothing
/// (not_found, as a grep's would be), and a failing build is an error.
#[test]
fn codex_shell_scripts_are_judged_by_the_program_they_run() {
    let rollout = r#"{"timestamp":"2025-09-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2025-09-01T10:00:00.000Z","cwd":"/repo","originator":"codex_cli_rs","cli_version":"0.30.0"}}
{"timestamp":"2025-09-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Find where the retry budget is configured."}]}}
{"timestamp":"2025-09-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rg -n retry_budget src\"],\"workdir\":\"/repo\"}","call_id":"call_1"}}
{"timestamp":"2025-09-01T10:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.1}}"}}
{"timestamp":"2025-09-01T10:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make build\"],\"workdir\":\"/repo\"}","call_id":"call_2"}}
{"timestamp":"2025-09-01T10:00:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_2","output":"{\"output\":\"make: *** [Makefile:3: build] Error 2\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":3.2}}"}}
"#;
    let facts = common::facts_of(rollout);
    let nulls: Vec<_> = common::null_results(&facts)
        .into_iter()
        .map(|(turn, subkind, _)| (turn, subkind))
        .collect();
    use trajlint::extract::Subkind::{Error, NotFound};
    assert_eq!(nulls, [(2, NotFound), (4, Error)]);
}

/// Codex's `exec_command` output starts with a header ("Chunk ID", "Wall time", "Process
/// exited with code N", "Output:"): a file print's first line is the one after it.
#[test]
fn codex_exec_output_is_read_after_its_header() {
    let rollout = r#"{"timestamp":"2025-11-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s2","timestamp":"2025-11-01T10:00:00.000Z","cwd":"/repo","originator":"codex_cli_rs","cli_version":"0.60.0"}}
{"timestamp":"2025-11-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Show the retry settings."}]}}
{"timestamp":"2025-11-01T10:00:07.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat config/retry.toml\",\"workdir\":\"/repo\"}","call_id":"call_3"}}
{"timestamp":"2025-11-01T10:00:08.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_3","output":"Chunk ID: 7a3\nWall time: 0.0100 seconds\nProcess exited with code 1\nOutput:\ncat: config/retry.toml: No such file or directory\n"}}
"#;
    let facts = common::facts_of(rollout);
    assert_eq!(facts.len(), 1, "{facts:#?}");
    assert_eq!(facts[0].subkind, trajlint::extract::Subkind::NotFound);
    assert_eq!(
        facts[0].text,
        "cat: config/retry.toml: No such file or directory"
    );
}

/// A search that printed nothing is an empty result, whatever header the harness puts before
/// the nothing: Codex's exec header ends at "Output:".
#[test]
fn codex_exec_header_around_nothing_is_an_empty_output() {
    let rollout = r#"{"timestamp":"2025-11-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s3","timestamp":"2025-11-01T10:00:00.000Z","cwd":"/repo","originator":"codex_cli_rs","cli_version":"0.60.0"}}
{"timestamp":"2025-11-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Are there leftover merge files?"}]}}
{"timestamp":"2025-11-01T10:00:07.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"find . -name '*.orig'\",\"workdir\":\"/repo\"}","call_id":"call_4"}}
{"timestamp":"2025-11-01T10:00:08.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_4","output":"Chunk ID: 7a4\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n"}}
{"timestamp":"2025-11-01T10:00:09.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"find . -name '*.rej'\",\"workdir\":\"/repo\"}","call_id":"call_5"}}
{"timestamp":"2025-11-01T10:00:10.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_5","output":"Chunk ID: 7a5\nWall time: 0.0100 seconds\nProcess exited with code 0\nOutput:\n./src/lib.rs.rej\n"}}
"#;
    let facts = common::facts_of(rollout);
    assert_eq!(
        common::null_results(&facts),
        [(2, trajlint::extract::Subkind::Empty, "(empty output)")],
        "{facts:#?}"
    );
}
