//! `trajlint check`: the CI gate. Reads files, directories (walked, ignore files respected) and
//! stdin in parallel, runs the selected rules, prints the findings in input order in the chosen
//! format, and exits 0 (nothing at or above the fail level), 1 (findings) or 2 (usage,
//! configuration, unreadable input, or no log found).

use super::{
    collect_inputs, display_name, for_each_mapped, no_log_found, FileId, Input, InputArgs, Named,
};
use clap::ValueEnum;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use trajlint::extract::lexicon::Lexicon;
use trajlint::formats::Severity as ReadSeverity;
use trajlint::lint::baseline::{self, Baseline};
use trajlint::lint::config::{normalize, relative_parts, Config};
use trajlint::lint::{
    check_file, Catalogue, Finding, RuleKind, Selection, SelectionLayer, Severity,
};
use trajlint::report::output::{
    plural, FileResult, InputError, Position, ReaderWarning, Renderer, RunSummary, Statistics,
    StatisticsForm,
};
use trajlint::report::{concise, full, github, json, junit, sarif, visible_name};
use trajlint::FileReport;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Each finding with the excerpt of the log around it, labels and help (miette).
    Full,
    /// One line per finding: `file:line:col: severity[CODE] message`.
    Concise,
    /// One JSON array of every finding.
    Json,
    /// One JSON object per finding per line.
    JsonLines,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
    /// JUnit XML, one test case per file.
    Junit,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// How to print the findings [default: full, or `output-format` in trajlint.toml]
    /// (`--format` is taken too, as the other commands name it).
    #[arg(long, alias = "format", value_enum, value_name = "FORMAT")]
    pub output_format: Option<OutputFormat>,
    /// Write the findings to this file instead of stdout (`-`: stdout).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Rules to run (code, code prefix, name, or ALL; comma-separated or repeated), replacing
    /// the configured selection.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Option<Vec<String>>,
    /// Rules to run in addition to the selection (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub extend_select: Vec<String>,
    /// Rules not to run (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,
    /// Override a rule's severity, e.g. `--severity OB001=error` or `--severity CP=info,NR=error`.
    #[arg(long, value_delimiter = ',', value_name = "RULE=SEVERITY", value_parser = parse_override)]
    pub severity: Vec<(String, Severity)>,
    /// Exit 1 when a finding is at or above this severity: info, warning or error [default:
    /// warning, or `fail-on` in trajlint.toml].
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub fail_on: Option<Severity>,
    /// Exit 0 even when there are findings (still 2 on errors).
    #[arg(long)]
    pub exit_zero: bool,
    /// Leave out the findings this baseline file holds.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every current finding to this baseline file (and print none); a run that cannot
    /// read an input leaves the file as it was (exit 2).
    #[arg(long, value_name = "FILE", conflicts_with = "output_file")]
    pub write_baseline: Option<PathBuf>,
    /// Print the number of findings per rule instead of the findings (a row a rule: count, code,
    /// name, tab-separated; then the total). JSON forms: --output-format json or json-lines.
    #[arg(long, conflicts_with = "write_baseline")]
    pub statistics: bool,
    /// The name to give the input read from stdin (for output, per-path ignores, fingerprints).
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<String>,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

fn parse_severity(s: &str) -> Result<Severity, String> {
    s.parse()
}

fn parse_override(s: &str) -> Result<(String, Severity), String> {
    let (rule, sev) = s
        .split_once('=')
        .ok_or_else(|| format!("expected RULE=SEVERITY, got `{s}`"))?;
    Ok((rule.trim().to_string(), sev.trim().parse()?))
}

fn usage_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// What the parallel step hands to the ordered step for one input.
struct Outcome {
    /// The file's path from the project root, as fingerprints and baseline entries name it.
    key: String,
    /// Read diagnostics for stderr.
    diagnostics: String,
    /// The format's output for this file.
    chunk: Vec<u8>,
    findings: Vec<Finding>,
    baselined: Vec<String>,
    /// Why it could not be read, and where.
    error: Option<InputError>,
    /// The reader's warnings, for the formats that carry them.
    warnings: Vec<ReaderWarning>,
    /// Not a trajectory, found by walking a directory: skipped, not counted.
    skipped: bool,
}

