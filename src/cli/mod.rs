//! What every subcommand shares: input collection (files, directories, stdin), the lexicon,
//! parallel reading in input order, and read diagnostics.

/// `eprintln!` that cannot panic: a standard error that is closed or full (`2>&1 | head`,
/// `2>/dev/full`) loses the message, not the run's exit code. What it prints may quote a log
/// or name a file: control characters are shown as pictures (`report::visible`), never sent.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", trajlint::report::visible(&text));
    }};
}

/// `eprint!` that cannot panic (see `eprintln!`).
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = write!(std::io::stderr(), "{}", trajlint::report::visible(&text));
    }};
}

pub mod annotate;
pub mod check;
pub mod plan;
pub mod probe;
pub mod rules;
pub mod single;

use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use trajlint::extract::lexicon::Lexicon;
use trajlint::formats::Severity;
use trajlint::lint::config::Config;
use trajlint::lint::Catalogue;
use trajlint::model::Format;
use trajlint::report::output::plural;
use trajlint::report::visible_name;
use trajlint::source::SourceFile;
use trajlint::FileReport;

#[derive(clap::Args, Clone)]
pub struct InputArgs {
    /// Files or directories to read (directories are walked, ignore files respected); `-` reads stdin.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "NAME", value_parser = format_parser())]
    pub input_format: Option<Format>,
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// Where the settings come from: `trajlint.toml` and lexicon files. Every subcommand reads the
/// same ones: what the gate holds live, a compactor must hold live too.
#[derive(clap::Args, Clone)]
pub struct SettingsArgs {
    /// A lexicon file extending the built-in phrase lists (repeat the flag for several; read
    /// after trajlint.toml's `lexicons`).
    #[arg(long, value_name = "FILE")]
    pub lexicon: Vec<PathBuf>,
    /// Configuration file [default: the nearest trajlint.toml at or above the working directory].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore every configuration file.
    #[arg(long, conflicts_with = "config")]
    pub isolated: bool,
}

impl SettingsArgs {
    /// The configuration in force: `--config`, else the nearest `trajlint.toml`; none with
    /// `--isolated`.
    pub fn config(&self, cwd: &Path) -> Result<Config, String> {
        match (
            self.isolated,
            self.config.clone().or_else(|| Config::find(cwd)),
        ) {
            (false, Some(path)) => Config::load(&path, cwd, Catalogue::builtin()).map_err(|e| {
                // (One named by --config that is not there: say which flag named it.)
                if self.config.is_some() && !path.exists() {
                    format!("{e} (named by --config)")
                } else {
                    e.to_string()
                }
            }),
            _ => Ok(Config::empty(cwd)),
        }
    }

    /// The built-in lexicon extended by the configuration's `lexicons`, then `--lexicon`'s.
    pub fn lexicon(&self, config: &Config) -> Result<Lexicon, String> {
        // (A file that cannot be read is named with where it was asked for.)
        let from_config = config
            .file
            .as_ref()
            .map(|f| format!("`lexicons` in {}", shown(f)));
        let files: Vec<(PathBuf, String)> = config
            .lexicons
            .iter()
            .map(|p| (p.clone(), from_config.clone().unwrap_or_default()))
            .chain(self.lexicon.iter().map(|p| (p.clone(), "--lexicon".into())))
            .collect();
        load_lexicon(&files)
    }
}

/// The working directory, which configuration paths are relative to.
pub fn working_dir() -> Result<PathBuf, String> {
    std::env::current_dir().map_err(|e| {
        // (A shell whose directory was deleted under it: every relative path is gone too.)
        let hint = if e.kind() == std::io::ErrorKind::NotFound {
            "; it was probably deleted: run trajlint from a directory that exists"
        } else {
            ""
        };
        format!("cannot read the working directory: {e}{hint}")
    })
}

/// Drops the inputs a walk met that the configuration excludes (named ones stay, as in ruff);
/// returns what to add to "no log found" when it dropped some ("; 3 files found are excluded
/// by `exclude` in …"): a run whose configuration excludes all it is given says so.
pub fn drop_excluded(
    inputs: &mut Vec<Input>,
    named: &Named,
    config: &Config,
    cwd: &Path,
) -> Option<String> {
    let mut excluded = 0usize;
    inputs.retain_mut(|i| match i {
        Input::Path(p) if !named.contains(p) => {
            let keep = !config.excluded(&config.relative(p, cwd));
            excluded += usize::from(!keep);
            keep
        }
        // (Excludes apply to each event file, as they would to the files alone.)
        Input::Events { files, .. } => {
            let before = files.len();
            files.retain(|f| !config.excluded(&config.relative(f, cwd)));
            excluded += before - files.len();
            !files.is_empty()
        }
        _ => true,
    });
    config.file.as_ref().filter(|_| excluded > 0).map(|f| {
        format!(
            "; {excluded} {} found {} excluded by `exclude` in {}",
            plural(excluded, "file", "files"),
            plural(excluded, "is", "are"),
            shown(f)
        )
    })
}

/// `--input-format`'s values: the formats' names (`--help` lists them).
pub fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser;
    // (Every name it accepts is a format's: the fallback is never taken.)
    clap::builder::PossibleValuesParser::new(Format::ALL.map(|f| f.name()))
        .map(|name: String| Format::from_name(&name).unwrap_or(Format::Text))
}

