//! trajlint: reads the logs of tool-using AI agents and says which parts are still live.
//!
//! The data flows one way: [`source`] (raw bytes, line index) → [`formats`] (one reader per log
//! format) → [`model`] (turns, calls, results, events with raw byte spans) → [`extract`] (facts)
//! → [`resolve`] (discharged? incorporated?) → [`gate`] (verdicts, ranges) → [`report`].

pub mod analysis;
pub mod extract;
pub mod formats;
pub mod gate;
pub mod json;
pub mod lint;
pub mod markdown;
pub mod marks;
pub mod model;
pub mod plan;
pub mod probe;
pub mod report;
pub mod resolve;
pub mod source;
pub mod text;
pub mod tokens;

use extract::lexicon::Lexicon;
use formats::ReadOutput;
use model::Format;
use rayon::prelude::*;
use source::SourceFile;

/// One input file, read and analysed.
pub struct FileReport {
    pub source: SourceFile,
    pub read: ReadOutput,
    pub analyses: Vec<analysis::Analysis>,
}

/// Reads and analyses one file.
pub fn process(source: SourceFile, forced: Option<Format>, lex: &Lexicon) -> FileReport {
    let read = formats::read(&source.bytes, forced);
    // (A file may hold many trajectories: a tau-bench array, an OpenHands output.jsonl.)
    let analyses = read
        .trajectories
        .par_iter()
        .map(|t| analysis::analyze(t, &source.bytes, lex))
        .collect();
    FileReport {
        source,
        read,
        analyses,
    }
}

// ---------------------------------------------------------------------------------------------
// The embedding API: annotate, plan and probe without a subprocess.
// ---------------------------------------------------------------------------------------------

/// The built-in lexicon, compiled once per process.
pub fn builtin_lexicon() -> &'static Lexicon {
    static LEX: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
    LEX.get_or_init(Lexicon::builtin)
}

/// Why a log could not be read: no trajectory could be read from the bytes.
#[derive(Debug, Clone)]
pub struct Error {
    pub message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Error {
    fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
        }
    }
}

/// One trajectory read and analysed, with the bytes its spans point into.
///
/// Every `bytes`/`span` in [`Annotated::trajectory`] and [`Annotated::analysis`] is a
/// `[start, end)` offset into [`Annotated::bytes`]. For a trajectory built from in-memory
/// messages ([`Annotated::from_openai_messages`], [`Annotated::from_anthropic_messages`]) those
/// bytes are the messages serialized as compact JSON (`serde_json::to_vec`).
#[derive(Debug, Clone)]
pub struct Annotated {
    /// The raw log (or the serialized messages).
    pub bytes: std::sync::Arc<[u8]>,
    /// The format it was read as.
    pub format: Format,
    /// Which trajectory of the log this is (0 for a single-trajectory file).
    pub index: usize,
    pub trajectory: model::Trajectory,
    pub analysis: analysis::Analysis,
}

/// Reads every trajectory of a log (format detected) and analyses it with the built-in lexicon.
///
/// ```
/// let log = br#"[
///   {"role": "user", "content": "Is there a config.yaml?"},
///   {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
///     "function": {"name": "read_file", "arguments": "{\"path\": \"config.yaml\"}"}}]},
///   {"role": "tool", "tool_call_id": "c1",
///    "content": "Error: config.yaml: No such file or directory"},
///   {"role": "assistant", "content": "Let me look at the README."}
/// ]"#;
/// let all = trajlint::annotate(log)?;
/// let a = &all[0];
/// assert_eq!(a.trajectory.turns.len(), 4);
/// // The failed read was never acknowledged: its turn is live, and says why.
/// assert!(a.is_live(2));
/// let fact = &a.analysis.facts[a.analysis.turns[2].reasons[0]];
/// assert_eq!(fact.kind(), trajlint::extract::FactKind::NullResult);
/// // The annotation contract (`trajlint.annotations/1`) as JSON.
/// assert_eq!(a.to_json("log.json")["schema"], "trajlint.annotations/1");
/// # Ok::<(), trajlint::Error>(())
/// ```
pub fn annotate(bytes: &[u8]) -> Result<Vec<Annotated>, Error> {
    annotate_with(bytes, None, builtin_lexicon())
}

