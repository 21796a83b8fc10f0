//! `opaque-compaction`: a compaction whose summary cannot be checked (encrypted, absent, empty),
//! as the probe found it (`ProbeReport::opaque`).

use super::turn_anchor;
use crate::lint::{Cx, Draft, Label, Rule};
use crate::model::EventKind;

pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    let traj = cx.traj;
    // A compaction that opens the log (a resumed run) replaced nothing the log holds, so it is
    // no entry of `compactions` and nothing was probed; its summary is still what the run is
    // built on, and one that is encrypted cannot be audited either.
    let probed: std::collections::HashSet<usize> =
        traj.compactions.iter().map(|c| c.turn).collect();
    for (i, t) in traj.turns.iter().enumerate() {
        let Some(EventKind::Compaction {
            name, opaque: true, ..
        }) = &t.event
        else {
            continue;
        };
        if probed.contains(&i) {
            continue;
        }
        let message = rule.message.render(|v| match v {
            "turn" => Some(i.to_string()),
            "compaction" => Some(name.clone()),
            "reason" => Some("its summary is encrypted or otherwise unreadable".to_string()),
            _ => None,
        });
        out.push(Draft {
            turn: i,
            span: t.span,
            label: format!("compaction ({name})"),
            message,
            labels: Vec::new(),
            identity: format!("opaque\u{0}{name}"),
        });
    }
    for (c, audit) in traj.compactions.iter().zip(&cx.analysis.audits) {
        if !audit.opaque {
            continue;
        }
        let reason = if c.opaque {
            "its summary is encrypted or otherwise unreadable"
        } else if c.summary_turn.is_none() {
            "the log holds no summary after it"
        } else {
            "its summary is empty"
        };
        let message = rule.message.render(|v| match v {
            "turn" => Some(c.turn.to_string()),
            "compaction" => Some(c.kind.clone()),
            "reason" => Some(reason.to_string()),
            _ => None,
        });
        let labels = c
            .summary_turn
            .map(|s| Label {
                span: turn_anchor(traj, s),
                message: format!("the summary (turn {s})"),
            })
            .into_iter()
            .collect();
        out.push(Draft {
            turn: c.turn,
            span: traj.turns[c.turn].span,
            label: format!("compaction ({})", c.kind),
            message,
            labels,
            identity: format!("opaque\u{0}{}", c.kind),
        });
    }
}
