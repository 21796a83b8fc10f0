//! What every subcommand shares: input collection (files, directories, stdin), the lexicon,
//! parallel reading in input order, and read diagnostics.

pub mod annotate;
pub mod check;
pub mod plan;
pub mod probe;
pub mod rules;
pub mod single;

use rayon::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use trajlint::extract::lexicon::Lexicon;
use trajlint::formats::Severity;
use trajlint::model::Format;
use trajlint::source::SourceFile;
use trajlint::FileReport;

#[derive(clap::Args, Clone)]
pub struct InputArgs {
    /// Files or directories to read (directories are walked, ignore files respected); `-` reads stdin.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "NAME", value_parser = parse_format)]
    pub input_format: Option<Format>,
    /// Extra lexicon file(s) extending the built-in phrase lists.
    #[arg(long, value_name = "FILE")]
    pub lexicon: Vec<PathBuf>,
}

pub fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| {
        format!(
            "unknown format `{s}`; known: {}",
            Format::ALL.map(|f| f.name()).join(", ")
        )
    })
}

pub fn load_lexicon(files: &[PathBuf]) -> Result<Lexicon, String> {
    let mut extra = Vec::new();
    for f in files {
        let content = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        extra.push((f.display().to_string(), content));
    }
    Lexicon::with_extra(&extra).map_err(|e| e.to_string())
}

/// An input to read: a path, a conversation kept one event per file, or stdin.
pub enum Input {
    Path(PathBuf),
    /// An OpenHands conversation kept one event per file (`events/event-00000-<id>.json`, …, or
    /// the older app's `events/0.json`, …): one log, the files joined in index order, one a line
    /// (a line break after a file that lacks one). Named by their pattern; its offsets are into
    /// the joined bytes.
    Events {
        pattern: PathBuf,
        files: Vec<PathBuf>,
    },
    Stdin,
}

impl Input {
    /// The path the input is known by (the pattern for joined event files).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Path(p) | Input::Events { pattern: p, .. } => Some(p),
            Input::Stdin => None,
        }
    }

    /// A directory of OpenHands event files (or the conversation directory above it) read as
    /// one log, if `dir` is one.
    pub fn events_in(dir: &Path) -> Option<Input> {
        Self::event_files(dir).or_else(|| Self::event_files(&dir.join("events")))
    }

    fn event_files(dir: &Path) -> Option<Input> {
        let mut files: Vec<(u64, &'static str, PathBuf)> = std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter_map(|e| {
                let p = e.path();
                event_file(&p).map(|(index, pattern)| (index, pattern, p))
            })
            .collect();
        files.sort();
        let first = files.first()?.1;
        files.retain(|f| f.1 == first);
        let pattern = dir.join(first);
        let files = files.into_iter().map(|(_, _, p)| p).collect();
        let mut settled = (Input::Events { pattern, files }).settled();
        match settled.pop() {
            Some(events @ Input::Events { .. }) if settled.is_empty() => Some(events),
            _ => None,
        }
    }

    /// A directory's event files as read: in index order (the older app's are unpadded: "10"
    /// before "2"); and `events/<n>.json` files that are not OpenHands events (their first holds
    /// no `source` with an `action` or `observation`) are files of their own.
    fn settled(self) -> Vec<Input> {
        let Input::Events { pattern, mut files } = self else {
            return vec![self];
        };
        files.sort_by_key(|f| event_file(f).map(|(i, _)| i));
        let v0 = pattern.file_name().is_some_and(|n| n == "*.json");
        let looks_v0 = || {
            let mut head = Vec::new();
            let read =
                std::fs::File::open(&files[0]).and_then(|f| f.take(1 << 20).read_to_end(&mut head));
            let has = |key: &[u8]| memchr::memmem::find(&head, key).is_some();
            read.is_ok() && has(b"\"source\"") && (has(b"\"action\"") || has(b"\"observation\""))
        };
        if v0 && !looks_v0() {
            return files.into_iter().map(Input::Path).collect();
        }
        vec![Input::Events { pattern, files }]
    }
}

/// The state an OpenHands conversation keeps beside its `events/` directory: the SDK's
/// `base_state.json` (agent, settings, statistics), the older app's `metadata.json`.
fn conversation_state(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "base_state.json" || n == "metadata.json")
        && path.parent().is_some_and(|d| d.join("events").is_dir())
}

/// An event file of an OpenHands conversation: its index and the pattern of its directory's
/// event file names. The SDK (V1) writes `events/event-<index>-<event id>.json`, the older app
/// (V0) `events/<index>.json` (its indices unpadded: they sort as numbers).
fn event_file(path: &Path) -> Option<(u64, &'static str)> {
    let in_events = path
        .parent()
        .and_then(|d| d.file_name())
        .is_some_and(|d| d == "events");
    let stem = path.file_name()?.to_str()?.strip_suffix(".json")?;
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let v1 = stem
        .strip_prefix("event-")
        .and_then(|r| r.split_once('-'))
        .filter(|(_, id)| !id.is_empty())
        .and_then(|(i, _)| number(i))
        .map(|i| (i, "event-*.json"));
    let v0 = || number(stem).map(|i| (i, "*.json"));
    in_events.then(|| v1.or_else(v0)).flatten()
}

