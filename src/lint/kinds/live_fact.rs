//! `live-fact`: a fact of the rule's subkinds still live at the end of the run (an open
//! obligation, an unincorporated null result, an unbound reference).
//!
//! Facts in turns a compaction replaced are left to `compaction-drop`: their status is frozen
//! at the compaction (the resolver cannot see a later turn act on what the agent no longer
//! sees), so "open at the end" would only repeat the compaction's audit.
//! An unbound reference whose antecedent lies in turns a compaction replaced is left to
//! `reference-across-compaction`: the log does show its antecedent.

use super::{role, turn_anchor};
use crate::extract::{Fact, FactKind, Subkind};
use crate::lint::{normalized, short, subkind_phrase, Cx, Draft, Label, Rule};
use std::collections::{HashMap, HashSet};

pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    let traj = cx.traj;
    let replaced = cx.replaced_by();
    let last = traj.turns.len().saturating_sub(1);
    // References whose antecedent a compaction took are `reference-across-compaction`'s.
    let compacted_away: HashSet<usize> = cx
        .into_compacted()
        .iter()
        .map(|(f, _)| f.span.start)
        .collect();
    let reported = |f: &Fact| {
        f.status.is_live()
            && rule.wants(f.subkind)
            && replaced.get(f.turn).copied().flatten().is_none()
            && !(f.kind() == FactKind::Reference && compacted_away.contains(&f.span.start))
    };
    // A todo tool lists what is pending anew with every write (a tracker command names its item
    // again): one finding per item, at its latest listing, pointing back at the first.
    let mut listings: HashMap<&str, (&Fact, usize)> = HashMap::new();
    for f in cx.analysis.facts.iter().filter(|f| reported(f)) {
        if let Some(k) = &f.todo_key {
            listings.entry(k).or_insert((f, f.id)).1 = f.id;
        }
    }
    for f in &cx.analysis.facts {
        if !reported(f) {
            continue;
        }
        let first_listed = f.todo_key.as_deref().and_then(|k| listings.get(k));
        if first_listed.is_some_and(|&(_, latest)| latest != f.id) {
            continue;
        }
        let call = traj.call_of(f.turn);
        let tool = f.tool.clone().or_else(|| call.map(|c| c.name.clone()));
        let mut labels = Vec::new();
        if let Some(c) = call {
            labels.push(Label {
                span: c.span,
                message: format!("the call to `{}` (turn {})", c.name, call_turn(cx, f)),
            });
        }
        if let Some(&(first, _)) = first_listed.filter(|(first, _)| first.id != f.id) {
            labels.push(Label {
                span: first.span,
                message: format!("pending since turn {}", first.turn),
            });
        }
        let missing = match (f.kind(), f.subkind) {
            (FactKind::Obligation, Subkind::ToolRetry) => {
                Some(match tool.as_deref() {
                    Some(tool) => {
                        format!("the run ends here: no later call to `{tool}`, no decision not to retry")
                    }
                    // (A deferral that answers no call is a request to the model: see resolve.)
                    None => "the run ends here: no later message to the model".to_string(),
                })
            }
            (FactKind::Obligation, _) => {
                Some("the run ends here: no turn does it, reports it done or drops it".to_string())
            }
            (FactKind::NullResult, _) => {
                Some("the run ends here: no turn records the absence or failure".to_string())
            }
            (FactKind::Reference, _) => None,
        };
        if let (Some(m), true) = (missing, last > f.turn) {
            labels.push(Label {
                span: turn_anchor(traj, last),
                message: m,
            });
        }
        let status = match f.kind() {
            FactKind::Obligation => "open",
            FactKind::NullResult => "unrecorded",
            FactKind::Reference => "unbound",
        };
        let message = rule.message.render(|v| match v {
            "fact" => Some(subkind_phrase(f.subkind).to_string()),
            "text" => Some(short(&f.text, 100)),
            // (A deferral that answers no call is the model's.)
            "tool" => Some(tool.clone().unwrap_or_else(|| {
                if f.subkind == Subkind::ToolRetry {
                    "model".into()
                } else {
                    "the tool".into()
                }
            })),
            "turn" => Some(f.turn.to_string()),
            "status" => Some(status.to_string()),
            _ => None,
        });
        // A null result's text repeats ("(empty output)", "Exit code 1"): the call it answers
        // tells the findings apart.
        let what = match (f.kind(), call) {
            (FactKind::NullResult, Some(c)) | (FactKind::Obligation, Some(c)) => format!(
                "{}\u{0}{}",
                c.name,
                super::canonical_arguments(&c.arguments, &[])
            ),
            _ => String::new(),
        };
        out.push(Draft {
            turn: f.turn,
            span: f.span,
            label: format!("{status} {}", subkind_phrase(f.subkind)),
            message,
            labels,
            identity: format!(
                "{}\u{0}{:?}\u{0}{}\u{0}{what}",
                role(traj, f.turn),
                f.subkind,
                normalized(&f.text)
            ),
        });
    }
}

fn call_turn(cx: &Cx, f: &Fact) -> usize {
    cx.traj
        .turns
        .get(f.turn)
        .and_then(|t| t.result.as_ref())
        .and_then(|r| r.call)
        .map_or(f.turn, |(t, _)| t)
}