/// [`annotate`] with a forced format and a lexicon of your own.
pub fn annotate_with(
    bytes: &[u8],
    format: Option<Format>,
    lex: &Lexicon,
) -> Result<Vec<Annotated>, Error> {
    let shared: std::sync::Arc<[u8]> = bytes.into();
    let read = formats::read(&shared, format);
    if read.trajectories.is_empty() {
        let why = read
            .issues
            .iter()
            .find(|i| i.severity == formats::Severity::Error)
            .or(read.issues.first())
            .map_or_else(|| "no trajectory found".to_string(), |i| i.message.clone());
        return Err(Error::new(why));
    }
    Ok(read
        .trajectories
        .into_iter()
        .enumerate()
        .map(|(index, trajectory)| {
            let analysis = analysis::analyze(&trajectory, &shared, lex);
            Annotated {
                bytes: shared.clone(),
                format: trajectory.format,
                index,
                trajectory,
                analysis,
            }
        })
        .collect())
}

/// The one trajectory `index` of a log, read and analysed.
fn one(bytes: &[u8], index: usize) -> Result<Annotated, Error> {
    let mut all = annotate(bytes)?;
    let n = all.len();
    if index >= n {
        return Err(Error::new(format!(
            "trajectory {index} requested, the log holds {n}"
        )));
    }
    Ok(all.swap_remove(index))
}

/// Plans the first trajectory of a log into `budget` tokens (see [`plan::plan`]).
///
/// ```
/// use trajlint::plan::PlanStatus;
/// let log = br#"[
///   {"role": "user", "content": "List the files, then tell me which one is the largest."},
///   {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
///     "function": {"name": "list_files", "arguments": "{}"}}]},
///   {"role": "tool", "tool_call_id": "c1", "content": "a.txt 10\nb.txt 20000\nc.txt 300"},
///   {"role": "assistant", "content": "b.txt is the largest, at 20000 bytes."},
///   {"role": "user", "content": "Thanks, all good."}
/// ]"#;
/// let big = trajlint::plan(log, 1_000_000)?;
/// assert_eq!(big.status, PlanStatus::Fits);
/// let tight = trajlint::plan(log, 1)?;
/// // Either some quiescent turns go, or the plan refuses and says which facts hold the tokens:
/// // never a partial plan that misses the budget.
/// match tight.status {
///     PlanStatus::Planned => assert!(tight.tokens_after <= 1),
///     PlanStatus::Refused => assert!(tight.compact.is_empty() && tight.tokens_after > 1),
///     PlanStatus::Fits => unreachable!(),
/// }
/// # Ok::<(), trajlint::Error>(())
/// ```
pub fn plan(bytes: &[u8], budget: usize) -> Result<plan::Plan, Error> {
    Ok(one(bytes, 0)?.plan(&plan::PlanOptions::new(budget)))
}

/// Probes a candidate `summary` for turns `first..=last` of the first trajectory of a log:
/// which live facts of those turns it carries, which it drops (see [`probe`](mod@probe)).
///
/// ```
/// let log = br#"[
///   {"role": "user", "content": "Is there a config.yaml?"},
///   {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
///     "function": {"name": "read_file", "arguments": "{\"path\": \"config.yaml\"}"}}]},
///   {"role": "tool", "tool_call_id": "c1",
///    "content": "Error: config.yaml: No such file or directory"},
///   {"role": "assistant", "content": "Let me look at the README."}
/// ]"#;
/// let good = trajlint::probe(log, 0, 2, "The user asked for config.yaml; it does not exist.")?;
/// assert!(good.passed());
/// let bad = trajlint::probe(log, 0, 2, "The user asked about the project configuration.")?;
/// assert!(!bad.passed());
/// println!("{}", bad.checked[0].why);
/// # Ok::<(), trajlint::Error>(())
/// ```
pub fn probe(
    bytes: &[u8],
    first: usize,
    last: usize,
    summary: &str,
) -> Result<probe::ProbeReport, Error> {
    one(bytes, 0)?.probe(first, last, summary)
}

impl Annotated {
    /// Reads an in-memory list of messages in OpenAI chat shape (`[{"role", "content",
    /// "tool_calls"}, …]` or `{"messages": [...]}`). Spans refer to
    /// `serde_json::to_vec(messages)`.
    ///
    /// ```
    /// use serde_json::json;
    /// let messages = json!([
    ///     {"role": "system", "content": "You are a coding agent."},
    ///     {"role": "user", "content": "Run the tests."},
    ///     {"role": "assistant", "content": "I will run the tests after fixing the import."}
    /// ]);
    /// let a = trajlint::Annotated::from_openai_messages(&messages)?;
    /// assert_eq!(a.trajectory.turns.len(), 3);
    /// assert!(a.is_live(2)); // an open obligation: the tests are still owed
    /// # Ok::<(), trajlint::Error>(())
    /// ```
    pub fn from_openai_messages(messages: &serde_json::Value) -> Result<Annotated, Error> {
        Annotated::from_messages(messages, Format::OpenaiChat)
    }