/// Expands directories (walked in sorted order, ignore files respected) into files.
/// Whether a file met while walking a directory looks like an agent log by its name, as ruff
/// picks `.py` files: JSON and JSON Lines, SWE-agent `.traj`, Inspect `.eval`, plain-text
/// transcripts, Aider's chat history. A file named on the command line is always read.
fn is_log_name(path: &std::path::Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(
        ext,
        "jsonl" | "json" | "traj" | "eval" | "txt" | "log" | "ndjson"
    ) || name.ends_with(".chat.history.md")
}

pub fn collect_inputs(paths: &[PathBuf]) -> (Vec<Input>, Vec<String>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if p.is_dir() {
            let first_of_root = inputs.len();
            // Each directory's event files, wherever the walk meets them: pattern → input.
            let mut groups: std::collections::HashMap<PathBuf, usize> =
                std::collections::HashMap::new();
            let walker = ignore::WalkBuilder::new(p)
                .sort_by_file_name(|a, b| a.cmp(b))
                .build();
            for entry in walker {
                match entry {
                    // (The conversation's state beside its events is not a log.)
                    Ok(e) if conversation_state(e.path()) => {}
                    // (A directory's event files make one input.)
                    Ok(e)
                        if e.file_type().is_some_and(|t| t.is_file())
                            && event_file(e.path()).is_some() =>
                    {
                        let pattern = event_file(e.path()).map_or("", |(_, p)| p);
                        let pattern = e.path().with_file_name(pattern);
                        match groups.get(&pattern) {
                            Some(&k) => {
                                if let Input::Events { files, .. } = &mut inputs[k] {
                                    files.push(e.into_path());
                                }
                            }
                            None => {
                                groups.insert(pattern.clone(), inputs.len());
                                inputs.push(Input::Events {
                                    pattern,
                                    files: vec![e.into_path()],
                                });
                            }
                        }
                    }
                    Ok(e)
                        if e.file_type().is_some_and(|t| t.is_file()) && is_log_name(e.path()) =>
                    {
                        inputs.push(Input::Path(e.into_path()))
                    }
                    Ok(_) => {}
                    Err(e) => errors.push(e.to_string()),
                }
            }
            let walked = inputs.split_off(first_of_root);
            inputs.extend(walked.into_iter().flat_map(Input::settled));
        } else if p.exists() {
            inputs.push(Input::Path(p.clone()));
        } else {
            errors.push(format!("{}: no such file or directory", p.display()));
        }
    }
    (inputs, errors)
}

pub fn read_input(input: &Input) -> Result<SourceFile, String> {
    match input {
        Input::Path(p) => SourceFile::read(p).map_err(|e| format!("{}: {e}", p.display())),
        Input::Events { pattern, files } => {
            // One event a line: a broken file breaks its own line only, and a position names
            // the event by its line.
            let mut bytes = Vec::new();
            for f in files {
                let mut file =
                    std::fs::File::open(f).map_err(|e| format!("{}: {e}", f.display()))?;
                file.read_to_end(&mut bytes)
                    .map_err(|e| format!("{}: {e}", f.display()))?;
                if bytes.last().is_some_and(|&b| b != b'\n') {
                    bytes.push(b'\n');
                }
            }
            Ok(SourceFile::new(
                pattern.display().to_string(),
                Some(pattern.clone()),
                bytes,
            ))
        }
        Input::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("-: {e}"))?;
            Ok(SourceFile::new("-", None, buf))
        }
    }
}

/// Reads and analyses inputs in parallel, in chunks, handing each report to `emit` in input
/// order. Memory holds one chunk of reports at a time, not the corpus.
pub fn for_each_report(
    inputs: &[Input],
    forced: Option<Format>,
    lex: &Lexicon,
    emit: impl FnMut(Result<FileReport, String>),
) {
    for_each_mapped(inputs, forced, lex, |_, r| r, emit);
}

/// Like [`for_each_report`], with a step `map` that runs in parallel too (linting, rendering)
/// before `emit` gets its result in input order.
pub fn for_each_mapped<T: Send>(
    inputs: &[Input],
    forced: Option<Format>,
    lex: &Lexicon,
    map: impl Fn(&Input, Result<FileReport, String>) -> T + Sync,
    mut emit: impl FnMut(T),
) {
    let chunk = rayon::current_num_threads().max(1) * 4;
    for group in inputs.chunks(chunk) {
        let results: Vec<T> = group
            .par_iter()
            .map(|i| {
                map(
                    i,
                    read_input(i).map(|src| trajlint::process(src, forced, lex)),
                )
            })
            .collect();
        for r in results {
            emit(r);
        }
    }
}

pub fn print_read_issues(report: &FileReport) -> bool {
    let mut unreadable = report.read.unreadable();
    for issue in &report.read.issues {
        let (line, col) = report.source.line_col(issue.span.start);
        let sev = match issue.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        eprintln!(
            "{}:{line}:{col}: {sev}: {}",
            report.source.name, issue.message
        );
        if let Some(h) = &issue.help {
            eprintln!("  help: {h}");
        }
    }
    if report.read.trajectories.is_empty() {
        unreadable = true;
    }
    unreadable
}
