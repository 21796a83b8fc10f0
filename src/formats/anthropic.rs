//! Anthropic Messages API transcripts: `{role, content}` messages whose content is a string or a
//! list of `text` / `thinking` / `tool_use` / `tool_result` blocks. The block handling here is
//! shared with the Claude Code reader, whose `message` field has the same shape.
//!
//! A `compaction` block (the API's server-side compaction) opens the response that follows a
//! compaction: it is a compaction event that replaced every turn before it, then its summary.

use super::{
    compaction_turn, expect_document, jsonl_objects, push_block, push_content, summary_turn,
    ReadOutput, Shape,
};
use crate::json::{Doc, Kind, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, ToolCall, ToolResult, Trajectory, Turn};
use crate::source::Span;

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::Anthropic);
    let d = Doc::new(bytes);
    let messages: Vec<&Value> = match shape {
        Shape::JsonLines => {
            let lines = jsonl_objects(bytes, &mut out);
            let mut traj = Trajectory::new(Format::Anthropic, Span::new(0, bytes.len()));
            for line in &lines {
                if let Err(e) = push_message(&d, &line.value, line.span, &mut traj) {
                    out.error(line.span, e);
                }
            }
            if !traj.turns.is_empty() {
                out.trajectories.push(traj);
            }
            return out;
        }
        _ => {
            let Some(doc) = expect_document(shape, &mut out) else {
                return out;
            };
            match &doc.kind {
                Kind::Array(items) => items.iter().collect(),
                Kind::Object(_) => match d.get(doc, "messages") {
                    Some(m) => d.items(m).iter().collect(),
                    None => vec![doc],
                },
                _ => Vec::new(),
            }
        }
    };
    let span = match shape {
        Shape::Document(v) => v.span,
        _ => Span::new(0, bytes.len()),
    };
    let mut traj = Trajectory::new(Format::Anthropic, span);
    if let Shape::Document(doc) = shape {
        if let Some(system) = d.get(doc, "system") {
            let mut t = Turn::new(Role::System, system.span);
            push_content(&d, system, SegmentKind::Prose, &mut t);
            traj.turns.push(t);
        }
    }
    for m in messages {
        if let Err(e) = push_message(&d, m, m.span, &mut traj) {
            out.error(m.span, e);
        }
    }
    if !traj.turns.is_empty() {
        out.trajectories.push(traj);
    }
    out
}

/// Pushes the turns of one Anthropic-shaped message `{role, content}`: one turn for its text and
/// tool calls, plus one tool turn per `tool_result` block. A `compaction` block splits the
/// message: what comes before it is read before it. A message whose `content` is missing, or
/// neither text nor a list of blocks (`null` says nothing and is no error), is an error that
/// names what was found.
pub fn push_message(d: &Doc, msg: &Value, span: Span, traj: &mut Trajectory) -> Result<(), String> {
    let role = match d.get_str(msg, "role").as_deref() {
        Some("assistant") => Role::Assistant,
        Some("system") => Role::System,
        _ => Role::User,
    };
    let content = match d.get(msg, "content") {
        None => return Err("skipped a message with no `content`".into()),
        Some(c) if matches!(c.kind, Kind::Null) => return Ok(()),
        Some(c) if !matches!(c.kind, Kind::Str { .. } | Kind::Array(_)) => {
            return Err(format!(
                "skipped a message whose `content` is a JSON {}, not text or a list of blocks",
                super::kind_name(c)
            ))
        }
        Some(c) => c,
    };
    let mut turn = Turn::new(role, span);
    let mut results = Vec::new();
    let mut split = false;
    match &content.kind {
        Kind::Str { .. } => push_content(d, content, SegmentKind::Prose, &mut turn),
        Kind::Array(blocks) => {
            for b in blocks {
                let ty = d.get_str(b, "type").unwrap_or_default();
                match ty.as_str() {
                    "tool_use" | "server_tool_use" => turn.calls.push(tool_call(d, b)),
                    "tool_result" => results.push(tool_result_turn(d, b)),
                    // The API's server-side compaction: the summary it wrote in place of every
                    // message before this one (it opens the response; later requests send it
                    // first, and the API drops what came before).
                    "compaction" => {
                        let before = std::mem::replace(&mut turn, Turn::new(role, span));
                        finish(before, std::mem::take(&mut results), true, traj);
                        compaction(d, b, traj);
                        split = true;
                    }
                    _ => push_block(d, b, SegmentKind::Prose, &mut turn),
                }
            }
        }
        _ => {}
    }
    finish(turn, results, split, traj);
    Ok(())
}