    /// Reads an in-memory list of messages in Anthropic Messages shape (`[{"role", "content":
    /// [blocks]}, …]` or `{"system", "messages": [...]}`; `tool_use` / `tool_result` blocks are
    /// calls and results). Spans refer to `serde_json::to_vec(messages)`.
    ///
    /// ```
    /// use serde_json::json;
    /// let messages = json!([
    ///     {"role": "user", "content": "Find the flaky test."},
    ///     {"role": "assistant", "content": [
    ///         {"type": "tool_use", "id": "t1", "name": "grep", "input": {"pattern": "flaky"}}]},
    ///     {"role": "user", "content": [
    ///         {"type": "tool_result", "tool_use_id": "t1", "content": "No matches found"}]}
    /// ]);
    /// let a = trajlint::Annotated::from_anthropic_messages(&messages)?;
    /// assert_eq!(a.trajectory.turns.len(), 3);
    /// assert!(a.is_live(2)); // a null result no turn has acknowledged
    /// # Ok::<(), trajlint::Error>(())
    /// ```
    pub fn from_anthropic_messages(messages: &serde_json::Value) -> Result<Annotated, Error> {
        Annotated::from_messages(messages, Format::Anthropic)
    }

    fn from_messages(messages: &serde_json::Value, format: Format) -> Result<Annotated, Error> {
        let bytes = serde_json::to_vec(messages).map_err(|e| Error::new(e.to_string()))?;
        let mut all = annotate_with(&bytes, Some(format), builtin_lexicon())?;
        Ok(all.swap_remove(0))
    }

    /// Whether turn `t` is live at the end of the log.
    pub fn is_live(&self, t: usize) -> bool {
        self.analysis
            .turns
            .get(t)
            .is_some_and(|v| v.verdict == gate::Verdict::Live)
    }

    /// The annotation contract (`trajlint.annotations/1`) for this trajectory, `file` naming it.
    pub fn to_json(&self, file: &str) -> serde_json::Value {
        report::annotations::to_value(
            file,
            self.index,
            self.format.name(),
            &self.trajectory,
            &self.analysis,
        )
    }

    /// The budget plan for this trajectory (see [`plan::plan`]).
    pub fn plan(&self, opts: &plan::PlanOptions) -> plan::Plan {
        plan::plan(&self.trajectory, &self.analysis, opts)
    }

    /// Probes `summary` against the live facts of turns `first..=last`, with the built-in
    /// lexicon. An error for turns no compactor could replace: outside the trajectory, or a
    /// tool call split from its result (see [`Annotated::check_range`]).
    pub fn probe(
        &self,
        first: usize,
        last: usize,
        summary: &str,
    ) -> Result<probe::ProbeReport, Error> {
        self.probe_with(first, last, summary, builtin_lexicon())
    }

    /// [`Annotated::probe`] with a lexicon of your own.
    pub fn probe_with(
        &self,
        first: usize,
        last: usize,
        summary: &str,
        lex: &Lexicon,
    ) -> Result<probe::ProbeReport, Error> {
        self.check_range(first, last)?;
        let s = probe::Summary::new(summary, lex);
        Ok(probe::probe_span(
            &self.trajectory,
            &self.analysis,
            (first, last),
            &s,
            lex,
        ))
    }

    /// An error unless `first..=last` is a range of this trajectory's turns that a compactor can
    /// replace (see [`gate::range_error`]).
    pub fn check_range(&self, first: usize, last: usize) -> Result<(), Error> {
        match gate::range_error(&self.trajectory, first, last) {
            Some(why) => Err(Error::new(why)),
            None => Ok(()),
        }
    }
}

/// An I/O error in the words every command uses: "no such file or directory", not the OS's
/// "No such file or directory (os error 2)".
pub fn io_why(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file or directory".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        ErrorKind::IsADirectory => "is a directory".into(),
        _ => {
            let text = e.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text);
            let mut chars = text.chars();
            chars
                .next()
                .map_or(String::new(), |c| c.to_lowercase().chain(chars).collect())
        }
    }
}
