//! Never panic on input: every fixture (and, where present, every small file of the shared
//! corpus), mutated, goes through reading, analysis, both annotation formats, every rule, `plan`
//! and `probe` without a panic, and every span the pipeline reports stays inside the file.
//!
//! Half the mutants break the bytes the way real logs break (cut off, a byte changed, a stray
//! quote or brace, multi-byte characters and JSON escapes dropped into strings, lines lost or
//! repeated). The other half stay valid JSON of an unexpected shape, as another version of a
//! harness writes it: a field missing, null, a number, a list where a string was, an empty
//! object, a very long string, an element lost or repeated.
//!
//! The mutations are seeded (xorshift), so a failure names the file and seed that reproduce it.

mod common;

use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use trajlint::extract::lexicon::Lexicon;
use trajlint::lint::{check_file, ActiveRule, Catalogue, Selection, SelectionLayer};
use trajlint::source::SourceFile;

/// Mutants per file: enough to reach every reader's error paths, few enough for a debug build.
/// `TRAJLINT_MUTANTS=N` asks for more (a longer search, run by hand; the first six are the default's).
const MUTANTS: usize = 6;

fn mutants() -> usize {
    std::env::var("TRAJLINT_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(MUTANTS)
}
/// Larger shared-corpus files are left to the corpus tests (they read them whole).
const MAX_BYTES: u64 = 150_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// What gets dropped into a log: multi-byte characters (raw and as JSON escapes, a lone
/// surrogate among them), structure, and words the extractors react to.
const INSERTS: &[&str] = &[
    "\u{e9}",
    "\u{6771}",
    "\u{1f980}",
    "\u{200b}",
    "\u{feff}",
    "\u{0}",
    "\\u00e9",
    "\\ud83e\\udd80",
    "\\ud800",
    "\\n",
    "\\\"",
    "\n",
    "\r\n",
    "\t",
    "\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "```",
    "**",
    "\n1. ",
    "\n- [ ] ",
    "Error: ",
    "No such file or directory",
    "No matches found",
    " exit code 1",
    "I'll verify the build later. ",
    "Let me check ",
    "the second one",
    " it ",
    "that error",
    "ABC123",
    "#W123456",
    "toolu_01ABCDEFG",
];

fn mutate(original: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = original.to_vec();
    for _ in 0..1 + rng.below(8) {
        let n = v.len();
        match rng.below(8) {
            0 => v.truncate(rng.below(n + 1)),
            1 if n > 0 => {
                let i = rng.below(n);
                v[i] = rng.next() as u8;
            }
            2..=4 => {
                let i = rng.below(n + 1);
                let s = INSERTS[rng.below(INSERTS.len())].as_bytes();
                v.splice(i..i, s.iter().copied());
            }
            5 if n > 0 => {
                let i = rng.below(n);
                let j = (i + rng.below(200)).min(n);
                v.drain(i..j);
            }
            6 if n > 0 => {
                let i = rng.below(n);
                let j = (i + rng.below(400)).min(n);
                let copy = v[i..j].to_vec();
                let k = rng.below(n + 1);
                v.splice(k..k, copy);
            }
            _ if n > 0 => {
                let i = rng.below(n);
                v[i] = b"\\\"{}[],:\n "[rng.below(10)];
            }
            _ => {}
        }
    }
    v
}

/// A valid JSON document (or each JSON line) with values of unexpected shapes; None for text.
fn reshape(original: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    if let Ok(mut v) = serde_json::from_slice::<Value>(original) {
        reshape_value(&mut v, rng);
        return serde_json::to_vec(&v).ok();
    }
    let text = std::str::from_utf8(original).ok()?;
    let mut out = String::new();
    let mut any = false;
    for line in text.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(mut v) => {
                any = true;
                reshape_value(&mut v, rng);
                out.push_str(&v.to_string());
            }
            Err(_) => out.push_str(line),
        }
        out.push('\n');
    }
    any.then(|| out.into_bytes())
}

fn reshape_value(v: &mut Value, rng: &mut Rng) {
    match v {
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                if rng.below(12) == 0 {
                    m.remove(&k);
                } else if let Some(x) = m.get_mut(&k) {
                    reshape_value(x, rng);
                }
            }
        }
        Value::Array(a) => {
            if !a.is_empty() && rng.below(15) == 0 {
                a.remove(rng.below(a.len()));
            }
            if !a.is_empty() && rng.below(20) == 0 {
                let copy = a[rng.below(a.len())].clone();
                a.insert(rng.below(a.len() + 1), copy);
            }
            for x in a.iter_mut() {
                reshape_value(x, rng);
            }
        }
        _ => {}
    }
    if rng.below(25) == 0 {
        *v = match rng.below(8) {
            0 => Value::Null,
            1 => json!(-1),
            2 => json!(""),
            3 => json!([]),
            4 => json!({}),
            5 => json!(true),
            6 => json!("x".repeat(rng.below(5000))),
            _ => json!([{"type": "text", "text": "Error: not found \u{e9}"}, null, 3]),
        };
    }
}

/// The whole pipeline over one input; panics (caught by the caller) on a broken invariant.
fn run(bytes: Vec<u8>, lex: &Lexicon, rules: &[ActiveRule]) {
    let report = trajlint::process(SourceFile::new("mutant", None, bytes), None, lex);
    let len = report.source.bytes.len();
    let inside = |s: trajlint::source::Span| s.start <= s.end && s.end <= len;
    for issue in &report.read.issues {
        assert!(
            inside(issue.span),
            "read issue {:?} in {len} bytes",
            issue.span
        );
    }
    for (traj, a) in report.read.trajectories.iter().zip(&report.analyses) {
        let n = traj.turns.len();
        assert_eq!(
            (a.turns.len(), a.tokens.len()),
            (n, n),
            "a verdict and a count per turn"
        );
        for turn in &traj.turns {
            assert!(inside(turn.span), "turn {:?} in {len} bytes", turn.span);
            for seg in &turn.segments {
                assert!(inside(seg.text.span), "segment {:?}", seg.text.span);
            }
        }
        for f in &a.facts {
            assert!(inside(f.span) && f.turn < n, "fact {f:?}");
            for link in f.resolved_by.iter().chain(&f.antecedent) {
                assert!(inside(link.bytes) && link.turn < n, "link {link:?}");
            }
        }
        for &(first, last) in &a.ranges {
            assert!(
                first <= last && last < n,
                "range {first}..={last} of {n} turns"
            );
        }
        let budget = a.tokens.iter().sum::<usize>() / 2 + 1;
        let plan = trajlint::plan::plan(traj, a, &trajlint::plan::PlanOptions::new(budget));
        std::hint::black_box(plan);
        if n > 2 {
            let summary = trajlint::probe::Summary::new("Verified the build; no ABC123.", lex);
            let probe = trajlint::probe::probe_span(traj, a, (0, n / 2), &summary, lex);
            std::hint::black_box(probe);
        }
    }
    let mut sink = Vec::new();
    trajlint::report::annotations::write_json(&mut sink, &report).expect("json");
    trajlint::report::annotations::write_text(&mut sink, &report).expect("text");
    let display: Arc<str> = Arc::from("mutant");
    std::hint::black_box(check_file(&report, rules, lex, &display, "mutant"));
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = common::files_under(&root.join("corpus/fixtures"));
    files.extend(common::files_under(&root.join("tests/fixtures")));
    files
}

/// Every rule of the catalogue, as `--select ALL` runs them.
fn every_rule() -> Vec<ActiveRule> {
    let cat = Catalogue::builtin();
    let all = SelectionLayer {
        select: Some(vec!["ALL".into()]),
        extend_select: Vec::new(),
        ignore: Vec::new(),
        severity: Vec::new(),
    };
    Selection::resolve(cat, &[all])
        .expect("ALL")
        .active(cat, &[])
}

/// What a caught panic said.
fn message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Mutates each file `mutants()` times; returns the (file, seed, message) of every failure.
fn failures(files: &[PathBuf], salt: u64) -> Vec<String> {
    let lex = Lexicon::builtin();
    let rules = every_rule();
    let mut out = Vec::new();
    let mutants = mutants();
    for (k, path) in files.iter().enumerate() {
        let original = std::fs::read(path).expect("readable");
        for m in 0..mutants {
            let seed = (salt << 48 | (k as u64) << 24 | m as u64) | 1;
            let rng = &mut Rng(seed);
            let mutant = match m % 2 {
                0 => mutate(&original, rng),
                _ => reshape(&original, rng).unwrap_or_else(|| mutate(&original, rng)),
            };
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| run(mutant, &lex, &rules))) {
                out.push(format!(
                    "{} (seed {seed}): {}",
                    path.display(),
                    message(&*e)
                ));
            }
        }
    }
    out
}

#[test]
fn mutated_fixtures_never_panic_and_keep_their_spans_in_the_file() {
    let files = fixtures();
    assert!(
        files.len() >= 20,
        "the fixtures of every format: {}",
        files.len()
    );
    let failed = failures(&files, 1);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn mutated_corpus_files_never_panic_and_keep_their_spans_in_the_file() {
    let Some(corpus) = common::shared_corpus() else {
        return;
    };
    let files: Vec<PathBuf> = common::files_under(&corpus)
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_BYTES))
        .collect();
    let failed = failures(&files, 2);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Every list of the lexicon, extended by a user's pattern that matches where no built-in one
/// does (all of a text, lines and trailing blanks included; blanks alone; nowhere but an empty
/// place), goes through the whole pipeline without a panic: a user's lexicon is input too.
#[test]
fn user_lexicon_patterns_of_any_shape_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let builtin: toml::Table = std::fs::read_to_string(root.join("rules/lexicon.toml"))
        .expect("the built-in lexicon")
        .parse()
        .expect("toml");
    // Every list, as the TOML that extends it with `{}`: `[section]` (or `[section.family]`)
    // and its key.
    let mut lists = Vec::new();
    for (section, table) in &builtin {
        for (key, value) in table.as_table().into_iter().flatten() {
            match value {
                toml::Value::Array(_) => lists.push(format!("[{section}]\n{key} = {{}}\n")),
                toml::Value::Table(families) => {
                    for family in families.keys() {
                        lists.push(format!("[{section}.{key}]\n{family} = {{}}\n"));
                    }
                }
                _ => {}
            }
        }
    }
    assert!(lists.len() >= 80, "{} lists", lists.len());
    // A harness notice with a blank at the end of its line, a task, a plan, a failure, a
    // reference: most lists meet a text they can match in.
    let notice = json!({"messages": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "Run the job, then find HAT072 in the second result."},
        {"role": "assistant", "content": "I'll run it.\nPlan:\n1. Run the job\n2. Verify it",
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "bash", "arguments": "{\"command\": \"grep -r x .\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "system", "content": "Job done. Output waits in a file: /tmp/jobs/be613ab.output \n"},
        {"role": "assistant", "content": "Error: not found. I will check that later.  \n"}
    ]})
    .to_string()
    .into_bytes();
    let mut inputs = vec![("notice".to_string(), notice)];
    for f in [
        "claude-code/dangling-verify.jsonl",
        "codex/flaky-test-compacted.jsonl",
        "openhands/grep-miss.json",
        "swe-agent/humanize-bytes-threshold.traj",
    ] {
        let path = root.join("corpus/fixtures").join(f);
        inputs.push((f.to_string(), std::fs::read(path).expect("fixture")));
    }
    let rules = every_rule();
    let mut failed = Vec::new();
    for list in &lists {
        for pattern in [r"'(?s).*'", r"'\s+'", "''"] {
            let extra = list.replace("{}", &format!("[{pattern}]"));
            let Ok(lex) = Lexicon::with_extra(&[("mine.toml".into(), extra.clone())]) else {
                continue;
            };
            for (name, bytes) in &inputs {
                let run = catch_unwind(AssertUnwindSafe(|| run(bytes.clone(), &lex, &rules)));
                if let Err(e) = run {
                    failed.push(format!("{name} with {extra:?}: {}", message(&*e)));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