/// The built-in lexicon extended by `files`, each with where it was named (`--lexicon`, a
/// configuration's `lexicons`).
pub fn load_lexicon(files: &[(PathBuf, String)]) -> Result<Lexicon, String> {
    let mut extra = Vec::new();
    for (f, named_by) in files {
        let content = std::fs::read_to_string(f).map_err(|e| {
            format!(
                "{}: cannot read the lexicon file ({named_by}): {}",
                shown(f),
                why(&e)
            )
        })?;
        extra.push((f.display().to_string(), content));
    }
    Lexicon::with_extra(&extra).map_err(|e| e.to_string())
}

/// An input to read: a path, a conversation kept one event per file, or stdin; or a path that
/// could not be walked (missing), reported where it was met like a file that could not be read.
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
    Unreadable {
        path: PathBuf,
        why: String,
    },
}

impl Input {
    /// The path the input is known by (the pattern for joined event files).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Path(p)
            | Input::Events { pattern: p, .. }
            | Input::Unreadable { path: p, .. } => Some(p),
            Input::Stdin => None,
        }
    }

    /// A directory of OpenHands event files (or the conversation directory above it) read as
    /// one log: `Ok(None)` if `dir` holds no event files, an error if it holds two
    /// conversations' (both namings).
    pub fn events_in(dir: &Path) -> Result<Option<Input>, String> {
        match Self::event_files(dir)? {
            Some(events) => Ok(Some(events)),
            None => Self::event_files(&dir.join("events")),
        }
    }

    fn event_files(dir: &Path) -> Result<Option<Input>, String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(None);
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let mut groups = EventGroups::default();
        for f in files {
            groups.add(f);
        }
        let mut found: Vec<Input> = groups
            .into_inputs()
            .into_iter()
            .filter(|i| matches!(i, Input::Events { .. }))
            .collect();
        if found.len() > 1 {
            return Err(format!(
                "{}: holds the event files of two conversations (`*.json` and `event-*.json`); \
                 `trajlint check` on the directory reads each",
                shown(dir)
            ));
        }
        Ok(found.pop())
    }

    /// A directory's event files as read: in index order (the older app's are unpadded: "10"
    /// before "2"); and `events/<n>.json` files that are not OpenHands events are files of their
    /// own.
    fn settled(self) -> Vec<Input> {
        let Input::Events { pattern, mut files } = self else {
            return vec![self];
        };
        files.sort_by_key(|f| event_file(f).map(|(i, _)| i));
        let v0 = pattern.file_name().is_some_and(|n| n == "*.json");
        // The first of the first eight files that parses (its first MiB) decides; when none
        // does (cut off, or longer), the keys an event holds appearing in the first one's head.
        let head = |f: &PathBuf| {
            let mut head = Vec::new();
            std::fs::File::open(f)
                .and_then(|f| f.take(1 << 20).read_to_end(&mut head))
                .ok()
                .map(|_| head)
        };
        let looks_v0 = || {
            let parsed = files
                .iter()
                .take(8)
                .find_map(|f| trajlint::formats::openhands::v0_event_in(&head(f)?));
            parsed.unwrap_or_else(|| {
                head(&files[0]).is_some_and(|head| {
                    let has = |key: &[u8]| memchr::memmem::find(&head, key).is_some();
                    has(b"\"source\"") && (has(b"\"action\"") || has(b"\"observation\""))
                })
            })
        };
        if v0 && !looks_v0() {
            return files.into_iter().map(Input::Path).collect();
        }
        vec![Input::Events { pattern, files }]
    }
}

/// Event files met in a walk, one input per directory and naming, in the order first met.
#[derive(Default)]
struct EventGroups {
    inputs: Vec<Input>,
    by_pattern: HashMap<PathBuf, usize>,
}

