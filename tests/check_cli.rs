//! `trajlint check` as a CI job sees it: exit codes, rule selection, severities, the
//! configuration file, per-path ignores, baselines, stdin, directory walks and input order; and
//! `trajlint rule` / `trajlint rules`.

mod check_support;

use check_support::{root, scratch, trajlint, Run};
use std::path::Path;

const SESSION: &str = "tests/fixtures/check/session.jsonl";
const COMPACTED: &str = "tests/fixtures/check/compacted.jsonl";

fn check(args: &[&str]) -> Run {
    check_in(&root(), args)
}

/// `check --isolated ARGS` run in `dir`.
fn check_in(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["check", "--isolated"];
    all.extend_from_slice(args);
    trajlint(&all, dir, None)
}

/// The rule codes of concise output, in order.
fn codes(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| {
            let at = l.find('[')?;
            let end = l[at..].find(']')? + at;
            Some(l[at + 1..end].to_string())
        })
        .collect()
}

fn copy_fixture(dir: &Path, name: &str, to: &str) {
    let to = dir.join(to);
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(root().join("tests/fixtures/check").join(name), to).unwrap();
}

#[test]
fn exit_codes_follow_the_fail_level() {
    // session.jsonl: three warnings and one info.
    assert_eq!(check(&["--output-format", "concise", SESSION]).code, 1);
    assert_eq!(
        check(&["--output-format", "concise", "--fail-on", "error", SESSION]).code,
        0
    );
    // Only the info finding selected: below the default fail level (warning).
    let r = check(&["--output-format", "concise", "--select", "NR001", SESSION]);
    assert_eq!((r.code, codes(&r.stdout)), (0, vec!["NR001".to_string()]));
    assert_eq!(
        check(&[
            "--output-format",
            "concise",
            "--select",
            "NR001",
            "--fail-on",
            "info",
            SESSION
        ])
        .code,
        1
    );
    assert_eq!(
        check(&["--output-format", "concise", "--exit-zero", SESSION]).code,
        0
    );
    // The error of the compaction rule fails at every level.
    assert_eq!(check(&["--fail-on", "error", COMPACTED]).code, 1);
    // A level is spelled as trajlint.toml and --output-format spell theirs: lower case.
    let r = check(&["--fail-on", "ERROR", SESSION]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("unknown severity `ERROR`; known: info, warning, error"),
        "{}",
        r.stderr
    );
}

#[test]
fn usage_configuration_and_unreadable_input_exit_2() {
    let r = check(&["--select", "XX9", SESSION]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("unknown rule selector `XX9`"),
        "{}",
        r.stderr
    );
    let r = check(&["--fail-on", "fatal", SESSION]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = check(&["no/such/file.jsonl"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no such file"), "{}", r.stderr);
    // A configuration file that is not there, in the words of every other missing file.
    let r = trajlint(
        &["check", "--config", "no/such.toml", SESSION],
        &root(),
        None,
    );
    assert_eq!(r.code, 2);
    assert!(
        // (A file never read has no line or column to name.)
        r.stderr.contains("no/such.toml: no such file or directory")
            && !r.stderr.contains("os error"),
        "{}",
        r.stderr
    );
    // A file named on the command line that is no log at all.
    let r = check(&["corpus/fixtures/malformed/not-a-trajectory.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not a trajectory"), "{}", r.stderr);
    // ... and --exit-zero does not hide it.
    assert_eq!(
        check(&[
            "--exit-zero",
            "corpus/fixtures/malformed/not-a-trajectory.md"
        ])
        .code,
        2
    );
    // Unreadable input among good files: the good files are still checked.
    let r = check(&[
        "--output-format",
        "concise",
        "corpus/fixtures/malformed/not-a-trajectory.md",
        SESSION,
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(codes(&r.stdout).len(), 4, "{}", r.stdout);
}

#[test]
fn selection_by_code_prefix_and_name() {
    let run = |args: &[&str]| {
        let mut a = vec!["--output-format", "concise"];
        a.extend_from_slice(args);
        a.push(SESSION);
        codes(&check(&a).stdout)
    };
    assert_eq!(run(&[]), ["OB001", "NR001", "NR002", "OB002"]);
    assert_eq!(run(&["--select", "OB"]), ["OB001", "OB002"]);
    assert_eq!(run(&["--select", "OB001"]), ["OB001"]);
    assert_eq!(run(&["--select", "ignored-retry"]), ["OB002"]);
    assert_eq!(run(&["--select", "OB", "--ignore", "OB002"]), ["OB001"]);
    assert_eq!(
        run(&[
            "--select",
            "OB001",
            "--extend-select",
            "repeated-null-query"
        ]),
        ["OB001", "NR002"]
    );
    assert_eq!(run(&["--ignore", "NR,ob002"]), ["OB001"]);
    assert_eq!(
        run(&["--select", "ALL", "--ignore", "OB,NR"]),
        Vec::<String>::new()
    );
}

#[test]
fn severities_can_be_overridden() {
    let r = check(&[
        "--output-format",
        "concise",
        "--severity",
        "NR=error",
        "--severity",
        "NR002=info",
        SESSION,
    ]);
    assert!(r.stdout.contains("error[NR001]"), "{}", r.stdout);
    assert!(r.stdout.contains("info[NR002]"), "{}", r.stdout);
    assert!(r.stdout.contains("warning[OB001]"), "{}", r.stdout);
    // A list in one flag, as --select takes one.
    let r = check(&[
        "--output-format",
        "concise",
        "--severity",
        "NR=error,NR002=info",
        SESSION,
    ]);
    assert!(r.stdout.contains("error[NR001]"), "{}", r.stdout);
    assert!(r.stdout.contains("info[NR002]"), "{}", r.stdout);
    let r = check(&["--severity", "OB001=loud", SESSION]);
    assert_eq!(r.code, 2);
    let r = check(&["--severity", "OB001=error,NR001", SESSION]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn the_configuration_file_is_found_by_walking_up() {
    let dir = scratch("config-walk");
    copy_fixture(&dir, "session.jsonl", "runs/new/a.jsonl");
    copy_fixture(&dir, "session.jsonl", "runs/legacy/b.jsonl");
    std::fs::write(
        dir.join("trajlint.toml"),
        "ignore = [\"NR001\"]\nfail-on = \"error\"\noutput-format = \"concise\"\n\n[severity]\nrepeated-null-query = \"error\"\n\n[per-path-ignores]\n\"runs/legacy/**\" = [\"OB\", \"NR002\"]\n",
    )
    .unwrap();
    let sub = dir.join("runs");
    let r = trajlint(&["check", "."], &sub, None);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().filter(|l| l.contains('[')).collect();
    assert_eq!(
        lines
            .iter()
            .map(|l| l.split(':').next().unwrap())
            .collect::<Vec<_>>(),
        ["new/a.jsonl", "new/a.jsonl", "new/a.jsonl"],
        "{}",
        r.stdout
    );
    assert_eq!(codes(&r.stdout), ["OB001", "NR002", "OB002"]);
    assert!(r.stdout.contains("error[NR002]"), "{}", r.stdout);
    // --isolated ignores it; --config names another.
    let r = trajlint(
        &["check", "--isolated", "--output-format", "concise", "."],
        &sub,
        None,
    );
    assert_eq!(codes(&r.stdout).len(), 8);
    std::fs::write(dir.join("other.toml"), "select = [\"OB002\"]\n").unwrap();
    let r = trajlint(
        &[
            "check",
            "--config",
            "../other.toml",
            "--output-format",
            "concise",
            ".",
        ],
        &sub,
        None,
    );
    assert_eq!(codes(&r.stdout), ["OB002", "OB002"], "{}", r.stdout);
}

#[test]
fn configuration_errors_point_at_the_line() {
    let dir = scratch("config-error");
    copy_fixture(&dir, "session.jsonl", "a.jsonl");
    std::fs::write(
        dir.join("trajlint.toml"),
        "select = [\"OB\"]\nfail_on = \"error\"\n",
    )
    .unwrap();
    let r = trajlint(&["check", "a.jsonl"], &dir, None);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("trajlint.toml:2:1: unknown field `fail_on`"),
        "{}",
        r.stderr
    );
    std::fs::write(
        dir.join("trajlint.toml"),
        "[per-path-ignores]\n\"x/**\" = [\"OB9\"]\n",
    )
    .unwrap();
    let r = trajlint(&["check", "a.jsonl"], &dir, None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("trajlint.toml:2:"), "{}", r.stderr);
    assert!(
        r.stderr.contains("unknown rule selector `OB9`"),
        "{}",
        r.stderr
    );
    std::fs::write(dir.join("trajlint.toml"), "output-format = \"xml\"\n").unwrap();
    let r = trajlint(&["check", "a.jsonl"], &dir, None);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("trajlint.toml:1:17: unknown output format `xml`"),
        "{}",
        r.stderr
    );
}

/// RF001's documented example is flagged, and its "not flagged" cases are not: a first turn
/// pointing back past the start of the log is unbound; "the second option" there, or after a
/// turn with no list, is not.
#[test]
fn unbound_reference_does_what_its_doc_says() {
    let dir = scratch("rf001");
    let run = |lines: &[&str]| {
        std::fs::write(dir.join("log.jsonl"), lines.join("\n") + "\n").unwrap();
        let r = check_in(
            &dir,
            &[
                "--select",
                "RF001",
                "--output-format",
                "concise",
                "log.jsonl",
            ],
        );
        codes(&r.stdout).len()
    };
    let ok = r#"{"role":"assistant","content":"OK."}"#;
    assert_eq!(
        run(&[
            r#"{"role":"user","content":"Summarize the conversation so far, paying attention to your previous actions."}"#,
            ok
        ]),
        1
    );
    assert_eq!(
        run(&[
            r#"{"role":"user","content":"Go with the second option."}"#,
            ok
        ]),
        0
    );
    assert_eq!(
        run(&[
            r#"{"role":"user","content":"Hello there."}"#,
            r#"{"role":"assistant","content":"Hi! How can I help?"}"#,
            r#"{"role":"user","content":"Go with the second option."}"#,
            ok
        ]),
        0
    );
}

/// A Claude Code session of these records, one a line, each the child of the one before (as the
/// harness chains them by `uuid` and `parentUuid`).
fn claude_code_session(records: &[serde_json::Value]) -> String {
    let mut out = String::new();
    for (i, r) in records.iter().enumerate() {
        let mut r = r.clone();
        r["uuid"] = format!("u{i}").into();
        r["parentUuid"] = match i {
            0 => serde_json::Value::Null,
            _ => format!("u{}", i - 1).into(),
        };
        r["sessionId"] = "s".into();
        out.push_str(&r.to_string());
        out.push('\n');
    }
    out
}

/// NR001's documented example is flagged (the last sentence names the retry budget, the
/// thing the grep looked for, but not its absence: "retry" there is no word of trying again),
/// and its "not flagged" case is not.
#[test]
fn unacknowledged_null_result_does_what_its_doc_says() {
    let dir = scratch("nr001");
    // A Claude Code session: the grep's "Exit code 1" is its exit status, a search's not-found.
    let run = |last: &str| {
        let records = [
            serde_json::json!({"type": "user", "message": {"role": "user",
                "content": "Does the client honour the retry budget?"}}),
            serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash",
                 "input": {"command": "grep -rn \"retry_budget\" src/"}}]}}),
            serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "Exit code 1", "is_error": true}]}}),
            serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "cat src/client.rs"}}]}}),
            serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t2", "content": "fn main() {}"}]}}),
            serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": last}]}}),
        ];
        std::fs::write(dir.join("log.jsonl"), claude_code_session(&records)).unwrap();
        let r = check_in(
            &dir,
            &[
                "--select",
                "NR001",
                "--output-format",
                "concise",
                "log.jsonl",
            ],
        );
        codes(&r.stdout)
    };
    assert_eq!(
        run("The client already honours the retry budget."),
        ["NR001"]
    );
    assert!(run("There is no `retry_budget` anywhere in src/, so I'll add one.").is_empty());
}

