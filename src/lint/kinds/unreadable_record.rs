//! `unreadable-record`: a record the reader had to skip (invalid JSON, a line cut off), in a
//! file whose other records were read. The only kind that looks at the file rather than at an
//! analysed trajectory: what it reports is exactly what the analysis never saw.

use crate::formats::{ReadOutput, Severity};
use crate::lint::{Draft, Rule};

/// One draft per reader error, with the trajectory it falls in (or the last one before it).
/// The turn is the last one that starts at or before the lost record: the record may have
/// belonged to it, or have come after it.
pub fn run(rule: &Rule, read: &ReadOutput) -> Vec<(usize, Draft)> {
    let mut out = Vec::new();
    for issue in read.issues.iter().filter(|i| i.severity == Severity::Error) {
        let at = issue.span.start;
        let t = read
            .trajectories
            .partition_point(|t| t.span.start <= at)
            .saturating_sub(1);
        let Some(traj) = read.trajectories.get(t) else {
            continue;
        };
        let turn = traj
            .turns
            .partition_point(|u| u.span.start <= at)
            .saturating_sub(1);
        let message = rule.message.render(|v| match v {
            "message" => Some(issue.message.clone()),
            "turn" => Some(turn.to_string()),
            _ => None,
        });
        out.push((
            t,
            Draft {
                turn,
                span: issue.span,
                label: "not read".to_string(),
                message,
                labels: Vec::new(),
                // (What the reader said of it: offsets move when the log grows.)
                identity: format!("unreadable\u{0}{}", issue.message),
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::formats::read;
    use crate::lint::Catalogue;

    #[test]
    fn each_lost_record_is_placed_after_the_last_turn_read_before_it() {
        let log = concat!(
            r#"{"type":"session_meta","payload":{"id":"s-1"}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Bump the version."}]}}"#,
            "\n",
            "{broken\n",
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
            "\n",
            r#"{"type":"response_item","payload":{"type":"mess"#,
        );
        let out = read(log.as_bytes(), None);
        assert_eq!(out.trajectories[0].turns.len(), 2);
        let rule = Catalogue::builtin().get("unreadable-record").unwrap();
        let found = super::run(rule, &out);
        let at: Vec<(usize, usize, &str)> = found
            .iter()
            .map(|(t, d)| (*t, d.turn, &log[d.span.start..d.span.end]))
            .collect();
        // The broken third line (after the user's turn) and the cut last one (after the
        // assistant's), each a finding whose message is the reader's.
        assert_eq!(at.len(), 2, "{at:?}");
        assert_eq!((at[0].0, at[0].1), (0, 0));
        assert!(log[found[0].1.span.start..].starts_with("broken"), "{at:?}");
        assert_eq!((at[1].0, at[1].1), (0, 1));
        assert_eq!(found[1].1.span.end, log.len());
        assert!(
            found[1].1.message.contains("cut off"),
            "{}",
            found[1].1.message
        );
        // Warnings and notes of the reader are not findings.
        let mut quiet = read(log.as_bytes(), None);
        quiet
            .issues
            .retain(|i| i.severity != crate::formats::Severity::Error);
        assert!(super::run(rule, &quiet).is_empty());
    }
}
