//! The budget plan: what a compactor may do so that a trajectory's context fits a token budget.
//!
//! The plan works on the **window**: the turns the agent still sees, after the latest compaction
//! or reset recorded in the log (the summary of that compaction included). In order:
//!
//! 1. **Shed** what loses nothing: a tool output repeated verbatim by another tool output in the
//!    window is collapsed to a pointer to the copy that stays (the latest copy that is kept).
//!    The pointer costs [`POINTER`] tokens; only outputs longer than that are shed.
//! 2. **Compact** quiescent ranges, oldest first, until the budget is met. The ranges are the
//!    analysis's compactable ranges within the window, never the system prompt, never a summary
//!    that still carries live facts of an earlier compaction, never splitting a tool call from its
//!    result, never the last `keep_recent` turns (nor are they shed). The last range is
//!    compacted only as far as needed (a prefix ending where no call waits for its result).
//! 3. If every quiescent range compacted still leaves the window over budget, the plan is
//!    **refused**: nothing is compacted, and the report says how many tokens are live and which
//!    facts hold them, largest first. Never a silent partial.
//!
//! Cost: linear in the window (one hash per tool output, one pass over the ranges).

use crate::analysis::Analysis;
use crate::gate::{self, Verdict};
use crate::model::{EventKind, Role, Trajectory};
use crate::source::Span;
use serde::Serialize;
use std::collections::HashMap;

/// The text a shed output is replaced with; `{turn}` is the turn of the copy that stays.
pub const POINTER: &str = "[output identical to the tool output of turn {turn}]";

/// What the plan should fit, and what a summary costs.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    /// Token budget for the window.
    pub budget: usize,
    /// Tokens a summary of one compacted range will take (reserved per range; default 0).
    pub summary_tokens: usize,
    /// The last turns of the window that are never compacted nor shed, quiescent or not (the
    /// request the agent is answering, the results it is reading; default 0: any quiescent turn
    /// may go). An earlier output may still be shed to a pointer to its copy among them.
    pub keep_recent: usize,
}