impl EventGroups {
    /// Takes `path` into its conversation if it is an event file; otherwise gives it back.
    fn add(&mut self, path: PathBuf) -> Option<PathBuf> {
        let Some((_, pattern)) = event_file(&path) else {
            return Some(path);
        };
        let pattern = path.with_file_name(pattern);
        match self.by_pattern.get(&pattern) {
            Some(&k) => {
                if let Input::Events { files, .. } = &mut self.inputs[k] {
                    files.push(path);
                }
            }
            None => {
                self.by_pattern.insert(pattern.clone(), self.inputs.len());
                self.inputs.push(Input::Events {
                    pattern,
                    files: vec![path],
                });
            }
        }
        None
    }

    /// Files of their own met in between, kept in walk order.
    fn push(&mut self, input: Input) {
        self.inputs.push(input);
    }

    /// The inputs, each conversation's files settled (see `Input::settled`).
    fn into_inputs(self) -> Vec<Input> {
        self.inputs.into_iter().flat_map(Input::settled).collect()
    }
}

/// The state an OpenHands conversation keeps beside its `events/` directory: the SDK's
/// `base_state.json` (agent, settings, statistics), the older app's `metadata.json`.
fn conversation_state(path: &Path) -> bool {
    let holds_events = |events: PathBuf| {
        std::fs::read_dir(events)
            .is_ok_and(|mut files| files.any(|f| f.is_ok_and(|f| event_file(&f.path()).is_some())))
    };
    path.file_name()
        .is_some_and(|n| n == "base_state.json" || n == "metadata.json")
        && path
            .parent()
            .is_some_and(|d| holds_events(d.join("events")))
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

/// Why a run that read no log fails (exit 2): a gate pointed at the wrong directory must not
/// pass having checked nothing.
///
/// `skipped`: the files the walk met and left out as no log (each warned about).
pub fn no_log_found(paths: &[PathBuf], skipped: usize) -> String {
    let names: Vec<String> = paths.iter().map(|p| shown(p)).collect();
    let mut why = format!("no trajectory log found under {}: ", names.join(", "));
    if skipped == 1 {
        why.push_str("the one file the walk met is no log (skipped with a warning)");
    } else if skipped > 1 {
        why.push_str(&format!(
            "none of the {skipped} files the walk met is a log (each skipped with a warning)"
        ));
    } else {
        why.push_str(
            "nothing was checked (a walk reads *.jsonl, *.json, *.ndjson, *.traj, *.eval, \
             *.txt, *.log and *.chat.history.md files)",
        );
    }
    // (Where the logs lie behind a link to a directory, the walk passed it by: say so.)
    let links: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.is_dir())
        .flat_map(|p| walker(p).flatten())
        .filter(|e| e.path_is_symlink() && e.path().is_dir())
        .map(|e| e.into_path())
        .collect();
    if let Some(first) = links.first() {
        why.push_str(&format!(
            "; links to directories are not followed: {} ({} in all); name the directory itself",
            shown(first),
            links.len()
        ));
    }
    why
}

/// A walk of directory `p`: ignore files respected (`.gitignore` inside a git repository only,
/// as ripgrep reads it: a home directory's catch-all `.gitignore` of a dotfiles setup would
/// otherwise hide every log under it), links to directories not followed (they may loop), in
/// name order.
fn walker(p: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(p)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
}

/// The name of Aider's default chat history.
const AIDER_HISTORY: &str = ".aider.chat.history.md";