/// Where the findings go: written as they come, or held back for a format whose header needs
/// the run's summary.
struct Output<'a> {
    sink: Box<dyn Write + 'a>,
    renderer: &'a dyn Renderer,
    body: Option<Vec<u8>>,
    wrote_any: bool,
    /// The reader went away (`| head`): nothing more is written, and that is no error.
    closed: bool,
}

impl Output<'_> {
    /// A write's result, a closed pipe taken as the reader's choice to stop reading.
    fn quiet(&mut self, res: std::io::Result<()>) -> std::io::Result<()> {
        match res {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            res => res,
        }
    }

    fn header(&mut self) -> std::io::Result<()> {
        let res = self.renderer.header(&mut self.sink, None);
        self.quiet(res)
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let res = self.write(bytes);
        self.quiet(res)
    }

    fn finish(&mut self, run: &RunSummary) -> std::io::Result<()> {
        let res = self.write_end(run);
        self.quiet(res)
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.is_empty() || self.closed {
            return Ok(());
        }
        let sep = if self.wrote_any {
            self.renderer.separator()
        } else {
            b""
        };
        self.wrote_any = true;
        match &mut self.body {
            Some(body) => {
                body.extend_from_slice(sep);
                body.extend_from_slice(bytes);
                Ok(())
            }
            None => {
                self.sink.write_all(sep)?;
                self.sink.write_all(bytes)
            }
        }
    }

    fn write_end(&mut self, run: &RunSummary) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        if let Some(body) = self.body.take() {
            self.renderer.header(&mut self.sink, Some(run))?;
            self.sink.write_all(&body)?;
        }
        self.renderer.footer(&mut self.sink, run)?;
        self.sink.flush()
    }
}

/// Everything the per-file step needs, shared by the threads.
struct Plan<'a> {
    cat: &'static Catalogue,
    selection: Selection,
    config: Config,
    cwd: PathBuf,
    explicit: Named,
    baseline: Option<Baseline>,
    renderer: &'a dyn Renderer,
    stdin_name: Option<String>,
    lex: &'a Lexicon,
}

/// What the configuration file and the flags decide together.
struct Settings {
    config: Config,
    format: OutputFormat,
    selection: Selection,
    fail_on: Severity,
    lex: Lexicon,
    baseline: Option<Baseline>,
}

/// Reads the configuration (flags over `trajlint.toml`), the lexicon and the baseline.
fn settings(args: &CheckArgs, cwd: &Path, cat: &Catalogue) -> Result<Settings, String> {
    let config = args.input.settings.config(cwd)?;
    let format = match (args.output_format, &config.output_format) {
        (Some(f), _) => f,
        // (The configuration checked the name against the same list.)
        (None, Some(name)) => OutputFormat::from_str(name, false)
            .map_err(|_| format!("unknown output format `{name}`"))?,
        (None, None) => OutputFormat::Full,
    };
    let cli_layer = SelectionLayer {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
        severity: args.severity.clone(),
    };
    let selection = Selection::resolve(cat, &[config.layer.clone(), cli_layer])?;
    let fail_on = args.fail_on.or(config.fail_on).unwrap_or(Severity::Warning);
    let lex = args.input.settings.lexicon(&config)?;
    // Writing a baseline starts afresh: the old one is not applied.
    let baseline = match (
        args.baseline.as_ref().or(config.baseline.as_ref()),
        &args.write_baseline,
    ) {
        (Some(p), None) => Some(Baseline::load(p).map_err(|e| {
            // (Where it was named: the flag, or the configuration.)
            match (&args.baseline, &config.file) {
                (Some(_), _) => format!("{e} (named by --baseline)"),
                (None, Some(f)) => format!("{e} (`baseline` in {})", f.display()),
                (None, None) => e,
            }
        })?),
        _ => None,
    };
    Ok(Settings {
        config,
        format,
        selection,
        fail_on,
        lex,
        baseline,
    })
}

