//! `trajlint check` over real logs. The facts and statuses there change as the extractors are
//! tuned, so these tests assert properties (positions that match the raw bytes, formats that
//! agree, bounded excerpts) rather than snapshots, plus one hand check: the compactions of the
//! real Claude Code sessions in `../shared/corpus/claude-code/spotter/`, read by hand.
//! Tests needing the shared corpus are skipped, saying so, where it is absent.

mod check_support;

use check_support::{root, scratch, shared_corpus, trajlint};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use trajlint::extract::lexicon::Lexicon;
use trajlint::source::SourceFile;

/// 1-based line and column (characters) of a byte offset, counted here from the raw bytes.
fn line_col(bytes: &[u8], offset: usize) -> (u64, u64) {
    let before = &bytes[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line as u64, col as u64)
}

fn position_matches(bytes: &[u8], v: &Value) {
    let s = v["bytes"][0].as_u64().unwrap() as usize;
    let e = v["bytes"][1].as_u64().unwrap() as usize;
    assert!(s <= e && e <= bytes.len(), "{v}");
    let at = |o| line_col(bytes, o);
    assert_eq!(
        at(s),
        (
            v["location"]["line"].as_u64().unwrap(),
            v["location"]["column"].as_u64().unwrap()
        ),
        "{v}"
    );
    assert_eq!(
        at(e),
        (
            v["end_location"]["line"].as_u64().unwrap(),
            v["end_location"]["column"].as_u64().unwrap()
        ),
        "{v}"
    );
}

fn run_json(args: &[&str], cwd: &Path) -> (i32, Vec<Value>) {
    let mut all = vec!["check", "--isolated", "--output-format", "json"];
    all.extend_from_slice(args);
    let r = trajlint(&all, cwd, None);
    let v: Value = serde_json::from_str(&r.stdout).expect("JSON output");
    (r.code, v.as_array().unwrap().clone())
}

/// Every finding's positions, and its labels', agree with the raw bytes.
fn assert_positions(findings: &[Value], cwd: &Path) {
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for f in findings {
        let name = f["file"].as_str().unwrap().to_string();
        let bytes = files
            .entry(name.clone())
            .or_insert_with(|| std::fs::read(cwd.join(&name)).unwrap());
        position_matches(bytes, f);
        for l in f["labels"].as_array().unwrap() {
            position_matches(bytes, l);
        }
    }
}

#[test]
fn findings_over_the_team_fixtures_sit_where_they_say() {
    let (code, findings) = run_json(&["--select", "ALL", "corpus/fixtures"], &root());
    assert_eq!(code, 1);
    assert!(!findings.is_empty());
    assert_positions(&findings, &root());
}

#[test]
fn every_format_reports_the_same_findings_over_the_team_fixtures() {
    let dir = "corpus/fixtures";
    let run = |format: &str, extra: &[&str]| {
        let mut a = vec!["check", "--isolated", "--output-format", format];
        a.extend_from_slice(extra);
        a.push(dir);
        trajlint(&a, &root(), None)
    };
    let (_, json) = run_json(&["--select", "ALL", dir], &root());
    let n = json.len();
    let lines = |s: &str, pat: &str| s.lines().filter(|l| l.contains(pat)).count();
    assert_eq!(run("json-lines", &[]).stdout.lines().count(), n);
    let concise = run("concise", &[]).stdout;
    let finding_lines = concise
        .lines()
        .filter(|l| {
            [": error[", ": warning[", ": info["]
                .iter()
                .any(|p| l.contains(p))
        })
        .count();
    assert_eq!(finding_lines, n);
    assert!(
        concise.contains(&format!("Found {n} findings")),
        "{concise}"
    );
    let github = run("github", &[]).stdout;
    assert_eq!(
        github.lines().filter(|l| l.contains("title=")).count(),
        n + lines(&github, "unreadable input")
    );
    let sarif: Value = serde_json::from_str(&run("sarif", &[]).stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), n);
    let full = run("full", &[]).stdout;
    assert!(full.contains(&format!("Found {n} findings")));
    let stats = run("concise", &["--statistics"]).stdout;
    // A row a rule (count, code, name: tab-separated), then the closing total.
    let table: Vec<&str> = stats.lines().filter(|l| l.contains('\t')).collect();
    assert_eq!(
        stats.lines().last(),
        full.lines().rev().find(|l| l.starts_with("Found ")),
        "{stats}"
    );
    let counted: usize = table
        .iter()
        .map(|l| {
            l.split('\t')
                .next()
                .unwrap()
                .trim()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, n);
    // The same counts as one JSON array, and as JSON Lines: an object a line.
    let count = |v: &Value| v["count"].as_u64().unwrap() as usize;
    let array: Value = serde_json::from_str(&run("json", &["--statistics"]).stdout).unwrap();
    assert_eq!(
        array.as_array().unwrap().iter().map(count).sum::<usize>(),
        n
    );
    let jsonl = run("json-lines", &["--statistics"]).stdout;
    let rows: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), table.len(), "{jsonl}");
    assert_eq!(rows.iter().map(count).sum::<usize>(), n);
    // JUnit: one test case per file read, as many as the closing line counts.
    let files: usize = concise
        .lines()
        .find(|l| l.starts_with("Found "))
        .and_then(|l| l.split(" of ").nth(1))
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the closing line counts the files");
    let junit = run("junit", &[]).stdout;
    assert_eq!(junit.matches("<testcase ").count(), files, "{junit}");
    assert!(junit.contains(&format!("tests=\"{files}\"")), "{junit}");
}

