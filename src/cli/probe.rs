//! `trajlint probe`: the contradiction probe.
//!
//! - `--summary FILE --turns A..B PATH`: does the candidate summary carry every live fact of turns
//!   A..B (inclusive, 0-based)? Exit 0 when it does, 1 when it drops some (each named with its
//!   span), 2 for usage errors, unreadable input or an unwritable output.
//! - `--reversible --turns A..B`: the original stays addressable, which satisfies condition 5 of
//!   the verdict without a probe: says so and exits 0.
//! - `PATH` alone: probes the compactions already recorded in the log (their summary turns
//!   against the turns they replaced), the same check as `annotate`'s `compactions[].dropped`.
//!
//! `--turns`, when given, must be a range of the trajectory that never splits a tool call from its
//! result (exit 2 otherwise).

use super::emit;
use super::single::{fact_line, fact_out, load, Loaded, OneInput};
use clap::ValueEnum;
use std::fmt::Write as _;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use trajlint::probe::{ProbeReport, Summary};

/// The JSON schema name and version of `probe --format json`.
pub const SCHEMA: &str = "trajlint.probe/1";

#[derive(Clone, Copy, ValueEnum)]
pub enum ProbeFormat {
    Text,
    Json,
}

#[derive(clap::Args, Clone)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub input: OneInput,
    /// The candidate summary (plain text); `-` reads stdin.
    #[arg(long, value_name = "FILE", requires = "turns")]
    pub summary: Option<PathBuf>,
    /// The turns the summary replaces: `A..B`, inclusive, 0-based (`A` alone for one turn).
    #[arg(long, value_name = "A..B", value_parser = parse_turns)]
    pub turns: Option<(usize, usize)>,
    /// The original turns stay addressable after compaction: condition 5 is satisfied without
    /// a probe.
    #[arg(long, requires = "turns")]
    pub reversible: bool,
    /// Output format (`--output-format` is taken too, as `check` names it).
    #[arg(long, alias = "output-format", value_enum, default_value_t = ProbeFormat::Text)]
    pub format: ProbeFormat,
}

