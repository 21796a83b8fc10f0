//! Throughput of the pipeline stages over a corpus, against a parse-only baseline.
//!
//! `cargo bench --bench throughput [DIR]` (default: the shared corpus beside the checkout, else
//! the bundled fixtures). Prints MB/s per stage, files one after another (the analysis of one
//! file runs its independent parts, extractors and token counts, in parallel), best of several
//! rounds:
//! - read: detection and the format readers (the baseline);
//! - analyze: read + extraction, resolution, verdicts, ranges and token counts;
//! - annotate: analyze + the annotation JSON written to a sink;
//! - annotate (parallel): the same over files in parallel, as the CLI runs it.
//!
//! Also prints the ratio analyze/read that the issue bounds (at most 2x).

use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use trajlint::extract::lexicon::Lexicon;
use trajlint::source::SourceFile;

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if !p
            .extension()
            .is_some_and(|x| x == "md" && !p.to_string_lossy().contains("chat.history"))
        {
            out.push(p);
        }
    }
}

fn best_of(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let arg = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = match arg {
        Some(d) => PathBuf::from(d),
        None if root.join("../shared/corpus").exists() => root.join("../shared/corpus"),
        None => root.join("corpus/fixtures"),
    };
    let mut paths = Vec::new();
    files_under(&dir, &mut paths);
    paths.sort();
    let sources: Vec<SourceFile> = paths
        .iter()
        .filter_map(|p| SourceFile::read(p).ok())
        .collect();
    let bytes: usize = sources.iter().map(|s| s.len()).sum();
    let mb = bytes as f64 / 1e6;
    let lex = Lexicon::builtin();
    // Warm the tokenizer (built once per process) outside the timings.
    trajlint::tokens::load();
    println!(
        "corpus: {} ({} files, {:.1} MB)",
        dir.display(),
        sources.len(),
        mb
    );

    let rounds = 5;
    let read = best_of(rounds, || {
        for s in &sources {
            std::hint::black_box(trajlint::formats::read(&s.bytes, None));
        }
    });
    let analyze = best_of(rounds, || {
        for s in &sources {
            let out = trajlint::formats::read(&s.bytes, None);
            for t in &out.trajectories {
                std::hint::black_box(trajlint::analysis::analyze(t, &s.bytes, &lex));
            }
        }
    });
    let annotate = best_of(rounds, || {
        for s in &sources {
            let src = SourceFile::new(s.name.clone(), None, s.bytes.to_vec());
            let report = trajlint::process(src, None, &lex);
            let mut sink = std::io::sink();
            trajlint::report::annotations::write_json(&mut sink, &report).unwrap();
        }
    });
    let parallel = best_of(rounds, || {
        sources.par_iter().for_each(|s| {
            let src = SourceFile::new(s.name.clone(), None, s.bytes.to_vec());
            let report = trajlint::process(src, None, &lex);
            let mut sink = std::io::sink();
            trajlint::report::annotations::write_json(&mut sink, &report).unwrap();
        })
    });
    let line = |name: &str, d: Duration| {
        println!(
            "{name:<22} {:>8.1} ms {:>8.1} MB/s",
            d.as_secs_f64() * 1e3,
            mb / d.as_secs_f64()
        );
    };
    line("read (baseline)", read);
    line("analyze", analyze);
    line("annotate json", annotate);
    line("annotate json, parallel", parallel);
    println!(
        "analyze / read = {:.2}x",
        analyze.as_secs_f64() / read.as_secs_f64()
    );
}