/// Pushes a message's turn (if it says or calls anything) and its results, in file order.
/// `narrow`: the turn covers only its own blocks (results or a compaction lie beside them), so
/// spans stay disjoint.
fn finish(mut turn: Turn, results: Vec<Turn>, narrow: bool, traj: &mut Trajectory) {
    let from = traj.turns.len();
    if turn.has_text() || !turn.calls.is_empty() {
        if narrow || !results.is_empty() {
            let covered = turn
                .segments
                .iter()
                .map(|s| s.text.span)
                .chain(turn.calls.iter().map(|c| c.span))
                .reduce(Span::cover);
            turn.span = covered.unwrap_or(turn.span);
        }
        traj.turns.push(turn);
    }
    traj.turns.extend(results);
    // (In file order: a message may give its results before its text.)
    traj.turns[from..].sort_by_key(|t| t.span.start);
}

/// A `compaction` block: the compaction event, then its summary (`content`; without one, the
/// compaction is opaque). It replaced the turns since the previous one; not the system prompt,
/// which the API keeps. (A log that opens with it, a request after a compaction, shows nothing
/// it replaced: only its summary is read.)
fn compaction(d: &Doc, b: &Value, traj: &mut Trajectory) {
    let summary = d.get(b, "content").filter(|c| match &c.kind {
        Kind::Str { .. } => d.str(c).is_some_and(|s| !s.trim().is_empty()),
        Kind::Array(items) => !items.is_empty(),
        _ => false,
    });
    let from = traj
        .turns
        .iter()
        .rposition(|t| matches!(t.event, Some(EventKind::Compaction { .. })))
        .map_or_else(
            || {
                traj.turns
                    .iter()
                    .take_while(|t| t.role == Role::System)
                    .count()
            },
            |k| k + 1,
        );
    let here = traj.turns.len();
    if from < here {
        traj.turns.push(compaction_turn(
            b.span,
            summary.map(|c| c.span.start),
            "anthropic.compaction",
            Some((from, here - 1)),
        ));
    }
    if let Some(c) = summary {
        let start = if from < here {
            c.span.start
        } else {
            b.span.start
        };
        traj.turns
            .push(summary_turn(d, c, Span::new(start, b.span.end)));
    }
}

/// A `tool_use` block as a call.
pub fn tool_call(d: &Doc, b: &Value) -> ToolCall {
    ToolCall {
        id: d.get_str(b, "id"),
        name: d.get_str(b, "name").unwrap_or_default(),
        arguments: d
            .get(b, "input")
            .map(|i| d.raw(i).to_string())
            .unwrap_or_default(),
        span: b.span,
        result_turn: None,
    }
}

/// A `tool_result` block as its own tool turn.
pub fn tool_result_turn(d: &Doc, b: &Value) -> Turn {
    let mut t = Turn::new(Role::Tool, b.span);
    if let Some(c) = d.get(b, "content") {
        push_content(d, c, SegmentKind::Output, &mut t);
    }
    t.result = Some(ToolResult {
        call_id: d.get_str(b, "tool_use_id"),
        is_error: d
            .get(b, "is_error")
            .and_then(|v| d.as_bool(v))
            .unwrap_or(false),
        ..Default::default()
    });
    t
}

#[cfg(test)]
mod tests {
    use crate::formats;
    use crate::model::{EventKind, Format, Role, SegmentKind};