/// OB002's documented example is flagged, by OB002 alone (its last sentence owes nothing), and
/// its "not flagged" cases are not.
#[test]
fn ignored_retry_does_what_its_doc_says() {
    let dir = scratch("ob002");
    let run = |after: &[serde_json::Value]| {
        let mut records = vec![
            serde_json::json!({"type": "user", "message": {"role": "user",
                "content": "How do I render a miette SourceCode span?"}}),
            serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "web_search",
                 "input": {"query": "rust miette SourceCode"}}]}}),
            serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                 "content": "Error 429: rate limit exceeded, retry after 30 seconds."}]}}),
        ];
        records.extend_from_slice(after);
        std::fs::write(dir.join("log.jsonl"), claude_code_session(&records)).unwrap();
        let r = check_in(
            &dir,
            &["--select", "ALL", "--output-format", "concise", "log.jsonl"],
        );
        codes(&r.stdout)
    };
    let say = |text: &str| {
        serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": text}]}})
    };
    assert_eq!(
        run(&[say(
            "There is no documentation for this, so the renderer below is written from scratch."
        )]),
        ["OB002"]
    );
    assert!(run(&[say(
        "The search is rate-limited; not retrying, the local docs suffice."
    )])
    .is_empty());
    let again = [
        serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "web_search",
             "input": {"query": "rust miette SourceCode"}}]}}),
        serde_json::json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "docs.rs/miette: SourceCode trait"}]}}),
        say("The SourceCode trait is what a span reads from."),
    ];
    assert!(!run(&again).contains(&"OB002".to_string()));
}

/// CP002's documented example: candidates listed inline after a colon, a compaction, then "the
/// second candidate" is flagged (it was an unbound RF001: an inline list was no list); not when
/// the summary lists the candidates again.
#[test]
fn reference_into_compacted_span_does_what_its_doc_says() {
    let dir = scratch("cp002");
    let run = |summary: &str| {
        let records = [
            serde_json::json!({"type": "user", "message": {"role": "user",
                "content": "Which parse function should the CLI use?"}}),
            serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Grep", "input": {"pattern": "fn parse_"}}]}}),
            serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1",
                 "content": "Found 3 candidates: parse_v1, parse_v2, parse_legacy"}]}}),
            serde_json::json!({"type": "system", "subtype": "compact_boundary",
                "content": "Conversation compacted"}),
            serde_json::json!({"type": "user", "isCompactSummary": true,
                "message": {"role": "user", "content": summary}}),
            serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": "I'll go with the second candidate."}]}}),
        ];
        std::fs::write(dir.join("log.jsonl"), claude_code_session(&records)).unwrap();
        let r = check_in(
            &dir,
            &[
                "--select",
                "CP002,RF001",
                "--output-format",
                "concise",
                "log.jsonl",
            ],
        );
        codes(&r.stdout)
    };
    assert_eq!(run("Summary: investigating the parser."), ["CP002"]);
    assert!(run(
        "Summary: investigating the parser. Candidates found: parse_v1, parse_v2, parse_legacy."
    )
    .is_empty());
}