pub fn collect_inputs(paths: &[PathBuf]) -> Vec<Input> {
    let mut inputs = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            inputs.push(Input::Stdin);
        } else if p.is_dir() {
            let mut walked = EventGroups::default();
            // Aider's history files, read although hidden (and gitignored by Aider itself).
            let mut aider: HashSet<PathBuf> = HashSet::new();
            for entry in walker(p) {
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_dir()) => {
                        // First in its directory, where its name (a dot) mostly sorts anyway.
                        let history = e.path().join(AIDER_HISTORY);
                        if history.is_file() {
                            aider.insert(history.clone());
                            walked.push(Input::Path(history));
                        }
                    }
                    // (Already taken, when an ignore file whitelists it.)
                    Ok(e) if aider.contains(e.path()) => {}
                    // (The conversation's state beside its events is not a log.)
                    Ok(e) if conversation_state(e.path()) => {}
                    // (A link to a file is read as the file, as it is when named; a link to a
                    // directory is not walked: links may loop.)
                    Ok(e)
                        if e.file_type().is_some_and(|t| {
                            t.is_file() || t.is_symlink() && e.path().is_file()
                        }) =>
                    {
                        // (A directory's event files make one input.)
                        if let Some(path) = walked.add(e.into_path()) {
                            if is_log_name(&path) {
                                walked.push(Input::Path(path));
                            }
                        }
                    }
                    // A log's name on a link to nothing: a log that cannot be read, not one
                    // silently left out.
                    Ok(e)
                        if e.file_type().is_some_and(|t| t.is_symlink())
                            && !e.path().exists()
                            && is_log_name(e.path()) =>
                    {
                        walked.push(Input::Unreadable {
                            why: broken_link(e.path()),
                            path: e.into_path(),
                        });
                    }
                    Ok(_) => {}
                    Err(e) => walked.push(walk_error(p, e)),
                }
            }
            inputs.extend(walked.into_inputs());
        } else if p.exists() {
            inputs.push(Input::Path(p.clone()));
        } else {
            inputs.push(Input::Unreadable {
                path: p.clone(),
                // (Missing, or behind links that loop: `self/x.jsonl` with `self -> self`.)
                why: if p.is_symlink() {
                    broken_link(p)
                } else {
                    std::fs::metadata(p)
                        .err()
                        .map_or_else(|| "no such file or directory".into(), |e| why(&e))
                },
            });
        }
    }
    // Each input once (a path given twice, a file beside its directory, a hard link to it, a
    // conversation's events copied as hard links, the file standard input reads), where first
    // met.
    #[derive(PartialEq, Eq, Hash)]
    enum Key {
        File(FileId),
        Path(PathBuf),
        // (A conversation's event files, each by its id: a copy of hard links, `cp -al`, is
        // the same conversation.)
        Events(Vec<FileId>),
        Stdin,
    }
    let mut seen = HashSet::new();
    inputs.retain(|i| {
        seen.insert(match i {
            Input::Path(p) => FileId::of(p).map_or_else(|| Key::Path(file_key(p)), Key::File),
            Input::Unreadable { path: p, .. } => Key::Path(file_key(p)),
            Input::Events { pattern, files } => match files.iter().map(|f| FileId::of(f)).collect()
            {
                Some(ids) => Key::Events(ids),
                None => Key::Path(match (pattern.parent(), pattern.file_name()) {
                    (Some(dir), Some(name)) => file_key(dir).join(name),
                    _ => pattern.clone(),
                }),
            },
            Input::Stdin => FileId::of_stdin().map_or(Key::Stdin, Key::File),
        })
    });
    inputs
}

/// A walk's error as an input that could not be read: named by the path it is about.
fn walk_error(root: &Path, e: ignore::Error) -> Input {
    let mut err = &e;
    while let ignore::Error::WithDepth { err: inner, .. } = err {
        err = inner;
    }
    // (In the words of every other I/O error: "permission denied", not the walker's "IO error
    // for operation on PATH: Permission denied (os error 13)".)
    let (path, why) = match err {
        ignore::Error::WithPath { path, err } => (
            path.clone(),
            err.io_error().map_or_else(|| err.to_string(), why),
        ),
        ignore::Error::Loop { child, .. } => (child.clone(), e.to_string()),
        _ => (
            root.to_path_buf(),
            err.io_error().map_or_else(|| e.to_string(), why),
        ),
    };
    Input::Unreadable { path, why }
}

/// What tells a file apart from every other, hard links included: its device and inode where
/// the system has them, else its canonical path.
#[derive(Debug, PartialEq, Eq, Hash)]
pub enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