    /// A server-side compaction: the `compaction` block opens the assistant's response. It
    /// replaced every turn before it; its summary is the compaction's, not the agent's words.
    #[test]
    fn a_compaction_block_is_a_compaction_and_its_summary() {
        let src = r#"[
 {"role": "user", "content": "Find the flaky test and fix it."},
 {"role": "assistant", "content": [{"type": "text", "text": "I will run the suite."}, {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "pytest"}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1 failed"}]},
 {"role": "assistant", "content": [{"type": "compaction", "content": "The user wants the flaky test fixed; test_io fails once in ten runs.", "signature": "Eu8B"}, {"type": "text", "text": "Next I will rerun test_io."}]},
 {"role": "user", "content": "Go on."},
 {"role": "assistant", "content": [{"type": "compaction", "content": null}]}
]"#;
        let out = formats::read(src.as_bytes(), None);
        assert_eq!(out.format, Some(Format::Anthropic));
        let t = &out.trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Tool, Event, User, Assistant, User, Event]
        );
        assert_eq!(t.compactions.len(), 2);
        let c = &t.compactions[0];
        assert_eq!((c.turn, c.replaced, c.summary_turn), (3, (0, 2), Some(4)));
        assert!(!c.opaque);
        let summary = &t.turns[4];
        assert!(summary.is_summary);
        assert_eq!(summary.segments[0].kind, SegmentKind::Summary);
        assert!(summary.segments[0].text.text.starts_with("The user wants"));
        // The agent's own words after it are its turn alone.
        assert_eq!(t.turns[5].segments.len(), 1);
        assert_eq!(
            t.turns[5].segments[0].text.text,
            "Next I will rerun test_io."
        );
        // Without a summary it is opaque, and replaced what came since the last one, that
        // one's summary included.
        let c = &t.compactions[1];
        assert!(c.opaque);
        assert_eq!((c.turn, c.replaced), (7, (4, 6)));
        assert!(matches!(
            t.turns[7].event,
            Some(EventKind::Compaction { ref name, .. }) if name == "anthropic.compaction"
        ));
        formats::checked::in_order(t);
    }

    /// Blocks before a compaction block in its message are read before it; a request that
    /// opens with the block (after the system prompt the API keeps) shows nothing it replaced.
    #[test]
    fn a_compaction_block_inside_a_message_and_at_the_start_of_a_request() {
        let src = r#"[
 {"role": "user", "content": "Go."},
 {"role": "assistant", "content": [{"type": "thinking", "thinking": "Long run."}, {"type": "compaction", "content": "Went."}, {"type": "text", "text": "Going on."}]},
 {"role": "user", "content": [{"type": "compaction", "content": []}]}
]"#;
        let t = &formats::read(src.as_bytes(), None).trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        use Role::*;
        assert_eq!(roles, [User, Assistant, Event, User, Assistant, Event]);
        formats::checked::in_order(t);
        assert_eq!(t.compactions[0].replaced, (0, 1));
        // An empty list of blocks is no summary.
        assert!(t.compactions[1].opaque);

        let request = r#"{"system": "You are terse.", "messages": [
 {"role": "assistant", "content": [{"type": "compaction", "content": "The user wants the tests fixed."}]},
 {"role": "user", "content": "Go on."}
]}"#;
        let t = &formats::read(request.as_bytes(), None).trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        assert_eq!(roles, [System, User, User]);
        assert!(t.compactions.is_empty());
        assert!(t.turns[1].is_summary);
    }

    /// Results given before the text in one message: the turns stay in file order.
    #[test]
    fn results_before_text_stay_in_file_order() {
        let src = r#"[
 {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}, {"type": "text", "text": "Now do the second one."}]}
]"#;
        let t = &formats::read(src.as_bytes(), None).trajectories[0];
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        assert_eq!(roles, [Role::Assistant, Role::Tool, Role::User]);
        formats::checked::in_order(t);
    }
}