/// Baseline entries name files from the directory the baseline was written in: run from
/// another, it matches nothing, and the run says so instead of failing on every finding in
/// silence.
#[test]
fn a_baseline_that_names_none_of_the_files_checked_is_said() {
    let dir = scratch("baseline-elsewhere");
    copy_fixture(&dir, "session.jsonl", "runs/a.jsonl");
    let run = |args: &[&str], cwd: &Path| {
        let mut all = vec!["check", "--isolated", "--output-format", "concise"];
        all.extend_from_slice(args);
        trajlint(&all, cwd, None)
    };
    assert_eq!(run(&["runs", "--write-baseline", "b.json"], &dir).code, 0);
    let here = run(&["runs", "--baseline", "b.json"], &dir);
    assert_eq!(here.code, 0, "{}", here.stdout);
    assert!(!here.stderr.contains("names none"), "{}", here.stderr);
    let elsewhere = run(&[".", "--baseline", "../b.json"], &dir.join("runs"));
    assert_eq!(elsewhere.code, 1, "{}", elsewhere.stdout);
    assert!(
        elsewhere
            .stderr
            .contains("warning: the baseline names none of the files checked"),
        "{}",
        elsewhere.stderr
    );
    // A new log checked against a baseline of others is no baseline written elsewhere.
    copy_fixture(&dir, "compacted.jsonl", "runs/new.jsonl");
    let subset = run(&["runs/new.jsonl", "--baseline", "b.json"], &dir);
    assert_eq!(subset.code, 1, "{}", subset.stdout);
    assert!(!subset.stderr.contains("names none"), "{}", subset.stderr);
    // With trajlint.toml, entries name files from its directory wherever the baseline was
    // written: one written from `runs/` still tells, from the root, which entries are stale.
    std::fs::write(dir.join("trajlint.toml"), "").unwrap();
    let r = trajlint(
        &["check", "a.jsonl", "--write-baseline", "../c.json"],
        &dir.join("runs"),
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = std::fs::read_to_string(dir.join("c.json")).unwrap();
    assert!(c.contains(r#""file":"runs/a.jsonl""#), "{c}");
    let log = std::fs::read_to_string(dir.join("runs/a.jsonl")).unwrap();
    let fewer: Vec<&str> = log.lines().filter(|l| !l.contains("rate limit")).collect();
    std::fs::write(dir.join("runs/a.jsonl"), fewer.join("\n") + "\n").unwrap();
    let r = trajlint(
        &[
            "check",
            "runs/a.jsonl",
            "--baseline",
            "c.json",
            "--output-format",
            "concise",
        ],
        &dir,
        None,
    );
    assert!(
        r.stdout.contains("1 baseline entry no longer occurs"),
        "{}",
        r.stdout
    );
    // A file checked from `runs/` whose displayed name is another file's path from the root
    // (`a.jsonl` beside trajlint.toml) leaves that file's entries alone.
    copy_fixture(&dir, "compacted.jsonl", "a.jsonl");
    let r = trajlint(
        &[
            "check",
            "a.jsonl",
            "runs/a.jsonl",
            "--write-baseline",
            "d.json",
        ],
        &dir,
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = trajlint(
        &[
            "check",
            "a.jsonl",
            "--baseline",
            "../d.json",
            "--output-format",
            "concise",
        ],
        &dir.join("runs"),
        None,
    );
    assert!(!r.stdout.contains("no longer occur"), "{}", r.stdout);
    // Standard input's entries, from a subdirectory: checked again, they are no baseline
    // written elsewhere.
    let log = std::fs::read(dir.join("runs/a.jsonl")).unwrap();
    let r = trajlint(
        &["check", "-", "--write-baseline", "../e.json"],
        &dir.join("runs"),
        Some(&log),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // (Its findings since fixed: the first lines only.)
    let head: Vec<u8> = String::from_utf8(log)
        .unwrap()
        .lines()
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes();
    let r = trajlint(
        &[
            "check",
            "-",
            "--baseline",
            "../e.json",
            "--output-format",
            "concise",
        ],
        &dir.join("runs"),
        Some(&head),
    );
    assert!(r.stdout.contains("no longer occur"), "{}", r.stdout);
    assert!(!r.stderr.contains("names none"), "{}", r.stderr);
}

/// A run that could not read an input (a path mistyped, a directory with no log) leaves the
/// baseline as it was: written, it would lose the entries of what it did not read.
#[test]
fn a_failed_run_does_not_write_over_the_baseline() {
    let dir = scratch("baseline-kept");
    copy_fixture(&dir, "session.jsonl", "runs/a.jsonl");
    copy_fixture(&dir, "compacted.jsonl", "runs/b.jsonl");
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["check", "--isolated"];
        all.extend_from_slice(args);
        trajlint(&all, &dir, None)
    };
    assert_eq!(run(&["runs", "--write-baseline", "b.json"]).code, 0);
    let written = std::fs::read(dir.join("b.json")).unwrap();
    for (args, why) in [
        (
            &["empty", "--write-baseline", "b.json"][..],
            "no log was checked",
        ),
        (
            &[
                "runs/a.jsonl",
                "runs/typo.jsonl",
                "--write-baseline",
                "b.json",
            ][..],
            "1 input could not be read (written now, it would lose its findings)",
        ),
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "error: the baseline b.json is left as it was: {why}"
            )),
            "{}",
            r.stderr
        );
        assert!(!r.stderr.contains("Wrote"), "{}", r.stderr);
        assert_eq!(std::fs::read(dir.join("b.json")).unwrap(), written);
    }
    // What it read is still baselined: the run that reads everything passes.
    assert_eq!(run(&["runs", "--baseline", "b.json"]).code, 0);
}

#[test]
fn a_baseline_passes_old_findings_and_fails_new_ones() {
    let dir = scratch("baseline");
    copy_fixture(&dir, "session.jsonl", "run.jsonl");
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "--write-baseline",
            "baseline.json",
            "run.jsonl",
        ],
        &dir,
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("Wrote 4 findings"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    let baseline = std::fs::read_to_string(dir.join("baseline.json")).unwrap();
    assert!(baseline.contains("\"schema\": \"trajlint.baseline/1\""));
    assert_eq!(baseline.matches("\"fingerprint\"").count(), 4);

    let with = |args: &[&str]| {
        let mut a = vec!["check", "--isolated", "--output-format", "concise"];
        a.extend_from_slice(args);
        a.push("run.jsonl");
        trajlint(&a, &dir, None)
    };
    let r = with(&["--baseline", "baseline.json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.contains("4 findings matched the baseline"),
        "{}",
        r.stdout
    );

    // The log grows: a new assistant turn with a new commitment, after everything else.
    // Offsets of nothing before it change, but the fingerprints would survive even if they
    // did: they hold no offsets.
    let mut log = std::fs::read_to_string(dir.join("run.jsonl")).unwrap();
    log.push_str(&format!(
        "{}\n",
        r#"{"type": "assistant", "sessionId": "5f0c1a2e-0000-4000-8000-000000000001", "message": {"id": "msg_08", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Later I will also document the new behaviour in the README."}]}}"#
    ));
    std::fs::write(dir.join("run.jsonl"), &log).unwrap();
    let r = with(&["--baseline", "baseline.json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(codes(&r.stdout), ["OB001"], "{}", r.stdout);
    assert!(
        r.stdout.contains("document the new behaviour"),
        "{}",
        r.stdout
    );

    // Lines inserted at the top shift every offset; the baseline still holds.
    let shifted = format!(
        "{}\n{log}",
        r#"{"type": "user", "sessionId": "5f0c1a2e-0000-4000-8000-000000000001", "message": {"role": "user", "content": "Some context first."}}"#
    );
    std::fs::write(dir.join("run.jsonl"), shifted).unwrap();
    let r = with(&["--baseline", "baseline.json"]);
    assert_eq!(codes(&r.stdout), ["OB001"], "{}", r.stdout);

    // A baseline that is not one is a configuration error.
    std::fs::write(dir.join("bad.json"), "[]").unwrap();
    assert_eq!(with(&["--baseline", "bad.json"]).code, 2);
    assert_eq!(with(&["--baseline", "missing.json"]).code, 2);
}

#[test]
fn stdin_is_read_and_can_be_named() {
    let log = std::fs::read(root().join(SESSION)).unwrap();
    let r = trajlint(
        &["check", "--isolated", "--output-format", "concise", "-"],
        &root(),
        Some(&log),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("-:2:212: warning[OB001]"),
        "{}",
        r.stdout
    );
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--stdin-filename",
            "runs/today.jsonl",
            "-",
        ],
        &root(),
        Some(&log),
    );
    assert!(
        r.stdout.starts_with("runs/today.jsonl:2:212:"),
        "{}",
        r.stdout
    );
    assert!(!r.stderr.contains("--stdin-filename"), "{}", r.stderr);
    // In SARIF the name is a path as a file's is: from the working directory inside it, an
    // absolute `file://` URI outside it.
    let sarif_uri = |name: &str| {
        let r = trajlint(
            &[
                "check",
                "--isolated",
                "--output-format",
                "sarif",
                "--stdin-filename",
                name,
                "-",
            ],
            &root(),
            Some(&log),
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"].clone()
    };
    let inside = root().join("runs/to day.jsonl");
    assert_eq!(
        sarif_uri(inside.to_str().unwrap()),
        serde_json::json!({"uri": "runs/to%20day.jsonl", "uriBaseId": "%SRCROOT%"})
    );
    let beside = root().parent().unwrap().join("elsewhere/today.jsonl");
    assert_eq!(
        sarif_uri("../elsewhere/today.jsonl")["uri"],
        format!("file://{}", beside.display())
    );
    // Standard input that cannot be read (a directory redirected in) is named so too, its
    // reason said as any input's.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajlint"))
        .args([
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--stdin-filename",
            "runs/today.jsonl",
            "-",
        ])
        .current_dir(root())
        .stdin(std::fs::File::open(root().join("corpus")).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr, "runs/today.jsonl: error: is a directory\n");
    // Given with no `-` to name, it is said to go unused.
    let r = check(&["--stdin-filename", "runs/today.jsonl", SESSION]);
    assert!(
        r.stderr
            .contains("--stdin-filename is not used: no path is `-`"),
        "{}",
        r.stderr
    );
}

#[test]
fn directories_are_walked_in_order_with_ignore_files_respected() {
    let dir = scratch("walk");
    // Many files, so the parallel reading is exercised across chunks.
    for i in 0..40 {
        copy_fixture(&dir, "session.jsonl", &format!("logs/{i:02}.jsonl"));
    }
    copy_fixture(&dir, "compacted.jsonl", "logs/skipped/c.jsonl");
    std::fs::write(dir.join("logs/.ignore"), "skipped/\n").unwrap();
    std::fs::write(dir.join("logs/notes.md"), "# not a log\n").unwrap();
    let r = trajlint(
        &["check", "--isolated", "--output-format", "concise", "logs"],
        &dir,
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let files: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains('['))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(files.len(), 160);
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "findings come in input order");
    assert!(!files.iter().any(|f| f.contains("skipped")));
    assert!(
        r.stdout
            .ends_with("Found 160 findings (120 warnings, 40 info) in 40 of 40 files.\n"),
        "{}",
        r.stdout
    );
}

/// `trajlint annotate ARGS` in `dir`, which must succeed: its annotations, one per trajectory.
fn annotations(args: &[&str], dir: &Path) -> Vec<serde_json::Value> {
    let mut all = vec!["annotate"];
    all.extend_from_slice(args);
    let r = trajlint(&all, dir, None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The files `annotate` names for what it read of `path`, each as JSON.
fn annotated_files(path: &str, dir: &Path) -> Vec<String> {
    let all = annotations(&[path], dir);
    all.iter().map(|a| a["file"].to_string()).collect()
}

/// Events kept one per file, pretty-printed as the SDK writes them: the full view shows each
/// label under the name of its own event's file, numbered by that file's lines, even where
/// the labels of one finding lie in the files of events side by side.
#[test]
fn the_full_view_numbers_each_label_by_its_own_event_file() {
    let dir = scratch("pretty-events");
    let fixture = root().join("corpus/fixtures/openhands/v1-events-health-endpoint.jsonl");
    let events = dir.join("conv/events");
    std::fs::create_dir_all(&events).unwrap();
    let lines = std::fs::read_to_string(&fixture).unwrap();
    for (i, line) in lines.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = event["id"].as_str().unwrap().to_string();
        let pretty = serde_json::to_string_pretty(&event).unwrap();
        std::fs::write(events.join(format!("event-{i:05}-{id}.json")), pretty).unwrap();
    }
    let r = trajlint(
        &["check", "--isolated", "--output-format", "full", "conv"],
        &dir,
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut blocks = 0;
    let mut file: Option<Vec<String>> = None;
    for row in r.stdout.lines() {
        if let Some(head) = row.split("╭─[").nth(1) {
            let path = head.split(':').next().unwrap();
            let text = std::fs::read_to_string(dir.join(path)).unwrap();
            file = Some(text.lines().map(str::to_string).collect());
            blocks += 1;
        } else if row.trim_start().starts_with('╰') {
            file = None;
        } else if let (Some(lines), Some((n, shown))) = (&file, row.split_once(" │ ")) {
            // A numbered row of the excerpt: that line of the file named above it.
            let Ok(n) = n.trim().parse::<usize>() else {
                continue;
            };
            let shown = shown.split('…').next().unwrap();
            assert!(
                lines.get(n - 1).is_some_and(|l| l.starts_with(shown)),
                "line {n} is not {shown:?}\n{}",
                r.stdout
            );
        }
    }
    assert!(blocks >= 5, "{}", r.stdout);
}

/// Event files an editor marked (EF BB BF before each event) are read as unmarked ones: the same
/// findings at the same line and column of each file (the mark is no column).
#[test]
fn marked_event_files_give_the_positions_of_unmarked_ones() {
    let fixture = root().join("corpus/fixtures/openhands/v1-events-health-endpoint.jsonl");
    let lines = std::fs::read_to_string(fixture).unwrap();
    let findings = |mark: &str| {
        let dir = scratch(&format!("marked-events-{}", mark.len()));
        let events = dir.join("conv/events");
        std::fs::create_dir_all(&events).unwrap();
        for (i, line) in lines.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            std::fs::write(
                events.join(format!("event-{i:05}-x.json")),
                format!("{mark}{line}"),
            )
            .unwrap();
        }
        let r = check_in(
            &dir,
            &[
                "--select",
                "ALL",
                "--output-format",
                "concise",
                "conv/events",
            ],
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        r.stdout
            .lines()
            .filter(|l| l.contains(".json:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let plain = findings("");
    assert!(plain.len() >= 2, "{plain:?}");
    assert_eq!(findings("\u{FEFF}"), plain);
}

/// An OpenHands conversation as the SDK persists it, one event per file (each written without a
/// final line break), is one log: read as its files joined in name order, named by their
/// pattern, its facts those of the same events kept one per line.
#[test]
fn a_conversation_kept_one_event_per_file_is_one_log() {
    let dir = scratch("events");
    let fixture = root().join("corpus/fixtures/openhands/v1-events-health-endpoint.jsonl");
    let lines = std::fs::read_to_string(&fixture).unwrap();
    let events = dir.join("conv-a/events");
    std::fs::create_dir_all(&events).unwrap();
    let mut joined = String::new();
    for (i, line) in lines.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let id = serde_json::from_str::<serde_json::Value>(line).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        std::fs::write(events.join(format!("event-{i:05}-{id}.json")), line).unwrap();
        joined.push_str(line);
        joined.push('\n');
    }
    // A file beside them is read on its own; the conversation's state is not a log.
    std::fs::copy(&fixture, dir.join("conv-a/copy.jsonl")).unwrap();
    std::fs::write(
        dir.join("conv-a/base_state.json"),
        r#"{"id": "c1", "agent": {}}"#,
    )
    .unwrap();

    let all = annotations(&["conv-a"], &dir);
    let files: Vec<&str> = all.iter().map(|a| a["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["conv-a/copy.jsonl", "conv-a/events/event-*.json"]);
    let (single, joint) = (&all[0], &all[1]);
    assert_eq!(joint["format"], "openhands");
    let roles = |a: &serde_json::Value| -> Vec<String> {
        let turns = a["turns"].as_array().unwrap();
        turns.iter().map(|t| t["role"].to_string()).collect()
    };
    assert!(roles(single).len() > 3);
    assert_eq!(roles(joint), roles(single));
    let facts = |a: &serde_json::Value| -> Vec<(String, String, String)> {
        let facts = a["facts"].as_array().unwrap();
        facts
            .iter()
            .map(|f| {
                (
                    f["kind"].to_string(),
                    f["status"].to_string(),
                    f["text"].to_string(),
                )
            })
            .collect()
    };
    assert!(!facts(single).is_empty());
    assert_eq!(facts(joint), facts(single));
    // Offsets are into the joined files, one a line. (A fact the tool
    // reported only by its exit code has no text of its own: an empty span.)
    let mut quoted = 0;
    for f in joint["facts"].as_array().unwrap() {
        let (s, e) = (
            f["bytes"][0].as_u64().unwrap(),
            f["bytes"][1].as_u64().unwrap(),
        );
        let raw = &joined[s as usize..e as usize];
        let text = f["text"].as_str().unwrap();
        if !raw.is_empty() {
            assert!(
                raw.starts_with(&text[..text.len().min(12)]),
                "{raw:?} vs {text:?}"
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 5, "{quoted}");
    // The events directory named directly, and the conversation directory to `plan`.
    assert_eq!(annotations(&["conv-a/events"], &dir).len(), 1);
    // A copy of the conversation as hard links (`cp -al`) is the same conversation: read once.
    #[cfg(unix)]
    {
        let copy = dir.join("conv-b/events");
        std::fs::create_dir_all(&copy).unwrap();
        for f in std::fs::read_dir(&events).unwrap() {
            let f = f.unwrap().path();
            std::fs::hard_link(&f, copy.join(f.file_name().unwrap())).unwrap();
        }
        let both = annotations(&["conv-a/events", "conv-b/events"], &dir);
        assert_eq!(both.len(), 1);
        // One that went on after the copy is a conversation of its own.
        let last = std::fs::read_dir(&events)
            .unwrap()
            .map(|f| f.unwrap().path())
            .max()
            .unwrap();
        std::fs::copy(&last, copy.join("event-99999-later.json")).unwrap();
        let both = annotations(&["conv-a/events", "conv-b/events"], &dir);
        assert_eq!(both.len(), 2);
        std::fs::remove_dir_all(dir.join("conv-b")).unwrap();
    }
    let plan = trajlint(&["plan", "--budget", "100000", "conv-a"], &dir, None);
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    assert!(
        plan.stdout
            .starts_with("conv-a/events/event-*.json [openhands]"),
        "{}",
        plan.stdout
    );
    // `check` places each finding in its event's own file (line 1: one event a file), where a
    // code scanner or an annotation can find it; no input is left unread.
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "--output-format",
            "json",
            "conv-a/events",
        ],
        &dir,
        None,
    );
    assert!(!r.stderr.contains("could not be read"), "{}", r.stderr);
    let found: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    assert!(!found.is_empty(), "{}", r.stdout);
    let mut placed = Vec::new();
    for f in &found {
        for at in std::iter::once(f).chain(f["labels"].as_array().unwrap()) {
            let file = at["file"].as_str().or(f["file"].as_str()).unwrap();
            assert!(file.starts_with("conv-a/events/event-0"), "{file}");
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let (s, e) = (
                at["bytes"][0].as_u64().unwrap() as usize,
                at["bytes"][1].as_u64().unwrap() as usize,
            );
            assert!(s <= e && e <= bytes.len(), "{file}: {s}..{e}");
            assert_eq!(at["location"]["line"], 1);
            // (ASCII events: the column is the byte offset plus one.)
            assert_eq!(at["location"]["column"].as_u64().unwrap() as usize, s + 1);
            placed.push(String::from_utf8_lossy(&bytes[s..e]).into_owned());
        }
    }
    assert!(
        placed
            .iter()
            .any(|t| t == "Don't push; I want to review the diff first."),
        "{placed:?}"
    );
    for format in ["concise", "github", "full"] {
        let r = trajlint(
            &[
                "check",
                "--isolated",
                "--output-format",
                format,
                "conv-a/events",
            ],
            &dir,
            None,
        );
        assert!(!r.stdout.contains("event-*"), "{format}: {}", r.stdout);
        assert!(
            r.stdout.contains("conv-a/events/event-00021-"),
            "{format}: {}",
            r.stdout
        );
    }
    // A broken event is named by its own file too: a finding of `unreadable-record`, or,
    // with that rule off, a reader error on stderr.
    std::fs::write(events.join("event-00099-broken.json"), "{\"kind\": ").unwrap();
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "conv-a/events",
        ],
        &dir,
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("conv-a/events/event-00099-broken.json:1:10: error[RD001]"),
        "{}",
        r.stdout
    );
    assert!(!r.stderr.contains("event-00099-broken"), "{}", r.stderr);
    let r = trajlint(
        &["check", "--isolated", "--ignore", "RD001", "conv-a/events"],
        &dir,
        None,
    );
    assert!(
        r.stderr
            .contains("conv-a/events/event-00099-broken.json:1:10: error:"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(events.join("event-00099-broken.json")).unwrap();
    let r = trajlint(&["check", "--isolated", "conv-a"], &dir, None);
    assert!(!r.stderr.contains("base_state"), "{}", r.stderr);
    // Beside an `events/` directory of something else, a `metadata.json` is an input.
    std::fs::create_dir_all(dir.join("notes/events")).unwrap();
    std::fs::write(dir.join("notes/events/todo.json"), "{}").unwrap();
    std::fs::write(dir.join("notes/metadata.json"), r#"{"title": "notes"}"#).unwrap();
    let r = trajlint(&["check", "--isolated", "notes"], &dir, None);
    assert!(r.stderr.contains("notes/metadata.json"), "{}", r.stderr);
    // One event file named alone says what it is.
    let one = std::fs::read_dir(&events)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let r = trajlint(&["check", "--isolated", one.to_str().unwrap()], &dir, None);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("a single OpenHands event, not a conversation"),
        "{}",
        r.stderr
    );
}

/// The older OpenHands app kept a conversation as `events/0.json`, `events/1.json`, …: joined
/// in index order (10 after 9, not after 1), it reads as the same events in one array.
#[test]
fn an_older_conversation_kept_one_event_per_file_is_read_in_index_order() {
    let dir = scratch("events-v0");
    let fixture = root().join("corpus/fixtures/openhands/grep-miss.json");
    let events: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    assert!(events.len() > 10);
    std::fs::create_dir_all(dir.join("sessions/s1/events")).unwrap();
    for (i, e) in events.iter().enumerate() {
        let path = dir.join(format!("sessions/s1/events/{i}.json"));
        std::fs::write(path, serde_json::to_string_pretty(e).unwrap()).unwrap();
    }
    let run = |path: &str| -> serde_json::Value {
        let mut all = annotations(&[path], &dir);
        assert_eq!(all.len(), 1);
        all.remove(0)
    };
    std::fs::copy(&fixture, dir.join("whole.json")).unwrap();
    let whole = run("whole.json");
    let joined = run("sessions");
    assert_eq!(joined["file"], "sessions/s1/events/*.json");
    let texts = |a: &serde_json::Value| -> Vec<String> {
        let facts = a["facts"].as_array().unwrap();
        facts.iter().map(|f| f["text"].to_string()).collect()
    };
    assert!(!texts(&whole).is_empty());
    assert_eq!(texts(&joined), texts(&whole));
    assert_eq!(
        joined["turns"].as_array().unwrap().len(),
        whole["turns"].as_array().unwrap().len()
    );
    // Numbered files under another app's `events/` are files of their own.
    std::fs::create_dir_all(dir.join("other/events")).unwrap();
    let chat = r#"{"messages":[{"role":"user","content":"Find the file."},{"role":"assistant","content":"I will look for it."}]}"#;
    for i in 0..2 {
        std::fs::write(dir.join(format!("other/events/{i}.json")), chat).unwrap();
    }
    assert_eq!(
        annotated_files("other", &dir),
        [r#""other/events/0.json""#, r#""other/events/1.json""#]
    );
    // A cut-off first event does not split the conversation: the next file decides.
    let cut = dir.join("sessions/s1/events/0.json");
    let first = std::fs::read_to_string(&cut).unwrap();
    std::fs::write(&cut, &first[..first.len() / 2]).unwrap();
    let r = trajlint(&["annotate", "--format", "json", "sessions"], &dir, None);
    let names: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].clone())
        .collect();
    assert_eq!(names, ["sessions/s1/events/*.json"], "{}", r.stderr);
    // One error, at the start of the cut event (line 1 of its own file); every other event
    // is read.
    assert_eq!(r.stderr.matches("error:").count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("sessions/s1/events/0.json:1:1: error"),
        "{}",
        r.stderr
    );
    let turns = |a: &str| -> usize {
        let v: serde_json::Value = serde_json::from_str(a.lines().next().unwrap()).unwrap();
        v["turns"].as_array().unwrap().len()
    };
    assert!(turns(&r.stdout) + 1 >= whole["turns"].as_array().unwrap().len());
    // A directory holding both namings holds two conversations: `check` reads each, `plan`
    // cannot pick one.
    std::fs::create_dir_all(dir.join("mixed/events")).unwrap();
    for (i, e) in events.iter().take(2).enumerate() {
        let path = dir.join(format!("mixed/events/{i}.json"));
        std::fs::write(path, serde_json::to_string(e).unwrap()).unwrap();
    }
    let v1 = root().join("corpus/fixtures/openhands/v1-events-health-endpoint.jsonl");
    for (i, line) in std::fs::read_to_string(v1)
        .unwrap()
        .lines()
        .take(2)
        .enumerate()
    {
        let path = dir.join(format!("mixed/events/event-{i:05}-a{i}.json"));
        std::fs::write(path, line).unwrap();
    }
    assert_eq!(
        annotated_files("mixed", &dir),
        [r#""mixed/events/*.json""#, r#""mixed/events/event-*.json""#]
    );
    let plan = trajlint(&["plan", "--budget", "1000", "mixed"], &dir, None);
    assert_eq!(plan.code, 2);
    assert!(plan.stderr.contains("two conversations"), "{}", plan.stderr);
}

#[test]
fn rule_docs_are_printed_by_name_or_code() {
    let by_name = trajlint(&["rule", "dangling-commitment"], &root(), None);
    let by_code = trajlint(&["rule", "OB001"], &root(), None);
    assert_eq!(by_name.code, 0);
    assert_eq!(by_name.stdout, by_code.stdout);
    for section in [
        "# dangling-commitment (OB001)",
        "## What it does",
        "## Why it matters",
        "## Example",
    ] {
        assert!(by_name.stdout.contains(section), "{section}");
    }
    assert_eq!(trajlint(&["rule", "no-such-rule"], &root(), None).code, 2);
    // A misspelt name or code is met with the one meant; a prefix shows each rule under it.
    let typo = trajlint(&["rule", "unreadable-recrod"], &root(), None);
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("did you mean `unreadable-record`?"),
        "{}",
        typo.stderr
    );
    let short = trajlint(&["rule", "OB01"], &root(), None);
    assert!(
        short.stderr.contains("did you mean `OB001`?"),
        "{}",
        short.stderr
    );
    let far = trajlint(&["rule", "xyz"], &root(), None);
    assert!(!far.stderr.contains("did you mean"), "{}", far.stderr);
    let select = trajlint(
        &["check", "--select", "dangling-comitment", "."],
        &root(),
        None,
    );
    assert_eq!(select.code, 2);
    assert!(
        select
            .stderr
            .contains("did you mean `dangling-commitment`?"),
        "{}",
        select.stderr
    );
    let family = trajlint(&["rule", "nr"], &root(), None);
    assert_eq!(family.code, 0);
    let headings: Vec<&str> = family
        .stdout
        .lines()
        .filter(|l| l.starts_with("# "))
        .collect();
    assert_eq!(
        headings,
        [
            "# unacknowledged-null-result (NR001)",
            "# repeated-null-query (NR002)"
        ]
    );
    let family: serde_json::Value =
        serde_json::from_str(&trajlint(&["rule", "NR", "--json"], &root(), None).stdout).unwrap();
    assert_eq!(family.as_array().unwrap().len(), 2);
    // A comma list, as selectors take: each rule once, in catalogue order; a bad piece is named.
    let listed = trajlint(&["rule", "ob002, NR001,nr"], &root(), None);
    let headings: Vec<&str> = listed
        .stdout
        .lines()
        .filter(|l| l.starts_with("# "))
        .collect();
    assert_eq!(
        headings,
        [
            "# unacknowledged-null-result (NR001)",
            "# repeated-null-query (NR002)",
            "# ignored-retry (OB002)"
        ]
    );
    let bad = trajlint(&["rule", "NR001,OB01"], &root(), None);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("no rule named `OB01` (did you mean `OB001`?)"),
        "{}",
        bad.stderr
    );
    let all = trajlint(&["rules"], &root(), None);
    assert_eq!(all.stdout.matches("## What it does").count(), 10);
    let list = trajlint(&["rules", "--list"], &root(), None);
    assert_eq!(list.stdout.lines().count(), 10);
    let json: serde_json::Value =
        serde_json::from_str(&trajlint(&["rules", "--json"], &root(), None).stdout).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 10);
}

#[test]
fn json_formats_agree_with_each_other() {
    let json: serde_json::Value =
        serde_json::from_str(&check(&["--output-format", "json", "tests/fixtures/check"]).stdout)
            .unwrap();
    let lines: Vec<serde_json::Value> =
        check(&["--output-format", "json-lines", "tests/fixtures/check"])
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    assert_eq!(json.as_array().unwrap(), &lines);
    // No finding at all: still a JSON array.
    let none = check(&["--output-format", "json", "--select", "RF", SESSION]);
    assert_eq!(none.code, 0);
    assert_eq!(none.stdout, "[]\n");
}

#[test]
fn a_todo_item_pending_in_every_list_is_one_finding_at_its_latest_listing() {
    // The Codex exec fixture lists "Run the whole suite" as pending in three todo writes
    // (lines 7, 12 and 18): one finding, at the last, pointing back at the first.
    let fixture = "corpus/fixtures/codex/exec-json-iso-week.jsonl";
    let r = check(&["--output-format", "concise", "--select", "OB001", fixture]);
    let lines: Vec<&str> = r.stdout.lines().filter(|l| l.contains("[OB001]")).collect();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    assert!(
        lines[0].starts_with(&format!("{fixture}:18:")),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("Run the whole suite"), "{}", lines[0]);
    let r = check(&["--output-format", "json", "--select", "OB001", fixture]);
    assert!(r.stdout.contains("pending since turn 2"), "{}", r.stdout);
}

/// Aider's default history file is hidden (and Aider puts `.aider*` in `.gitignore`), yet a walk
/// reads it, in every directory it visits, once, in walk order.
#[test]
fn a_walk_reads_aider_hidden_history_files() {
    let dir = scratch("aider-hidden");
    let history = root().join("corpus/fixtures/aider/json-flag.aider.chat.history.md");
    for d in ["p", "p/a", "p/b", "p/.hidden"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
        std::fs::copy(&history, dir.join(d).join(".aider.chat.history.md")).unwrap();
    }
    // A git repository that ignores Aider's files, as Aider leaves it; `b` also whitelists the
    // file, so the walk itself yields it there: still read once.
    std::fs::create_dir_all(dir.join("p/.git")).unwrap();
    std::fs::write(dir.join("p/.gitignore"), ".aider*\n").unwrap();
    std::fs::write(dir.join("p/b/.ignore"), "!.aider.chat.history.md\n").unwrap();
    copy_fixture(&dir, "session.jsonl", "p/a/run.jsonl");
    assert_eq!(
        annotated_files("p", &dir),
        [
            "\"p/.aider.chat.history.md\"",
            "\"p/a/.aider.chat.history.md\"",
            "\"p/a/run.jsonl\"",
            "\"p/b/.aider.chat.history.md\"",
        ]
    );
    let r = trajlint(
        &["check", "--isolated", "--output-format", "concise", "p"],
        &dir,
        None,
    );
    assert!(r.stdout.ends_with(" in 4 of 4 files.\n"), "{}", r.stdout);
}

/// A path given twice, or a file given beside the directory that holds it, is checked once, in
/// the place first met; stdin is read once.
#[test]
fn an_input_given_twice_is_checked_once() {
    let dir = scratch("twice");
    copy_fixture(&dir, "session.jsonl", "logs/a.jsonl");
    copy_fixture(&dir, "compacted.jsonl", "logs/b.jsonl");
    let files = |args: &[&str], stdin: Option<&[u8]>| {
        let mut all = vec!["check", "--isolated", "--output-format", "concise"];
        all.extend_from_slice(args);
        let r = trajlint(&all, &dir, stdin);
        let mut files: Vec<String> = r
            .stdout
            .lines()
            .filter(|l| l.contains('['))
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect();
        files.dedup();
        (files, r.stdout.lines().last().unwrap_or("").to_string())
    };
    let (f, last) = files(&["logs/a.jsonl", "logs/a.jsonl", "./logs/a.jsonl"], None);
    assert_eq!(f, ["logs/a.jsonl"]);
    assert!(last.ends_with("in 1 of 1 file."), "{last}");
    let (f, last) = files(&["logs/b.jsonl", "logs", "./logs/a.jsonl"], None);
    assert_eq!(f, ["logs/b.jsonl", "logs/a.jsonl"]);
    assert!(last.ends_with("in 2 of 2 files."), "{last}");
    // Named on the command line, a file that is no log is an error, wherever it was met first.
    std::fs::write(dir.join("logs/c.json"), "{}").unwrap();
    let r = trajlint(
        &["check", "--isolated", "logs", "./logs/c.json"],
        &dir,
        None,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let log = std::fs::read(root().join(SESSION)).unwrap();
    let (f, last) = files(&["-", "-"], Some(&log));
    assert_eq!(f, ["-"]);
    assert!(last.ends_with("in 1 of 1 file."), "{last}");
}

/// `-o -` is standard output, as `-` among the inputs is standard input: no file named `-`.
#[test]
fn output_to_a_dash_is_standard_output() {
    let dir = scratch("output-dash");
    copy_fixture(&dir, "session.jsonl", "a.jsonl");
    let to = |o: &[&str]| {
        let mut args = vec![
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "a.jsonl",
        ];
        args.extend_from_slice(o);
        trajlint(&args, &dir, None)
    };
    let dash = to(&["-o", "-"]);
    assert_eq!(dash.code, 1, "{}", dash.stderr);
    assert_eq!(dash.stdout, to(&[]).stdout);
    assert!(dash.stdout.contains("[OB001]"), "{}", dash.stdout);
    assert!(!dir.join("-").exists());
}

/// `-o` and `--write-baseline` never write over what the run reads: a log named or met by a
/// walk, the same file by another name (a hard link), or the baseline the run keeps, is
/// refused before anything is written; a report the run wrote earlier, met by a walk, is the
/// run's own and not read as a log.
#[test]
fn the_files_a_run_writes_are_never_its_inputs() {
    let dir = scratch("own-outputs");
    copy_fixture(&dir, "session.jsonl", "logs/a.jsonl");
    let log = std::fs::read(dir.join("logs/a.jsonl")).unwrap();
    for args in [
        &["logs/a.jsonl", "-o", "logs/a.jsonl"][..],
        &[
            "logs/a.jsonl",
            "--output-format",
            "json",
            "-o",
            "logs/./a.jsonl",
        ],
        &["logs", "logs/a.jsonl", "--write-baseline", "logs/a.jsonl"],
        // Met by the walk only.
        &["logs", "-o", "logs/a.jsonl"],
        &["logs", "--write-baseline", "logs/a.jsonl"],
        // The same file under another name.
        &["logs/a.jsonl", "-o", "hard-link.jsonl"],
    ] {
        let _ = std::fs::remove_file(dir.join("hard-link.jsonl"));
        std::fs::hard_link(dir.join("logs/a.jsonl"), dir.join("hard-link.jsonl")).unwrap();
        let r = check_in(&dir, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("writing it would destroy it"),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(
            std::fs::read(dir.join("logs/a.jsonl")).unwrap(),
            log,
            "{args:?}"
        );
    }
    std::fs::remove_file(dir.join("hard-link.jsonl")).unwrap();
    // Standard input redirected from the very file to write.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajlint"))
        .args(["check", "--isolated", "-", "-o", "logs/a.jsonl"])
        .current_dir(&dir)
        .stdin(std::fs::File::open(dir.join("logs/a.jsonl")).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the standard input"));
    assert_eq!(std::fs::read(dir.join("logs/a.jsonl")).unwrap(), log);
    // Writing what is no regular file destroys nothing: `-o /dev/null` with stdin from /dev/null.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajlint"))
        .args([
            "check",
            "--isolated",
            "logs/a.jsonl",
            "-",
            "-o",
            "/dev/null",
        ])
        .current_dir(&dir)
        .stdin(std::fs::File::open("/dev/null").unwrap())
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("would destroy"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A walked file that only a forced format reads as a log is a log too.
    // (Its first message is longer than detection reads.)
    let notes = format!(
        "User: {}\n\nAssistant: I will fix it later.\n",
        "word ".repeat(80_000)
    );
    std::fs::write(dir.join("logs/notes.txt"), notes).unwrap();
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "--input-format",
            "text",
            "logs",
            "-o",
            "logs/notes.txt",
        ],
        &dir,
        None,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(std::fs::read_to_string(dir.join("logs/notes.txt"))
        .unwrap()
        .starts_with("User:"));
    std::fs::remove_file(dir.join("logs/notes.txt")).unwrap();
    // The baseline the run keeps is no file to write.
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "logs",
            "--write-baseline",
            "keep.json",
        ],
        &dir,
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kept = std::fs::read(dir.join("keep.json")).unwrap();
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "logs",
            "--baseline",
            "keep.json",
            "-o",
            "keep.json",
        ],
        &dir,
        None,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("is the baseline this run reads"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(dir.join("keep.json")).unwrap(), kept);
    // Refreshing the baseline in place, named by trajlint.toml or not, is how it is kept.
    std::fs::write(dir.join("trajlint.toml"), "baseline = \"keep.json\"\n").unwrap();
    for args in [
        &["check", "logs", "--write-baseline", "keep.json"][..],
        &[
            "check",
            "logs",
            "--baseline",
            "keep.json",
            "--write-baseline",
            "keep.json",
        ],
    ] {
        let r = trajlint(args, &dir, None);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    std::fs::remove_file(dir.join("trajlint.toml")).unwrap();
    // A report written into the walked directory is not read back by the next run.
    for _ in 0..2 {
        let r = trajlint(
            &[
                "check",
                "--isolated",
                "logs",
                "--output-format",
                "json",
                "-o",
                "logs/report.json",
            ],
            &dir,
            None,
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(!r.stderr.contains("report.json"), "{}", r.stderr);
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("logs/report.json")).unwrap()).unwrap();
    assert!(report.as_array().is_some_and(|a| !a.is_empty()), "{report}");
    assert_eq!(std::fs::read(dir.join("logs/a.jsonl")).unwrap(), log);
}

/// A gate pointed at a directory that holds no log fails (exit 2) and says so, as `annotate`
/// does: it must not pass having checked nothing.
#[test]
fn no_log_found_is_an_error() {
    let dir = scratch("no-log");
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("notes/readme.md"), "# not a log\n").unwrap();
    // Named like a log, walked, and skipped: no known format.
    std::fs::write(dir.join("notes/data.json"), "{\"rows\": []}\n").unwrap();
    for args in [
        &["empty"][..],
        &["notes"],
        &["empty", "notes", "--exit-zero"],
        &["empty", "--output-format", "json"],
    ] {
        let r = check_in(&dir, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("error: no trajectory log found under "),
            "{args:?}: {}",
            r.stderr
        );
        assert!(!r.stdout.contains("All checks passed"), "{}", r.stdout);
    }
    // Why: no file a walk reads, or files met that are no log (each warned about).
    let why = |args: &[&str]| {
        let r = check_in(&dir, args);
        let line = r
            .stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .map(str::to_string);
        line.unwrap_or_default()
    };
    assert!(why(&["empty"]).ends_with(": nothing was checked (a walk reads *.jsonl, *.json, *.ndjson, *.traj, *.eval, *.txt, *.log and *.chat.history.md files)"));
    assert!(
        why(&["notes"]).ends_with(": the one file the walk met is no log (skipped with a warning)")
    );
    std::fs::write(dir.join("notes/package.json"), "{\"name\": \"x\"}\n").unwrap();
    assert!(why(&["notes"])
        .ends_with(": none of the 2 files the walk met is a log (each skipped with a warning)"));
    std::fs::remove_file(dir.join("notes/package.json")).unwrap();
    // The machine formats carry the failure too: a gate reading only them must not pass.
    let run = |format: &str| {
        let r = trajlint(
            &["check", "--isolated", "--output-format", format, "empty"],
            &dir,
            None,
        );
        assert_eq!(r.code, 2, "{format}: {}", r.stderr);
        r.stdout
    };
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{invocation}");
    assert!(
        invocation["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("no trajectory log found under empty")),
        "{invocation}"
    );
    let junit = run("junit");
    assert!(
        junit.contains(r#"<testsuite name="trajlint check" tests="1" failures="0" errors="1">"#)
            && junit.contains(r#"type="no-log">no trajectory log found under empty"#),
        "{junit}"
    );
    let github = run("github");
    assert!(
        github.starts_with(
            "::error title=trajlint%3A no log found::no trajectory log found under empty"
        ),
        "{github}"
    );
    let r = trajlint(&["annotate", "empty"], &dir, None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("error: no trajectory log found under empty"),
        "{}",
        r.stderr
    );
}

/// A walk skips a file that holds no log (JSON of another tool, a configuration with comments, a
/// text log), in `check` and `annotate` alike; but a document that ends inside a value may be a
/// log cut off (a Gemini
/// session, an AutoGen team's messages, a Codex rollout cut in its first line): the run fails
/// (exit 2), as it does when the file is named, so that a gate does not pass a run it did not
/// see whole.
#[test]
fn a_walk_skips_other_files_but_not_a_cut_off_document() {
    let dir = scratch("walk-cut-off");
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    copy_fixture(&dir, "session.jsonl", "logs/good.jsonl");
    std::fs::write(
        dir.join("logs/package.json"),
        "{\"name\": \"x\", \"version\": \"1.0.0\"}\n",
    )
    .unwrap();
    // Broken early, not cut off: a configuration with comments, a text log opening with `[`.
    std::fs::write(
        dir.join("logs/tsconfig.json"),
        "{\n  // strict\n  \"strict\": true\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("logs/server.log"),
        "[2024-05-01 10:00:00] INFO started\n",
    )
    .unwrap();
    // An empty file is said to be empty, as when it is named.
    std::fs::write(dir.join("logs/new.jsonl"), "\n").unwrap();
    std::fs::write(dir.join("logs/marked.jsonl"), "\u{feff}\n").unwrap();
    for command in ["check", "annotate"] {
        let r = trajlint(&[command, "logs"], &dir, None);
        assert_ne!(r.code, 2, "{command}: {}", r.stderr);
        for skipped in ["package.json", "tsconfig.json", "server.log"] {
            assert!(
                r.stderr.contains(&format!(
                    "{skipped}: warning: skipped: no known log format matches this file"
                )),
                "{command}: {}",
                r.stderr
            );
        }
        for empty in ["new.jsonl", "marked.jsonl"] {
            assert!(
                r.stderr
                    .contains(&format!("{empty}: warning: skipped: the file is empty")),
                "{command}: {}",
                r.stderr
            );
        }
    }
    // An empty file (a run that wrote nothing?) is also a reader warning in the machine
    // formats; the other files skipped are not.
    let r = trajlint(&["check", "logs", "--output-format", "github"], &dir, None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    for empty in ["new.jsonl", "marked.jsonl"] {
        assert!(
            r.stdout.contains(&format!(
                "::warning file=logs/{empty},line=1,col=1,title=trajlint%3A reader warning::skipped: the file is empty"
            )),
            "{}",
            r.stdout
        );
    }
    assert!(!r.stdout.contains("package.json"), "{}", r.stdout);
    let r = trajlint(&["check", "logs", "--output-format", "sarif"], &dir, None);
    let sarif: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    let uris: Vec<&str> = notes
        .iter()
        .filter(|n| {
            n["message"]["text"]
                .as_str()
                .unwrap()
                .contains("the file is empty")
        })
        .map(|n| {
            n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(uris, ["logs/marked.jsonl", "logs/new.jsonl"], "{notes:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fixtures");
    for (fixture, cut) in [
        ("gemini/session-fix-dates.json", 2000),
        ("autogen/team-churn-report.json", 600),
        ("codex/exec-json-legacy-port-conflict.jsonl", 40),
    ] {
        let bytes = std::fs::read(root.join(fixture)).unwrap();
        std::fs::write(dir.join("logs/cut.json"), &bytes[..cut]).unwrap();
        for command in ["check", "annotate"] {
            let r = trajlint(&[command, "logs"], &dir, None);
            assert_eq!(r.code, 2, "{fixture} {command}: {}", r.stderr);
            assert!(
                r.stderr.contains("cut.json:") && r.stderr.contains("not valid JSON"),
                "{fixture} {command}: {}",
                r.stderr
            );
        }
    }
}

/// Every command fails (exit 2, said once: nothing more can be written) when its output cannot
/// be written, however small: `annotate`'s last buffered part is written at the end, and a full
/// disk shows only then; a consumer must not take a cut plan or probe for a whole one.
#[cfg(target_os = "linux")]
#[test]
fn every_command_fails_when_its_output_cannot_be_written() {
    let dir = scratch("output-full");
    copy_fixture(&dir, "session.jsonl", "logs/good.jsonl");
    copy_fixture(&dir, "session.jsonl", "logs/again.jsonl");
    let full = std::fs::File::create("/dev/full").unwrap();
    let bin = env!("CARGO_BIN_EXE_trajlint");
    let good = "logs/good.jsonl";
    let cases: [&[&str]; 11] = [
        &["--help"],
        &["--version"],
        &["check", "--help"],
        &["annotate", "--format", "json", "logs"],
        &["annotate", "--format", "text", "logs"],
        &["plan", "--budget", "100000", good],
        &["plan", "--budget", "100000", "--format", "json", good],
        &["probe", good],
        &["probe", "--reversible", "--turns", "0..0", good],
        &[
            "probe",
            "--reversible",
            "--turns",
            "0..0",
            "--format",
            "json",
            good,
        ],
        &["rules"],
    ];
    for args in cases {
        let out = std::process::Command::new(bin)
            .args(args)
            .current_dir(&dir)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr
                .matches("error: writing output: no space left on device")
                .count(),
            1,
            "{args:?}: {stderr}"
        );
    }
}

/// A walk reads a link to a log as the log (once, with the log itself beside it), reports a
/// log's name linked to nothing as unreadable, and a hard link or the file standard input
/// reads is the file already named: each file once, where first met.
#[cfg(unix)]
#[test]
fn links_and_standard_input_are_the_files_they_name() {
    let dir = scratch("links");
    copy_fixture(&dir, "session.jsonl", "logs/real.jsonl");
    copy_fixture(&dir, "session.jsonl", "elsewhere/other.jsonl");
    std::os::unix::fs::symlink("../elsewhere/other.jsonl", dir.join("logs/link.jsonl")).unwrap();
    std::os::unix::fs::symlink("real.jsonl", dir.join("logs/again.jsonl")).unwrap();
    std::fs::hard_link(dir.join("logs/real.jsonl"), dir.join("logs/hard.jsonl")).unwrap();
    let ob001 = |r: &Run| r.stdout.matches("OB001").count();
    // real.jsonl and the link to other.jsonl; again.jsonl and hard.jsonl are real.jsonl.
    let r = check_in(&dir, &["--output-format", "concise", "logs"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(ob001(&r), 2, "{}", r.stdout);
    assert!(r.stdout.contains("logs/link.jsonl:"), "{}", r.stdout);
    std::os::unix::fs::symlink("../gone.jsonl", dir.join("logs/dangling.jsonl")).unwrap();
    let r = check_in(&dir, &["--output-format", "concise", "logs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("logs/dangling.jsonl: error: a symbolic link to nothing"),
        "{}",
        r.stderr
    );
    // Named, the dangling link says the same, in every command; links that loop say so,
    // walked or named, or on the way to a file.
    let r = check_in(&dir, &["logs/dangling.jsonl"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("a symbolic link to nothing"),
        "{}",
        r.stderr
    );
    for command in [&["plan", "--budget", "1000"][..], &["probe"], &["annotate"]] {
        let mut args = command.to_vec();
        args.push("logs/dangling.jsonl");
        let r = trajlint(&args, &dir, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("a symbolic link to nothing"),
            "{args:?}: {}",
            r.stderr
        );
    }
    std::os::unix::fs::symlink("self", dir.join("self")).unwrap();
    let r = check_in(&dir, &["self/x.jsonl"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("too many levels of symbolic links"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(dir.join("self")).unwrap();
    std::fs::remove_file(dir.join("logs/dangling.jsonl")).unwrap();
    std::os::unix::fs::symlink("loop-b.jsonl", dir.join("logs/loop-a.jsonl")).unwrap();
    std::os::unix::fs::symlink("loop-a.jsonl", dir.join("logs/loop-b.jsonl")).unwrap();
    for args in [&["logs"][..], &["logs/loop-a.jsonl"]] {
        let r = check_in(&dir, args);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains(
                "loop-a.jsonl: error: a symbolic link that cannot be followed (too many levels of symbolic links)"
            ),
            "{args:?}: {}",
            r.stderr
        );
    }
    std::fs::remove_file(dir.join("logs/loop-a.jsonl")).unwrap();
    std::fs::remove_file(dir.join("logs/loop-b.jsonl")).unwrap();
    // A named hard link of a file an exclude skips in the walk is still read: named, it is
    // no walked file.
    std::fs::create_dir_all(dir.join("runs/scratch")).unwrap();
    std::fs::rename(
        dir.join("elsewhere/other.jsonl"),
        dir.join("runs/scratch/x.jsonl"),
    )
    .unwrap();
    std::fs::hard_link(dir.join("runs/scratch/x.jsonl"), dir.join("keep.jsonl")).unwrap();
    std::fs::write(dir.join("trajlint.toml"), "exclude = [\"runs/scratch\"]\n").unwrap();
    // (Not isolated: the exclude is the configuration's.)
    let r = trajlint(
        &["check", "--output-format", "concise", "runs", "keep.jsonl"],
        &dir,
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(ob001(&r), 1, "{}", r.stdout);
    // The excluded directory alone: nothing to check, and the configuration said to be why.
    let r = trajlint(&["check", "runs/scratch"], &dir, None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("no trajectory log found under runs/scratch")
            && r.stderr
                .contains("1 file found is excluded by `exclude` in")
            && r.stderr.contains("trajlint.toml"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(dir.join("trajlint.toml")).unwrap();
    // Standard input redirected from a file named too.
    let stdin = std::fs::File::open(dir.join("logs/real.jsonl")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajlint"))
        .args([
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "logs/real.jsonl",
            "-",
        ])
        .current_dir(&dir)
        .stdin(stdin)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("OB001").count(), 1, "{stdout}");
}

/// An encrypted compaction that opens the log (a resumed run: nothing before it in the file)
/// replaced nothing the log holds, but the run is built on its summary: CP004 all the same.
#[test]
fn an_opaque_compaction_opening_the_log_is_flagged() {
    let dir = scratch("opaque-opening");
    let log = std::fs::read_to_string(root().join("tests/fixtures/check/opaque.jsonl")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    // The session header, then the compaction and what follows it.
    let opening = [lines[0], lines[4], lines[5], lines[6]].join("\n");
    assert!(lines[4].contains("\"compacted\""));
    std::fs::write(dir.join("opening.jsonl"), opening).unwrap();
    let r = trajlint(
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--select",
            "CP004",
            "opening.jsonl",
        ],
        &dir,
        None,
    );
    assert!(
        r.stdout.contains("opening.jsonl:2:1: info[CP004] the compaction at turn 0 cannot be checked: its summary is encrypted"),
        "{}",
        r.stdout
    );
}

/// A standard error that cannot be written (`2>/dev/full`, a closed `2>&1 | head`) loses the
/// warnings and notes, not the run's exit code: no command panics on it (exit 101).
#[test]
fn an_unwritable_standard_error_keeps_the_exit_code() {
    let dir = scratch("stderr-full");
    copy_fixture(&dir, "session.jsonl", "logs/good.jsonl");
    std::fs::write(dir.join("logs/cut.jsonl"), "{\"type\":\"user\",\"mess").unwrap();
    let full = std::fs::File::create("/dev/full").unwrap();
    let bin = env!("CARGO_BIN_EXE_trajlint");
    let cases: [(&[&str], i32); 4] = [
        // (The cut log is an unreadable input: exit 2, with its error on standard error.)
        (&["check", "--output-format", "concise", "logs"], 2),
        (
            &["check", "--output-format", "concise", "logs/good.jsonl"],
            1,
        ),
        (&["annotate", "--format", "json", "missing.jsonl"], 2),
        (&["probe", "--turns", "1..2", "logs/good.jsonl"], 2),
    ];
    for (args, code) in cases {
        let out = std::process::Command::new(bin)
            .args(args)
            .current_dir(&dir)
            .stderr(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
}

/// A run with inputs that could not be read does not close with "All checks passed": it says
/// how many files were checked and how many inputs could not be read.
#[test]
fn unreadable_inputs_are_not_all_checks_passed() {
    let dir = scratch("unreadable-closing");
    copy_fixture(&dir, "session.jsonl", "good.jsonl");
    std::fs::write(dir.join("empty.jsonl"), "").unwrap();
    std::fs::write(dir.join("binary.jsonl"), [0u8, 159, 146, 150, 255, 0, 1]).unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["check", "--isolated", "--output-format", "concise"];
        all.extend_from_slice(args);
        trajlint(&all, &dir, None)
    };
    for (args, closing) in [
        (
            &["missing.jsonl"][..],
            "0 files checked: no findings.\n1 input could not be read.\n",
        ),
        (
            &["empty.jsonl"],
            "0 files checked: no findings.\n1 input could not be read.\n",
        ),
        (
            &["binary.jsonl"],
            "0 files checked: no findings.\n1 input could not be read.\n",
        ),
        (
            &[
                "--select",
                "RF",
                "good.jsonl",
                "empty.jsonl",
                "missing.jsonl",
            ],
            "1 file checked: no findings.\n2 inputs could not be read.\n",
        ),
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, closing, "{args:?}");
    }
    // With findings, the count of unreadable inputs follows them.
    let r = run(&["good.jsonl", "empty.jsonl"]);
    assert!(
        r.stdout
            .ends_with("in 1 of 2 files.\n1 input could not be read.\n"),
        "{}",
        r.stdout
    );
}

/// A reader that stops early (`| head`) stops the output quietly: the exit code is the run's
/// (1 for findings here, 0 for `annotate`), not 2, and no error is printed.
#[test]
fn a_closed_pipe_keeps_the_exit_code_of_the_run() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = scratch("closed-pipe");
    // Far more output than a pipe holds, so writing goes on after the reader is gone.
    for i in 0..300 {
        copy_fixture(&dir, "session.jsonl", &format!("logs/{i:03}.jsonl"));
    }
    let cases: [(&[&str], i32); 3] = [
        (
            &["check", "--isolated", "--output-format", "concise", "logs"],
            1,
        ),
        (
            &["check", "--isolated", "--output-format", "github", "logs"],
            1,
        ),
        (&["annotate", "logs"], 0),
    ];
    for (args, code) in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_trajlint"))
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 64];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

/// Every input that could not be read, a missing path included, is reported by the machine
/// formats, as their counts say.
#[test]
fn junit_and_github_report_every_unreadable_input() {
    let dir = scratch("unreadable-formats");
    copy_fixture(&dir, "session.jsonl", "lm.json");
    std::fs::write(dir.join("empty.jsonl"), "").unwrap();
    let run = |format: &str| {
        let args = [
            "check",
            "--isolated",
            "--output-format",
            format,
            "lm.json",
            "empty.jsonl",
            "missing.jsonl",
        ];
        let r = trajlint(&args, &dir, None);
        assert_eq!(r.code, 2, "{}", r.stderr);
        r.stdout
    };
    let xml = run("junit");
    assert!(
        xml.contains(r#"<testsuite name="trajlint check" tests="3" failures="1" errors="2">"#),
        "{xml}"
    );
    let errors: Vec<&str> = xml
        .lines()
        .filter(|l| l.contains("<testcase"))
        .filter(|l| l.contains("empty.jsonl") || l.contains("missing.jsonl"))
        .collect();
    assert_eq!(errors.len(), 2, "{xml}");
    assert_eq!(xml.matches("<error ").count(), 2, "{xml}");
    assert!(
        xml.contains(r#"<error message="no such file or directory" type="unreadable">"#),
        "{xml}"
    );
    let github = run("github");
    let unreadable: Vec<&str> = github
        .lines()
        .filter(|l| l.starts_with("::error ") && l.contains("unreadable input"))
        .collect();
    assert_eq!(
        unreadable,
        [
            "::error file=empty.jsonl,line=1,col=1,title=trajlint%3A unreadable input::the file is empty",
            "::error file=missing.jsonl,title=trajlint%3A unreadable input::no such file or directory",
        ],
        "{github}"
    );
}

#[test]
fn report_flags_that_cannot_apply_are_usage_errors() {
    let dir = scratch("flag_conflicts");
    // A wrong output format in the configuration is named where it is, even when the command
    // line gives one.
    std::fs::write(
        dir.join("trajlint.toml"),
        "fail-on = \"warning\"\noutput-format = \"Concise\"\n",
    )
    .unwrap();
    let log = root().join(SESSION);
    let log = log.to_str().unwrap();
    for args in [
        vec!["check", log],
        vec!["check", "--output-format", "json", log],
    ] {
        let r = trajlint(&args, &dir, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("trajlint.toml:2:17: unknown output format `Concise`"),
            "{}",
            r.stderr
        );
    }
    // --statistics has no SARIF, GitHub or JUnit form; --write-baseline prints nothing to send
    // to --output-file (which must not be created).
    let r = check(&["--statistics", "--output-format", "sarif", SESSION]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--statistics"), "{}", r.stderr);
    let out = dir.join("out.txt");
    let r = check(&[
        "--write-baseline",
        dir.join("b.json").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        SESSION,
    ]);
    assert_eq!(r.code, 2);
    assert!(!out.exists());
}

/// A Claude Code `microcompact_boundary` (line 9) clears three tool results to a placeholder
/// and leaves the rest in view (`tests/fixtures/clearing/microcompact.jsonl`, checked by hand):
/// the `Grep` result "No matches found" (line 3) was never recorded, so clearing it drops a live
/// fact (CP001 on the boundary, not the info NR001 it was before); "That error above" after the
/// boundary (line 10, column 128) points at the cleared `cargo build` error (line 7): CP002, not
/// a second CP001 (a clearing answers for what its results held). The `Read` of the nightly log
/// cleared at line 5 is issued again at line 10: that is how a clearing is undone (no CP003).
#[test]
fn a_clearing_of_tool_results_is_checked_as_a_compaction_of_what_it_cleared() {
    let r = check(&[
        "--output-format",
        "concise",
        "tests/fixtures/clearing/microcompact.jsonl",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(codes(&r.stdout), ["CP001", "CP002"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].ends_with(
            ":9:1: error[CP001] the clearing of tool results at turn 8 (clearing turns 2, 4, 6) \
             drops live facts (1 of 1): unrecorded not-found result `No matches found` (turn 2)"
        ),
        "{}",
        r.stdout
    );
    assert!(
        lines[1].ends_with(
            ":10:128: warning[CP002] anaphoric reference `That error` points into turns the \
             clearing at turn 8 cleared (antecedent: turn 6)"
        ),
        "{}",
        r.stdout
    );
}

/// One clearing that took results in several places (`tests/fixtures/clearing/two-places.jsonl`,
/// checked by hand: a `Grep` and a `Glob` that found nothing, lines 3 and 7, never recorded, and a
/// `Read` between them, all cleared at line 8) is one finding naming every cleared turn and both
/// dropped facts, not one per run of cleared turns.
#[test]
fn a_clearing_in_several_places_is_one_finding() {
    let r = check(&[
        "--output-format",
        "concise",
        "tests/fixtures/clearing/two-places.jsonl",
    ]);
    assert_eq!(codes(&r.stdout), ["CP001"], "{}", r.stdout);
    assert!(
        r.stdout.contains(
            ":8:1: error[CP001] the clearing of tool results at turn 7 (clearing turns 2, 4, 6) \
             drops live facts (2 of 2): unrecorded not-found result `No matches found` (turn 2); \
             unrecorded not-found result `No files found` (turn 6)"
        ),
        "{}",
        r.stdout
    );
}

/// A clearing of many results (fourteen `Grep`s that found nothing, each its own run of
/// cleared turns) names the first twelve turns and says how many more, as it does the facts.
#[test]
fn a_clearing_of_many_results_lists_the_first_turns() {
    let record = |k: usize, body: String| {
        format!(
            r#"{{{body}, "uuid": "u{k}", "parentUuid": {}, "sessionId": "s-many", "isSidechain": false}}"#,
            if k == 0 {
                "null".to_string()
            } else {
                format!(r#""u{}""#, k - 1)
            }
        )
    };
    let mut lines = vec![record(
        0,
        r#""type": "user", "message": {"role": "user", "content": "Where is the retry budget set?"}"#
            .into(),
    )];
    for g in 0..14 {
        lines.push(record(
            lines.len(),
            format!(
                r#""type": "assistant", "message": {{"id": "m{g}", "type": "message", "role": "assistant", "content": [{{"type": "tool_use", "id": "toolu_{g}", "name": "Grep", "input": {{"pattern": "budget_{g}"}}}}]}}"#
            ),
        ));
        lines.push(record(
            lines.len(),
            format!(
                r#""type": "user", "message": {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "toolu_{g}", "content": "No matches found"}}]}}"#
            ),
        ));
    }
    let ids: Vec<String> = (0..14).map(|g| format!(r#""toolu_{g}""#)).collect();
    lines.push(record(
        lines.len(),
        format!(
            r#""type": "system", "subtype": "microcompact_boundary", "content": "Context microcompacted", "microcompactMetadata": {{"trigger": "auto", "compactedToolIds": [{}]}}"#,
            ids.join(", ")
        ),
    ));
    lines.push(record(
        lines.len(),
        r#""type": "assistant", "message": {"id": "m14", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Still looking."}]}"#
            .into(),
    ));
    let log = lines.join("\n") + "\n";
    let r = trajlint(
        &["check", "--isolated", "--output-format", "concise", "-"],
        &root(),
        Some(log.as_bytes()),
    );
    assert_eq!(codes(&r.stdout), ["CP001"], "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "the clearing of tool results at turn 29 (clearing turns 2, 4, 6, 8, 10, 12, 14, 16, \
             18, 20, 22, 24, and 2 more) drops live facts (14 of 14):"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("(turn 24); and 2 more"), "{}", r.stdout);
}

/// A Claude Code log may end on a compaction boundary or a clearing (nothing written after it
/// yet): it is still read, after the last message it hangs off. (It was left off the branch,
/// which ended at the last message: the clearing of a miss raised nothing.)
#[test]
fn a_log_ending_on_a_boundary_still_has_it() {
    let head = r#"{"type": "user", "message": {"role": "user", "content": "Where is the retry budget set?"}, "uuid": "u0", "parentUuid": null, "sessionId": "s-end"}
{"type": "assistant", "message": {"id": "m0", "type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_0", "name": "Grep", "input": {"pattern": "retry_budget"}}]}, "uuid": "u1", "parentUuid": "u0", "sessionId": "s-end"}
{"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "No matches found"}]}, "uuid": "u2", "parentUuid": "u1", "sessionId": "s-end"}
"#;
    let run = |last: &str| {
        let log = format!("{head}{last}\n");
        trajlint(
            &["check", "--isolated", "--output-format", "concise", "-"],
            &root(),
            Some(log.as_bytes()),
        )
    };
    let r = run(
        r#"{"type": "system", "subtype": "microcompact_boundary", "content": "Context microcompacted", "microcompactMetadata": {"trigger": "auto", "compactedToolIds": ["toolu_0"]}, "uuid": "u3", "parentUuid": "u2", "sessionId": "s-end"}"#,
    );
    assert_eq!(codes(&r.stdout), ["CP001"], "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "-:4:1: error[CP001] the clearing of tool results at turn 3 (clearing turns 2)"
        ),
        "{}",
        r.stdout
    );
    let r = run(
        r#"{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 100000}, "uuid": "u3", "parentUuid": "u2", "sessionId": "s-end"}"#,
    );
    assert_eq!(codes(&r.stdout), ["CP004"], "{}", r.stdout);
}

/// Clearings in the fixtures of `tests/fixtures/clearing/` (each checked by hand):
/// - `read-before-clearing.jsonl`: "That log shows …" (line 4) was said while the log was in
///   view; clearing the log later (line 6) drops nothing: no finding.
/// - `null-query-again.jsonl`: a `Grep` that found nothing (line 3), cleared (line 5), is run
///   again (line 6): the clearing is undone so, no NR002.
/// - `then-compacted.jsonl`: a cleared unrecorded "No matches found" (line 3) is the clearing's
///   CP001 (line 6) only, not also the `compact_boundary`'s (line 8) that replaced the
///   placeholder; the `Read` again at line 10 of a log the clearing took is no CP003.
/// - `cleared-twice.jsonl`: the second clearing (line 9) names results the first (line 6)
///   already took: they are not cleared, nor reported, twice.
#[test]
fn a_clearing_answers_only_for_what_its_results_held_and_once() {
    let run = |f: &str| {
        check(&[
            "--output-format",
            "concise",
            &format!("tests/fixtures/clearing/{f}.jsonl"),
        ])
    };
    for quiet in ["read-before-clearing", "null-query-again"] {
        let r = run(quiet);
        assert_eq!(
            (r.code, codes(&r.stdout)),
            (0, vec![]),
            "{quiet}: {}",
            r.stdout
        );
    }
    for once in ["then-compacted", "cleared-twice"] {
        let r = run(once);
        assert_eq!(codes(&r.stdout), ["CP001"], "{once}: {}", r.stdout);
        assert!(
            r.stdout.contains(
                ":6:1: error[CP001] the clearing of tool results at turn 5 (clearing turns 2, 4)"
            ),
            "{once}: {}",
            r.stdout
        );
    }
}

/// Event files each opening with a byte order mark read as the same conversation.
#[test]
fn event_files_with_byte_order_marks_read_alike() {
    let dir = scratch("events-bom");
    let fixture = root().join("corpus/fixtures/openhands/v1-events-health-endpoint.jsonl");
    let lines = std::fs::read_to_string(&fixture).unwrap();
    for (name, mark) in [("plain", ""), ("marked", "\u{feff}")] {
        let events = dir.join(name).join("events");
        std::fs::create_dir_all(&events).unwrap();
        for (i, line) in lines.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            let id = serde_json::from_str::<serde_json::Value>(line).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string();
            let file = events.join(format!("event-{i:05}-{id}.json"));
            std::fs::write(file, format!("{mark}{line}")).unwrap();
        }
    }
    let turns = |name: &str| -> Vec<String> {
        let all = annotations(&[name], &dir);
        assert_eq!(all.len(), 1, "{name}");
        let turns = all[0]["turns"].as_array().unwrap();
        turns.iter().map(|t| t["role"].to_string()).collect()
    };
    let plain = turns("plain");
    assert!(plain.len() > 3, "{plain:?}");
    assert_eq!(turns("marked"), plain);
}

/// A walk does not follow a link to a directory; when that leaves it with no log, the error
/// names the link, so a layout such as `runs/latest -> run-42` is not a riddle.
#[cfg(unix)]
#[test]
fn a_walk_that_finds_no_log_names_the_directory_links_it_passed_by() {
    let dir = scratch("dir-link");
    std::fs::create_dir_all(dir.join("run-42")).unwrap();
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/check/session.jsonl"),
        dir.join("run-42/session.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../run-42", dir.join("runs/latest")).unwrap();
    let r = check_in(&dir, &["runs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("links to directories are not followed: runs/latest (1 in all)"),
        "{}",
        r.stderr
    );
    // Named, the directory is checked.
    let r = check_in(&dir, &["run-42", "--output-format", "concise"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // A walk that found a log says nothing of the links it passed by.
    std::fs::copy(
        root().join("tests/fixtures/check/session.jsonl"),
        dir.join("runs/session.jsonl"),
    )
    .unwrap();
    let r = check_in(&dir, &["runs", "--output-format", "concise"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!r.stderr.contains("links to directories"), "{}", r.stderr);
}

/// `--statistics` in text closes with the run's total, as the other text formats do; with no
/// findings that line alone says the run happened. The JSON form stays an array of counts.
#[test]
fn statistics_close_with_the_total_even_when_nothing_is_found() {
    let r = check(&["--statistics", "--select", "RD", SESSION]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "All checks passed: no findings in 1 file.\n");
    let r = check(&[
        "--statistics",
        "--output-format",
        "json",
        "--select",
        "RD",
        SESSION,
    ]);
    assert_eq!(r.stdout.trim(), "[]");
    // session.jsonl: OB001, NR001, NR002, OB002 (see the concise snapshot).
    let r = check(&["--statistics", SESSION]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().last(),
        Some("Found 4 findings (3 warnings, 1 info) in 1 of 1 file.")
    );
    // A report format named by trajlint.toml is the findings' form: asked for counts, the run
    // prints them as text (named on the command line, SARIF is refused: see above).
    let dir = scratch("statistics-configured");
    copy_fixture(&dir, "session.jsonl", "run.jsonl");
    std::fs::write(dir.join("trajlint.toml"), "output-format = \"github\"\n").unwrap();
    let configured = trajlint(&["check", "--statistics", "run.jsonl"], &dir, None);
    assert_eq!(configured.code, 1, "{}", configured.stderr);
    assert_eq!(configured.stdout, r.stdout);
}

/// trajlint.toml's `lexicons` apply to every subcommand, not to `check` alone: a word the
/// project's lexicon makes a null result is live for the compactor (annotate, plan, probe) as it
/// is for the gate. `--isolated` leaves the configuration out everywhere.
#[test]
fn the_configured_lexicon_holds_for_the_compactor_too() {
    let dir = scratch("lexicon-everywhere");
    std::fs::write(
        dir.join("log.txt"),
        "User: Find the widget.\n\nAssistant: Action: lookup[widget-7]\n\n\
         Tool: zilch for widget-7\n\nAssistant: Moving on to the report.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("ours.toml"),
        "[null_result]\nnot_found = ['\\bzilch\\b']\n",
    )
    .unwrap();
    std::fs::write(dir.join("trajlint.toml"), "lexicons = [\"ours.toml\"]\n").unwrap();
    let run = |args: &[&str]| trajlint(args, &dir, None);
    let r = run(&["check", "--output-format", "concise", "log.txt"]);
    assert_eq!(codes(&r.stdout), ["NR001"], "{}", r.stdout);
    let r = run(&["annotate", "--format", "json", "log.txt"]);
    assert!(
        r.stdout.contains(r#""subkind":"not_found""#),
        "{}",
        r.stdout
    );
    // The tool turn (2) is live: no budget below it is met without compacting it.
    let r = run(&["plan", "--budget", "5", "log.txt"]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("zilch for widget-7"), "{}", r.stdout);
    std::fs::write(dir.join("summary.txt"), "Looked for the widget.\n").unwrap();
    let r = run(&[
        "probe",
        "--summary",
        "summary.txt",
        "--turns",
        "0..3",
        "log.txt",
    ]);
    assert!(r.stdout.contains("zilch for widget-7"), "{}", r.stdout);
    // Without the configuration, "zilch" is no word of absence.
    let r = run(&["annotate", "--isolated", "--format", "json", "log.txt"]);
    assert!(
        !r.stdout.contains(r#""subkind":"not_found""#),
        "{}",
        r.stdout
    );
    let r = run(&["plan", "--isolated", "--budget", "5", "log.txt"]);
    assert!(!r.stdout.contains("zilch"), "{}", r.stdout);
}

/// A plain-text transcript's write tool given its target alone (`Action: write[path]`) is a write:
/// it excuses the repeated query after it, as a Claude Code `Write` does. Without it, the repeat
/// is flagged.
#[test]
fn a_text_log_s_write_action_excuses_a_repeated_query() {
    let dir = scratch("text-write-excuses");
    let log = |between: &str| {
        format!(
            "User: Where is the settings file?\n\nAssistant: Action: glob[**/settings.yaml]\n\n\
             Tool: No files found\n\n{between}Assistant: Action: glob[**/settings.yaml]\n\n\
             Tool: No files found\n\nAssistant: There is no settings.yaml anywhere.\n"
        )
    };
    for (name, between, flagged) in [
        ("none.txt", String::new(), true),
        (
            "write.txt",
            "Assistant: Action: write[config/settings.yaml]\n\nTool: written\n\n".to_string(),
            false,
        ),
        (
            "write_file.txt",
            "Assistant: Action: write_file[config/settings.yaml]\n\nTool: written\n\n".to_string(),
            false,
        ),
        // A read in between changes nothing, nor does a tool whose name only holds a word of
        // writing ("task").
        (
            "read.txt",
            "Assistant: Action: read[README.md]\n\nTool: hello\n\n".to_string(),
            true,
        ),
        (
            "get_task.txt",
            "Assistant: Action: get_task[T-1]\n\nTool: open\n\n".to_string(),
            true,
        ),
    ] {
        std::fs::write(dir.join(name), log(&between)).unwrap();
        let r = check_in(
            &dir,
            &["--output-format", "concise", "--select", "NR002", name],
        );
        assert_eq!(
            codes(&r.stdout) == ["NR002"],
            flagged,
            "{name}: {}",
            r.stdout
        );
    }
}

/// A selection that leaves no rule passes every log: the run says so on stderr. `--statistics`
/// prints nothing with `--write-baseline`, so the two are refused together.
#[test]
fn no_rule_selected_is_said_and_statistics_do_not_go_with_a_baseline_write() {
    let r = check(&["--ignore", "ALL", SESSION]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("no rule is selected"), "{}", r.stderr);
    let r = check(&["--select", "OB", SESSION]);
    assert!(!r.stderr.contains("no rule is selected"), "{}", r.stderr);
    let r = check(&["--statistics", "--write-baseline", "b.json", SESSION]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--statistics"), "{}", r.stderr);
    assert!(!root().join("b.json").exists());
}

/// A settings file that cannot be read is named with where it was asked for: the flag, or the
/// key of the trajlint.toml that named it.
#[test]
fn a_missing_settings_file_names_what_asked_for_it() {
    let dir = scratch("missing-settings");
    copy_fixture(&dir, "session.jsonl", "session.jsonl");
    let run = |args: &[&str]| trajlint(args, &dir, None);
    let r = run(&["check", "--lexicon", "gone.toml", "session.jsonl"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("gone.toml: cannot read the lexicon file (--lexicon)"),
        "{}",
        r.stderr
    );
    let r = run(&["annotate", "--lexicon", "gone.toml", "session.jsonl"]);
    assert!(r.stderr.contains("(--lexicon)"), "{}", r.stderr);
    let r = run(&["check", "--config", "gone.toml", "session.jsonl"]);
    assert!(r.stderr.contains("(named by --config)"), "{}", r.stderr);
    let r = run(&["check", "--baseline", "gone.json", "session.jsonl"]);
    assert!(r.stderr.contains("(named by --baseline)"), "{}", r.stderr);
    std::fs::write(dir.join("trajlint.toml"), "lexicons = [\"gone.toml\"]\n").unwrap();
    let r = run(&["plan", "--budget", "100", "session.jsonl"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("(`lexicons` in "), "{}", r.stderr);
    assert!(r.stderr.contains("trajlint.toml)"), "{}", r.stderr);
    std::fs::write(dir.join("trajlint.toml"), "baseline = \"gone.json\"\n").unwrap();
    let r = run(&["check", "session.jsonl"]);
    assert!(r.stderr.contains("(`baseline` in "), "{}", r.stderr);
}

/// trajlint.toml's `exclude` holds for `annotate`'s walks too, and a walk it empties says so
/// there as in `check`.
#[test]
fn annotate_walks_past_what_the_configuration_excludes() {
    let dir = scratch("annotate-exclude");
    copy_fixture(&dir, "session.jsonl", "runs/a.jsonl");
    copy_fixture(&dir, "session.jsonl", "scratch/b.jsonl");
    std::fs::write(dir.join("trajlint.toml"), "exclude = [\"scratch\"]\n").unwrap();
    let r = trajlint(&["annotate", "."], &dir, None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("runs/a.jsonl"), "{}", r.stdout);
    assert!(!r.stdout.contains("scratch/b.jsonl"), "{}", r.stdout);
    let r = trajlint(&["annotate", "scratch"], &dir, None);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("excluded by `exclude` in "),
        "{}",
        r.stderr
    );
    // A file named on the command line is read whatever excludes it.
    let r = trajlint(&["annotate", "scratch/b.jsonl"], &dir, None);
    assert_eq!(r.code, 0, "{}", r.stderr);
}
