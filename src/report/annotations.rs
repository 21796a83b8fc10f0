//! `annotate --format json`: the annotation contract (schema `trajlint.annotations/1`), one JSON
//! object per trajectory per line; and `--format text`, a human view of the same.

use crate::analysis::Analysis;
use crate::extract::{Fact, Link};
use crate::gate::Verdict;
use crate::model::Trajectory;
use crate::source::Span;
use crate::FileReport;
use serde::Serialize;
use std::io::Write;

pub const SCHEMA: &str = "trajlint.annotations/1";

#[derive(Serialize)]
struct TrajectoryOut<'a> {
    schema: &'static str,
    file: &'a str,
    trajectory: usize,
    id: Option<&'a str>,
    format: &'static str,
    tokenizer: &'static str,
    bytes: Span,
    /// (Beyond the core fields.) False where the trajectory lies compressed in the file (an
    /// Inspect `.eval` sample in a deflated ZIP entry): every `bytes` is then the whole
    /// compressed entry, not the turn's or fact's, and a compactor must not cut by them.
    bytes_exact: bool,
    turns: Vec<TurnOut>,
    facts: Vec<FactOut<'a>>,
    ranges: Vec<RangeOut>,
    compactions: Vec<CompactionOut>,
    /// (Beyond the core fields.) `[first, last]`: the turns the agent still sees, from after
    /// the latest compaction or reset (from the first turn it kept word for word, if it kept
    /// any) to the end, as `plan` takes them; null when nothing follows it. A range before it
    /// was already out of view: a compactor of the live context works inside the window.
    window: Option<[usize; 2]>,
    /// (Beyond the core fields.) Where each record among its turns could not be read: the
    /// span reported (for a broken line, where its parse failed; for a record skipped, the
    /// record). What it held is unknown: no range spans it, nor holds a turn it lies within.
    lost: &'a [Span],
}

#[derive(Serialize)]
struct TurnOut {
    index: usize,
    role: &'static str,
    bytes: Span,
    tokens: usize,
    verdict: Verdict,
    reasons: Vec<usize>,
}

#[derive(Serialize)]
struct FactOut<'a> {
    id: usize,
    kind: crate::extract::FactKind,
    subkind: crate::extract::Subkind,
    turn: usize,
    bytes: Span,
    text: &'a str,
    status: crate::extract::Status,
    resolved_by: Option<Link>,
    antecedent: Option<Link>,
    /// (Beyond the core fields.) For a reference, the other turns it may point at: which one
    /// the writer meant cannot always be shown, so each is kept live with the antecedent and
    /// lists the reference among its `reasons`. Empty for other facts.
    candidates: &'a [usize],
}

#[derive(Serialize)]
struct RangeOut {
    turns: [usize; 2],
    tokens: usize,
}

#[derive(Serialize)]
struct CompactionOut {
    turn: usize,
    kind: String,
    replaced: [usize; 2],
    summary_turn: Option<usize>,
    dropped: Vec<usize>,
    /// (Beyond the core fields.) Of the live facts the summary carried, those a turn after it
    /// settled (the agent did the work, or recorded the absence, from what the summary told it):
    /// the summary no longer holds them. Its `turn` and `bytes` are what settled it.
    settled_later: Vec<SettledOut>,
}

#[derive(Serialize)]
struct SettledOut {
    fact: usize,
    #[serde(flatten)]
    by: Link,
}

fn fact_out(f: &Fact) -> FactOut<'_> {
    FactOut {
        id: f.id,
        kind: f.kind(),
        subkind: f.subkind,
        turn: f.turn,
        bytes: f.span,
        text: &f.text,
        status: f.status,
        resolved_by: f.resolved_by,
        antecedent: f.antecedent,
        candidates: &f.candidates,
    }
}

