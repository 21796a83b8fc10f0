//! Timings of the pre-compaction pass on the largest real session of the shared corpus (a Claude
//! Code session of ~3 MB with one compaction): parse only (the baseline), analysis, `plan` and
//! `probe` on their own and end to end, and the binary as a compactor would call it. Run with
//! `cargo bench --bench plan_probe`; prints the best of N runs in milliseconds and MB/s. Skips
//! when ../shared/corpus is absent.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use trajlint::extract::lexicon::Lexicon;
use trajlint::plan::PlanOptions;
use trajlint::probe::Summary;

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    // One warm-up run (lexicon regexes, memo of token counts).
    std::hint::black_box(f());
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed());
    }
    best
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/claude-code/spotter");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: ../shared/corpus not present");
        return;
    };
    let largest = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .max_by_key(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .expect("a session");
    let path = largest.path();
    let bytes = std::fs::read(&path).unwrap();
    let mb = bytes.len() as f64 / 1e6;
    let runs = 10;
    let report = |name: &str, d: Duration| {
        println!(
            "{name:<40} {:>8.2} ms   {:>7.1} MB/s",
            d.as_secs_f64() * 1e3,
            mb / d.as_secs_f64()
        );
    };
    println!("{} ({:.2} MB), best of {runs}", path.display(), mb);
    report("lexicon (built-in, compiled)", time(runs, Lexicon::builtin));
    let lex = Lexicon::builtin();
    report(
        "parse only (baseline)",
        time(runs, || trajlint::formats::read(&bytes, None)),
    );
    let read = trajlint::formats::read(&bytes, None);
    let traj = &read.trajectories[0];
    report(
        "analyze (facts, verdicts, tokens)",
        time(runs, || trajlint::analysis::analyze(traj, &bytes, &lex)),
    );
    let a = trajlint::analysis::analyze(traj, &bytes, &lex);
    let window: usize = a.tokens[trajlint::plan::window_start(traj)..].iter().sum();
    let budget = window / 2;
    report(
        "plan alone (analysis given)",
        time(runs, || {
            trajlint::plan::plan(traj, &a, &PlanOptions::new(budget))
        }),
    );
    let c = &traj.compactions[0];
    let summary = trajlint::probe::summary_text(traj, c.summary_turn.unwrap());
    report(
        "probe alone (analysis given)",
        time(runs, || {
            let s = Summary::new(&summary, &lex);
            trajlint::probe::probe_span(traj, &a, c.replaced, &s, &lex)
        }),
    );
    report(
        "plan end to end (parse+analyze+plan)",
        time(runs, || {
            let read = trajlint::formats::read(&bytes, None);
            let t = &read.trajectories[0];
            let a = trajlint::analysis::analyze(t, &bytes, &lex);
            trajlint::plan::plan(t, &a, &PlanOptions::new(budget))
        }),
    );
    report(
        "probe end to end (parse+analyze+probe)",
        time(runs, || {
            let read = trajlint::formats::read(&bytes, None);
            let t = &read.trajectories[0];
            let a = trajlint::analysis::analyze(t, &bytes, &lex);
            let s = Summary::new(&summary, &lex);
            trajlint::probe::probe_span(t, &a, c.replaced, &s, &lex)
        }),
    );
    // The binary as a compactor calls it: process start, lexicon, read, analysis, output.
    let bin = env!("CARGO_BIN_EXE_trajlint");
    let tmp = std::env::temp_dir().join(format!("trajlint-bench-{}.md", std::process::id()));
    std::fs::write(&tmp, &summary).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(bin).args(args).arg(&path).output().unwrap();
        assert!(out.status.code().is_some_and(|c| c <= 3));
    };
    let b = budget.to_string();
    report(
        "`trajlint plan --budget` (process)",
        time(runs, || run(&["plan", "--format", "json", "--budget", &b])),
    );
    let turns = format!("{}..{}", c.replaced.0, c.replaced.1);
    let summary_arg = tmp.display().to_string();
    report(
        "`trajlint probe --summary --turns` (process)",
        time(runs, || {
            run(&[
                "probe",
                "--format",
                "json",
                "--turns",
                &turns,
                "--summary",
                &summary_arg,
            ])
        }),
    );
    let _ = std::fs::remove_file(&tmp);
}
