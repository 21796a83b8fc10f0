//! Throughput of the pipeline stages over a corpus, against a parse-only baseline.
//!
//! `cargo bench --bench throughput [DIR]` (default: the shared corpus beside the checkout, else
//! the bundled fixtures). Prints MB/s per stage, files one after another (the analysis of one
//! file runs its independent parts, extractors and token counts, in parallel), best of several
//! rounds:
//! - read: detection and the format readers (the baseline);
//! - token counts alone: every turn's exact token count, the part of `analyze` that names no
//!   fact (the memo is warm after the first round, as it is for the other rows);
//! - analyze: read + extraction, resolution, verdicts, ranges and token counts;
//! - annotate: analyze + the annotation JSON written to a sink;
//! - annotate (parallel): the same over files in parallel, as the CLI runs it.
//!
//! Also prints the ratio analyze/read that the issue bounds (at most 2x), the same for the
//! first pass alone (caches cold, as in one CLI run, which also compiles the lexicon first),
//! and the cost of a trajectory ten times longer (linearity).

use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use trajlint::extract::lexicon::Lexicon;
use trajlint::source::SourceFile;

// The allocator the `trajlint` binary ships with, so the figures are the product's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    let started = Instant::now();
    let lex = Lexicon::builtin();
    let start_up = started.elapsed();
    println!(
        "corpus: {} ({} files, {:.1} MB)",
        dir.display(),
        sources.len(),
        mb
    );
    // First, once, as a CLI run does it: the regexes' automata and the token memo start empty
    // and are built on first use. The rounds below measure the warm steady state.
    let cold = {
        let first = Instant::now();
        for s in &sources {
            let out = trajlint::formats::read(&s.bytes, None);
            for traj in &out.trajectories {
                std::hint::black_box(trajlint::analysis::analyze(traj, &s.bytes, &lex));
            }
        }
        first.elapsed()
    };

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
    // The exact token count of every turn alone (o200k BPE, as `annotate` reports it): the part
    // of the analysis no extractor can make cheaper.
    let trajectories: Vec<_> = sources
        .iter()
        .flat_map(|s| trajlint::formats::read(&s.bytes, None).trajectories)
        .collect();
    let tokens = best_of(rounds, || {
        for t in &trajectories {
            for turn in &t.turns {
                std::hint::black_box(trajlint::analysis::turn_tokens(turn));
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
    line("token counts alone", tokens);
    line("analyze", analyze);
    line("analyze, first pass", cold);
    line("annotate json", annotate);
    line("annotate json, parallel", parallel);
    println!(
        "analyze / read = {:.2}x",
        analyze.as_secs_f64() / read.as_secs_f64()
    );
    println!(
        "token counts alone / read = {:.2}x",
        tokens.as_secs_f64() / read.as_secs_f64()
    );
    println!(
        "first pass (cold caches, as in one CLI run) / read = {:.2}x, plus {:.1} ms to compile the lexicon",
        cold.as_secs_f64() / read.as_secs_f64(),
        start_up.as_secs_f64() * 1e3
    );
    linearity(root, &lex);
    worst_cases(&lex);
}

/// A trajectory ten times longer must cost about ten times more. The longest tau-bench episode
/// (shared corpus, else our fixture) is repeated 1, 10 and 100 times, call ids renamed per copy, and
/// read + analysed.
fn linearity(root: &Path, lex: &Lexicon) {
    let shared =
        root.join("../shared/corpus/tau-bench/historical_trajectories/gpt-4o-airline.subset.json");
    let path = if shared.exists() {
        shared
    } else {
        root.join("corpus/fixtures/openai-chat/airline-history.json")
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return println!("linearity: {} unreadable", path.display());
    };
    let episodes: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
    let Some(longest) = episodes
        .iter()
        .max_by_key(|e| e["traj"].as_array().map_or(0, Vec::len))
    else {
        return println!("linearity: no episode in {}", path.display());
    };
    let repeated = |k: usize| -> Vec<u8> {
        let messages = longest["traj"].as_array().cloned().unwrap_or_default();
        let mut traj = Vec::new();
        for copy in 0..k {
            for m in &messages {
                let mut m = m.clone();
                if let Some(id) = m["tool_call_id"].as_str() {
                    m["tool_call_id"] = format!("{id}-{copy}").into();
                }
                if let Some(calls) = m["tool_calls"].as_array_mut() {
                    for c in calls {
                        if let Some(id) = c["id"].as_str() {
                            c["id"] = format!("{id}-{copy}").into();
                        }
                    }
                }
                traj.push(m);
            }
        }
        let mut episode = longest.clone();
        episode["traj"] = traj.into();
        serde_json::to_vec(&vec![episode]).unwrap()
    };
    let cost = |bytes: &[u8]| {
        best_of(5, || {
            let out = trajlint::formats::read(bytes, None);
            for t in &out.trajectories {
                std::hint::black_box(trajlint::analysis::analyze(t, bytes, lex));
            }
        })
    };
    let (one, ten, hundred) = (repeated(1), repeated(10), repeated(100));
    let (t1, t10, t100) = (cost(&one), cost(&ten), cost(&hundred));
    println!(
        "linearity: one episode {:.0} KB in {:.2} ms; ten times longer in {:.2} ms ({:.1}x); a hundred times in {:.2} ms ({:.1}x the ten)",
        one.len() as f64 / 1e3,
        t1.as_secs_f64() * 1e3,
        t10.as_secs_f64() * 1e3,
        t10.as_secs_f64() / t1.as_secs_f64(),
        t100.as_secs_f64() * 1e3,
        t100.as_secs_f64() / t10.as_secs_f64()
    );
}

/// A log of a size: its bytes.
type Generator<'a> = dyn Fn(usize) -> Vec<u8> + 'a;

/// Inputs built to make one stage superlinear, each analysed at a size and at four times it:
/// linear is about 4x. (Each once was quadratic: a rescan of a message per match, every pair of a
/// batch of calls, every open item per closing command, every failure per user message, every
/// fact per compaction.)
fn worst_cases(lex: &Lexicon) {
    use serde_json::{json, Value};
    let chat = |messages: Vec<Value>| serde_json::to_vec(&messages).unwrap();
    let bash = |id: String, command: String| {
        json!({"id": id, "type": "function",
               "function": {"name": "bash", "arguments": json!({"command": command}).to_string()}})
    };
    let long_message = |sentence: &'static str| {
        move |k: usize| {
            chat(vec![
                json!({"role": "user", "content": "Fix the config loader and run the tests."}),
                json!({"role": "assistant", "content": vec![sentence; k].join(" ")}),
            ])
        }
    };
    let one_letter = |k: usize| {
        chat(vec![
            json!({"role": "user", "content": "Print the padding."}),
            json!({"role": "assistant", "content": "x".repeat(k)}),
        ])
    };
    let batch = |k: usize| {
        let mut m = vec![
            json!({"role": "user", "content": "Read the files."}),
            json!({"role": "assistant", "content": "",
                   "tool_calls": (0..k).map(|i| bash(format!("c{i}"), format!("cat f{i}.txt"))).collect::<Vec<_>>()}),
        ];
        m.extend((0..k).map(|i| {
            json!({"role": "tool", "tool_call_id": format!("c{i}"),
            "content": format!("cat: f{i}.txt: No such file or directory")})
        }));
        m.extend(
            (0..k).map(|i| json!({"role": "user", "content": format!("Any news on item {i}?")})),
        );
        chat(m)
    };
    // Thousands of tools each deferring (429), then as many sentences each declining one by
    // name: each is looked up per word, not against every tool waiting.
    let declined = |k: usize| {
        let mut m = vec![json!({"role": "user", "content": "Query every service."})];
        for i in 0..k {
            m.push(json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": format!("c{i}"), "type": "function",
                 "function": {"name": format!("tool_{i}"), "arguments": "{}"}}]}));
            m.push(json!({"role": "tool", "tool_call_id": format!("c{i}"),
                          "content": "Error 429: rate limit exceeded, retry after 30 seconds."}));
        }
        m.push(json!({"role": "assistant", "content":
            (0..k).map(|i| format!("Not retrying tool_{i}.")).collect::<Vec<_>>().join(" ")}));
        chat(m)
    };
    let tracker = |k: usize| {
        let mut m = vec![json!({"role": "user", "content": "Work through the tracker."})];
        for (i, command) in (0..k)
            .map(|i| format!("bd update PRJ-{i} --status in_progress"))
            .chain((0..k).map(|i| format!("bd close PRJ-{i}")))
            .enumerate()
        {
            m.push(json!({"role": "assistant", "content": "", "tool_calls": [bash(format!("c{i}"), command)]}));
            m.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "ok"}));
        }
        chat(m)
    };
    let compactions = |k: usize| {
        let mut records = Vec::new();
        let mut record = |r: Value| records.push(r);
        for i in 0..k {
            record(
                json!({"type": "user", "message": {"role": "user", "content": format!("Fix item {i} please.")}}),
            );
            record(
                json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": format!("I will run the tests later. Let me check cfg{i}.toml.")}]}}),
            );
            record(
                json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}),
            );
            record(json!({"type": "user", "isCompactSummary": true,
                          "message": {"role": "user", "content": format!("Summary: item {i}; tests still to run.")}}));
        }
        claude_code_chain(records)
    };
    // One compaction whose summary is a single line of let-go words, each reaching to the
    // line's end (the probe places each by search, not by a scan).
    let let_go_summary = |k: usize| {
        let mut records = Vec::new();
        let mut record = |r: Value| records.push(r);
        record(json!({"type": "user", "message": {"role": "user", "content": "Fix the parser."}}));
        record(
            json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "I will update the docs once the code compiles."}]}}),
        );
        record(
            json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"}),
        );
        record(json!({"type": "user", "isCompactSummary": true,
                      "message": {"role": "user", "content": "skip the docs ".repeat(k)}}));
        claude_code_chain(records)
    };
    let long_output = |k: usize| {
        chat(vec![
            json!({"role": "user", "content": "Run the tests."}),
            json!({"role": "assistant", "content": "", "tool_calls": [bash("c1".into(), "pytest".into())]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": vec!["0 failed, no errors."; k].join(" ")}),
        ])
    };
    let cascades = |k: usize| {
        let calls = |prefix: &str, dir: &str| {
            (0..k)
                .map(|i| bash(format!("{prefix}{i}"), format!("cat {dir}/f{i}.txt")))
                .collect::<Vec<_>>()
        };
        let mut m = vec![
            json!({"role": "user", "content": "Read the files."}),
            json!({"role": "assistant", "content": "", "tool_calls": calls("c", "src")}),
            json!({"role": "tool", "tool_call_id": "c0", "content": "cat: src/f0.txt: No such file or directory"}),
        ];
        m.extend((1..k).map(|i| {
            json!({"role": "tool", "tool_call_id": format!("c{i}"),
            "content": "<tool_use_error>Sibling tool call errored</tool_use_error>"})
        }));
        m.push(json!({"role": "assistant", "content": "The file is missing, so let me read the lib directory instead.",
                      "tool_calls": calls("d", "lib")}));
        m.extend(
            (0..k)
                .map(|i| json!({"role": "tool", "tool_call_id": format!("d{i}"), "content": "ok"})),
        );
        chat(m)
    };
    // A list of ids each ending its line on a colon ("- QX000001Z:"): the fields under each
    // were read to the list's end.
    let id_list = |k: usize| {
        let body: String = (0..k).map(|i| format!("- QX{i:06}Z:\n")).collect();
        chat(vec![
            json!({"role": "user", "content": "List the records."}),
            json!({"role": "assistant", "content": format!("Here are the records:\n{body}")}),
        ])
    };
    // A table of ids, then a sentence of other ids: each was looked up in a list.
    let table_then_ids = |k: usize| {
        let rows: String = (0..k).map(|i| format!("| QX{i:06}Z | 1 | 2 |\n")).collect();
        let ids: Vec<String> = (0..k).map(|i| format!("QY{i:06}Z")).collect();
        chat(vec![
            json!({"role": "user", "content": "List the records."}),
            json!({"role": "assistant", "content": format!("| id | a | b |\n|---|---|---|\n{rows}\nSo {} are left.", ids.join(" "))}),
        ])
    };
    // One Aider reply editing k files.
    let aider_edits = |k: usize| {
        let mut s = String::from(
            "# aider chat started at 2024-08-05 19:33:32\n\n#### rename x  \n\nCertainly!\n\n",
        );
        for i in 0..k {
            s += &format!(
                "src/pkg/module_{i:07}.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n"
            );
        }
        s.into_bytes()
    };
    // Codex rollbacks with no user turn before them: each read every turn back to the start.
    let rollbacks = |k: usize| {
        let mut lines =
            vec![r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s1"}}"#.to_string()];
        lines.extend((0..k).map(|_| {
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#.to_string()
        }));
        lines.join("\n").into_bytes()
    };
    // OpenHands condensations each forgetting from the same event to now: their ranges overlap.
    let condensations = |k: usize| {
        let mut ev = vec![json!({"id": 1, "source": "user", "action": "message",
            "args": {"content": "Fix the worker timeout."}})];
        for i in 0..k {
            let a = 100 + 3 * i;
            let meta = json!({"function_name": "execute_bash", "tool_call_id": format!("t{i}"),
                "total_calls_in_response": 1});
            ev.push(
                json!({"id": a, "source": "agent", "action": "run", "tool_call_metadata": meta,
                "args": {"command": format!("ls {i}"), "thought": "I'll check it."}}),
            );
            ev.push(
                json!({"id": a + 1, "source": "agent", "cause": a, "observation": "run",
                "tool_call_metadata": meta, "content": "ok",
                "extras": {"command": "x", "metadata": {"exit_code": 0}}}),
            );
            ev.push(
                json!({"id": a + 2, "source": "agent", "action": "condensation",
                "args": {"forgotten_events_start_id": 100, "forgotten_events_end_id": a,
                         "summary": format!("did {i}")}}),
            );
        }
        serde_json::to_vec(&ev).unwrap()
    };
    // Lines each opening an array they leave open (`[1,`): each was parsed on into the lines
    // after it, up to the nesting limit.
    let left_open = |k: usize| {
        let mut log = claude_code_chain(vec![
            json!({"type": "user", "message": {"role": "user", "content": "Fix the parser."}}),
        ]);
        log.extend(b"\n[1,".repeat(k));
        log
    };
    // A printed big number: its digits are cut three at a time.
    let digits = |k: usize| {
        chat(vec![
            json!({"role": "user", "content": "Print 2**1000000."}),
            json!({"role": "assistant", "content": "", "tool_calls": [bash("c1".into(), "python big.py".into())]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "7".repeat(k)}),
        ])
    };
    let cases: [(&str, &Generator<'_>, usize); 20] = [
        // A model looping on one clause, with no full stop: the sentence is cut to length.
        (
            "'I'll check it,' with no full stop",
            &long_message("I'll check it,"),
            2_000,
        ),
        ("a run of digits in one output", &digits, 250_000),
        ("lines each opening an array left open", &left_open, 50_000),
        (
            "'those results' in one message",
            &long_message("Those results were wrong."),
            5_000,
        ),
        (
            "'the second option' in one message",
            &long_message("Use the second option."),
            5_000,
        ),
        (
            "'the id is ABC123' in one message",
            &long_message("The id is ABC123."),
            5_000,
        ),
        ("'0 failed, no errors' in one output", &long_output, 5_000),
        // One word of a million letters: the token count merges it through a heap.
        ("a run of one letter in one message", &one_letter, 250_000),
        (
            "'the previous error' in one message",
            &long_message("Look at the previous error."),
            5_000,
        ),
        ("a batch of failed calls, then user messages", &batch, 1_000),
        ("tracker items opened, then closed", &tracker, 2_500),
        ("deferrals, each declined by name", &declined, 2_500),
        ("compactions", &compactions, 2_500),
        ("a summary line of let-go words", &let_go_summary, 20_000),
        (
            "cancelled calls redone by a change of course",
            &cascades,
            1_000,
        ),
        ("ids each ending a list line on a colon", &id_list, 4_000),
        (
            "a table of ids, then a sentence of others",
            &table_then_ids,
            4_000,
        ),
        ("one Aider reply editing many files", &aider_edits, 5_000),
        ("Codex rollbacks with no user turn", &rollbacks, 5_000),
        (
            "condensations forgetting from one start",
            &condensations,
            5_000,
        ),
    ];
    println!("worst cases (time at four times the input / time at the input; linear is about 4):");
    for (name, make, k) in cases {
        let cost = |bytes: &[u8]| {
            best_of(3, || {
                let out = trajlint::formats::read(bytes, None);
                for t in &out.trajectories {
                    std::hint::black_box(trajlint::analysis::analyze(t, bytes, lex));
                }
            })
        };
        let (small, large) = (make(k), make(4 * k));
        let (a, b) = (cost(&small), cost(&large));
        println!(
            "  {name:<45} {:>6.0} KB {:>8.1} ms; 4x: {:>8.1} ms ({:.1}x)",
            small.len() as f64 / 1e3,
            a.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
}

/// Claude Code records as one session's JSONL, each the child of the one before it.
fn claude_code_chain(records: Vec<serde_json::Value>) -> Vec<u8> {
    let mut parent = serde_json::Value::Null;
    let lines: Vec<String> = records
        .into_iter()
        .enumerate()
        .map(|(k, mut r)| {
            let uuid = format!("00000000-0000-0000-0000-{:012}", k + 1);
            r["uuid"] = uuid.clone().into();
            r["parentUuid"] = parent.clone();
            r["sessionId"] = "s1".into();
            parent = uuid.into();
            r.to_string()
        })
        .collect();
    lines.join("\n").into_bytes()
}
