//! Snapshots of every output format of `trajlint check`, over the fixtures written for the gate
//! in `tests/fixtures/check/`:
//!
//! - `session.jsonl` (Claude Code, no compaction): "Once the fix is in, I will run the full test
//!   suite." never done (OB001, line 2); `Glob **/settings.yaml` re-issued unchanged after "No
//!   files found" (NR002, line 8; both results are recorded by the last turn, so no NR001 for
//!   them); `Grep retry_budget` → "No matches found" that no turn records (NR001, line 7);
//!   `WebSearch` → "Error 429 … retry after 30 seconds." never retried (OB002, line 11).
//! - `compacted.jsonl` (Claude Code, a `compact_boundary` at line 8, summary at line 9): the
//!   summary drops the open "I'll update the CHANGELOG once the linker fix lands." (line 6) and
//!   the "No files found" of `Glob **/.cargo/config.toml` (line 7) (CP001); after it, the commit
//!   `9f3c2ab`, listed only in the replaced `git log` result (line 3), is named (CP002, line 10,
//!   once though named twice) and `Read /repo/build.rs` (line 4) is issued again with no edit of
//!   the file in between (CP003, line 10).
//! - `opaque.jsonl` (Codex): a `compacted` record whose summary is encrypted (CP004, line 5).
//! - `truncated.jsonl` (Codex): the last line cut off after `"argum` (RD001 at line 6, column
//!   134, the last byte of the file: where the input ended; turn 3, the last turn read).
//!
//! Each snapshot in `tests/snapshots/check.*` was checked by hand once against those files:
//! every finding is one listed above and none is missing; lines and columns were recounted in
//! the fixtures (a column is the character where the fact's text starts inside the JSON string,
//! e.g. line 2 column 212 is the `O` of "Once the fix"); labels sit on the call, the result,
//! the boundary, the summary and the last turn they name; severities are the rules' defaults;
//! the exit code is 1 (warnings and an error at the default fail level). In SARIF the rule
//! table, `ruleIndex`, levels (`note` for info), relative URIs and fingerprints were checked; in
//! `github`, the escaping of the labels' line breaks (`%0A`); in JUnit, 3 of 4 files failing
//! (opaque.jsonl has only an info finding, shown in `system-out`).
//!
//! `TRAJLINT_BLESS=1 cargo test --test check_snapshots` rewrites a snapshot that differs; check
//! the change by hand before committing it.

mod check_support;

use check_support::{assert_snapshot, root, trajlint};

const FORMATS: [(&str, &str); 7] = [
    ("full", "full.txt"),
    ("concise", "concise.txt"),
    ("json", "json"),
    ("json-lines", "jsonl"),
    ("sarif", "sarif.json"),
    ("github", "github.txt"),
    ("junit", "junit.xml"),
];

fn check(format: &str, extra: &[&str]) -> check_support::Run {
    let mut args = vec![
        "check",
        "--isolated",
        "--output-format",
        format,
        "tests/fixtures/check",
    ];
    args.extend_from_slice(extra);
    trajlint(&args, &root(), None)
}

/// The SARIF log names the working directory (`originalUriBaseIds`); the snapshot does not.
fn normalize(format: &str, out: &str) -> String {
    if format != "sarif" {
        return out.to_string();
    }
    let mut v: serde_json::Value = serde_json::from_str(out).expect("SARIF is JSON");
    v["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] = "file:///SRCROOT/".into();
    v["runs"][0]["tool"]["driver"]["version"] = "VERSION".into();
    v["runs"][0]["tool"]["driver"]["semanticVersion"] = "VERSION".into();
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

#[test]
fn every_output_format_matches_its_snapshot() {
    for (format, ext) in FORMATS {
        let run = check(format, &[]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert_eq!(run.stderr, "", "{format}");
        assert_snapshot(&format!("check.{ext}"), &normalize(format, &run.stdout));
    }
}

#[test]
fn statistics_match_their_snapshot() {
    let run = check("concise", &["--statistics"]);
    assert_eq!(run.code, 1);
    assert_snapshot("check.statistics.txt", &run.stdout);
}

#[test]
fn output_is_the_same_run_after_run() {
    for (format, _) in FORMATS {
        let a = check(format, &[]);
        let b = check(format, &[]);
        assert_eq!(a.stdout, b.stdout, "{format}");
    }
}