#[test]
fn the_whole_shared_corpus_with_every_rule() {
    let Some(corpus) = shared_corpus("the_whole_shared_corpus_with_every_rule") else {
        return;
    };
    let (code, findings) = run_json(&["--select", "ALL", corpus.to_str().unwrap()], &root());
    // Findings, and no unreadable input: non-logs met while walking are skipped.
    assert_eq!(code, 1);
    assert!(findings.len() > 50, "{}", findings.len());
    assert_positions(&findings, &root());
    // Deterministic, and in input order: files sorted as walked, findings by offset.
    let (_, again) = run_json(&["--select", "ALL", corpus.to_str().unwrap()], &root());
    assert_eq!(findings, again);
    // A file's findings come together, by trajectory then offset.
    let mut done: Vec<&str> = Vec::new();
    for w in findings.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let (fa, fb) = (a["file"].as_str().unwrap(), b["file"].as_str().unwrap());
        if fa != fb {
            assert!(!done.contains(&fb), "{fb} comes back after {fa}");
            done.push(fa);
            continue;
        }
        let key = |f: &Value| (f["trajectory"].as_u64(), f["bytes"][0].as_u64());
        assert!(key(a) <= key(b), "{a}\n{b}");
    }
    // Fingerprints are unique.
    let mut fps: Vec<&str> = findings
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap())
        .collect();
    fps.sort();
    fps.dedup();
    assert_eq!(fps.len(), findings.len());
}

#[test]
fn full_output_cuts_long_lines_to_a_window() {
    // A 3 MB assistant message on one JSONL line, its commitment at the very end.
    let dir = scratch("long-line");
    let big = "lorem ipsum dolor ".repeat(170_000);
    let log = format!(
        "{}\n{}\n{}\n",
        r#"{"type": "user", "message": {"role": "user", "content": "Write the report."}}"#,
        serde_json::json!({"type": "assistant", "message": {"id": "a", "role": "assistant",
            "content": [{"type": "text", "text": format!("{big}. Later I will update the CHANGELOG with these results.")}]}}),
        r#"{"type": "assistant", "message": {"id": "b", "role": "assistant", "content": [{"type": "text", "text": "Here is the report."}]}}"#,
    );
    std::fs::write(dir.join("long.jsonl"), log).unwrap();
    let r = trajlint(&["check", "--isolated", "long.jsonl"], &dir, None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("Later I will update the CHANGELOG"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains('…'));
    assert!(r.stdout.len() < 4000, "{} bytes", r.stdout.len());
    let longest = r.stdout.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest < 400, "{longest}");
    // The location printed is the true column on the 3 MB line.
    let concise = trajlint(
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "long.jsonl",
        ],
        &dir,
        None,
    );
    let col: usize = concise.stdout.split(':').nth(2).unwrap().parse().unwrap();
    assert!(col > 3_000_000, "{}", concise.stdout);
}

#[test]
fn thousands_of_findings_render() {
    // 2,000 searches that find nothing, none recorded: 2,000 findings with two labels each,
    // one of them on the last line. Rendering reads each excerpt through the line index.
    let dir = scratch("many");
    let mut log = String::from(
        r#"{"type": "user", "message": {"role": "user", "content": "Find every use of the old flags."}}"#,
    );
    log.push('\n');
    for i in 0..2000 {
        log.push_str(&format!(
            "{}\n{}\n",
            serde_json::json!({"type": "assistant", "message": {"id": format!("m{i}"), "role": "assistant",
                "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Grep",
                             "input": {"pattern": format!("old_flag_{i}"), "path": "/repo/src"}}]}}),
            serde_json::json!({"type": "user", "message": {"role": "user",
                "content": [{"type": "tool_result", "tool_use_id": format!("t{i}"), "content": "No matches found"}]}}),
        ));
    }
    log.push_str(r#"{"type": "assistant", "message": {"id": "end", "role": "assistant", "content": [{"type": "text", "text": "Done looking."}]}}"#);
    log.push('\n');
    std::fs::write(dir.join("many.jsonl"), log).unwrap();
    let started = std::time::Instant::now();
    let r = trajlint(&["check", "--isolated", "many.jsonl"], &dir, None);
    let took = started.elapsed();
    assert!(r
        .stdout
        .ends_with("Found 2000 findings (2000 info) in 1 of 1 file.\n"));
    assert_eq!(r.stdout.matches("info[NR001]").count(), 2000);
    assert!(took.as_secs() < 120, "{took:?}");
}

