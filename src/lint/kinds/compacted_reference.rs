//! `reference-across-compaction`: a reference made after a compaction whose antecedent lies only
//! in the turns the compaction replaced.
//!
//! The reference binder (`extract::references`) stops at a compaction: what lay before it is no
//! longer visible, so after the boundary a reference to it is unbound. To know where such a
//! reference *would* have bound, [`references_into_compacted`] runs the same binder once more,
//! reading on through the compaction events, and keeps the references after a
//! boundary whose antecedent falls in the turns that boundary replaced. A reference the visible
//! part binds anyway (the summary restates the identifier) is not reported.

use super::{role, turn_anchor};
use crate::extract::references::{self, Compactions};
use crate::extract::{Fact, FactKind, Status};
use crate::lint::{normalized, short, subkind_phrase, Cx, Draft, Label, Rule};
use std::collections::HashSet;

/// The references after a compaction whose antecedent, seen through the compactions, lies in
/// the turns one replaced: (the reference as bound through, the compaction's index).
pub fn references_into_compacted(cx: &Cx) -> Vec<(Fact, usize)> {
    let traj = cx.traj;
    if traj.compactions.is_empty() {
        return Vec::new();
    }
    let replaced = cx.replaced_by();
    let mut seen_through: Vec<Fact> = Vec::new();
    let calls = &cx.analysis.calls;
    references::extract(
        traj,
        cx.lex,
        calls,
        Compactions::SeeThrough,
        &mut seen_through,
    );
    seen_through
        .into_iter()
        .filter(|f| f.kind() == FactKind::Reference)
        .filter_map(|f| {
            let a = f.antecedent?;
            let k = replaced.get(a.turn).copied().flatten()?;
            (traj.compactions[k].turn < f.turn).then_some((f, k))
        })
        .collect()
}

pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    let traj = cx.traj;
    let through = cx.into_compacted();
    if through.is_empty() {
        return;
    }
    // References the visible part binds (to the summary, or to a later turn).
    let bound: HashSet<usize> = cx
        .analysis
        .facts
        .iter()
        .filter(|f| f.kind() == FactKind::Reference && f.status == Status::Bound)
        .map(|f| f.span.start)
        .collect();
    // A turn naming the same referent twice is one finding.
    let mut reported: HashSet<(usize, String)> = HashSet::new();
    for (f, k) in through {
        if !rule.wants(f.subkind)
            || bound.contains(&f.span.start)
            || !reported.insert((f.turn, normalized(&f.text).to_lowercase()))
        {
            continue;
        }
        let Some(a) = f.antecedent else { continue };
        let c = &traj.compactions[*k];
        let message = rule.message.render(|v| match v {
            "fact" => Some(subkind_phrase(f.subkind).to_string()),
            "text" => Some(short(&f.text, 80)),
            "turn" => Some(f.turn.to_string()),
            "antecedent_turn" => Some(a.turn.to_string()),
            "compaction_turn" => Some(c.turn.to_string()),
            "replacing" if c.clears => Some(format!("the clearing at turn {} cleared", c.turn)),
            "replacing" => Some(format!("the compaction at turn {} replaced", c.turn)),
            _ => None,
        });
        out.push(Draft {
            turn: f.turn,
            span: f.span,
            label: "points into the compacted turns".into(),
            message,
            labels: vec![
                Label {
                    span: a.bytes,
                    message: if c.clears {
                        format!("its antecedent (turn {}), cleared", a.turn)
                    } else {
                        format!(
                            "its antecedent (turn {}), replaced by the compaction",
                            a.turn
                        )
                    },
                },
                Label {
                    span: traj.turns[c.turn].span,
                    message: if c.clears {
                        format!("the clearing (turn {})", c.turn)
                    } else {
                        format!("the compaction (turn {})", c.turn)
                    },
                },
            ]
            .into_iter()
            .chain(c.summary_turn.map(|s| Label {
                span: turn_anchor(traj, s),
                message: format!("the summary (turn {s}) does not restate it"),
            }))
            .collect(),
            identity: format!(
                "{}\u{0}{:?}\u{0}{}",
                role(traj, f.turn),
                f.subkind,
                normalized(&f.text)
            ),
        });
    }
}
