//! One trajectory per invocation (`plan`, `probe`): the log, which trajectory of it, its format
//! and lexicon; read, checked and analysed, or a usage error (exit 2).

use std::path::PathBuf;
use trajlint::analysis::Analysis;
use trajlint::extract::lexicon::Lexicon;
use trajlint::formats::ReadOutput;
use trajlint::model::{Format, Trajectory};
use trajlint::source::SourceFile;

#[derive(clap::Args, Clone)]
pub struct OneInput {
    /// The log to read; `-` reads stdin.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Which trajectory of a file that holds several (0-based, in file order).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub trajectory: usize,
    /// Read the input as this format instead of detecting it.
    #[arg(long, value_name = "NAME", value_parser = super::format_parser())]
    pub input_format: Option<Format>,
    #[command(flatten)]
    pub settings: super::SettingsArgs,
}

/// The one trajectory, read and analysed.
pub struct Loaded {
    pub source: SourceFile,
    pub read: ReadOutput,
    pub index: usize,
    pub analysis: Analysis,
    pub lex: Lexicon,
}

impl Loaded {
    pub fn traj(&self) -> &Trajectory {
        &self.read.trajectories[self.index]
    }

    /// The chosen trajectory's format (files joined from two harnesses hold two).
    pub fn format_name(&self) -> &'static str {
        self.traj().format.name()
    }

    /// The log's name as printed in text: a control character in it shown as a picture (a
    /// line break in a file name would break the line it is on).
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        trajlint::report::visible_name(&self.source.name)
    }
}

/// Reads the input and analyses the chosen trajectory; on failure, prints why and returns
/// `Err(())` (the caller exits 2).
pub fn load(input: &OneInput, count_tokens: bool) -> Result<Loaded, ()> {
    // The log is read and parsed while the lexicon compiles.
    let (lex, src) = rayon::join(
        || {
            let config = input.settings.config(&super::working_dir()?)?;
            input.settings.lexicon(&config)
        },
        || {
            let one = if input.path.as_os_str() == "-" {
                super::Input::Stdin
            } else if input.path.is_dir() {
                // (A directory is read when it holds a conversation's event files.)
                super::Input::events_in(&input.path)?
                    .ok_or_else(|| format!("{}: is a directory", super::shown(&input.path)))?
            } else {
                super::Input::Path(input.path.clone())
            };
            let src = super::read_input(&one)?;
            let read = trajlint::formats::read(&src.bytes, input.input_format);
            Ok::<_, String>((src, read))
        },
    );
    let lex = lex.map_err(|e| eprintln!("error: {e}"))?;
    let (src, read) = src.map_err(|e| eprintln!("error: {e}"))?;
    let report = trajlint::FileReport {
        source: src,
        read,
        analyses: Vec::new(),
    };
    if super::print_read_issues(&report) {
        return Err(());
    }
    let trajlint::FileReport { source, read, .. } = report;
    let n = read.trajectories.len();
    if input.trajectory >= n {
        eprintln!(
            "error: {}: --trajectory {} requested, the file holds {n} (0..{})",
            trajlint::report::visible_name(&source.name),
            input.trajectory,
            n.saturating_sub(1)
        );
        return Err(());
    }
    if n > 1 {
        // (Not silently the first of many: a file of episodes is common.)
        eprintln!(
            "note: {}: trajectory {} of the {n} the file holds (--trajectory picks another)",
            trajlint::report::visible_name(&source.name),
            input.trajectory
        );
    }
    let analysis = trajlint::analysis::analyze_with(
        &read.trajectories[input.trajectory],
        &source.bytes,
        &lex,
        count_tokens,
    );
    Ok(Loaded {
        source,
        read,
        index: input.trajectory,
        analysis,
        lex,
    })
}

/// A fact as the plan and probe JSON list it.
#[derive(serde::Serialize)]
pub struct FactOut<'a> {
    pub id: usize,
    pub kind: trajlint::extract::FactKind,
    pub subkind: trajlint::extract::Subkind,
    pub turn: usize,
    pub bytes: trajlint::source::Span,
    /// 1-based line and column of `bytes.start` in the file.
    pub line: usize,
    pub column: usize,
    pub text: &'a str,
    pub status: trajlint::extract::Status,
}

pub fn fact_out<'a>(l: &'a Loaded, id: usize) -> FactOut<'a> {
    let f = &l.analysis.facts[id];
    let (line, column) = l.source.line_col(f.span.start);
    FactOut {
        id,
        kind: f.kind(),
        subkind: f.subkind,
        turn: f.turn,
        bytes: f.span,
        line,
        column,
        text: &f.text,
        status: f.status,
    }
}

/// A fact on one line for text output: `[id] kind/subkind status, turn T (line:col): "text"`.
pub fn fact_line(l: &Loaded, id: usize) -> String {
    let f = &l.analysis.facts[id];
    let (line, col) = l.source.line_col(f.span.start);
    let text = trajlint::lint::short(&f.text, 110);
    format!(
        "[{id}] {}, turn {} ({}:{line}:{col}, bytes {}..{}): \"{text}\"",
        f.label(),
        f.turn,
        l.name(),
        f.span.start,
        f.span.end
    )
}