// ---------------------------------------------------------------------------------------------
// The compactions of the real Claude Code sessions, checked by hand.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hand {
    /// Live at the compaction and not carried by the summary: the rule must name it.
    Dropped,
    /// Live, and the summary carries it.
    Carried,
    /// Not live at the compaction by the semantics (recorded, discharged, or no obligation):
    /// naming it is an upstream (extractor/resolver) error, reported, not failed on here.
    NotLive,
}

/// What I read in the logs: (session, 1-based line of the fact, a quote of it, verdict, why).
const HAND_CHECKED: &[(&str, usize, &str, Hand, &str)] = &[
    ("258c7280-ae70-4798-800f-63464d01a85d", 32, "", Hand::Dropped,
     "`git log` for master..dev divergence printed nothing; no turn says so; the summary does not mention it"),
    ("258c7280-ae70-4798-800f-63464d01a85d", 615, "Exit code 128", Hand::Dropped,
     "`git push` failed (no upstream); the next call fixed it without a word; the summary never says the push failed"),
    ("258c7280-ae70-4798-800f-63464d01a85d", 891, "No files found", Hand::Carried,
     "Glob for LiveView tests found none; summary: 'The project had no existing LiveView tests'"),
    ("258c7280-ae70-4798-800f-63464d01a85d", 908, "No files found", Hand::NotLive,
     "Grep ConnCase|LiveViewTest found none; line 909 records it: 'No ConnCase module'"),
    ("258c7280-ae70-4798-800f-63464d01a85d", 1188, "bd update spotter-gqc.6", Hand::Carried,
     "summary 'Pending Tasks': spotter-gqc.6 (in_progress)"),
    ("258c7280-ae70-4798-800f-63464d01a85d", 1244, "flash helpers are available", Hand::Dropped,
     "'Let me also check if Phoenix.Component flash helpers are available' - the turn's call is an Edit, no check follows before the compaction; the summary does not carry it"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 321, "main..HEAD", Hand::Dropped,
     "the commit skill's `git log main..HEAD` failed (no `main` branch); the next call silently used `git log -5`; the summary never mentions it"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 487, "No matches found", Hand::NotLive,
     "Grep type_color found none; line 488 records it: 'it was already removed'"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 113, "refine the logic", Hand::NotLive,
     "in a thinking block that settles it in the next sentences ('The state machine approach handles this naturally')"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 631, "bd update spotter-fum.3", Hand::Carried,
     "summary names spotter-fum.3 in progress"),
    ("ae4a77f8-aedd-4bc1-888f-c94edc91af04", 111, "", Hand::Dropped,
     "the hexdocs search (curl | jq) printed nothing; the next turn moves to another source without saying so; the summary names opentelemetry_bandit but not the empty search"),
    ("ae4a77f8-aedd-4bc1-888f-c94edc91af04", 823, "more careful", Hand::NotLive,
     "'This is a longer file so I need to be more careful:' narrates the edit made in the same turn"),
    ("ae4a77f8-aedd-4bc1-888f-c94edc91af04", 1464, "document the work", Hand::NotLive,
     "'let me document the work and close the task' - done by the next call, `bd close --reason ...`"),
    ("ae4a77f8-aedd-4bc1-888f-c94edc91af04", 1220, "make the function safer", Hand::NotLive,
     "'Let me make the function safer:' narrates the Edit of the same turn (line 1221)"),
    ("ae4a77f8-aedd-4bc1-888f-c94edc91af04", 1428, "", Hand::Carried,
     "`ls -la | grep dialyzer` printed nothing; the summary lists `.dialyzerignore (new)`, created right after: the absence is carried, if only implicitly (borderline)"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 113, "trace through the test cases", Hand::NotLive,
     "'Let me trace through the test cases more carefully.' - the tracing follows in the same thinking block"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 113, "fence detection logic has a gap", Hand::NotLive,
     "settled in the same block by the state machine that treats any bare fence as an opening one (borderline)"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 113, "2-arity", Hand::NotLive,
     "the same turn writes the @spec for render/2"),
];

