//! `trajlint plan --budget TOKENS PATH`: what to shed and compact so that the window fits the
//! budget, or a refusal (exit 3) naming the live tokens and the facts that hold them.

use super::emit;
use super::single::{fact_line, fact_out, load, Loaded, OneInput};
use clap::ValueEnum;
use std::fmt::Write as _;
use std::process::ExitCode;
use trajlint::plan::{Plan, PlanOptions, PlanStatus};

/// The JSON schema name and version of `plan --format json`.
pub const SCHEMA: &str = "trajlint.plan/1";

#[derive(Clone, Copy, ValueEnum)]
pub enum PlanFormat {
    Text,
    Json,
}

#[derive(clap::Args, Clone)]
pub struct PlanArgs {
    #[command(flatten)]
    pub input: OneInput,
    /// Token budget (o200k_base) the window must fit.
    #[arg(long, value_name = "TOKENS")]
    pub budget: usize,
    /// Tokens to reserve for the summary of each compacted range.
    #[arg(long, value_name = "TOKENS", default_value_t = 0)]
    pub summary_tokens: usize,
    /// Never compact or shed the last N turns of the window, quiescent or not (the request the
    /// agent is answering and what follows it; an earlier repeat may point at an output there).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub keep_recent: usize,
    /// Output format (`--output-format` is taken too, as `check` names it).
    #[arg(long, alias = "output-format", value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
}

/// Exit codes: 0 the budget is met (or already was), 3 refused, 2 usage, unreadable input or
/// unwritable output.
pub fn run(args: &PlanArgs) -> ExitCode {
    let Ok(l) = load(&args.input, true) else {
        return ExitCode::from(2);
    };
    let opts = PlanOptions {
        budget: args.budget,
        summary_tokens: args.summary_tokens,
        keep_recent: args.keep_recent,
    };
    let plan = trajlint::plan::plan(l.traj(), &l.analysis, &opts);
    let out = match args.format {
        PlanFormat::Json => json(&l, &plan),
        PlanFormat::Text => trajlint::report::visible(&text(&l, &plan)).into_owned(),
    };
    if !emit(&out) {
        return ExitCode::from(2);
    }
    match plan.status {
        PlanStatus::Refused => ExitCode::from(3),
        _ => ExitCode::SUCCESS,
    }
}

#[derive(serde::Serialize)]
struct PlanOut<'a> {
    schema: &'static str,
    file: &'a str,
    trajectory: usize,
    id: Option<&'a str>,
    format: &'static str,
    tokenizer: &'static str,
    /// False where the trajectory lies compressed in the file (a deflated `.eval` entry): every
    /// `bytes` is then the whole entry, not the turn's or fact's; nothing may be cut by them.
    bytes_exact: bool,
    #[serde(flatten)]
    plan: &'a Plan,
    /// Every fact named in `kept_live` and `blocking`.
    facts: Vec<super::single::FactOut<'a>>,
}

fn json(l: &Loaded, plan: &Plan) -> String {
    let mut ids: Vec<usize> = plan
        .kept_live
        .iter()
        .flat_map(|k| k.facts.iter().copied())
        .chain(plan.blocking.iter().map(|b| b.fact))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let out = PlanOut {
        schema: SCHEMA,
        file: &l.source.name,
        trajectory: l.index,
        id: l.traj().id.as_deref(),
        format: l.format_name(),
        tokenizer: trajlint::tokens::TOKENIZER,
        bytes_exact: !l.traj().compressed,
        plan,
        facts: ids.into_iter().map(|id| fact_out(l, id)).collect(),
    };
    let mut s = serde_json::to_string(&out).unwrap_or_default();
    s.push('\n');
    s
}