impl PlanOptions {
    pub fn new(budget: usize) -> PlanOptions {
        PlanOptions {
            budget,
            summary_tokens: 0,
            keep_recent: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanStatus {
    /// The window already fits: nothing to do.
    Fits,
    /// The sheds and compactions listed make it fit.
    Planned,
    /// It cannot fit without compacting live turns: nothing is planned.
    Refused,
}

/// A tool output collapsed to a pointer to an identical one that stays.
#[derive(Debug, Clone, Serialize)]
pub struct Shed {
    pub turn: usize,
    pub bytes: Span,
    /// The turn holding the identical output that stays.
    pub copy_of: usize,
    pub tokens: usize,
    /// Tokens saved: the output's tokens less the pointer's.
    pub saved: usize,
}

/// A range of turns to replace with a summary.
#[derive(Debug, Clone, Serialize)]
pub struct CompactRange {
    /// Inclusive turn range.
    pub turns: (usize, usize),
    pub bytes: Span,
    /// Tokens of the turns replaced. `tokens_after` = `tokens_before` − shed savings − these
    /// + `summary_tokens` per range.
    pub tokens: usize,
}

/// A live turn that stays, and the facts that keep it.
#[derive(Debug, Clone, Serialize)]
pub struct KeptLive {
    pub turn: usize,
    pub role: &'static str,
    /// What the turn costs after the plan: a pointer's tokens when its output is shed.
    pub tokens: usize,
    /// Fact ids: the turn's verdict reasons (for the summary of an earlier compaction, the live
    /// facts of its replaced turns that it carries among them).
    pub facts: Vec<usize>,
}

/// A fact that holds live turns in the window, with the tokens of those turns.
#[derive(Debug, Clone, Serialize)]
pub struct Blocking {
    pub fact: usize,
    pub turns: Vec<usize>,
    pub tokens: usize,
}

/// Tokens the plan cannot move, by cause.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Held {
    /// Live turns (and summaries carrying live facts).
    pub live: usize,
    /// The system prompt.
    pub system: usize,
    /// The last turns kept by `keep_recent` (those not live).
    pub recent: usize,
    /// Quiescent turns that cannot leave without splitting a call from its result (held by a
    /// live turn, or lying apart in the file: a SWE-agent run's last action and the observation
    /// `trajectory[]` holds for it): everything else not in a compactable range.
    pub other: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub budget: usize,
    pub status: PlanStatus,
    /// Inclusive turn range the plan considers (after the latest compaction or reset); empty
    /// (first past last, `null` in JSON) when nothing follows the latest compaction.
    #[serde(serialize_with = "range_or_null")]
    pub window: (usize, usize),
    pub tokens_before: usize,
    /// After the plan; when refused, the least the window could be brought to without
    /// compacting a live turn.
    pub tokens_after: usize,
    /// Tokens of the live turns in the window as the plan leaves them: `held.live`, less what
    /// shedding a live output to a pointer saves.
    pub live_tokens: usize,
    pub held: Held,
    pub summary_tokens: usize,
    /// Tokens one pointer costs.
    pub pointer_tokens: usize,
    pub shed: Vec<Shed>,
    pub compact: Vec<CompactRange>,
    pub kept_live: Vec<KeptLive>,
    /// When refused: the facts holding live tokens, most tokens first.
    pub blocking: Vec<Blocking>,
}

/// An inclusive range, or `null` when it is empty.
fn range_or_null<S: serde::Serializer>(r: &(usize, usize), s: S) -> Result<S::Ok, S::Error> {
    (r.0 <= r.1).then_some(r).serialize(s)
}

impl Plan {
    /// Tokens saved by shedding.
    pub fn shed_saved(&self) -> usize {
        self.shed.iter().map(|s| s.saved).sum()
    }
}

/// The first turn the agent still sees: after the latest compaction or reset event, or the
/// first turn that compaction kept word for word (`Compaction::view_after`).
pub fn window_start(traj: &Trajectory) -> usize {
    let mut compactions = traj.compactions.iter().peekable();
    let mut view = 0;
    for (i, t) in traj.turns.iter().enumerate() {
        let Some(e) = &t.event else { continue };
        if matches!(e, EventKind::Compaction { .. }) {
            while compactions.next_if(|c| c.turn < i).is_some() {}
            view = compactions
                .peek()
                .filter(|c| c.turn == i)
                .map_or(i + 1, |c| c.view_after(view));
        } else if e.resets_context() {
            view = i + 1;
        }
    }
    view
}

/// What a clearing leaves in place of a tool result (Claude Code's words).
const CLEARED_PLACEHOLDER: &str = "[Old tool result content cleared]";

/// Tokens per turn as the agent's context holds them now: a result a clearing took out of view
/// costs only the placeholder left for it.
fn in_context_tokens(traj: &Trajectory, a: &Analysis) -> Vec<usize> {
    let mut tokens = a.tokens.clone();
    let placeholder = crate::tokens::count(CLEARED_PLACEHOLDER);
    for (t, cleared) in tokens.iter_mut().zip(traj.cleared_at()) {
        if cleared.is_some() {
            *t = (*t).min(placeholder);
        }
    }
    tokens
}

/// Plans the window of `traj` into `opts.budget` tokens.
pub fn plan(traj: &Trajectory, a: &Analysis, opts: &PlanOptions) -> Plan {
    let n = traj.turns.len();
    let start = window_start(traj).min(n);
    let end = n.saturating_sub(1);
    let window = (start, end);
    let in_window = start..n;
    let tokens = &in_context_tokens(traj, a);
    let tokens_before: usize = tokens[in_window.clone()].iter().sum();
    let pointer_tokens = crate::tokens::count(&POINTER.replace("{turn}", &n.to_string()));
    // The last turns kept: never compacted, never shed (one may be the copy a pointer names).
    let recent = |t: usize| n - t <= opts.keep_recent;

    // Live turns and what keeps them.
    let mut kept_live: Vec<KeptLive> = Vec::new();
    let mut movable = vec![false; n];
    let mut held = Held::default();
    for t in in_window.clone() {
        let turn = &traj.turns[t];
        let facts = if a.turns[t].verdict == Verdict::Live {
            a.turns[t].reasons.clone()
        } else {
            Vec::new()
        };
        if !facts.is_empty() {
            kept_live.push(KeptLive {
                turn: t,
                role: turn.role.as_str(),
                tokens: tokens[t],
                facts,
            });
            held.live += tokens[t];
        } else if turn.role == Role::System {
            held.system += tokens[t];
        } else if recent(t) {
            held.recent += tokens[t];
        } else {
            movable[t] = true;
        }
    }
    // Ranges: quiescent, movable, never splitting a call from its result.
    let ranges = gate::compactable_ranges(traj, &movable);
    let in_range: usize = ranges
        .iter()
        .map(|&(s, e)| tokens[s..=e].iter().sum::<usize>())
        .sum();
    held.other = tokens_before - held.live - held.system - held.recent - in_range;

    // Shedding: identical tool outputs in the window.
    let groups = duplicate_outputs(traj, tokens, start, pointer_tokens);
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    let mut kept_count: Vec<usize> = Vec::with_capacity(groups.len());
    let mut shed_total = 0usize;
    for (g, turns) in groups.iter().enumerate() {
        for &t in turns {
            group_of.insert(t, g);
        }
        kept_count.push(turns.len());
        // (The recent copies stay word for word; without one, the latest copy stays.)
        let stay = turns.iter().filter(|&&t| recent(t)).count().max(1);
        shed_total += (turns.len() - stay) * (tokens[turns[0]] - pointer_tokens);
    }
    let after_shed = tokens_before - shed_total;

    let mut plan = Plan {
        budget: opts.budget,
        status: PlanStatus::Fits,
        window,
        tokens_before,
        tokens_after: tokens_before,
        live_tokens: held.live,
        held,
        summary_tokens: opts.summary_tokens,
        pointer_tokens,
        shed: Vec::new(),
        compact: Vec::new(),
        kept_live,
        blocking: Vec::new(),
    };
    if tokens_before <= opts.budget {
        return plan;
    }

    // Compaction, oldest first; `total` follows the window's tokens with sheds applied.
    let mut total = after_shed;
    let mut compacted = vec![false; n];
    let mut chosen: Vec<(usize, usize, usize)> = Vec::new(); // (first, last, tokens removed)
    'ranges: for &(s, e) in &ranges {
        if total <= opts.budget {
            break;
        }
        // Only worth it when the whole range saves more than its summary costs.
        let mut removed = 0usize;
        let mut open_until = s; // the latest result turn of a call in the prefix
        let mut trial_counts = kept_count.clone();
        let mut cut: Option<(usize, usize)> = None;
        for (t, &own) in tokens.iter().enumerate().take(e + 1).skip(s) {
            let delta = match group_of.get(&t) {
                Some(&g) => {
                    let d = if trial_counts[g] >= 2 {
                        pointer_tokens
                    } else {
                        own
                    };
                    trial_counts[g] -= 1;
                    d
                }
                None => own,
            };
            removed += delta;
            for c in &traj.turns[t].calls {
                if let Some(r) = c.result_turn {
                    open_until = open_until.max(r);
                }
            }
            let cost = opts.summary_tokens;
            if open_until <= t && removed > cost && total + cost <= opts.budget + removed {
                cut = Some((t, removed));
                break;
            }
        }
        let (last, removed) = match cut {
            Some(c) => c,
            None if removed > opts.summary_tokens => (e, removed),
            None => continue 'ranges,
        };
        for (t, c) in compacted.iter_mut().enumerate().take(last + 1).skip(s) {
            *c = true;
            if let Some(&g) = group_of.get(&t) {
                kept_count[g] -= 1;
            }
        }
        total = total + opts.summary_tokens - removed;
        chosen.push((s, last, removed));
    }

    if total > opts.budget {
        plan.status = PlanStatus::Refused;
        plan.tokens_after = total;
        plan.blocking = blocking(tokens, &plan.kept_live);
        return plan;
    }

    // Sheds among the copies that stay: the latest kept copy stays, the others point at it.
    for turns in &groups {
        let kept: Vec<usize> = turns.iter().copied().filter(|&t| !compacted[t]).collect();
        if let Some((&keeper, rest)) = kept.split_last() {
            for &t in rest.iter().filter(|&&t| !recent(t)) {
                plan.shed.push(Shed {
                    turn: t,
                    bytes: output_span(traj, t),
                    copy_of: keeper,
                    tokens: tokens[t],
                    saved: tokens[t] - pointer_tokens,
                });
            }
        }
    }
    plan.shed.sort_by_key(|s| s.turn);
    // A live output shed to a pointer stays live as that pointer (its copy keeps the words).
    for k in &mut plan.kept_live {
        if plan.shed.binary_search_by_key(&k.turn, |s| s.turn).is_ok() {
            k.tokens = pointer_tokens;
        }
    }
    plan.live_tokens = plan.kept_live.iter().map(|k| k.tokens).sum();
    plan.compact = chosen
        .iter()
        .map(|&(s, e, _)| CompactRange {
            turns: (s, e),
            bytes: gate::range_span(traj, s, e),
            tokens: tokens[s..=e].iter().sum(),
        })
        .collect();
    plan.tokens_after = total;
    plan.status = PlanStatus::Planned;
    plan
}

/// The raw span of a result turn's output (its segments), else the turn's.
fn output_span(traj: &Trajectory, t: usize) -> Span {
    let turn = &traj.turns[t];
    turn.segments
        .iter()
        .map(|s| s.text.span)
        .reduce(Span::cover)
        .unwrap_or(turn.span)
}

/// Groups of tool-result turns (from `start` on) whose decoded output is identical, each group in
/// turn order, only outputs longer than a pointer.
fn duplicate_outputs(
    traj: &Trajectory,
    tokens: &[usize],
    start: usize,
    pointer_tokens: usize,
) -> Vec<Vec<usize>> {
    let mut by_text: HashMap<std::borrow::Cow<'_, str>, Vec<usize>> = HashMap::new();
    for (t, turn) in traj.turns.iter().enumerate().skip(start) {
        if turn.role != Role::Tool || tokens[t] <= pointer_tokens * 2 {
            continue;
        }
        let text: std::borrow::Cow<'_, str> = match turn.segments.as_slice() {
            [] => continue,
            [one] => one.text.text.as_str().into(),
            many => many
                .iter()
                .map(|s| s.text.text.as_str())
                .collect::<Vec<_>>()
                .join("\u{0}")
                .into(),
        };
        if text.trim().is_empty() {
            continue;
        }
        by_text.entry(text).or_default().push(t);
    }
    let mut groups: Vec<Vec<usize>> = by_text.into_values().filter(|g| g.len() >= 2).collect();
    groups.sort_by_key(|g| g[0]);
    groups
}

/// The facts that hold the kept live turns, with the tokens they hold, most first.
fn blocking(tokens: &[usize], kept: &[KeptLive]) -> Vec<Blocking> {
    let mut by_fact: HashMap<usize, Blocking> = HashMap::new();
    for k in kept {
        for &f in &k.facts {
            let b = by_fact.entry(f).or_insert_with(|| Blocking {
                fact: f,
                turns: Vec::new(),
                tokens: 0,
            });
            b.turns.push(k.turn);
            b.tokens += tokens[k.turn];
        }
    }
    let mut out: Vec<Blocking> = by_fact.into_values().collect();
    out.sort_by(|x, y| y.tokens.cmp(&x.tokens).then(x.fact.cmp(&y.fact)));
    out
}