/// The renderer for the chosen format.
fn renderer(args: &CheckArgs, s: &Settings, cat: &Catalogue, cwd: &Path) -> Box<dyn Renderer> {
    if args.statistics {
        let form = match s.format {
            OutputFormat::Json => StatisticsForm::Json,
            OutputFormat::JsonLines => StatisticsForm::JsonLines,
            _ => StatisticsForm::Text,
        };
        return Box::new(Statistics { form });
    }
    let tty = std::io::stdout().is_terminal() && args.output_file.is_none();
    match s.format {
        OutputFormat::Full => {
            let color = args.output_file.is_none() && super::styled_stdout();
            let width = if tty {
                terminal_size::terminal_size().map_or(100, |(w, _)| usize::from(w.0).max(60))
            } else {
                100
            };
            Box::new(full::Full::new(color, width))
        }
        OutputFormat::Concise => Box::new(concise::Concise),
        OutputFormat::Json => Box::new(json::Json),
        OutputFormat::JsonLines => Box::new(json::JsonLines),
        OutputFormat::Sarif => Box::new(sarif::Sarif::new(
            s.selection.active(cat, &[]),
            cwd,
            env!("CARGO_PKG_VERSION"),
        )),
        OutputFormat::Github => Box::new(github::Github),
        OutputFormat::Junit => Box::new(junit::Junit { fail_on: s.fail_on }),
    }
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let cwd = match super::working_dir() {
        Ok(d) => d,
        Err(e) => return usage_error(e),
    };
    let cat = Catalogue::builtin();
    let settings = match settings(args, &cwd, cat) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    // (Counts per rule have a text and a JSON form; the report formats have no place for them.
    // A report format trajlint.toml names is the findings' form: the counts print as text.)
    if args.statistics
        && matches!(
            args.output_format,
            Some(OutputFormat::Sarif | OutputFormat::Github | OutputFormat::Junit)
        )
    {
        return usage_error(
            "--statistics prints counts as text, or as JSON with --output-format json \
             (json-lines: an object a line); it has no sarif, github or junit form",
        );
    }
    // (A selection that leaves no rule, `--ignore ALL`, passes every log: say so.)
    if settings.selection.active(cat, &[]).is_empty() {
        eprintln!("warning: no rule is selected: nothing is checked but that the logs can be read");
    }
    let renderer = renderer(args, &settings, cat, &cwd);
    let Settings {
        config,
        selection,
        fail_on,
        lex,
        baseline,
        ..
    } = settings;
    if args.stdin_filename.is_some() && !args.input.paths.iter().any(|p| p.as_os_str() == "-") {
        eprintln!("warning: --stdin-filename is not used: no path is `-` (standard input)");
    }
    let mut inputs = collect_inputs(&args.input.paths);
    // (By file: the one input a file named twice makes may be the one a walk met, and a
    // named hard link or standard input may be the file a walk met.)
    let named = Named::new(&args.input.paths);
    let excluded_by = super::drop_excluded(&mut inputs, &named, &config, &cwd);

    if let Err(why) = keep_inputs_safe(args, config.baseline.as_deref(), &mut inputs) {
        return usage_error(why);
    }

    let sink: Box<dyn Write> = match &args.output_file {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => return usage_error(format!("{}: {}", p.display(), super::why(&e))),
        },
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let writing_baseline = args.write_baseline.is_some();

    let plan = Plan {
        cat,
        selection,
        config,
        cwd,
        explicit: named,
        baseline,
        renderer: renderer.as_ref(),
        stdin_name: args.stdin_filename.clone(),
        lex: &lex,
    };

    let mut summary = RunSummary {
        fail_on: Some(fail_on),
        ..Default::default()
    };
    let progress = (!args.no_progress && std::io::stderr().is_terminal() && inputs.len() >= 20)
        .then(|| {
            let pb = indicatif::ProgressBar::new(inputs.len() as u64);
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} checking {pos}/{len} files [{elapsed}] {wide_bar} {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            pb
        });

    let mut output = Output {
        sink,
        renderer: plan.renderer,
        body: plan.renderer.buffered().then(Vec::new),
        wrote_any: false,
        closed: false,
    };
    let mut io_error: Option<std::io::Error> = None;
    if output.body.is_none() && !writing_baseline {
        if let Err(e) = output.header() {
            io_error = Some(e);
        }
    }
    let mut baseline_entries: Vec<baseline::Entry> = Vec::new();
    let mut matched: HashSet<String> = HashSet::new();
    let mut checked: HashSet<String> = HashSet::new();
    let mut skipped = 0;

    for_each_mapped(
        &inputs,
        args.input.input_format,
        &lex,
        |input, report| one_file(&plan, input, report, writing_baseline),
        |o: Outcome| {
            if let Some(pb) = &progress {
                pb.inc(1);
            }
            if !o.diagnostics.is_empty() {
                match &progress {
                    Some(pb) => pb.suspend(|| eprint!("{}", o.diagnostics)),
                    None => eprint!("{}", o.diagnostics),
                }
            }
            summary.warnings.extend(o.warnings);
            if o.skipped {
                skipped += 1;
                return;
            }
            summary.files += 1;
            // (By its path from the root, as baseline entries name it.)
            checked.insert(o.key.clone());
            if let Some(e) = o.error {
                summary.errors.push(e);
            }
            summary.baselined += o.baselined.len();
            matched.extend(o.baselined);
            if !o.findings.is_empty() {
                summary.files_with_findings += 1;
            }
            if o.findings.iter().any(|f| f.severity >= fail_on) {
                summary.failing_files += 1;
            }
            for f in &o.findings {
                summary.add(f);
            }
            if writing_baseline {
                baseline_entries.extend(o.findings.iter().map(|f| baseline::Entry {
                    file: o.key.clone(),
                    ..baseline::Entry::of(f)
                }));
            } else {
                let res = match &progress {
                    Some(pb) => pb.suspend(|| output.put(&o.chunk)),
                    None => output.put(&o.chunk),
                };
                if let Err(e) = res {
                    io_error.get_or_insert(e);
                }
            }
        },
    );
    if let Some(pb) = &progress {
        pb.finish_and_clear();
    }
    if let Some(b) = &plan.baseline {
        summary.stale_baseline = b.stale(&matched, &checked);
        // Entries name files by their path from trajlint.toml's directory (or the working
        // directory): a baseline written from elsewhere names files that are not there from
        // here and matches nothing, which is said, not passed over.
        if summary.files > 0
            && matched.is_empty()
            && !b.names_any(&checked)
            && b.names_only_missing(&plan.config.root)
        {
            eprintln!(
                "warning: the baseline names none of the files checked: its paths are from the \
                 directory it was written in (or trajlint.toml's); run from there, or write it again"
            );
        }
    }
    let no_log = summary.files == 0 && summary.errors.is_empty();
    if no_log {
        let why = no_log_found(&args.input.paths, skipped) + excluded_by.as_deref().unwrap_or("");
        eprintln!("error: {why}");
        summary.no_log = Some(why);
    }

    if let Some(path) = &args.write_baseline {
        // A baseline written from a run that missed inputs would drop their entries (or, with
        // no log found, all of them): the one there stays as it is.
        if !summary.errors.is_empty() || no_log {
            let missed = summary.errors.len();
            eprintln!(
                "error: the baseline {} is left as it was: {}",
                path.display(),
                if no_log {
                    "no log was checked".to_string()
                } else {
                    format!(
                        "{missed} {} could not be read (written now, it would lose {} findings)",
                        plural(missed, "input", "inputs"),
                        plural(missed, "its", "their")
                    )
                }
            );
            return ExitCode::from(2);
        }
        let n = baseline_entries.len();
        if let Err(e) = baseline::write(path, baseline_entries) {
            return usage_error(format!("{}: {}", path.display(), super::why(&e)));
        }
        eprintln!(
            "Wrote {n} {} to the baseline {}.",
            plural(n, "finding", "findings"),
            path.display()
        );
        return ExitCode::SUCCESS;
    }

    if let Err(e) = output.finish(&summary) {
        io_error.get_or_insert(e);
    }
    if let Some(e) = io_error {
        eprintln!("error: writing output: {}", super::why(&e));
        return ExitCode::from(2);
    }
    if !summary.errors.is_empty() || no_log {
        ExitCode::from(2)
    } else if summary.failing() > 0 && !args.exit_zero {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The files this run writes (`-o`, `--write-baseline`) never overwrite what it reads: a log
/// among the inputs, walked or named, or the baseline it keeps (`--baseline`), is refused
/// before anything is written (creating the output first would empty it). A file of the run's
/// own that a walk meets and that is no log (an earlier report, the baseline) is left out.
fn keep_inputs_safe(
    args: &CheckArgs,
    config_baseline: Option<&Path>,
    inputs: &mut Vec<Input>,
) -> Result<(), String> {
    // (Only a regular file is destroyed by writing it: not /dev/null, a pipe or a terminal.)
    let writes: Vec<(&Path, FileId)> =
        [args.output_file.as_deref(), args.write_baseline.as_deref()]
            .into_iter()
            .flatten()
            .filter(|p| p.is_file())
            .filter_map(|p| Some((p, FileId::of(p)?)))
            .collect();
    // (Writing a baseline reads none: refreshing one in place is how it is kept up to date.)
    let kept = args
        .baseline
        .as_deref()
        .or(config_baseline)
        .filter(|_| args.write_baseline.is_none())
        .and_then(|p| Some((p, FileId::of(p)?)));
    if writes.is_empty() && kept.is_none() {
        return Ok(());
    }
    let written = |id: &FileId| writes.iter().find(|(_, w)| w == id).map(|&(w, _)| w);
    let refuse = |what: &str, target: &Path| {
        Err(format!(
            "{}: is {what} and the file to write (-o or --write-baseline): writing it would destroy it",
            target.display()
        ))
    };
    if let Some(t) = kept.as_ref().and_then(|(_, id)| written(id)) {
        return refuse("the baseline this run reads", t);
    }
    let explicit = Named::new(&args.input.paths);
    let mut left_out = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        match input {
            Input::Path(p) => {
                let Some(id) = FileId::of(p) else {
                    continue;
                };
                let named = explicit.contains_id(&id);
                if let Some(t) = written(&id) {
                    // (A format given on the command line makes every file read a log.)
                    let a_log = args.input.input_format.is_some()
                        || std::fs::read(p)
                            .is_ok_and(|b| trajlint::formats::detect::detect(&b).is_some());
                    if named || a_log {
                        return refuse("an input", t);
                    }
                    left_out.push(k);
                } else if !named && kept.as_ref().is_some_and(|(_, kept)| *kept == id) {
                    left_out.push(k);
                }
            }
            Input::Events { files, .. } => {
                if let Some(t) = files.iter().find_map(|f| written(&FileId::of(f)?)) {
                    return refuse("an input", t);
                }
            }
            // (Standard input redirected from a file: `check - -o log.jsonl < log.jsonl`.)
            Input::Stdin => {
                if let Some(t) = FileId::of_stdin().and_then(|id| written(&id)) {
                    return refuse("the standard input", t);
                }
            }
            _ => {}
        }
    }
    for k in left_out.into_iter().rev() {
        inputs.remove(k);
    }
    Ok(())
}

/// What standard input is called: `--stdin-filename`, or `-`.
fn stdin_name(plan: &Plan<'_>) -> String {
    plan.stdin_name.clone().unwrap_or_else(|| "-".into())
}

/// The parallel step for one input: read diagnostics, lint, baseline, render.
fn one_file(
    plan: &Plan<'_>,
    input: &Input,
    report: Result<FileReport, String>,
    writing_baseline: bool,
) -> Outcome {
    let path = input.path();
    let mut report = match report {
        Ok(r) => r,
        Err(e) => {
            let name = path.map_or_else(|| stdin_name(plan), display_name);
            let key = path.map_or_else(|| name.clone(), |p| plan.config.relative(p, &plan.cwd));
            // (The reason alone: the formats name the file themselves.)
            let prefix = format!("{}: ", path.map_or("-".into(), super::shown));
            let why = e.strip_prefix(&prefix).map_or(e.clone(), str::to_string);
            return failed(plan, path, (name, key), String::new(), why, None);
        }
    };
    if path.is_none() {
        report.source.name = stdin_name(plan);
    }
    let name = path.map_or_else(|| report.source.name.clone(), display_name);
    let key_path: PathBuf = path.map_or_else(|| PathBuf::from(&name), Path::to_path_buf);
    let rel = plan.config.relative(&key_path, &plan.cwd);

    // Read diagnostics: errors and warnings (notes are for `annotate`).
    let mut diagnostics = String::new();
    let explicit = path.is_none_or(|p| plan.explicit.contains(p));
    if let Some(why) = report.read.not_a_log.filter(|_| !explicit) {
        let shown = visible_name(&name);
        diagnostics.push_str(&format!("{shown}: warning: skipped: {why}\n"));
        // An empty file is most likely a run that wrote nothing: the machine formats say so
        // too (GitHub annotations, SARIF notifications), where a `package.json` skipped is
        // only said on stderr.
        let warnings = (why == trajlint::formats::EMPTY)
            .then(|| ReaderWarning {
                uri: uri_of(path, &name, &plan.cwd),
                name: name.clone(),
                line: 1,
                column: 1,
                message: format!("skipped: {why} (a run that wrote nothing?)"),
            })
            .into_iter()
            .collect();
        return Outcome {
            key: rel,
            diagnostics,
            chunk: Vec::new(),
            findings: Vec::new(),
            baselined: Vec::new(),
            error: None,
            warnings,
            skipped: true,
        };
    }
    let ignored = plan.config.ignored_for(&rel);
    let active = plan.selection.active(plan.cat, &ignored);
    // (A record lost in a file otherwise read is a finding of `unreadable-record` when that
    // rule runs: reported once, where the findings go.)
    let lost_is_finding = !report.read.trajectories.is_empty()
        && active
            .iter()
            .any(|a| a.rule.kind == RuleKind::UnreadableRecord);
    let mut warnings = Vec::new();
    for issue in &report.read.issues {
        let sev = match issue.severity {
            ReadSeverity::Error if lost_is_finding => continue,
            ReadSeverity::Error => "error",
            ReadSeverity::Warning => "warning",
            ReadSeverity::Note => continue,
        };
        if issue.severity == ReadSeverity::Warning {
            let (part, line, column) = report.source.place(issue.span.start);
            let (file, uri) = match part.and_then(|k| report.source.parts().get(k)) {
                Some((_, p)) => {
                    let n = display_name(p);
                    let u = uri_of(Some(p), &n, &plan.cwd);
                    (n, u)
                }
                None => (name.clone(), uri_of(path, &name, &plan.cwd)),
            };
            warnings.push(ReaderWarning {
                name: file,
                uri,
                line,
                column,
                message: issue.message.clone(),
            });
        }
        let at = super::position(&report.source, &name, issue.span.start);
        diagnostics.push_str(&format!("{at}: {sev}: {}\n", issue.message));
        if let Some(h) = &issue.help {
            diagnostics.push_str(&format!("  help: {h}\n"));
        }
    }
    if report.read.trajectories.is_empty() {
        let first_error = report
            .read
            .issues
            .iter()
            .find(|i| i.severity == ReadSeverity::Error);
        let why = first_error.map_or("no trajectory could be read".to_string(), |i| {
            i.message.clone()
        });
        // (In the file as named: not for a log joined from event files.)
        let at = first_error
            .map(|i| report.source.place(i.span.start))
            .and_then(|(part, line, column)| part.is_none().then_some(Position { line, column }));
        return failed(plan, path, (name, rel), diagnostics, why, at);
    }

    let display: Arc<str> = Arc::from(name.as_str());
    let mut findings = check_file(&report, &active, plan.lex, &display, &rel);
    let mut baselined = Vec::new();
    if let (Some(b), false) = (&plan.baseline, writing_baseline) {
        findings.retain(|f| {
            let known = b.contains(&f.fingerprint);
            if known {
                baselined.push(f.fingerprint.clone());
            }
            !known
        });
    }
    let uri = uri_of(path, &name, &plan.cwd);
    // (A conversation kept one event per file: findings are placed in the events' own files.)
    let parts: Vec<(String, String)> = report
        .source
        .parts()
        .iter()
        .map(|(_, p)| {
            let name = display_name(p);
            let uri = uri_of(Some(p), &name, &plan.cwd);
            (name, uri)
        })
        .collect();
    let chunk = if writing_baseline {
        Vec::new()
    } else {
        plan.renderer.file(&FileResult {
            name: &name,
            uri: &uri,
            source: Some(&report.source),
            findings: &findings,
            error: None,
            error_at: None,
            parts: &parts,
        })
    };
    Outcome {
        key: rel,
        diagnostics,
        chunk,
        findings,
        baselined,
        error: None,
        warnings,
        skipped: false,
    }
}

fn failed(
    plan: &Plan<'_>,
    path: Option<&Path>,
    (name, key): (String, String),
    mut diagnostics: String,
    why: String,
    at: Option<Position>,
) -> Outcome {
    if diagnostics.is_empty() {
        diagnostics = format!("{}: error: {why}\n", visible_name(&name));
    }
    let uri = uri_of(path, &name, &plan.cwd);
    let chunk = plan.renderer.file(&FileResult {
        name: &name,
        uri: &uri,
        source: None,
        findings: &[],
        error: Some(&why),
        error_at: at,
        parts: &[],
    });
    Outcome {
        key,
        diagnostics,
        chunk,
        findings: Vec::new(),
        baselined: Vec::new(),
        error: Some(InputError { name, uri, at, why }),
        warnings: Vec::new(),
        skipped: false,
    }
}

/// The URI reference of an input relative to the working directory; an absolute `file://` URI,
/// canonical (SARIF asks a producer to resolve `..`), for one outside it (a viewer cannot map
/// `../../x` to a checkout).
///
/// Standard input is named by `--stdin-filename` as a path is (`-` stays `-`).
fn uri_of(path: Option<&Path>, name: &str, cwd: &Path) -> String {
    let named = PathBuf::from(name);
    let path = match path {
        Some(p) => p,
        None if name == "-" => return name.into(),
        None => &named,
    };
    let rel: PathBuf = relative_parts(path, cwd, cwd).into_iter().collect();
    if rel.starts_with("..") {
        // (A path that is not there, as a missing input, is made absolute as it is.)
        let abs = path
            .canonicalize()
            .or_else(|_| std::path::absolute(path).map(|a| normalize(&a)));
        if let Ok(abs) = abs {
            return format!("file://{}", sarif::encode_os_path(&abs));
        }
    }
    sarif::encode_os_path(&rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_knows_every_output_format() {
        let names: Vec<String> = OutputFormat::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| p.get_name().to_string())
            .collect();
        assert_eq!(names, trajlint::lint::config::OUTPUT_FORMATS);
    }
}