/// Writes one JSON line per trajectory of the file.
pub fn write_json(out: &mut impl Write, report: &FileReport) -> std::io::Result<()> {
    for (k, (traj, a)) in report
        .read
        .trajectories
        .iter()
        .zip(&report.analyses)
        .enumerate()
    {
        let obj = build(report.source.name.as_str(), k, traj.format.name(), traj, a);
        serde_json::to_writer(&mut *out, &obj)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The annotation contract for one trajectory as a JSON value (what `write_json` prints).
pub fn to_value(
    file: &str,
    k: usize,
    format: &'static str,
    traj: &Trajectory,
    a: &Analysis,
) -> serde_json::Value {
    serde_json::to_value(build(file, k, format, traj, a)).unwrap_or(serde_json::Value::Null)
}

fn build<'a>(
    file: &'a str,
    k: usize,
    format: &'static str,
    traj: &'a Trajectory,
    a: &'a Analysis,
) -> TrajectoryOut<'a> {
    TrajectoryOut {
        schema: SCHEMA,
        file,
        trajectory: k,
        id: traj.id.as_deref(),
        format,
        tokenizer: crate::tokens::TOKENIZER,
        bytes: traj.span,
        bytes_exact: !traj.compressed,
        turns: traj
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| TurnOut {
                index: i,
                role: t.role.as_str(),
                bytes: t.span,
                tokens: a.tokens[i],
                verdict: a.turns[i].verdict,
                reasons: a.turns[i].reasons.clone(),
            })
            .collect(),
        facts: a.facts.iter().map(fact_out).collect(),
        ranges: a
            .ranges
            .iter()
            .map(|&(s, e)| RangeOut {
                turns: [s, e],
                tokens: a.tokens[s..=e].iter().sum(),
            })
            .collect(),
        compactions: traj
            .compactions
            .iter()
            .enumerate()
            .map(|(k, c)| CompactionOut {
                turn: c.turn,
                kind: c.kind.clone(),
                replaced: [c.replaced.0, c.replaced.1],
                summary_turn: c.summary_turn,
                dropped: a
                    .audits
                    .get(k)
                    .map(|r| r.dropped.clone())
                    .unwrap_or_default(),
                settled_later: a
                    .audits
                    .get(k)
                    .into_iter()
                    .flat_map(|r| crate::probe::settled_later(r, c.summary_turn, &a.settled))
                    .map(|(fact, by)| SettledOut { fact, by })
                    .collect(),
            })
            .collect(),
        window: {
            let first = crate::plan::window_start(traj);
            (first < traj.turns.len()).then(|| [first, traj.turns.len() - 1])
        },
        lost: &traj.lost,
    }
}

/// A human view: each turn with its verdict and the facts in it. (Written whole per file, with
/// the log's control characters shown as pictures: see `visible`.)
pub fn write_text(out: &mut impl Write, report: &FileReport) -> std::io::Result<()> {
    let mut text = Vec::new();
    text_view(&mut text, report)?;
    out.write_all(super::visible(&String::from_utf8_lossy(&text)).as_bytes())
}