#[test]
fn live_span_compacted_on_the_real_claude_code_compactions() {
    let Some(corpus) = shared_corpus("live_span_compacted_on_the_real_claude_code_compactions")
    else {
        return;
    };
    let dir = corpus.join("claude-code/spotter");
    let lex = Lexicon::builtin();
    let mut sessions = 0;
    let mut disagreements = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let raw = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&raw);
        if !text.contains("\"compact_boundary\"") {
            continue;
        }
        sessions += 1;
        let session = path.file_stem().unwrap().to_string_lossy().to_string();
        let boundary_lines: Vec<u64> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("\"subtype\":\"compact_boundary\""))
            .map(|(i, _)| i as u64 + 1)
            .collect();
        // The analysis's own audit (the probe), for what was checked.
        let report = trajlint::process(SourceFile::read(&path).unwrap(), None, &lex);
        let traj = &report.read.trajectories[0];
        let analysis = &report.analyses[0];
        let (_, findings) = run_json(
            &["--select", "live-span-compacted", path.to_str().unwrap()],
            &root(),
        );
        println!("{session}: compact_boundary at lines {boundary_lines:?}");
        let mut found = findings.iter();
        for (c, audit) in traj.compactions.iter().zip(&analysis.audits) {
            let boundary = line_col(&raw, traj.turns[c.turn].span.start).0;
            assert!(
                boundary_lines.contains(&boundary),
                "{session}: boundary at line {boundary}"
            );
            let checked: Vec<String> = audit
                .checked
                .iter()
                .map(|k| {
                    let f = &analysis.facts[k.fact];
                    format!(
                        "{} line {} `{}` ({})",
                        if k.carried { "carried" } else { "DROPPED" },
                        line_col(&raw, f.span.start).0,
                        trajlint::lint::short(&f.text, 50),
                        trajlint::lint::subkind_phrase(f.subkind)
                    )
                })
                .collect();
            if audit.dropped.is_empty() {
                println!("  none dropped; checked: {checked:#?}");
                continue;
            }
            let f = found
                .next()
                .expect("a finding for a compaction that drops facts");
            assert_eq!(f["location"]["line"].as_u64(), Some(boundary), "{f}");
            assert_eq!(f["location"]["column"].as_u64(), Some(1));
            println!("  {}", f["message"]);
            // One label per dropped fact, in the replaced turns, on the fact's text.
            let labels = f["labels"].as_array().unwrap();
            let fact_labels: Vec<&Value> = labels
                .iter()
                .filter(|l| !l["message"].as_str().unwrap().starts_with("the summary"))
                .collect();
            assert_eq!(fact_labels.len(), audit.dropped.len(), "{f}");
            // The message names the first twelve; the labels name every one.
            let message = f["message"].as_str().unwrap();
            if audit.dropped.len() > 12 {
                let more = format!("and {} more", audit.dropped.len() - 12);
                assert!(message.ends_with(&more), "{f}");
            }
            for (k, (l, &id)) in fact_labels.iter().zip(&audit.dropped).enumerate() {
                let fact = &analysis.facts[id];
                let line = l["location"]["line"].as_u64().unwrap();
                assert!(line < boundary, "{l}");
                let s = l["bytes"][0].as_u64().unwrap() as usize;
                assert_eq!(s, fact.span.start);
                if k < 12 {
                    assert!(message.contains(&format!("(turn {})", fact.turn)), "{f}");
                }
                println!("    line {line}: {}", l["message"]);
            }
            // The hand check.
            for &(s, line, quote, hand, why) in HAND_CHECKED.iter().filter(|h| h.0 == session) {
                let in_checked = audit.checked.iter().find(|k| {
                    let fact = &analysis.facts[k.fact];
                    line_col(&raw, fact.span.start).0 == line as u64
                        && (quote.is_empty() || fact.text.contains(quote))
                });
                // Named: a label of the finding sits on that fact's text.
                let named = in_checked.is_some_and(|k| {
                    let start = analysis.facts[k.fact].span.start as u64;
                    fact_labels
                        .iter()
                        .any(|l| l["bytes"][0].as_u64() == Some(start))
                });
                match (hand, in_checked) {
                    (Hand::Dropped, Some(_)) => {
                        assert!(named, "{s}:{line}: dropped by hand ({why}) but not named")
                    }
                    (Hand::Dropped, None) => disagreements.push(format!(
                        "{s}:{line}: dropped by hand, but no longer a live fact of the span (extraction changed): {why}"
                    )),
                    (Hand::Carried, _) if named => disagreements.push(format!(
                        "{s}:{line}: carried by hand ({why}), named as dropped (the probe)"
                    )),
                    (Hand::NotLive, _) if named => disagreements.push(format!(
                        "{s}:{line}: not live by hand ({why}), named as dropped (extraction/resolution)"
                    )),
                    _ => {}
                }
            }
        }
    }
    assert_eq!(sessions, 3, "the three spotter sessions with a compaction");
    for d in &disagreements {
        println!("NOTE upstream disagreement: {d}");
    }
}
