//! Claude Code session logs: JSONL, one event per line, a conversation tree through `parentUuid`.
//!
//! The active branch is the chain from the last message back to the root, crossing compaction
//! boundaries through `logicalParentUuid`. Parallel tool calls leave side branches that are still
//! part of the conversation: the later lines of a split API response (same `message.id`) and the
//! `tool_result` lines answering calls on the branch hang off their own `tool_use` line, so they
//! are taken back in file order. One API response split over several consecutive lines is one
//! turn. `progress`, snapshot and queue records are not turns, nor are attachments, except a
//! prompt sent while the agent worked (a `queued_command` attachment, or in older logs the queue
//! records alone): the harness hands it to the model with the next result, and it is written
//! nowhere else; and a hook's report on a call (`hook_blocking_error`, `hook_additional_context`),
//! a system turn. A user record the harness wrote (`isMeta`, `isSynthetic`, an `origin` other than
//! the person's such as another agent's hand-back, a background job's notice) is a system turn,
//! except the compaction summary (`isCompactSummary`; in print mode's stream, the harness's own
//! synthetic message after the boundary). An API error written as the model's message is an event
//! of the run stopping. Hand-made logs whose records are not linked at all, and the web export
//! (`{"loglines": [...]}`), are read in file order. Sessions joined in one file (`cat`, `>>`),
//! trees of different `sessionId`s that never link, are a trajectory each.

use super::{anthropic, jsonl_objects, push_content, ReadOutput, Severity, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::{EventKind, Format, Role, SegmentKind, Trajectory, Turn};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let mut out = ReadOutput::new(Format::ClaudeCode);
    let d = Doc::new(bytes);
    let records: Vec<(Span, &Value)>;
    let lines;
    match shape {
        // A one-line log parses as a document: it is its own single record.
        Shape::Document(doc)
            if d.get(doc, "loglines").is_none() && d.get(doc, "type").is_some() =>
        {
            records = vec![(doc.span, doc)];
        }
        Shape::Document(doc) => {
            let items = d
                .get(doc, "loglines")
                .map(|l| d.items(l))
                .unwrap_or_else(|| d.items(doc));
            records = items.iter().map(|v| (v.span, v)).collect();
        }
        _ => {
            lines = jsonl_objects(bytes, &mut out);
            records = lines.iter().map(|l| (l.span, &l.value)).collect();
        }
    }
    let sessions = sessions(&d, &records);
    let whole = sessions.len() == 1;
    for group in sessions {
        let span = if whole {
            Span::new(0, bytes.len())
        } else {
            let (first, last) = (group[0].0, group[group.len() - 1].0);
            first.cover(last)
        };
        if let Some(traj) = read_session(d, &group, span, &mut out) {
            out.trajectories.push(traj);
        }
    }
    out
}

