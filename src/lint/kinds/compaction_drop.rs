//! `compaction-drop`: a compaction recorded in the log whose summary does not carry every live
//! fact of the turns it replaced. The check is the project's probe (`crate::probe`), run once
//! per compaction by the analysis (`Analysis::audits`); this kind only reports its verdict,
//! naming each dropped fact and where it was. Why the probe found a fact not carried is
//! `trajlint probe`'s to show (the rule's help says so): the wording of the probe's reasons is
//! the probe's, and changes with it.

use super::turn_anchor;
use crate::extract::FactKind;
use crate::lint::{short, subkind_phrase, Cx, Draft, Label, Rule};

/// Dropped facts named in the message itself; the labels name every one.
const IN_MESSAGE: usize = 12;

pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    let traj = cx.traj;
    let facts = &cx.analysis.facts;
    let audited: Vec<_> = traj.compactions.iter().zip(&cx.analysis.audits).collect();
    // One finding per event: a clearing that took results in several places is one entry per
    // run of cleared turns (each replaced exactly its range), reported together.
    for group in audited.chunk_by(|(a, _), (b, _)| a.clears && b.clears && a.turn == b.turn) {
        let (c, _) = group[0];
        // An opaque summary carries nothing that can be shown: `opaque-compaction` says so.
        if group.iter().any(|(_, audit)| audit.opaque) {
            continue;
        }
        let checked = group.iter().map(|(_, a)| a.checked.len()).sum::<usize>();
        let dropped: Vec<_> = group
            .iter()
            .flat_map(|(_, audit)| &audit.checked)
            .filter(|check| !check.carried)
            .filter_map(|check| facts.get(check.fact))
            .filter(|f| rule.wants(f.subkind))
            .collect();
        if dropped.is_empty() {
            continue;
        }
        let describe = |f: &crate::extract::Fact| {
            let state = match f.kind() {
                FactKind::Obligation => "open",
                FactKind::NullResult => "unrecorded",
                FactKind::Reference if f.status.is_live() => "unbound",
                FactKind::Reference => "the referent of",
            };
            format!(
                "{state} {} `{}` (turn {})",
                subkind_phrase(f.subkind),
                short(&f.text, 60),
                f.turn
            )
        };
        let mut listed: Vec<String> = dropped
            .iter()
            .take(IN_MESSAGE)
            .map(|f| describe(f))
            .collect();
        if dropped.len() > IN_MESSAGE {
            listed.push(format!("and {} more", dropped.len() - IN_MESSAGE));
        }
        let mut labels: Vec<Label> = dropped
            .iter()
            .map(|f| Label {
                span: f.span,
                message: format!("dropped: {}", describe(f)),
            })
            .collect();
        if let (Some(s), [(_, audit)]) = (c.summary_turn, group) {
            labels.push(Label {
                span: turn_anchor(traj, s),
                message: format!(
                    "the summary (turn {s}) carries {} of the {} live facts",
                    audit.checked.len() - audit.dropped.len(),
                    audit.checked.len()
                ),
            });
        }
        let replaced = turn_ranges(group.iter().map(|(c, _)| c.replaced));
        let message = rule.message.render(|v| match v {
            "what" if c.clears => Some("the clearing of tool results".into()),
            "what" => Some("the summary of the compaction".into()),
            "replacing" if c.clears => Some(format!("clearing turns {replaced}")),
            "replacing" => Some(format!("replacing turns {replaced}")),
            "turn" => Some(c.turn.to_string()),
            "replaced" => Some(replaced.clone()),
            "summary_turn" => Some(c.summary_turn.map_or("none".into(), |s| s.to_string())),
            "checked" => Some(checked.to_string()),
            "count" => Some(dropped.len().to_string()),
            "facts" => Some(listed.join("; ")),
            _ => None,
        });
        out.push(Draft {
            turn: c.turn,
            span: traj.turns[c.turn].span,
            label: format!("compaction ({})", c.kind),
            message,
            labels,
            identity: format!("compaction\u{0}{}", c.kind),
        });
    }
}

/// Inclusive turn ranges as a reader writes them: "4", "2-3", "2, 5-6"; past `IN_MESSAGE` of
/// them (a clearing of dozens of results, each a range of its own), how many more.
fn turn_ranges(ranges: impl ExactSizeIterator<Item = (usize, usize)>) -> String {
    let more = ranges.len().saturating_sub(IN_MESSAGE);
    let mut listed: Vec<String> = ranges
        .take(IN_MESSAGE)
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if more > 0 {
        listed.push(format!("and {more} more"));
    }
    listed.join(", ")
}