/// Text of the log on one line of the view: a line break (or a Unicode line or paragraph
/// separator) in a session id or a tool's name must not start what reads as another turn or
/// fact; a tab is a space.
fn one_line(s: &str) -> String {
    let spaced: String = s
        .chars()
        .map(|c| match c {
            '\n' | '\t' | '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect();
    super::visible_name(&spaced).into_owned()
}

fn text_view(out: &mut impl Write, report: &FileReport) -> std::io::Result<()> {
    for (k, (traj, a)) in report
        .read
        .trajectories
        .iter()
        .zip(&report.analyses)
        .enumerate()
    {
        let live = a
            .turns
            .iter()
            .filter(|v| v.verdict == Verdict::Live)
            .count();
        writeln!(
            out,
            "{} [{}] trajectory {}{}: {} {}, {} live, {} {}",
            one_line(&report.source.name),
            traj.format.name(),
            k,
            traj.id
                .as_deref()
                .map(|i| format!(" ({})", one_line(i)))
                .unwrap_or_default(),
            traj.turns.len(),
            super::output::plural(traj.turns.len(), "turn", "turns"),
            live,
            a.facts.len(),
            super::output::plural(a.facts.len(), "fact", "facts")
        )?;
        let mut facts = a.facts.iter().peekable();
        let mut compactions = traj.compactions.iter().zip(&a.audits).peekable();
        for (i, t) in traj.turns.iter().enumerate() {
            let (line, _) = report.source.line_col(t.span.start);
            let mark = match a.turns[i].verdict {
                Verdict::Live => "LIVE",
                Verdict::Quiescent => "    ",
            };
            writeln!(
                out,
                "  {mark} #{i:<4} {:<9} line {line:<6} {} tokens",
                t.role.as_str(),
                a.tokens[i]
            )?;
            for c in &t.calls {
                writeln!(
                    out,
                    "         call {}({})",
                    one_line(&c.name),
                    one_line(&crate::lint::short(&c.arguments, 80))
                )?;
            }
            // A compaction: what it replaced, what its summary dropped, and of what it carried
            // what later turns settled.
            while let Some((c, audit)) = compactions.next_if(|(c, _)| c.turn == i) {
                let ids = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(", ");
                let summary = c
                    .summary_turn
                    .map_or("no summary".to_string(), |s| format!("summary at turn {s}"));
                let dropped = ids(&mut audit.dropped.iter().map(|id| format!("[{id}]")));
                let settled =
                    ids(
                        &mut crate::probe::settled_later(audit, c.summary_turn, &a.settled)
                            .map(|(id, by)| format!("[{id}] at turn {}", by.turn)),
                    );
                writeln!(
                    out,
                    "         {} replaced turns {}..{}, {summary}; dropped: {}{}",
                    one_line(&c.kind.to_string()),
                    c.replaced.0,
                    c.replaced.1,
                    if dropped.is_empty() { "none" } else { &dropped },
                    if settled.is_empty() {
                        String::new()
                    } else {
                        format!("; carried, then settled: {settled}")
                    }
                )?;
            }
            while let Some(f) = facts.next_if(|f| f.turn == i) {
                let (l, c) = report.source.line_col(f.span.start);
                let mut extra = match (f.resolved_by, f.antecedent) {
                    (Some(r), _) => format!(" <- turn {}", r.turn),
                    (_, Some(a)) => format!(" -> turn {}", a.turn),
                    _ => String::new(),
                };
                if !f.candidates.is_empty() {
                    let turns: Vec<String> = f.candidates.iter().map(usize::to_string).collect();
                    extra.push_str(&format!(" (candidates: {})", turns.join(", ")));
                }
                let text = one_line(&crate::lint::short(&f.text, 100));
                writeln!(
                    out,
                    "         [{}] {}{} at {l}:{c}: {text}",
                    f.id,
                    f.label(),
                    extra
                )?;
            }
            // What else keeps the turn live: a later reference pointing into it, or a fact of
            // turns an earlier compaction replaced that this summary carries.
            let elsewhere: Vec<String> = a.turns[i]
                .reasons
                .iter()
                .filter_map(|&id| a.facts.get(id))
                .filter(|f| f.turn != i)
                .map(|f| {
                    // (A candidate is kept live with the antecedent, or for a reference that
                    // found none: it may be what the reference points at.)
                    let how = if f.turn < i {
                        "carries"
                    } else if f.antecedent.is_some_and(|a| a.turn == i) {
                        "antecedent of"
                    } else {
                        "candidate antecedent of"
                    };
                    format!("{how} [{}] (turn {})", f.id, f.turn)
                })
                .collect();
            if !elsewhere.is_empty() {
                writeln!(out, "         live for: {}", elsewhere.join(", "))?;
            }
        }
        // What a compactor may replace now (the JSON's `ranges`).
        let ranges: Vec<String> = a
            .ranges
            .iter()
            .map(|&(s, e)| {
                let tokens: usize = a.tokens[s..=e].iter().sum();
                format!("{s}..{e} ({tokens} tokens)")
            })
            .collect();
        writeln!(
            out,
            "  compactable now: {}",
            if ranges.is_empty() {
                "no range".to_string()
            } else {
                format!("turns {}", ranges.join(", "))
            }
        )?;
        // (As the JSON's `window`: after a compaction, the turns the agent still sees.)
        let first = crate::plan::window_start(traj);
        if first > 0 {
            let window = if first < traj.turns.len() {
                format!("turns {first}..{}", traj.turns.len() - 1)
            } else {
                "nothing after the latest compaction".to_string()
            };
            writeln!(out, "  in view: {window}")?;
        }
        if !traj.lost.is_empty() {
            let lines: Vec<String> = traj
                .lost
                .iter()
                .map(|l| report.source.line_col(l.start).0.to_string())
                .collect();
            writeln!(
                out,
                "  lost among the turns (no range spans them): {} at line {}",
                super::output::plural(lines.len(), "a record", "records"),
                lines.join(", ")
            )?;
        }
    }
    Ok(())
}