/// The records of each session a file holds: one group, unless sessions were joined (`cat`,
/// `>>`): sessions whose conversation trees never link to each other are each their own
/// trajectory, in order of first appearance. (A resumed session's file holds records of the
/// earlier session linked into its own tree: one conversation; linked sessions are grouped by
/// the components of their links.) A record without a session id goes with the record before
/// it, and its links join nothing: a `summary` names a leaf of any session it titles.
fn sessions<'v>(d: &Doc, records: &[(Span, &'v Value)]) -> Vec<Vec<(Span, &'v Value)>> {
    let id_of = |rec: &Value| {
        d.get_str(rec, "sessionId")
            .or_else(|| d.get_str(rec, "session_id"))
    };
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut group_of: Vec<usize> = Vec::with_capacity(records.len());
    let mut own_id: Vec<bool> = Vec::with_capacity(records.len());
    let mut current = 0usize;
    for (_, rec) in records {
        let id = id_of(rec);
        own_id.push(id.is_some());
        if let Some(id) = id {
            let n = index.len();
            current = *index.entry(id).or_insert(n);
        }
        group_of.push(current);
    }
    if index.len() < 2 {
        return vec![records.to_vec()];
    }
    let mut uuid_at: HashMap<String, usize> = HashMap::new();
    for (k, (_, rec)) in records.iter().enumerate() {
        if let Some(u) = d.get_str(rec, "uuid") {
            uuid_at.entry(u).or_insert(k);
        }
    }
    // Union-find over sessions: a record linking to one of another session joins the two.
    let mut parent: Vec<usize> = (0..index.len()).collect();
    fn root(parent: &mut [usize], mut g: usize) -> usize {
        while parent[g] != g {
            parent[g] = parent[parent[g]];
            g = parent[g];
        }
        g
    }
    for (k, (_, rec)) in records.iter().enumerate() {
        if !own_id[k] {
            continue;
        }
        for key in ["parentUuid", "logicalParentUuid", "leafUuid"] {
            // A parent is written before its child: one written after it is in a session joined
            // ahead of the session it resumed (`cat` in an order not the sessions'), and the two
            // are read apart, each as its own file would be, rather than one losing the other.
            let linked = d.get_str(rec, key).and_then(|p| uuid_at.get(&p).copied());
            if let Some(j) = linked.filter(|&j| j < k) {
                let (a, b) = (
                    root(&mut parent, group_of[j]),
                    root(&mut parent, group_of[k]),
                );
                // (The earlier session is the root: components keep first-appearance order.)
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    // Components in order of first appearance.
    let mut slot: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<Vec<(Span, &Value)>> = Vec::new();
    for (k, r) in records.iter().enumerate() {
        let c = root(&mut parent, group_of[k]);
        let n = slot.len();
        let at = *slot.entry(c).or_insert(n);
        if at == groups.len() {
            groups.push(Vec::new());
        }
        groups[at].push(*r);
    }
    groups
}

/// One session's records as a trajectory spanning `span`.
fn read_session(
    d: Doc,
    records: &[(Span, &Value)],
    span: Span,
    out: &mut ReadOutput,
) -> Option<Trajectory> {
    let prompts = delivered_prompts(&d, records);
    let order = active_branch(&d, records, &prompts, out);
    let mut traj = Trajectory::new(Format::ClaudeCode, span);
    // The assistant turn further lines of the same API response join: (message id, turn index).
    let mut open: Option<(String, usize)> = None;
    // The first turn of each API message, for its calls written after results (`continues`).
    let mut message_turn: HashMap<String, usize> = HashMap::new();
    // First turn read from each record uuid, for compactions that name preserved messages.
    let mut turn_of_uuid: HashMap<String, usize> = HashMap::new();
    // First turn after the latest compaction boundary.
    let mut segment_start = 0usize;
    for i in order {
        let (span, rec) = records[i];
        if !matches!(rec.kind, Kind::Object(_)) {
            continue;
        }
        let ty = d.get_str(rec, "type").unwrap_or_default();
        // In `--output-format stream-json`, a sub-agent's messages come inline, marked with
        // the call that started it: its turns, not this trajectory's.
        if d.get(rec, "parent_tool_use_id")
            .is_some_and(|p| matches!(p.kind, Kind::Str { .. }))
        {
            continue;
        }
        if traj.id.is_none() {
            // A sub-agent file shares its parent's sessionId; its own id is the agentId.
            let sidechain = d.flag(rec, "isSidechain");
            traj.id = sidechain
                .then(|| d.get_str(rec, "agentId"))
                .flatten()
                .or_else(|| d.get_str(rec, "sessionId"))
                .or_else(|| d.get_str(rec, "session_id"));
        }
        let before = traj.turns.len();
        let mut first_turn = None;
        match ty.as_str() {
            "assistant" => {
                let Some(msg) = super::required_object(&d, rec, "message", &ty, span, out) else {
                    continue;
                };
                let id = d.get_str(msg, "id");
                if let Err(e) = anthropic::push_message(&d, msg, span, &mut traj) {
                    out.error(span, e);
                    continue;
                }
                if traj.turns.len() != before + 1 {
                    // A line with no text and no call (an empty text block): the response goes on.
                    continue;
                }
                // Written by the harness in the model's place: the API error that stopped the
                // run (`isApiErrorMessage`: "API Error: 529 …", a usage limit), or a canned reply
                // (model `<synthetic>`: "No response requested.").
                let api_error = d.flag(rec, "isApiErrorMessage");
                if api_error || d.get_str(msg, "model").as_deref() == Some("<synthetic>") {
                    let t = &mut traj.turns[before];
                    if api_error {
                        t.role = Role::Event;
                        let error = d.get_str(rec, "error").unwrap_or_else(|| "error".into());
                        t.event = Some(EventKind::Other(format!("claude-code.api_error.{error}")));
                    } else {
                        t.role = Role::System;
                    }
                    open = None;
                    first_turn = Some(before);
                } else {
                    let joins = match (&id, &open) {
                        (Some(id), Some((open_id, at))) => {
                            id == open_id
                                && *at + 1 == before
                                && traj.turns[*at].role == Role::Assistant
                        }
                        _ => false,
                    };
                    if let (true, Some((_, at))) = (joins, &open) {
                        let at = *at;
                        if let Some(new) = traj.turns.pop() {
                            let prev = &mut traj.turns[at];
                            prev.span = prev.span.cover(new.span);
                            prev.segments.extend(new.segments);
                            prev.calls.extend(new.calls);
                        }
                        first_turn = Some(at);
                    } else {
                        if let Some(id) = &id {
                            let first = *message_turn.entry(id.clone()).or_insert(before);
                            let assistant = traj.turns.get(first).map(|t| t.role);
                            if first != before && assistant == Some(Role::Assistant) {
                                traj.turns[before].continues = Some(first);
                            }
                        }
                        open = id.map(|id| (id, before));
                        first_turn = Some(before);
                    }
                }
            }
            "user" => {
                open = None;
                let Some(msg) = super::required_object(&d, rec, "message", &ty, span, out) else {
                    continue;
                };
                // (A harness message between the boundary and the summary, another agent's say,
                // is not in the way.)
                let after_boundary = match traj
                    .turns
                    .iter()
                    .rev()
                    .find(|t| t.role != Role::System)
                    .and_then(|t| t.event.as_ref())
                {
                    Some(EventKind::Compaction { .. }) => true,
                    Some(EventKind::Other(name)) => name == BOUNDARY_KEEPING_ALL,
                    _ => false,
                };
                // `claude -p --output-format stream-json` marks no summary as such: it is the
                // message the harness made itself (`isSynthetic`, not replayed, from no other
                // sender) after the boundary.
                let own_synthetic = d.flag(rec, "isSynthetic")
                    && !d.flag(rec, "isReplay")
                    && origin_is_human(&d, rec);
                let is_summary = d.flag(rec, "isCompactSummary") || own_synthetic && after_boundary;
                // Injected by the harness (caveats, command output, a hook's verdict, another
                // agent's report handed back), not said by the user.
                let injected = d.flag(rec, "isMeta")
                    || d.flag(rec, "isSynthetic")
                    || !origin_is_human(&d, rec);
                if is_summary {
                    let content = d.get(msg, "content");
                    let mut summary_span = span;
                    if let (false, Some(c)) = (after_boundary, content) {
                        // No boundary record (the web export drops system lines): the summary
                        // record is the boundary too, split at its content.
                        let mut t = Turn::new(Role::Event, Span::new(span.start, c.span.start));
                        t.event = Some(EventKind::Compaction {
                            name: "claude-code.compact_summary".into(),
                            replaced: None,
                            opaque: false,
                        });
                        traj.turns.push(t);
                        segment_start = traj.turns.len();
                        summary_span = c.span;
                    }
                    let mut t = Turn::new(Role::User, summary_span);
                    if let Some(c) = content {
                        push_content(&d, c, SegmentKind::Summary, &mut t);
                    }
                    t.is_summary = true;
                    first_turn = Some(traj.turns.len());
                    traj.turns.push(t);
                } else {
                    if let Err(e) = anthropic::push_message(&d, msg, span, &mut traj) {
                        out.error(span, e);
                        continue;
                    }
                    if traj.turns.len() > before {
                        first_turn = Some(before);
                    }
                    let new = &mut traj.turns[before..];
                    // (So is the notice that a background job finished.)
                    for t in new.iter_mut() {
                        if t.role == Role::User
                            && (injected
                                || is_task_notification(t)
                                || is_command_output(t)
                                || is_interruption(t))
                        {
                            t.role = Role::System;
                        }
                    }
                    // toolUseResult as a bare "Error: …" string is the structured error signal.
                    if let Some(tur) = d.get(rec, "toolUseResult").and_then(|v| d.str(v)) {
                        if tur.starts_with("Error") || tur == "User rejected tool use" {
                            for t in new.iter_mut() {
                                if let Some(r) = t.result.as_mut() {
                                    r.is_error = true;
                                }
                            }
                        }
                    }
                    // Bash results that failed begin "Exit code N".
                    for t in new.iter_mut() {
                        let (Some(r), Some(first)) = (t.result.as_mut(), t.segments.first_mut())
                        else {
                            continue;
                        };
                        if let Some((code, printed_from)) = exit_code(&first.text.text) {
                            r.exit_code = Some(code);
                            first.printed.start = printed_from;
                        }
                    }
                }
            }
            "system" => {
                open = None;
                let subtype = d.get_str(rec, "subtype").unwrap_or_default();
                if subtype == "compact_boundary" {
                    // What it replaced: the turns since the previous compaction's (its kept
                    // turns included), up to the first it keeps itself. (The turns it kept are
                    // the next compaction's to replace. One that kept every turn since the
                    // previous one replaced nothing: no compaction, only a summary of its own.)
                    let here = traj.turns.len();
                    let kept = first_preserved(&d, rec, &turn_of_uuid, segment_start);
                    let replaced = match kept {
                        Some(first) => (first > segment_start).then(|| (segment_start, first - 1)),
                        None => (segment_start < here).then(|| (segment_start, here - 1)),
                    };
                    let mut t = Turn::new(Role::Event, span);
                    t.event = Some(match (kept, replaced) {
                        (Some(_), None) => EventKind::Other(BOUNDARY_KEEPING_ALL.into()),
                        _ => EventKind::Compaction {
                            name: "claude-code.compact_boundary".into(),
                            replaced,
                            opaque: false,
                        },
                    });
                    traj.turns.push(t);
                    segment_start = kept.unwrap_or(traj.turns.len());
                } else if subtype == "microcompact_boundary" {
                    // Old tool results cleared to a placeholder, named by their calls' ids;
                    // everything else stays in view (no chain break either).
                    let call_ids = d
                        .path(rec, &["microcompactMetadata", "compactedToolIds"])
                        .map(|ids| d.items(ids).iter().filter_map(|v| d.str(v)).collect())
                        .unwrap_or_default();
                    let mut t = Turn::new(Role::Event, span);
                    t.event = Some(EventKind::Clearing {
                        name: "claude-code.microcompact_boundary".into(),
                        call_ids,
                    });
                    traj.turns.push(t);
                }
            }
            "queue-operation" | "attachment" if prompts.contains(&i) => {
                open = None;
                let attachment = queued_command(&d, rec);
                let content = match attachment {
                    Some(a) => d.get(a, "prompt"),
                    None => d.get(rec, "content"),
                };
                let mut t = Turn::new(Role::User, span);
                if let Some(v) = content {
                    push_content(&d, v, SegmentKind::Prose, &mut t);
                }
                if attachment.is_some_and(|a| !typed_by_the_user(&d, rec, a))
                    || is_task_notification(&t)
                {
                    t.role = Role::System;
                }
                first_turn = Some(traj.turns.len());
                traj.turns.push(t);
            }
            // A hook's report on a call, which newer logs write as an attachment (older ones
            // as an isMeta reminder holding the same words under a header).
            "attachment" => {
                if let Some(t) = hook_report(&d, rec, span) {
                    open = None;
                    first_turn = Some(traj.turns.len());
                    traj.turns.push(t);
                }
            }
            // The closing record of `claude -p --output-format stream-json`: on success it
            // repeats the last message; otherwise the run stopped (turn limit, error). (An API
            // error may come as subtype "success" with `is_error`.)
            "result" if !d.is(rec, "subtype", "success") || d.flag(rec, "is_error") => {
                open = None;
                let mut t = Turn::new(Role::Event, span);
                let subtype = d.get_str(rec, "subtype").unwrap_or_else(|| "error".into());
                t.event = Some(EventKind::Other(format!("claude-code.result.{subtype}")));
                // (Amp's stream, made to match this one, says why in `error`.)
                for key in ["result", "errors", "error"] {
                    if let Some(v) = d.get(rec, key) {
                        push_content(&d, v, SegmentKind::Prose, &mut t);
                    }
                }
                traj.turns.push(t);
            }
            _ => {}
        }
        if let (Some(t), Some(u)) = (first_turn, d.get_str(rec, "uuid")) {
            turn_of_uuid.entry(u).or_insert(t);
        }
    }
    (!traj.turns.is_empty()).then_some(traj)
}

/// The exit code a failed Bash result starts with (`Exit code 128\nfatal: …`), and where what
/// the command printed starts, on the next line.
fn exit_code(text: &str) -> Option<(i64, usize)> {
    let (code, after) = super::leading_int(text.strip_prefix("Exit code ")?)?;
    let after = after.strip_prefix('\r').unwrap_or(after);
    let printed = match after.strip_prefix('\n') {
        Some(rest) => rest,
        None if after.is_empty() => after,
        None => return None,
    };
    Some((code, text.len() - printed.len()))
}

/// The event of a compaction boundary that kept every turn since the previous one: it replaced
/// nothing, so it is no compaction.
const BOUNDARY_KEEPING_ALL: &str = "claude-code.compact_boundary";

/// With a preserved segment (messages kept word for word across the compaction): the first
/// turn it kept, since `segment_start`. The summary replaced only the turns before it.
fn first_preserved(
    d: &Doc,
    rec: &Value,
    turn_of_uuid: &HashMap<String, usize>,
    segment_start: usize,
) -> Option<usize> {
    let meta = d.get(rec, "compactMetadata")?;
    let mut uuids: Vec<String> = d
        .path(meta, &["preservedMessages", "uuids"])
        .map(|u| d.items(u).iter().filter_map(|v| d.str(v)).collect())
        .unwrap_or_default();
    if let Some(h) = d
        .path(meta, &["preservedSegment", "headUuid"])
        .and_then(|v| d.str(v))
    {
        uuids.push(h);
    }
    uuids
        .iter()
        .filter_map(|u| turn_of_uuid.get(u).copied())
        .filter(|&t| t >= segment_start)
        .min()
}

fn is_message(d: &Doc, v: &Value) -> bool {
    let ty = d.get_str(v, "type");
    matches!(ty.as_deref(), Some("user" | "assistant" | "system"))
}

/// The records that hold a prompt the model was given while the agent worked.
///
/// Newer logs write each one as a `queued_command` attachment when it is sent. Older logs write
/// only the queue: the user typed the prompt (`enqueue`), and the harness later took it off the
/// queue into the running turn (`remove`; newer logs add `"reason":"absorbed_mid_turn"`). A
/// prompt the harness took off to start a turn of its own (`dequeue`) is written next as a user
/// record, and one put back into the input box (`popAll`) was not sent: neither is read from the
/// queue. Newer logs keep the queue too, as bookkeeping: an `enqueue` whose words an attachment
/// sends is read there. A background job's notice is queued as well, but then it comes again as a
/// user record of its own, which an attachment may repeat too: read there. (One pass from the
/// end: the next operation that is not an `enqueue` decides.)
fn delivered_prompts(d: &Doc, records: &[(Span, &Value)]) -> HashSet<usize> {
    // Each attachment that sends a prompt, with its words.
    let sent_by_attachment: Vec<(usize, String)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, (_, v))| {
            let prompt = d.get(queued_command(d, v)?, "prompt");
            let text = prompt.map(|p| prompt_text(d, p)).unwrap_or_default();
            Some((i, text.trim().to_string()))
        })
        .collect();
    // A job's notice written as a user record too is read there, not twice.
    let notices: HashSet<String> = if sent_by_attachment.is_empty() {
        HashSet::new()
    } else {
        records
            .iter()
            .filter(|(_, v)| d.is(v, "type", "user"))
            .filter_map(|(_, v)| d.get(v, "message").and_then(|m| d.get(m, "content")))
            .map(|c| prompt_text(d, c).trim().to_string())
            .filter(|c| c.starts_with("<task-notification>"))
            .collect()
    };
    let mut out: HashSet<usize> = sent_by_attachment
        .iter()
        .filter(|(_, text)| !text.is_empty() && !notices.contains(text))
        .map(|&(i, _)| i)
        .collect();
    let attached: HashSet<&str> = sent_by_attachment.iter().map(|(_, t)| t.as_str()).collect();
    let mut sent = false;
    for (i, (_, v)) in records.iter().enumerate().rev() {
        if !d.is(v, "type", "queue-operation") {
            continue;
        }
        let Some(op) = d.get_str(v, "operation") else {
            continue;
        };
        if op != "enqueue" {
            sent = op == "remove";
            continue;
        }
        let prompt = d.get_str(v, "content").is_some_and(|c| {
            let c = c.trim();
            !c.is_empty() && !c.starts_with("<task-notification>") && !attached.contains(c)
        });
        if sent && prompt {
            out.insert(i);
        }
    }
    out
}

/// A prompt's text: a string, or its text blocks one after another.
fn prompt_text(d: &Doc, prompt: &Value) -> String {
    d.str(prompt).unwrap_or_else(|| {
        d.items(prompt)
            .iter()
            .filter_map(|b| d.get(b, "text").and_then(|t| d.str(t)))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The attachment of a `queued_command` record (a prompt as it was sent).
fn queued_command<'v>(d: &Doc, rec: &'v Value) -> Option<&'v Value> {
    if !d.is(rec, "type", "attachment") {
        return None;
    }
    d.get(rec, "attachment")
        .filter(|a| d.is(a, "type", "queued_command"))
}

/// Whether a sent prompt came from the person at the keyboard, not from the harness (a
/// background job's notice, another agent's message, a hook). (`isMeta` may mark the record or
/// its attachment.)
fn typed_by_the_user(d: &Doc, rec: &Value, attachment: &Value) -> bool {
    let mode_is_prompt = d
        .get_str(attachment, "commandMode")
        .is_none_or(|m| m == "prompt");
    let meta = [rec, attachment].iter().any(|v| d.flag(v, "isMeta"));
    mode_is_prompt && origin_is_human(d, attachment) && !meta
}

/// Whether a record (or an attachment) says it came from the person: newer logs name its
/// `origin` (`human`; `peer` for another agent's hand-back, `task-notification`, …), older ones
/// nothing, and then it is the person's.
fn origin_is_human(d: &Doc, v: &Value) -> bool {
    d.get(v, "origin")
        .and_then(|o| d.get_str(o, "kind"))
        .is_none_or(|k| k == "human")
}

/// The content blocks of a record's message (empty when the content is a string).
fn blocks<'v>(d: &Doc, v: &'v Value) -> &'v [Value] {
    d.get(v, "message")
        .and_then(|m| d.get(m, "content"))
        .map(|c| d.items(c))
        .unwrap_or(&[])
}

