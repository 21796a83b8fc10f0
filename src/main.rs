//! The command line, and nothing else: argument parsing, input collection, output, exit codes.

mod cli;

use clap::{Parser, Subcommand};
use cli::annotate::AnnotateFormat;
use cli::InputArgs;
use std::process::ExitCode;

// The analysis allocates many small vectors and strings:
// mimalloc cuts the allocator's share of a `plan` run (about a sixth with the system one).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "trajlint", version, about = "Static analysis of AI-agent trajectories: what is still live, and what a compactor may replace.", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Annotate every turn: facts, verdicts (live/quiescent) and compactable ranges (exit 0, or 2
    /// when an input could not be read, what could be read still written, or the output could
    /// not be written).
    Annotate {
        #[command(flatten)]
        input: InputArgs,
        /// Output format: `json` (one JSON object per trajectory per line) or `text` (a line per
        /// turn, LIVE marked, its calls and facts under it: `<- turn N` settled by turn N, `->
        /// turn N` bound to its antecedent there, `candidates:` other turns it may point at,
        /// kept live with it; then the ranges compactable now). `--output-format` is taken too.
        #[arg(long, alias = "output-format", value_enum, default_value_t = AnnotateFormat::Json)]
        format: AnnotateFormat,
    },
    /// Plan what to shed and compact so that the trajectory fits a token budget (exit 0); refuse
    /// (exit 3) when only compacting what must stay (live turns, the system prompt, the
    /// --keep-recent last turns, calls or results that cannot leave without their pair) would
    /// fit it (2: usage, unreadable input or unwritable output).
    Plan(cli::plan::PlanArgs),
    /// The contradiction probe: does a summary carry every live fact of the turns it replaces?
    /// Without --summary, probes the compactions recorded in the log (exit 0 every fact carried,
    /// 1 some dropped, 2 usage, unreadable input or unwritable output).
    Probe(cli::probe::ProbeArgs),
    /// The CI gate: run the rules over logs and report findings (exit 0 clean, 1 findings at
    /// or above --fail-on, 2 usage, configuration, unreadable input or unwritable output).
    Check(Box<cli::check::CheckArgs>),
    /// Print a rule's documentation (or each rule's under a code prefix).
    Rule(cli::rules::RuleArgs),
    /// Print the documentation of every rule (`--list` for one line each).
    Rules(cli::rules::RulesArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go out as every command's output does: clap's own printing drops a
        // write error, and `--help > full-disk` would exit 0 with nothing written.
        Err(e) if !e.use_stderr() => {
            // (Styled where clap would style it: a terminal, unless NO_COLOR, TERM=dumb, ...)
            let text = match cli::styled_stdout() {
                true => e.render().ansi().to_string(),
                false => e.render().to_string(),
            };
            return match cli::emit(&text) {
                true => ExitCode::SUCCESS,
                false => ExitCode::from(2),
            };
        }
        Err(e) => e.exit(),
    };
    match cli.command {
        Command::Annotate { input, format } => cli::annotate::annotate(&input, format),
        Command::Plan(args) => cli::plan::run(&args),
        Command::Probe(args) => cli::probe::run(&args),
        Command::Check(mut args) => {
            // (`-o -` is standard output, as `-` among the inputs is standard input.)
            args.output_file.take_if(|p| p.as_os_str() == "-");
            cli::check::run(&args)
        }
        Command::Rule(args) => cli::rules::rule(&args),
        Command::Rules(args) => cli::rules::rules(&args),
    }
}