impl FileId {
    /// The file standard input reads, when it is one (not a pipe or a terminal).
    pub fn of_stdin() -> Option<FileId> {
        #[cfg(unix)]
        {
            FileId::of(Path::new("/dev/stdin"))
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    pub fn of(p: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(p).ok()?;
            Some(FileId::Inode(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            p.canonicalize().ok().map(FileId::Path)
        }
    }
}

/// The files named on the command line (standard input's too, when it is one), as opposed to
/// those a walk met: told apart by `FileId`, so a hard link or a redirect names its file.
pub struct Named(HashSet<FileId>);

impl Named {
    pub fn new(paths: &[PathBuf]) -> Named {
        Named(
            paths
                .iter()
                .filter_map(|p| {
                    if p.as_os_str() == "-" {
                        FileId::of_stdin()
                    } else {
                        FileId::of(p)
                    }
                })
                .collect(),
        )
    }

    pub fn contains(&self, p: &Path) -> bool {
        FileId::of(p).is_some_and(|id| self.0.contains(&id))
    }

    pub fn contains_id(&self, id: &FileId) -> bool {
        self.0.contains(id)
    }
}

/// What tells two spellings of one file apart from two files: its canonical path when it has
/// one.
pub fn file_key(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Whether stdout takes colour and styles: a terminal, unless `NO_COLOR`, `CLICOLOR=0` or
/// `TERM=dumb` say otherwise, or forced by `CLICOLOR_FORCE` (decided as clap decides it for its
/// help).
pub fn styled_stdout() -> bool {
    anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

/// Writes a command's whole output to stdout. A closed pipe (`| head`) is not an error; any other
/// failure (a full disk) is said once and returns `false`: the caller exits 2, since a consumer
/// would otherwise take a cut output for a complete one.
pub fn emit(text: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: writing output: {}", why(&e));
            false
        }
        _ => true,
    }
}

/// Why a symbolic link cannot be read through: its target is missing, or the links loop.
fn broken_link(link: &Path) -> String {
    match std::fs::metadata(link) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            format!("a symbolic link that cannot be followed ({})", why(&e))
        }
        _ => "a symbolic link to nothing (its target does not exist)".into(),
    }
}

/// An I/O error in the words every command uses: "no such file or directory", not the OS's
/// "No such file or directory (os error 2)" (a missing input read the same in `annotate`,
/// `plan`, `probe` and `check`).
pub fn why(e: &std::io::Error) -> String {
    trajlint::io_why(e)
}

pub fn read_input(input: &Input) -> Result<SourceFile, String> {
    match input {
        Input::Path(p) => SourceFile::read(p).map_err(|e| {
            // (A link to nothing is said to be one, as a walk says it.)
            let why = if e.kind() == std::io::ErrorKind::NotFound && p.is_symlink() {
                broken_link(p)
            } else {
                why(&e)
            };
            format!("{}: {why}", shown(p))
        }),
        Input::Events { pattern, files } => {
            // One event a line: a broken file breaks its own line only, and a position names
            // the event by its line.
            let mut bytes = Vec::new();
            let mut parts = Vec::with_capacity(files.len());
            for f in files {
                let at = bytes.len();
                parts.push((at, f.clone()));
                let mut file =
                    std::fs::File::open(f).map_err(|e| format!("{}: {}", shown(f), why(&e)))?;
                file.read_to_end(&mut bytes)
                    .map_err(|e| format!("{}: {}", shown(f), why(&e)))?;
                // (Each file's byte order mark stays: in the joined bytes it opens a line, which
                // `formats::read` reads as spaces and a position counts no column of.)
                if bytes.last().is_some_and(|&b| b != b'\n') {
                    bytes.push(b'\n');
                }
            }
            Ok(SourceFile::joined(
                pattern.display().to_string(),
                Some(pattern.clone()),
                bytes,
                parts,
            ))
        }
        Input::Unreadable { path, why } => Err(format!("{}: {why}", shown(path))),
        Input::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("-: {}", why(&e)))?;
            Ok(SourceFile::new("-", None, buf))
        }
    }
}

/// Reads and analyses inputs in parallel, in chunks, with a step `map` that runs in parallel too
/// (linting, rendering) before `emit` gets its result in input order. Memory holds one chunk of
/// reports at a time, not the corpus.
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

/// A path as a message names it: on one line, its control characters as pictures.
pub fn shown(p: &Path) -> String {
    visible_name(&p.display().to_string()).into_owned()
}

/// A path as printed: as walked or given, without a leading `./`.
pub fn display_name(p: &Path) -> String {
    let s = p.display().to_string();
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

/// `name:line:column` of an offset of `source` (known as `name`): in the event's own file
/// (named as `check` names it in findings) for a log joined from one file per event.
pub fn position(source: &SourceFile, name: &str, offset: usize) -> String {
    let (part, line, col) = source.place(offset);
    let name = match part.and_then(|k| source.parts().get(k)) {
        Some((_, path)) => display_name(path),
        None => name.to_string(),
    };
    format!("{}:{line}:{col}", visible_name(&name))
}

pub fn print_read_issues(report: &FileReport) -> bool {
    let mut unreadable = report.read.unreadable();
    for issue in &report.read.issues {
        let at = position(&report.source, &report.source.name, issue.span.start);
        let sev = match issue.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        eprintln!("{at}: {sev}: {}", issue.message);
        if let Some(h) = &issue.help {
            eprintln!("  help: {h}");
        }
    }
    if report.read.trajectories.is_empty() {
        unreadable = true;
    }
    unreadable
}