/// Indices of the records of the active branch, in conversation order.
fn active_branch(
    d: &Doc,
    records: &[(Span, &Value)],
    prompts: &HashSet<usize>,
    out: &mut ReadOutput,
) -> Vec<usize> {
    let n = records.len();
    let mut by_uuid: HashMap<String, usize> = HashMap::new();
    for (i, (_, v)) in records.iter().enumerate() {
        if let Some(u) = d.get_str(v, "uuid") {
            by_uuid.insert(u, i);
        }
    }
    let resolves =
        |v: &Value, key: &str| d.get_str(v, key).is_some_and(|p| by_uuid.contains_key(&p));
    // Without a single resolvable link the tree says nothing (hand-made logs, web export).
    let linked = records.iter().any(|(_, v)| {
        is_message(d, v) && (resolves(v, "parentUuid") || resolves(v, "logicalParentUuid"))
    });
    if !linked {
        return (0..n).collect();
    }
    let is_turn_record =
        |v: &Value| matches!(d.get_str(v, "type").as_deref(), Some("user" | "assistant"));
    // The leaf is the latest message; the latest of the main conversation where a sub-agent's
    // records (its `subagents/*.jsonl`, same session id) were joined after it.
    let is_leaf = |v: &Value| is_turn_record(v) && d.get(v, "uuid").is_some();
    let Some(leaf) = records
        .iter()
        .rposition(|(_, v)| is_leaf(v) && !d.flag(v, "isSidechain"))
        .or_else(|| records.iter().rposition(|(_, v)| is_leaf(v)))
    else {
        return (0..n).collect();
    };

    // Walk back from the leaf. Where the links run out before the root (a parent outside the
    // file; a compaction's logical parent that was re-linked after it as a preserved message),
    // the branch goes on from the latest earlier message not yet on it.
    let mut on = vec![false; n];
    let mut chain = Vec::new();
    let mut cursor = n;
    let mut missing: Option<(Span, usize)> = None;
    let mut at = Some(leaf);
    while let Some(i) = at {
        on[i] = true;
        chain.push(i);
        let v = records[i].1;
        let mut jump = false;
        at = match d.get_str(v, "parentUuid") {
            Some(p) => match by_uuid.get(&p) {
                Some(&j) if !on[j] => Some(j),
                Some(_) => {
                    out.warn(
                        records[i].0,
                        "the parentUuid chain loops back here; reading stopped at the loop",
                    );
                    None
                }
                None => {
                    missing = Some(missing.map_or((records[i].0, 1), |(s, k)| (s, k + 1)));
                    jump = true;
                    None
                }
            },
            None => match d.get_str(v, "logicalParentUuid") {
                Some(lp) => match by_uuid.get(&lp) {
                    Some(&j) if !on[j] => Some(j),
                    _ => {
                        jump = true;
                        None
                    }
                },
                None => None,
            },
        };
        if jump {
            let mut k = cursor.min(i);
            while k > 0 {
                k -= 1;
                let w = records[k].1;
                if !on[k] && is_message(d, w) && d.get(w, "uuid").is_some() {
                    at = Some(k);
                    break;
                }
            }
            cursor = k;
        }
    }
    chain.reverse();
    if let Some((span, k)) = missing {
        let msg = if k == 1 {
            "this record's parent is not in this file; the records before it are read in file order"
                .to_string()
        } else {
            format!("{k} records have parents not in this file (the first is here); the records before them are read in file order")
        };
        out.issue(Severity::Note, span, msg, None);
    }

    // Side branches of parallel tool calls: later parts of an API response on the branch, and
    // results answering calls on the branch.
    let message_id = |v: &Value| d.get(v, "message").and_then(|m| d.get_str(m, "id"));
    let is_assistant = |v: &Value| d.is(v, "type", "assistant");
    let is_user = |v: &Value| d.is(v, "type", "user");
    let branch_ids: HashSet<String> = chain
        .iter()
        .filter(|&&i| is_assistant(records[i].1))
        .filter_map(|&i| message_id(records[i].1))
        .collect();
    let mut taken = vec![false; n];
    let mut calls: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    for (i, (_, v)) in records.iter().enumerate() {
        if is_assistant(v) {
            if !on[i] && message_id(v).is_some_and(|m| branch_ids.contains(&m)) {
                taken[i] = true;
            }
            if on[i] || taken[i] {
                for b in blocks(d, v) {
                    if d.is(b, "type", "tool_use") {
                        if let Some(id) = d.get_str(b, "id") {
                            calls.insert(id);
                        }
                    }
                }
            }
        } else if on[i] && is_user(v) {
            for b in blocks(d, v) {
                if let Some(id) = d.get_str(b, "tool_use_id") {
                    answered.insert(id);
                }
            }
        }
    }
    for (i, (_, v)) in records.iter().enumerate() {
        if on[i] || !is_user(v) {
            continue;
        }
        let ids: Vec<String> = blocks(d, v)
            .iter()
            .filter(|b| d.is(b, "type", "tool_result"))
            .filter_map(|b| d.get_str(b, "tool_use_id"))
            .collect();
        if ids
            .iter()
            .any(|id| calls.contains(id) && !answered.contains(id))
        {
            taken[i] = true;
            answered.extend(ids);
        }
    }
    // A compaction that kept the latest messages word for word (`preservedSegment`) is off the
    // chain: the next message goes on from the preserved tail, and Claude Code links the
    // preserved head to the summary only when it loads the session. Where the segment is on
    // the branch, its boundary and summary are read where they lie.
    let side_of = |v: &Value| d.get(v, "isSidechain").and_then(|x| d.as_bool(x));
    let leaf_side = side_of(records[leaf].1);
    let mut boundaries: HashSet<String> = HashSet::new();
    for (i, (_, v)) in records.iter().enumerate() {
        if on[i]
            || !d.is(v, "subtype", "compact_boundary")
            || side_of(v).is_some_and(|s| Some(s) != leaf_side)
        {
            continue;
        }
        let segment = |k: &str| {
            d.path(v, &["compactMetadata", "preservedSegment", k])
                .and_then(|u| d.str(u))
                .and_then(|u| by_uuid.get(&u).copied())
        };
        let kept = ["headUuid", "tailUuid"]
            .iter()
            .any(|k| segment(k).is_some_and(|j| on[j]));
        let Some(u) = d.get_str(v, "uuid").filter(|_| kept) else {
            continue;
        };
        taken[i] = true;
        // Its summary: the anchor the head is relinked to, and what lies between it and the
        // boundary (an attachment may), if that path leads back to the boundary on the leaf's
        // side; and the boundary's own children.
        let mut path = Vec::new();
        let mut at = segment("anchorUuid");
        while let Some(j) = at.filter(|&j| j != i && !on[j] && !taken[j] && path.len() < 16) {
            path.push(j);
            at = d
                .get_str(records[j].1, "parentUuid")
                .and_then(|p| by_uuid.get(&p).copied());
        }
        let same_side = |j: &usize| side_of(records[*j].1).is_none_or(|s| Some(s) == leaf_side);
        if at == Some(i) && path.iter().all(same_side) {
            for j in path {
                taken[j] = true;
            }
        }
        boundaries.insert(u);
    }
    if !boundaries.is_empty() {
        for (i, (_, v)) in records.iter().enumerate() {
            if !on[i]
                && d.get_str(v, "parentUuid")
                    .is_some_and(|p| boundaries.contains(&p))
            {
                taken[i] = true;
            }
        }
    }
    // The records after the last message that hang off the branch: a log may end on a
    // compaction boundary or a clearing (nothing after it yet), which is still the run's.
    for k in leaf + 1..n {
        let v = records[k].1;
        let parent = d
            .get_str(v, "parentUuid")
            .or_else(|| d.get_str(v, "logicalParentUuid"))
            .and_then(|p| by_uuid.get(&p).copied());
        if !on[k] && !is_turn_record(v) && parent.is_some_and(|j| on[j] || taken[j]) {
            taken[k] = true;
        }
    }
    // A prompt sent while the agent worked and not on the chain (the model gets it with the
    // next tool result) is read by its place in the file: a queue record, or an attachment
    // whose parent the branch reads (or is not in the file). One under an abandoned branch,
    // or a sub-agent's, is not.
    let mut sent: Vec<usize> = prompts.iter().copied().filter(|&k| !on[k]).collect();
    sent.sort_unstable();
    for k in sent {
        let v = records[k].1;
        let side = side_of(v);
        let parent = d
            .get_str(v, "parentUuid")
            .and_then(|p| by_uuid.get(&p).copied());
        taken[k] =
            side.is_none_or(|s| Some(s) == leaf_side) && parent.is_none_or(|j| on[j] || taken[j]);
    }
    // Merge the side records into the branch by file position.
    let mut side = (0..n).filter(|&k| taken[k]).peekable();
    let mut order = Vec::with_capacity(chain.len());
    for c in chain {
        while let Some(k) = side.next_if(|&k| k < c) {
            order.push(k);
        }
        order.push(c);
    }
    order.extend(side);

    // Messages on abandoned branches (rewinds, edits) are reported, not read.
    let (mut first_skipped, mut skipped) = (None, 0usize);
    let (mut first_other, mut other_side) = (None, 0usize);
    for (i, (span, v)) in records.iter().enumerate() {
        let message = is_turn_record(v) || prompts.contains(&i);
        if on[i] || taken[i] || !message || d.get(v, "uuid").is_none() {
            continue;
        }
        // (A record that does not say which side it is on is not a sub-agent's.)
        let side = d.get(v, "isSidechain").and_then(|x| d.as_bool(x));
        if side.is_some() && side != leaf_side {
            other_side += 1;
            first_other.get_or_insert(*span);
            continue;
        }
        skipped += 1;
        first_skipped.get_or_insert(*span);
    }
    if let Some(span) = first_skipped {
        out.note(
            span,
            format!("skipped {skipped} message record(s) not on the active branch (rewinds or edits); the first is here"),
        );
    }
    if let Some(span) = first_other {
        out.note(
            span,
            format!("skipped {other_side} sidechain (sub-agent) record(s) mixed into this file; the first is here"),
        );
    }
    order
}