/// `A..B`, `A..=B` or `A`.
pub fn parse_turns(s: &str) -> Result<(usize, usize), String> {
    let num = |x: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}`: expected A..B with turn numbers"))
    };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let a = num(s)?;
            (a, a)
        }
    };
    if a > b {
        return Err(format!("`{s}`: the first turn is after the last"));
    }
    Ok((a, b))
}

pub fn run(args: &ProbeArgs) -> ExitCode {
    if args.summary.is_none() && args.turns.is_some() && !args.reversible {
        eprintln!("error: --turns needs --summary FILE (or --reversible)");
        return ExitCode::from(2);
    }
    if args
        .summary
        .as_deref()
        .is_some_and(|p| p.as_os_str() == "-")
        && args.input.path.as_os_str() == "-"
    {
        eprintln!("error: the summary and the log cannot both be read from stdin");
        return ExitCode::from(2);
    }
    let Ok(l) = load(&args.input, false) else {
        return ExitCode::from(2);
    };
    // The range must be one a compactor can replace: in the trajectory, and never splitting a
    // tool call from its result (reversible or not).
    if let Some((a, b)) = args.turns {
        if let Some(why) = trajlint::gate::range_error(l.traj(), a, b) {
            eprintln!("error: --turns: {} trajectory {}: {why}", l.name(), l.index);
            return ExitCode::from(2);
        }
        // (Probed all the same: the check is the caller's to ask; but the agent no longer
        // sees those turns, so no compaction of them is due.)
        let window = trajlint::plan::window_start(l.traj());
        if a < window {
            eprintln!(
                "warning: --turns {a}..{b}: {} trajectory {}: turns before {window} lie before the latest compaction: the agent no longer sees them",
                l.name(),
                l.index
            );
        }
    }
    if args.reversible {
        if args.summary.is_some() {
            eprintln!("note: --summary is not read: a reversible compaction needs no probe");
        }
        return reversible(args, &l);
    }
    let (reports, summary_name) = match (&args.summary, args.turns) {
        (Some(file), Some((a, b))) => {
            let text = match read_summary(file) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let s = Summary::new(&text, &l.lex);
            let r = trajlint::probe::probe_span(l.traj(), &l.analysis, (a, b), &s, &l.lex);
            (vec![r], Some(file.display().to_string()))
        }
        _ => (l.analysis.audits.clone(), None),
    };
    let out = match args.format {
        ProbeFormat::Json => json(&l, &reports, summary_name.as_deref()),
        ProbeFormat::Text => {
            trajlint::report::visible(&text(&l, &reports, summary_name.as_deref())).into_owned()
        }
    };
    if !emit(&out) {
        return ExitCode::from(2);
    }
    if reports.iter().all(|r| r.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn read_summary(file: &PathBuf) -> Result<String, String> {
    let mut buf = Vec::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("-: {e}"))?;
    } else {
        buf = std::fs::read(file)
            .map_err(|e| format!("{}: {}", super::shown(file), super::why(&e)))?;
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// A reversible compaction of `--turns`: nothing to probe; the JSON is a probe record like any
/// other, `checked` naming each live fact of the range, which stays addressable (carried, no
/// place in a summary): the caller sees what it takes out of view.
fn reversible(args: &ProbeArgs, l: &Loaded) -> ExitCode {
    const WHY: &str = "stays addressable: the compaction is reversible";
    let (a, b) = args.turns.unwrap_or((0, 0));
    let live = trajlint::probe::owed_in(&l.analysis, a, b);
    let written = match args.format {
        ProbeFormat::Json => {
            let out = ProbeOut {
                schema: SCHEMA,
                file: &l.source.name,
                trajectory: l.index,
                format: l.format_name(),
                bytes_exact: !l.traj().compressed,
                compaction: None,
                turns: (a, b),
                summary: None,
                summary_turn: None,
                opaque: false,
                reversible: true,
                passed: true,
                live: live.len(),
                dropped: &[],
                checked: live
                    .iter()
                    .map(|&id| CheckOut {
                        fact: fact_out(l, id),
                        carried: true,
                        why: WHY,
                        wanted: &[],
                        found: &[],
                        summary_at: None,
                    })
                    .collect(),
            };
            emit(&format!(
                "{}\n",
                serde_json::to_string(&out).unwrap_or_default()
            ))
        }
        ProbeFormat::Text => {
            let mut s = format!(
                "{}: turns {a}..{b}: reversible compaction: the original stays addressable, so condition 5 is satisfied without a probe; {} live fact{}\n",
                l.name(),
                live.len(),
                if live.len() == 1 { "" } else { "s" }
            );
            for &id in &live {
                let _ = writeln!(s, "  live    {}", fact_line(l, id));
                let _ = writeln!(s, "          {WHY}");
            }
            emit(&s)
        }
    };
    if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

#[derive(serde::Serialize)]
struct CheckOut<'a> {
    #[serde(flatten)]
    fact: super::single::FactOut<'a>,
    carried: bool,
    why: &'a str,
    wanted: &'a [String],
    found: &'a [String],
    /// Where in the summary text it was found: byte range and 1-based line.
    summary_at: Option<trajlint::probe::SummaryPlace>,
}

#[derive(serde::Serialize)]
struct CompactionOut<'a> {
    turn: usize,
    kind: &'a str,
}

#[derive(serde::Serialize)]
struct ProbeOut<'a> {
    schema: &'static str,
    file: &'a str,
    trajectory: usize,
    format: &'static str,
    /// False where the trajectory lies compressed in the file (a deflated `.eval` entry): every
    /// `bytes` is then the whole entry, not the turn's or fact's; nothing may be cut by them.
    bytes_exact: bool,
    /// For a compaction recorded in the log: its boundary turn and kind; null for `--summary`.
    compaction: Option<CompactionOut<'a>>,
    turns: (usize, usize),
    /// `--summary` file as given, or null for a summary turn of the log.
    summary: Option<&'a str>,
    summary_turn: Option<usize>,
    opaque: bool,
    reversible: bool,
    passed: bool,
    /// The live facts of the turns: those checked, or (reversible) those that stay addressable.
    live: usize,
    dropped: &'a [usize],
    checked: Vec<CheckOut<'a>>,
}

fn json(l: &Loaded, reports: &[ProbeReport], summary: Option<&str>) -> String {
    let mut s = String::new();
    for (k, r) in reports.iter().enumerate() {
        let compaction = if summary.is_none() {
            l.traj().compactions.get(k).map(|c| CompactionOut {
                turn: c.turn,
                kind: &c.kind,
            })
        } else {
            None
        };
        let out = ProbeOut {
            schema: SCHEMA,
            file: &l.source.name,
            trajectory: l.index,
            format: l.format_name(),
            bytes_exact: !l.traj().compressed,
            compaction,
            turns: r.turns,
            summary,
            summary_turn: r.summary_turn,
            opaque: r.opaque,
            reversible: false,
            passed: r.passed(),
            live: r.checked.len(),
            dropped: &r.dropped,
            checked: r
                .checked
                .iter()
                .map(|c| CheckOut {
                    fact: fact_out(l, c.fact),
                    carried: c.carried,
                    why: &c.why,
                    wanted: &c.wanted,
                    found: &c.found,
                    summary_at: c.at,
                })
                .collect(),
        };
        s.push_str(&serde_json::to_string(&out).unwrap_or_default());
        s.push('\n');
    }
    s
}

fn text(l: &Loaded, reports: &[ProbeReport], summary: Option<&str>) -> String {
    let mut s = String::new();
    if reports.is_empty() {
        let _ = writeln!(
            s,
            "{}: no compaction recorded in trajectory {} (give --summary FILE --turns A..B to probe a candidate)",
            l.name(),
            l.index
        );
    }
    for (k, r) in reports.iter().enumerate() {
        let against = match (summary, r.summary_turn) {
            (Some(f), _) => format!("summary {}", trajlint::report::visible_name(f)),
            (None, Some(t)) => format!(
                "the summary at turn {t} of the compaction at turn {}",
                l.traj().compactions.get(k).map_or(0, |c| c.turn)
            ),
            (None, None) => "no summary".into(),
        };
        let carried = r.checked.iter().filter(|c| c.carried).count();
        let _ = writeln!(
            s,
            "{}: turns {}..{} against {against}: {} live {}, {carried} carried, {} dropped{}",
            l.name(),
            r.turns.0,
            r.turns.1,
            r.checked.len(),
            trajlint::report::output::plural(r.checked.len(), "fact", "facts"),
            r.dropped.len(),
            if r.opaque {
                " (summary not readable)"
            } else {
                ""
            }
        );
        // Dropped first: they are what the caller acts on.
        for c in r.checked.iter().filter(|c| !c.carried) {
            let _ = writeln!(s, "  DROPPED {}", fact_line(l, c.fact));
            let _ = writeln!(s, "          {}", c.why);
        }
        for c in r.checked.iter().filter(|c| c.carried) {
            let _ = writeln!(s, "  carried {}", fact_line(l, c.fact));
            let at =
                c.at.map(|p| format!(" (summary line {})", p.line))
                    .unwrap_or_default();
            let _ = writeln!(s, "          {}{at}", c.why);
        }
    }
    s
}