fn text(l: &Loaded, plan: &Plan) -> String {
    let mut s = String::new();
    let name = l.name();
    let line = |t: usize| l.source.line_col(l.traj().turns[t].span.start).0;
    let window = match plan.window {
        (first, last) if first <= last => format!("window turns {first}..{last}"),
        _ => "window empty, nothing after the latest compaction".to_string(),
    };
    let _ = writeln!(
        s,
        "{name} [{}] trajectory {}: {window} ({} tokens), budget {}",
        l.format_name(),
        l.index,
        plan.tokens_before,
        plan.budget
    );
    match plan.status {
        PlanStatus::Fits => {
            let _ = writeln!(s, "fits: nothing to shed or compact");
        }
        PlanStatus::Planned => {
            let compacted: usize = plan.compact.iter().map(|c| c.tokens).sum();
            let _ = writeln!(
                s,
                "planned: {} -> {} tokens (shed {} in {} {}, compact {} in {} {})",
                plan.tokens_before,
                plan.tokens_after,
                plan.shed_saved(),
                plan.shed.len(),
                trajlint::report::output::plural(plan.shed.len(), "output", "outputs"),
                compacted,
                plan.compact.len(),
                trajlint::report::output::plural(plan.compact.len(), "range", "ranges")
            );
            if !plan.shed.is_empty() {
                let _ = writeln!(
                    s,
                    "shed (identical tool outputs, each replaced by a pointer to the copy that stays):"
                );
                for sh in &plan.shed {
                    let _ = writeln!(
                        s,
                        "  turn {:<5} line {:<6} {:>7} tokens  same as turn {:<5} saves {}",
                        sh.turn,
                        line(sh.turn),
                        sh.tokens,
                        sh.copy_of,
                        sh.saved
                    );
                }
            }
            if !plan.compact.is_empty() {
                let _ = writeln!(s, "compact (quiescent ranges, oldest first):");
                for c in &plan.compact {
                    let _ = writeln!(
                        s,
                        "  turns {}..{}  lines {}-{}  {} tokens",
                        c.turns.0,
                        c.turns.1,
                        l.source.line_col(c.bytes.start).0,
                        l.source.line_col(c.bytes.end.saturating_sub(1)).0,
                        c.tokens
                    );
                }
            }
        }
        PlanStatus::Refused => {
            // (Named by what holds tokens: a system prompt alone over the budget is no live
            // turn's fault.)
            let held = [
                (plan.held.live, "live turns"),
                (plan.held.system, "the system prompt"),
                (plan.held.recent, "the recent turns kept"),
                (plan.held.other, "turns bound to live ones"),
            ];
            let what: Vec<&str> = held
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|&(_, w)| w)
                .collect();
            let why = if what.is_empty() {
                // (Nothing must stay: no range frees more than its summary costs.)
                ": no range frees more than its summary costs".to_string()
            } else {
                format!(" without compacting {}", what.join(" or "))
            };
            let _ = writeln!(
                s,
                "refused: the window cannot fit {} tokens{why}",
                plan.budget
            );
            let _ = writeln!(
                s,
                "  {} tokens now; {} at best, compacting every quiescent range worth its summary (over by {})",
                plan.tokens_before,
                plan.tokens_after,
                plan.tokens_after - plan.budget
            );
            if plan.summary_tokens > 0 {
                let _ = writeln!(
                    s,
                    "  (each range compacted costs its summary's {} tokens: a range holding no more is left as it is)",
                    plan.summary_tokens
                );
            }
            let _ = writeln!(
                s,
                "  held: {} live, {} system prompt, {} recent (--keep-recent), {} other (a call or result whose pair cannot leave with it)",
                plan.held.live, plan.held.system, plan.held.recent, plan.held.other
            );
            if !plan.blocking.is_empty() {
                let _ = writeln!(s, "blocking facts (most tokens held first):");
            }
            for b in &plan.blocking {
                let turns: Vec<String> = b.turns.iter().map(|t| t.to_string()).collect();
                let _ = writeln!(
                    s,
                    "  holds {:>6} tokens in turn(s) {}: {}",
                    b.tokens,
                    turns.join(", "),
                    fact_line(l, b.fact)
                );
            }
        }
    }
    if plan.status != PlanStatus::Refused && !plan.kept_live.is_empty() {
        let _ = writeln!(
            s,
            "kept live ({} turns, {} tokens):",
            plan.kept_live.len(),
            plan.live_tokens
        );
        for k in &plan.kept_live {
            let _ = writeln!(
                s,
                "  turn {:<5} {:<9} line {:<6} {:>6} tokens",
                k.turn,
                k.role,
                line(k.turn),
                k.tokens
            );
            for &f in &k.facts {
                let _ = writeln!(s, "      {}", fact_line(l, f));
            }
        }
    }
    s
}