/// A hook's report on a call (`hook_blocking_error`, `hook_additional_context` of a
/// `PreToolUse` / `PostToolUse` hook): a system turn of its words, marked as a hook's report by its
/// event (`HOOK_REPORT` and the hook's name). A `Stop` hook's feedback comes again as a user
/// record: read there.
fn hook_report(d: &Doc, rec: &Value, span: Span) -> Option<Turn> {
    let a = d.get(rec, "attachment")?;
    let ty = d.get_str(a, "type")?;
    if !matches!(
        ty.as_str(),
        "hook_blocking_error" | "hook_additional_context"
    ) {
        return None;
    }
    let event = d.get_str(a, "hookEvent").unwrap_or_default();
    if !event.contains("ToolUse") {
        return None;
    }
    let mut t = Turn::new(Role::System, span);
    if let Some(e) = d.get(a, "blockingError") {
        let words = d.get(e, "blockingError").unwrap_or(e);
        push_content(d, words, SegmentKind::Prose, &mut t);
    }
    if let Some(c) = d.get(a, "content") {
        push_content(d, c, SegmentKind::Prose, &mut t);
    }
    if t.segments.is_empty() {
        return None;
    }
    let name = d.get_str(a, "hookName").unwrap_or(event);
    t.event = Some(EventKind::Other(format!(
        "{}{name}",
        crate::model::HOOK_REPORT
    )));
    Some(t)
}

/// What a command the person ran printed, which Claude Code writes as a user message: a slash
/// command's (`<local-command-stdout>`) or a shell line's (`!ls` gives `<bash-stdout>`). What the
/// person typed (`<command-name>`, `<bash-input>`) stays theirs.
fn is_command_output(turn: &Turn) -> bool {
    opens_with(
        turn,
        &[
            "<local-command-stdout>",
            "<local-command-stderr>",
            "<bash-stdout>",
            "<bash-stderr>",
        ],
    )
}

/// The harness's note that the person stopped the model (Esc): "[Request interrupted by
/// user]", "… for tool use]". It says the person acted, in the harness's words, not theirs.
fn is_interruption(turn: &Turn) -> bool {
    turn.segments.len() == 1 && {
        let t = turn.segments[0].text.text.trim();
        t.starts_with("[Request interrupted by user") && t.ends_with(']')
    }
}

/// Whether a turn's text opens with one of these tags.
fn opens_with(turn: &Turn, tags: &[&str]) -> bool {
    turn.segments.first().is_some_and(|s| {
        let t = s.text.text.trim_start();
        tags.iter().any(|tag| t.starts_with(tag))
    })
}

/// The harness's notice that a background job finished (`<task-notification>`, with where its
/// output waits), which Claude Code writes as a user message.
fn is_task_notification(turn: &Turn) -> bool {
    opens_with(turn, &["<task-notification>"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats;

    fn read_str(s: &str) -> ReadOutput {
        formats::read(s.as_bytes(), None)
    }

    fn roles(t: &Trajectory) -> Vec<Role> {
        t.turns.iter().map(|t| t.role).collect()
    }

    /// A `queue-operation` record, with the text it queues if any.
    fn queue(op: &str, content: Option<&str>) -> String {
        match content {
            Some(c) => format!(
                r#"{{"type":"queue-operation","operation":"{op}","sessionId":"s1","content":"{c}"}}"#
            ),
            None => format!(r#"{{"type":"queue-operation","operation":"{op}","sessionId":"s1"}}"#),
        }
    }

    fn line(uuid: &str, parent: Option<&str>, ty: &str, message: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#"{{"type":"{ty}","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s1","isSidechain":false,"message":{message}}}"#
        )
    }

    fn user(text: &str) -> String {
        format!(r#"{{"role":"user","content":"{text}"}}"#)
    }

    fn asst(id: &str, blocks: &str) -> String {
        format!(r#"{{"id":"{id}","role":"assistant","content":[{blocks}]}}"#)
    }

    fn result(id: &str, text: &str, err: bool) -> String {
        format!(
            r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{text}","is_error":{err}}}]}}"#
        )
    }

    fn tool_use(id: &str) -> String {
        format!(r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"ls"}}}}"#)
    }

    #[test]
    fn parallel_calls_on_side_branches_are_read() {
        // One response with three calls, written as the calls stream: part 1, part 2, result 1,
        // part 3, result 2, result 3. The parent links make results and parts side branches.
        let src = [
            line("u1", None, "user", &user("go")),
            line("a1", Some("u1"), "assistant", &asst("m1", &tool_use("t1"))),
            r#"{"type":"progress","uuid":"p1","parentUuid":"a1","data":{"type":"hook_progress"}}"#
                .to_string(),
            line("a2", Some("p1"), "assistant", &asst("m1", &tool_use("t2"))),
            line("r1", Some("a1"), "user", &result("t1", "one", false)),
            line("a3", Some("r1"), "assistant", &asst("m1", &tool_use("t3"))),
            line(
                "r2",
                Some("a2"),
                "user",
                &result("t2", "Exit code 2\\nls: nope", true),
            ),
            line("r3", Some("a3"), "user", &result("t3", "three", false)),
            line(
                "a4",
                Some("r3"),
                "assistant",
                &asst("m2", r#"{"type":"text","text":"All done."}"#),
            ),
        ]
        .join("\n");
        let out = read_str(&src);
        let t = &out.trajectories[0];
        assert_eq!(
            roles(t),
            vec![
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::Tool,
                Role::Tool,
                Role::Assistant
            ]
        );
        // Parts 1 and 2 are consecutive lines of one response: one turn with both calls.
        assert_eq!(t.turns[1].calls.len(), 2);
        assert_eq!(t.turns[3].calls.len(), 1);
        assert!(t
            .turns
            .iter()
            .filter_map(|x| x.result.as_ref())
            .all(|r| r.call.is_some()));
        let r2 = t.turns[4].result.as_ref().unwrap();
        assert_eq!(r2.call_id.as_deref(), Some("t2"));
        assert_eq!(r2.exit_code, Some(2));
        assert!(r2.is_error);
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        formats::checked::in_order(t);
    }

    #[test]
    fn a_prompt_queued_and_sent_while_the_agent_worked_is_a_user_turn() {
        let src = [
            line("u1", None, "user", &user("go")),
            line("a1", Some("u1"), "assistant", &asst("m1", &tool_use("t1"))),
            queue("enqueue", Some("new tasks were added. tackle them")),
            queue("remove", None),
            // A background job's notice comes again as a user record: not read twice.
            queue(
                "enqueue",
                Some("<task-notification>done</task-notification>"),
            ),
            queue("remove", None),
            // Taken back into the input box: never sent.
            queue("enqueue", Some("never mind")),
            queue("popAll", None),
            // Taken off to start a turn of its own, written next as a user record: read there.
            queue("enqueue", Some("and the tests")),
            queue("dequeue", None),
            line("r1", Some("a1"), "user", &result("t1", "one", false)),
            line(
                "a2",
                Some("r1"),
                "assistant",
                &asst("m2", r#"{"type":"text","text":"Now the new tasks."}"#),
            ),
            line("u2", Some("a2"), "user", &user("and the tests")),
            // Still queued when the log ends: not sent either.
            queue("enqueue", Some("and the docs")),
        ]
        .join("\n");
        let out = read_str(&src);
        let t = &out.trajectories[0];
        assert_eq!(
            roles(t),
            vec![
                Role::User,
                Role::Assistant,
                Role::User,
                Role::Tool,
                Role::Assistant,
                Role::User
            ]
        );
        let texts: Vec<&str> = t
            .turns
            .iter()
            .filter_map(|u| u.segments.first())
            .map(|s| s.text.text.as_str())
            .collect();
        assert_eq!(
            texts.iter().filter(|&&x| x == "and the tests").count(),
            1,
            "{texts:?}"
        );
        assert_eq!(
            t.turns[2].segments[0].text.text,
            "new tasks were added. tackle them"
        );
        assert!(src[t.turns[2].span.start..t.turns[2].span.end].contains("\"enqueue\""));
        formats::checked::in_order(t);
    }

    #[test]
    fn a_prompt_sent_as_an_attachment_is_read_once_with_its_sender() {
        let attachment = |uuid: &str, parent: &str, body: &str| {
            format!(
                r#"{{"type":"attachment","uuid":"{uuid}","parentUuid":"{parent}","sessionId":"s1","isSidechain":false,"attachment":{{"type":"queued_command",{body}}}}}"#
            )
        };
        let src = [
            line("u1", None, "user", &user("go")),
            // A rewound branch: its message and the prompt sent under it are not read.
            line("b1", Some("u1"), "user", &user("first try")),
            attachment("qb", "b1", r#""prompt":"and the old idea","commandMode":"prompt""#),
            line("a1", Some("u1"), "assistant", &asst("m1", &tool_use("t1"))),
            // Written by an older version of the harness in the same file: the queue alone.
            queue("enqueue", Some("an older prompt")),
            queue("remove", None),
            // The queue's bookkeeping repeats the prompt: the attachment is what was sent.
            queue("enqueue", Some("and check the tests too")),
            queue("remove", Some("and check the tests too")),
            line("r1", Some("a1"), "user", &result("t1", "one", false)),
            // On the parent chain, its text as blocks.
            attachment(
                "q1",
                "r1",
                r#""prompt":[{"type":"text","text":"and check the tests too"}],"commandMode":"prompt","origin":{"kind":"human"}"#,
            ),
            // A background job's notice, handed over the same way: the harness's, not the user's.
            attachment(
                "q2",
                "q1",
                r#""prompt":"<tool-use-id>t0</tool-use-id><status>completed</status>","commandMode":"task-notification""#,
            ),
            line(
                "a2",
                Some("q2"),
                "assistant",
                &asst("m2", r#"{"type":"text","text":"Checking the tests too."}"#),
            ),
            // Off the chain (no later message): still read, where it was written.
            attachment("q3", "a2", r#""prompt":"and the docs","commandMode":"prompt""#),
            // Another agent's message, and one the harness marks as its own: not the user's.
            attachment(
                "q4",
                "q3",
                r#""prompt":"<agent-message from=\"a9\">done</agent-message>","commandMode":"prompt","origin":{"kind":"agent"}"#,
            ),
            r#"{"type":"attachment","uuid":"q5","parentUuid":"q4","sessionId":"s1","isSidechain":false,"isMeta":true,"attachment":{"type":"queued_command","prompt":"hook context","commandMode":"prompt"}}"#.to_string(),
            // Nothing said: no turn.
            attachment("q6", "q5", r#""prompt":"   ","commandMode":"prompt""#),
            // A job's notice as a user record, repeated by an attachment: read once.
            line(
                "n1",
                Some("a2"),
                "user",
                &user("<task-notification>done</task-notification>"),
            ),
            attachment(
                "qn",
                "n1",
                r#""prompt":"<task-notification>done</task-notification>","commandMode":"task-notification""#,
            ),
        ]
        .join("\n");
        let out = read_str(&src);
        let t = &out.trajectories[0];
        let said: Vec<(Role, &str)> = t
            .turns
            .iter()
            .map(|u| {
                (
                    u.role,
                    u.segments.first().map_or("", |g| g.text.text.as_str()),
                )
            })
            .collect();
        assert_eq!(
            said,
            vec![
                (Role::User, "go"),
                (Role::Assistant, ""),
                (Role::User, "an older prompt"),
                (Role::Tool, "one"),
                (Role::User, "and check the tests too"),
                (
                    Role::System,
                    "<tool-use-id>t0</tool-use-id><status>completed</status>"
                ),
                (Role::Assistant, "Checking the tests too."),
                (Role::User, "and the docs"),
                (
                    Role::System,
                    "<agent-message from=\"a9\">done</agent-message>"
                ),
                (Role::System, "hook context"),
                (Role::System, "<task-notification>done</task-notification>"),
            ]
        );
        assert!(src[t.turns[4].span.start..t.turns[4].span.end].contains("queued_command"));
        assert!(
            out.issues.iter().any(|i| i
                .message
                .starts_with("skipped 2 message record(s) not on the active branch")),
            "{:?}",
            out.issues
        );
        formats::checked::in_order(t);
    }

    #[test]
    fn sessions_joined_in_one_file_are_each_read_and_a_resumed_one_is_one() {
        let other = |l: String| l.replace(r#""sessionId":"s1""#, r#""sessionId":"s2""#);
        let first = [
            line("u1", None, "user", &user("fix the parser")),
            line(
                "a1",
                Some("u1"),
                "assistant",
                &asst("m1", r#"{"type":"text","text":"I will verify it later."}"#),
            ),
        ];
        let second = [
            other(line("v1", None, "user", &user("update the docs"))),
            other(line(
                "b1",
                Some("v1"),
                "assistant",
                &asst("m2", r#"{"type":"text","text":"Done."}"#),
            )),
        ];
        fn ids_of(out: &ReadOutput) -> Vec<Option<&str>> {
            out.trajectories.iter().map(|t| t.id.as_deref()).collect()
        }
        // `cat first.jsonl second.jsonl`: two trees, two sessions.
        let joined = first
            .iter()
            .chain(&second)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        let out = read_str(&joined);
        let ids = ids_of(&out);
        assert_eq!(ids, [Some("s1"), Some("s2")]);
        assert_eq!(out.trajectories[0].turns.len(), 2);
        assert_eq!(out.trajectories[1].turns.len(), 2);
        assert!(out
            .issues
            .iter()
            .all(|i| !i.message.contains("not on the active branch")));
        // A resumed session links its first record into the earlier one's tree: one conversation.
        let resumed = [
            first[0].clone(),
            first[1].clone(),
            other(line("v1", Some("a1"), "user", &user("update the docs"))),
        ]
        .join("\n");
        let out = read_str(&resumed);
        assert_eq!(out.trajectories.len(), 1);
        assert_eq!(out.trajectories[0].turns.len(), 3);
        // A resumed pair, then an unrelated session joined after it: two conversations.
        let third = |l: String| l.replace(r#""sessionId":"s1""#, r#""sessionId":"s3""#);
        let unrelated = [
            third(line("w1", None, "user", &user("rename the crate"))),
            third(line(
                "c1",
                Some("w1"),
                "assistant",
                &asst("m3", r#"{"type":"text","text":"Renamed."}"#),
            )),
        ];
        let out = read_str(&format!("{resumed}\n{}", unrelated.join("\n")));
        let ids = ids_of(&out);
        assert_eq!(ids, [Some("s1"), Some("s3")]);
        assert_eq!(out.trajectories[0].turns.len(), 3);
        assert_eq!(out.trajectories[1].turns.len(), 2);
        // A leading `summary` (no session id of its own) titling a leaf of the later session
        // joins nothing: the two sessions stay apart.
        let summary = r#"{"type":"summary","summary":"Rename","leafUuid":"c1"}"#;
        let out = read_str(&format!(
            "{summary}\n{}\n{}",
            first.join("\n"),
            unrelated.join("\n")
        ));
        let ids = ids_of(&out);
        assert_eq!(ids, [Some("s1"), Some("s3")]);
        assert_eq!(out.trajectories[0].turns.len(), 2);
        assert_eq!(out.trajectories[1].turns.len(), 2);
        // Sessions joined latest first (`cat` by file name), each resuming the one after it in
        // the file: each is read whole, apart, not two of them skipped as abandoned branches.
        let resumes = third(line("w1", Some("b1"), "user", &user("rename the crate")));
        let second_resumes = other(line("v1", Some("a1"), "user", &user("update the docs")));
        let reversed = [
            resumes,
            unrelated[1].clone(),
            second_resumes,
            second[1].clone(),
            first[0].clone(),
            first[1].clone(),
        ]
        .join("\n");
        let out = read_str(&reversed);
        assert_eq!(ids_of(&out), [Some("s3"), Some("s2"), Some("s1")]);
        for t in &out.trajectories {
            assert_eq!(roles(t), [Role::User, Role::Assistant], "{:?}", t.id);
        }
        assert!(out
            .issues
            .iter()
            .all(|i| !i.message.contains("not on the active branch")));
    }

    #[test]
    fn a_sub_agent_s_records_joined_after_the_session_are_not_its_branch() {
        // `cat session.jsonl subagents/agent-a1.jsonl`: the sub-agent's records share the
        // session id, on their own chain, marked as a sidechain, and written last.
        let sub = |l: String| {
            l.replace(
                r#""isSidechain":false"#,
                r#""isSidechain":true,"agentId":"a1""#,
            )
        };
        let src = [
            line("u1", None, "user", &user("fix the parser")),
            line(
                "a1",
                Some("u1"),
                "assistant",
                &asst("m1", r#"{"type":"text","text":"I will verify it later."}"#),
            ),
            sub(line("x1", None, "user", &user("search the lexer"))),
            sub(line(
                "x2",
                Some("x1"),
                "assistant",
                &asst("m9", r#"{"type":"text","text":"Found it."}"#),
            )),
        ]
        .join("\n");
        let out = read_str(&src);
        assert_eq!(out.trajectories.len(), 1);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("s1"));
        assert_eq!(
            formats::checked::first_texts(t),
            ["fix the parser", "I will verify it later."]
        );
        assert_eq!(t.turns.len(), 2);
        assert!(out.issues.iter().any(|i| i
            .message
            .contains("skipped 2 sidechain (sub-agent) record(s)")));
    }

    #[test]
    fn rewind_reads_the_active_branch_and_notes_the_other() {
        let src = [
            line("u1", None, "user", &user("start")),
            line(
                "a1",
                Some("u1"),
                "assistant",
                &asst("m1", r#"{"type":"text","text":"ready"}"#),
            ),
            line("b1", Some("a1"), "user", &user("first try")),
            line(
                "b1a",
                Some("b1"),
                "assistant",
                &asst("m2", r#"{"type":"text","text":"first"}"#),
            ),
            line("b2", Some("a1"), "user", &user("second try")),
            line(
                "b2a",
                Some("b2"),
                "assistant",
                &asst("m3", r#"{"type":"text","text":"second"}"#),
            ),
        ]
        .join("\n");
        let out = read_str(&src);
        let t = &out.trajectories[0];
        let texts = crate::formats::checked::first_texts(t);
        assert_eq!(texts, ["start", "ready", "second try", "second"]);
        assert!(out
            .issues
            .iter()
            .any(|i| i.severity == Severity::Note && i.message.contains("skipped 2 message")));
    }

    #[test]
    fn amps_stream_json_reads_as_claude_codes() {
        // `amp -x --stream-json`: Claude Code's shape, a `T-` thread id, a failed call flagged
        // `is_error`, and a failed run's reason in `error`.
        let src = [
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"T-d2fc","tools":["Bash","Read"],"mcp_servers":[]}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"list the docs"}]},"parent_tool_use_id":null,"session_id":"T-d2fc"}"#,
            r#"{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"path":"/w/docs"}}],"stop_reason":"tool_use"},"parent_tool_use_id":null,"session_id":"T-d2fc"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"path does not exist: /w/docs","is_error":true}]},"parent_tool_use_id":null,"session_id":"T-d2fc"}"#,
            r#"{"type":"result","subtype":"error_during_execution","duration_ms":1200,"is_error":true,"num_turns":1,"error":"Tool execution aborted","session_id":"T-d2fc"}"#,
        ]
        .join("\n");
        assert_eq!(
            crate::formats::detect::detect(src.as_bytes()),
            Some(Format::ClaudeCode)
        );
        let out = read_str(&src);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("T-d2fc"));
        // A run that failed before it began leaves its result alone: still a (failed) run.
        let last = src.lines().last().unwrap();
        assert_eq!(
            crate::formats::detect::detect(last.as_bytes()),
            Some(Format::ClaudeCode)
        );
        let alone = read_str(last);
        assert_eq!(alone.trajectories[0].turns[0].role, Role::Event);
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::Tool, Role::Event]
        );
        assert!(t.turns[2].result.as_ref().unwrap().is_error);
        assert_eq!(t.turns[3].segments[0].text.text, "Tool execution aborted");
    }

    #[test]
    fn print_mode_stream_json_is_read_without_the_sub_agent_s_messages() {
        // `claude -p --output-format stream-json --verbose`: an init record, messages with
        // `session_id` and `parent_tool_use_id`, a closing result.
        let src = [
            r#"{"type":"system","subtype":"init","cwd":"/repo","session_id":"s9","tools":["Bash","Task"],"model":"m"}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"I'll ask a sub-agent."},{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"find the config"}}]},"parent_tool_use_id":null,"session_id":"s9"}"#,
            r#"{"type":"assistant","message":{"id":"msg_s","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_s","name":"Grep","input":{"pattern":"config"}}]},"parent_tool_use_id":"toolu_1","session_id":"s9"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_s","type":"tool_result","content":"No matches found"}]},"parent_tool_use_id":"toolu_1","session_id":"s9"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"There is no config file."}]},"parent_tool_use_id":null,"session_id":"s9"}"#,
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":2,"session_id":"s9"}"#,
        ]
        .join("\n");
        assert_eq!(
            crate::formats::detect::detect(src.as_bytes()),
            Some(Format::ClaudeCode)
        );
        // With partial messages on, raw API events come before the first whole message, as
        // many as the model streams: the init record alone says what this is.
        let events = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll"}},"session_id":"s9","parent_tool_use_id":null}"#;
        let init = src.lines().next().unwrap();
        let rest: Vec<&str> = src.lines().skip(1).collect();
        let streamed = format!("{init}\n{}\n{}", [events; 40].join("\n"), rest.join("\n"));
        let detected = |s: &str| crate::formats::detect::detect(s.as_bytes());
        assert_eq!(detected(&streamed), Some(Format::ClaudeCode));
        let headless = format!("{}\n{}", [events; 40].join("\n"), rest.join("\n"));
        assert_eq!(detected(&headless), Some(Format::ClaudeCode));
        assert_eq!(read_str(&streamed).trajectories[0].turns.len(), 3);
        let out = read_str(&src);
        let t = &out.trajectories[0];
        assert_eq!(t.id.as_deref(), Some("s9"));
        let roles: Vec<Role> = t.turns.iter().map(|t| t.role).collect();
        assert_eq!(roles, [Role::Assistant, Role::Tool, Role::Event]);
        assert_eq!(t.turns[0].calls[0].result_turn, Some(1));
        assert_eq!(
            t.turns[2].event,
            Some(EventKind::Other(
                "claude-code.result.error_max_turns".into()
            ))
        );
        // On success the result repeats the last message: no turn.
        let ok = src.replace(
            r#""subtype":"error_max_turns","is_error":true"#,
            r#""subtype":"success","is_error":false,"result":"done""#,
        );
        assert_eq!(read_str(&ok).trajectories[0].turns.len(), 2);
        // An API error reported as a "success" that is an error is the run stopping.
        let api = src.replace(
            r#""subtype":"error_max_turns","is_error":true"#,
            r#""subtype":"success","is_error":true,"result":"API Error: 529 overloaded""#,
        );
        let t = &read_str(&api).trajectories[0];
        assert_eq!(t.turns.len(), 3);
        assert_eq!(
            t.turns[2].segments[0].text.text,
            "API Error: 529 overloaded"
        );
    }

    #[test]
    fn print_mode_compaction_summary_is_the_synthetic_message_after_the_boundary() {
        // stream-json writes no `isCompactSummary`: the summary is the harness's own message
        // (`isSynthetic`) after the boundary; a hook's synthetic message elsewhere is not one.
        let src = [
            r#"{"type":"system","subtype":"init","cwd":"/repo","session_id":"s9","tools":["Bash"],"model":"m"}"#,
            r#"{"type":"user","message":{"role":"user","content":"fix the loader"},"session_id":"s9","parent_tool_use_id":null,"uuid":"u1","isReplay":true}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"I will run the tests later."}]},"parent_tool_use_id":null,"session_id":"s9","uuid":"a1"}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Hook blocked: lint first"}]},"session_id":"s9","parent_tool_use_id":null,"uuid":"h1","isSynthetic":true}"#,
            r#"{"type":"system","subtype":"compact_boundary","session_id":"s9","uuid":"cb","compact_metadata":{"trigger":"manual","pre_tokens":52000}}"#,
            // Another session's message, replayed, is neither the summary nor in its way.
            r#"{"type":"user","message":{"role":"user","content":"Another Claude session sent a message: bump the version"},"session_id":"s9","parent_tool_use_id":null,"uuid":"p1","isReplay":true,"isSynthetic":true,"origin":{"kind":"peer","from":"unknown"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. Summary: the tests are still to run."},"session_id":"s9","parent_tool_use_id":null,"uuid":"s1","isReplay":false,"isSynthetic":true}"#,
            r#"{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"Running them now."}]},"parent_tool_use_id":null,"session_id":"s9","uuid":"a2"}"#,
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        assert_eq!(
            roles(t),
            vec![
                Role::User,
                Role::Assistant,
                Role::System,
                Role::Event,
                Role::System,
                Role::User,
                Role::Assistant
            ]
        );
        assert!(t.turns[5].is_summary && !t.turns[4].is_summary && !t.turns[2].is_summary);
        assert_eq!(t.compactions.len(), 1);
        assert_eq!(t.compactions[0].summary_turn, Some(5));
        assert_eq!(t.compactions[0].replaced, (0, 2));
    }

    #[test]
    fn a_result_of_tool_names_or_an_image_is_not_empty() {
        // ToolSearch answers with `tool_reference` blocks; reading an image gives an image block.
        let block = |id: &str, content: &str| {
            format!(
                r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":[{content}]}}]}}"#
            )
        };
        let call = |id: &str, name: &str| {
            format!(r#"{{"type":"tool_use","id":"{id}","name":"{name}","input":{{"query":"x"}}}}"#)
        };
        let src = [
            line("u1", None, "user", &user("count the leads")),
            line("a1", Some("u1"), "assistant", &asst("m1", &call("t1", "ToolSearch"))),
            line(
                "r1",
                Some("a1"),
                "user",
                &block("t1", r#"{"type":"tool_reference","tool_name":"mcp__db__sql"}"#),
            ),
            line("a2", Some("r1"), "assistant", &asst("m2", &call("t2", "Read"))),
            line(
                "r2",
                Some("a2"),
                "user",
                &block(
                    "t2",
                    r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}"#,
                ),
            ),
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        let text = |k: usize| t.turns[k].segments[0].text.text.as_str();
        assert_eq!((text(2), text(4)), ("mcp__db__sql", "image/png"));
        let lex = crate::extract::lexicon::Lexicon::builtin();
        let a = crate::analysis::analyze(t, src.as_bytes(), &lex);
        assert!(a.facts.is_empty(), "{:?}", a.facts);
    }

    #[test]
    fn what_the_harness_writes_in_the_model_s_or_the_person_s_place_is_not_theirs() {
        let text = |t: &str| format!(r#"{{"type":"text","text":"{t}"}}"#);
        let harness = |uuid: &str, parent: &str, extra: &str, t: &str| {
            format!(
                r#"{{"type":"assistant","uuid":"{uuid}","parentUuid":"{parent}","sessionId":"s1","isSidechain":false,{extra}"message":{{"id":"e-{uuid}","model":"<synthetic>","type":"message","role":"assistant","content":[{}]}}}}"#,
                text(t)
            )
        };
        let src = [
            line("u1", None, "user", &user("add the users table")),
            line("a1", Some("u1"), "assistant", &asst("m1", &text("I'll run the migration."))),
            line("b1", Some("a1"), "user", &user("<bash-input>mix ecto.migrate</bash-input>")),
            line(
                "b2",
                Some("b1"),
                "user",
                &user("<bash-stdout></bash-stdout><bash-stderr>relation users already exists</bash-stderr>"),
            ),
            line(
                "c1",
                Some("b2"),
                "user",
                &user("<local-command-stdout>Reconnected to tidewave.</local-command-stdout>"),
            ),
            harness("n1", "c1", "", "No response requested."),
            harness(
                "e1",
                "n1",
                r#""isApiErrorMessage":true,"error":"rate_limit","#,
                "API Error: 529 Overloaded.",
            ),
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        assert_eq!(
            roles(t),
            vec![
                Role::User,
                Role::Assistant,
                Role::User,
                Role::System,
                Role::System,
                Role::System,
                Role::Event
            ]
        );
        assert_eq!(
            t.turns[6].event,
            Some(EventKind::Other("claude-code.api_error.rate_limit".into()))
        );
        assert_eq!(
            t.turns[6].segments[0].text.text,
            "API Error: 529 Overloaded."
        );
    }

    #[test]
    fn a_hook_s_report_written_as_an_attachment_is_a_failure_to_see() {
        let attachment = |uuid: &str, parent: &str, body: &str| {
            format!(
                r#"{{"type":"attachment","uuid":"{uuid}","parentUuid":"{parent}","sessionId":"s1","isSidechain":false,"attachment":{body}}}"#
            )
        };
        let edit = r#"{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/r/a.ex"}}"#;
        let src = [
            line("u1", None, "user", &user("rename the helper")),
            line("a1", Some("u1"), "assistant", &asst("m1", edit)),
            line("r1", Some("a1"), "user", &result("t1", "The file /r/a.ex has been updated.", false)),
            attachment(
                "h1",
                "r1",
                r#"{"type":"hook_blocking_error","hookName":"PostToolUse:Edit","toolUseID":"t1","hookEvent":"PostToolUse","blockingError":{"blockingError":"[COMPILE ERROR]\nlib/b.ex:12: undefined function h/0","command":"mix compile"}}"#,
            ),
            // A Stop hook's feedback comes again as a user record; a file attachment is context.
            attachment(
                "h2",
                "h1",
                r#"{"type":"hook_blocking_error","hookName":"Stop","hookEvent":"Stop","blockingError":{"blockingError":"tests fail"}}"#,
            ),
            attachment("f1", "h2", r#"{"type":"file","filename":"/r/b.ex","content":"x"}"#),
            line("a2", Some("f1"), "assistant", &asst("m2", r#"{"type":"text","text":"Renamed."}"#)),
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        assert_eq!(
            roles(t),
            vec![
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::System,
                Role::Assistant
            ]
        );
        let lex = crate::extract::lexicon::Lexicon::builtin();
        let a = crate::analysis::analyze(t, src.as_bytes(), &lex);
        let failures: Vec<(usize, &str)> =
            a.facts.iter().map(|f| (f.turn, f.text.as_str())).collect();
        assert_eq!(failures, [(3, "lib/b.ex:12: undefined function h/0")]);
    }

    #[test]
    fn unlinked_records_are_read_in_file_order() {
        let src = [
            line("x1", None, "user", &user("a")),
            line(
                "x2",
                None,
                "assistant",
                &asst("m1", r#"{"type":"text","text":"b"}"#),
            ),
            line("x3", None, "user", &user("c")),
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        assert_eq!(roles(t), vec![Role::User, Role::Assistant, Role::User]);
    }

    #[test]
    fn a_user_record_from_another_origin_is_the_harness_s() {
        // Claude Code 2.1.280 writes what a sub-agent hands back as a user record, with the
        // sender in `origin` (and, there, `isMeta`; not every harness message sets it).
        let with_origin = |uuid: &str, parent: &str, kind: &str, text: &str| {
            format!(
                r#"{{"type":"user","uuid":"{uuid}","parentUuid":"{parent}","sessionId":"s1","isSidechain":false,"origin":{{"kind":"{kind}"}},"message":{}}}"#,
                user(text)
            )
        };
        let src = [
            line("u1", None, "user", &user("build the page")),
            line(
                "a1",
                Some("u1"),
                "assistant",
                &asst("m1", r#"{"type":"text","text":"Delegating."}"#),
            ),
            with_origin(
                "u2",
                "a1",
                "peer",
                "[Subagent hand-back] I will verify the keys.",
            ),
            with_origin("u3", "u2", "human", "thanks, now the spec page"),
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        assert_eq!(
            roles(t),
            vec![Role::User, Role::Assistant, Role::System, Role::User]
        );
    }

    #[test]
    fn compaction_with_preserved_messages() {
        // The boundary's logical parent (a3) was re-linked after the summary as a preserved
        // message; a2 and u3 were preserved too, so only u1, a1, u2 were replaced.
        let boundary = r#"{"type":"system","subtype":"compact_boundary","uuid":"cb","parentUuid":null,"logicalParentUuid":"a3","sessionId":"s1","compactMetadata":{"trigger":"auto","preservedSegment":{"headUuid":"a2","anchorUuid":"cs","tailUuid":"a3"},"preservedMessages":{"anchorUuid":"cs","uuids":["a2","u3","a3"]}}}"#;
        let summary = r#"{"type":"user","uuid":"cs","parentUuid":"cb","sessionId":"s1","isCompactSummary":true,"message":{"role":"user","content":"Summary of \"it\"."}}"#;
        let src = [
            line("u1", None, "user", &user("one")),
            line(
                "a1",
                Some("u1"),
                "assistant",
                &asst("m1", r#"{"type":"text","text":"1"}"#),
            ),
            line("u2", Some("a1"), "user", &user("two")),
            line(
                "a2",
                Some("u2"),
                "assistant",
                &asst("m2", r#"{"type":"text","text":"2"}"#),
            ),
            line("u3", Some("a2"), "user", &user("three")),
            boundary.to_string(),
            summary.to_string(),
            line(
                "a3",
                Some("cs"),
                "assistant",
                &asst("m3", r#"{"type":"text","text":"3"}"#),
            ),
            line("u4", Some("a3"), "user", &user("four")),
        ]
        .join("\n");
        let out = read_str(&src);
        assert!(
            !out.issues.iter().any(|i| i.severity >= Severity::Warning),
            "{:?}",
            out.issues
        );
        let t = &out.trajectories[0];
        assert_eq!(t.turns.len(), 9);
        assert_eq!(t.compactions.len(), 1);
        let c = &t.compactions[0];
        assert_eq!(c.turn, 5);
        assert_eq!(c.replaced, (0, 2));
        assert_eq!(c.summary_turn, Some(6));
        let s = &t.turns[6].segments[0];
        assert_eq!(s.kind, SegmentKind::Summary);
        // A decoded sub-span maps back to the escaped raw bytes.
        let a = s.text.text.find('"').unwrap();
        let raw = s.text.raw_span(a, a + 4);
        assert_eq!(&src[raw.start..raw.end], r#"\"it\""#);
    }

    #[test]
    fn web_export_summary_without_boundary_is_a_compaction() {
        let src = r#"{"loglines":[
 {"type":"user","message":{"role":"user","content":"hi"}},
 {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}},
 {"type":"user","isCompactSummary":true,"message":{"role":"user","content":"Summary: greeted."}},
 {"type":"user","message":{"role":"user","content":"again"}}
]}"#;
        let out = read_str(src);
        let t = &out.trajectories[0];
        assert_eq!(t.turns.len(), 5);
        assert_eq!(t.compactions.len(), 1);
        assert_eq!(t.compactions[0].kind, "claude-code.compact_summary");
        assert_eq!(t.compactions[0].replaced, (0, 1));
        assert_eq!(t.compactions[0].summary_turn, Some(3));
        assert!(t.turns[2].span.end <= t.turns[3].span.start);
    }

    #[test]
    fn text_and_results_in_one_line_do_not_overlap() {
        let msg = r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"[Request interrupted by user]"}]}"#;
        let src = [
            line("u1", None, "user", &user("go")),
            line("a1", Some("u1"), "assistant", &asst("m1", &tool_use("t1"))),
            line("r1", Some("a1"), "user", msg),
        ]
        .join("\n");
        let t = &read_str(&src).trajectories[0];
        // (The note of the interruption is the harness's words: a system turn.)
        assert_eq!(
            roles(t),
            vec![Role::User, Role::Assistant, Role::Tool, Role::System]
        );
        assert!(t.turns[2].span.end <= t.turns[3].span.start);
        assert_eq!(t.turns[2].result.as_ref().unwrap().call, Some((1, 0)));
    }

    #[test]
    fn bad_lines_are_skipped_with_warnings() {
        let src = [
            line("u1", None, "user", &user("go")),
            "\"just a string\"".to_string(),
            "42".to_string(),
            "[1]".to_string(),
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","message":"not an object"}"#
                .to_string(),
            line(
                "a1",
                Some("u2"),
                "assistant",
                &asst("m1", r#"{"type":"text","text":"ok"}"#),
            ),
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"#.to_string(),
        ]
        .join("\n");
        let out = read_str(&src);
        let t = &out.trajectories[0];
        assert_eq!(roles(t), vec![Role::User, Role::Assistant]);
        let warnings = out
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Warning)
            .count();
        assert_eq!(warnings, 3);
        assert!(out.issues.iter().any(|i| i.message.contains("cut off")));
    }

    /// A message that holds no `content` is a record lost, said where it lies; bare strings
    /// among the blocks are text.
    #[test]
    fn a_message_without_content_is_lost_and_bare_strings_are_text() {
        let src = [
            line("u1", None, "user", &user("go")),
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","message":{"role":"user","contenst":[{"type":"text","text":"typo"}]}}"#.to_string(),
            r#"{"type":"user","uuid":"u3","parentUuid":"u2","message":{"role":"user","content":7}}"#.to_string(),
            r#"{"type":"user","uuid":"u4","parentUuid":"u3","message":{"role":"user","content":["wow error"]}}"#.to_string(),
        ]
        .join("\n");
        let out = read_str(&src);
        let t = &out.trajectories[0];
        assert_eq!(roles(t), vec![Role::User, Role::User]);
        assert_eq!(t.turns[1].segments[0].text.text, "wow error");
        let errors: Vec<(usize, &str)> = out
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .map(|i| (i.span.start, i.message.as_str()))
            .collect();
        let at = |n: usize| src.match_indices('\n').nth(n - 1).unwrap().0 + 1;
        assert_eq!(
            errors,
            [
                (at(1), "skipped a message with no `content`"),
                (
                    at(2),
                    "skipped a message whose `content` is a JSON number, not text or a list of blocks"
                ),
            ]
        );
        assert_eq!(t.lost.len(), 2);
    }

    #[test]
    fn exit_code_prefix() {
        assert_eq!(
            exit_code("Exit code 128\nfatal: no upstream"),
            Some((128, 14))
        );
        assert_eq!(exit_code("Exit code 1"), Some((1, 11)));
        assert_eq!(exit_code("Exit code 2\r\nls: x"), Some((2, 13)));
        assert_eq!(exit_code("Exit code 12abc"), None);
        assert_eq!(exit_code("exit code 1"), None);
    }
}
