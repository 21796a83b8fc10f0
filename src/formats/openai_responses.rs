//! OpenAI Responses-API item lists: what the OpenAI Agents SDK gives as a run's history
//! (`result.to_input_list()`, written out as a JSON array), a Responses request's `input` and a
//! response's `output`. Each item is a message (`{"type": "message", "role": …, "content": …}`,
//! or an input message without its type: `{"role": "user", "content": "…"}`), a `reasoning`
//! item, a call (`function_call`, `custom_tool_call`, `local_shell_call`, `computer_call`), its
//! output (`function_call_output` and the like, paired by `call_id`), or an `mcp_call` that
//! carries its output or error itself.
//!
//! These are the items Codex rollouts wrap in `response_item` records, so the Codex reader reads
//! them; this module finds the items in a document and names the format.

use super::{codex, ReadOutput, Shape};
use crate::json::{Doc, Kind, Value};
use crate::model::Format;
use crate::source::Span;

pub fn read(bytes: &[u8], shape: &Shape) -> ReadOutput {
    let d = Doc::new(bytes);
    let out = ReadOutput::new(Format::OpenaiResponses);
    let Shape::Document(doc) = shape else {
        // One item per line: the layout of a legacy Codex rollout.
        let mut out = codex::read(bytes, shape);
        for t in &mut out.trajectories {
            t.format = Format::OpenaiResponses;
        }
        return out;
    };
    let records: Vec<(Span, &Value)> = items(&d, doc).into_iter().map(|i| (i.span, i)).collect();
    codex::read_records(d, &records, Format::OpenaiResponses, out)
}

/// The items of a document: the array itself, or a request's `input` followed by its
/// response's `output` (either may be missing).
fn items<'v>(d: &Doc, doc: &'v Value) -> Vec<&'v Value> {
    match &doc.kind {
        Kind::Array(items) => items.iter().collect(),
        Kind::Object(_) => ["input", "output"]
            .iter()
            .filter_map(|k| d.get(doc, k))
            .flat_map(|list| d.items(list))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a JSON value is a Responses-API item that no chat message is: a call, a call's
/// output, a reasoning item, or a message whose content parts are `input_text` / `output_text`.
pub fn is_item(d: &Doc, v: &Value) -> bool {
    let ty = d.get_str(v, "type");
    let call_or_output = matches!(
        ty.as_deref(),
        Some(
            "function_call"
                | "function_call_output"
                | "reasoning"
                | "local_shell_call"
                | "local_shell_call_output"
                | "custom_tool_call"
                | "custom_tool_call_output"
                | "computer_call"
                | "computer_call_output"
                | "mcp_call"
        )
    );
    let text_parts = d.get(v, "content").is_some_and(|c| {
        d.items(c)
            .iter()
            .any(|b| d.is(b, "type", "input_text") || d.is(b, "type", "output_text"))
    });
    call_or_output || (ty.as_deref() == Some("message") && text_parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn read_str(s: &str) -> ReadOutput {
        crate::formats::read(s.as_bytes(), None)
    }

    /// An Agents SDK run written out with `json.dump(result.to_input_list(), f)`.
    const RUN: &str = r##"[
 {"content": "Cancel order #W123 and refund it to the original card.", "role": "user"},
 {"id": "rs_1", "summary": [{"text": "I need the order first.", "type": "summary_text"}], "type": "reasoning"},
 {"arguments": "{\"order_id\": \"#W123\"}", "call_id": "call_a", "name": "get_order_details", "type": "function_call", "id": "fc_1", "status": "completed"},
 {"call_id": "call_a", "output": "Error: order not found", "type": "function_call_output"},
 {"id": "msg_1", "content": [{"annotations": [], "text": "I could not find that order.", "type": "output_text"}], "role": "assistant", "status": "completed", "type": "message"},
 {"type": "mcp_call", "id": "mcp_1", "server_label": "shop", "name": "search_orders", "arguments": "{\"q\": \"W123\"}", "output": null, "error": "upstream timeout"}
]"##;

    #[test]
    fn an_agents_sdk_history_reads_as_turns_with_paired_calls() {
        let out = read_str(RUN);
        assert_eq!(out.format, Some(Format::OpenaiResponses));
        let t = &out.trajectories[0];
        assert_eq!(t.format, Format::OpenaiResponses);
        let roles: Vec<Role> = t.turns.iter().map(|u| u.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::Tool
            ]
        );
        // The reasoning summary and the call are one assistant turn.
        assert_eq!(t.turns[1].segments[0].text.text, "I need the order first.");
        assert_eq!(t.turns[1].calls[0].name, "get_order_details");
        assert_eq!(t.turns[1].calls[0].arguments, r##"{"order_id": "#W123"}"##);
        // The output answers its call by `call_id`.
        let r = t.turns[2].result.as_ref().expect("a result");
        assert_eq!(r.call, Some((1, 0)));
        assert_eq!(t.turns[2].segments[0].text.text, "Error: order not found");
        // An MCP call carries its error: a failed result of its own.
        assert_eq!(t.turns[3].calls[0].name, "search_orders");
        let r = t.turns[4].result.as_ref().expect("a result");
        assert!(r.is_error);
        assert_eq!(r.call, Some((3, 0)));
        assert_eq!(t.turns[4].segments[0].text.text, "upstream timeout");
        // One item, two turns: the call's ends where the result's begins.
        assert!(t.turns[3].span.end <= t.turns[4].span.start);
        assert!(t.turns[3].calls[0].span.end <= t.turns[4].span.start);
    }

    #[test]
    fn a_request_and_its_response_read_in_order() {
        let doc = r#"{"model": "gpt-5", "input": [{"role": "user", "content": "Run the tests"}],
            "object": "response", "output": [{"type": "function_call", "call_id": "c1",
            "name": "shell", "arguments": "{\"cmd\": \"cargo test\"}"}]}"#;
        let out = read_str(doc);
        assert_eq!(out.format, Some(Format::OpenaiResponses));
        let t = &out.trajectories[0];
        assert_eq!(t.turns.len(), 2);
        assert_eq!(t.turns[0].segments[0].text.text, "Run the tests");
        assert_eq!(t.turns[1].calls[0].name, "shell");
    }

    /// A history carried past a server-side compaction holds its opaque `compaction` item: a
    /// compaction of everything before it.
    #[test]
    fn a_compaction_item_is_an_opaque_compaction() {
        let run = RUN.trim_end().trim_end_matches(']').to_string()
            + r#", {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAB"},
 {"content": "Try again.", "role": "user"}]"#;
        let out = read_str(&run);
        assert_eq!(out.format, Some(Format::OpenaiResponses));
        let t = &out.trajectories[0];
        assert_eq!(t.turns.len(), 7);
        assert_eq!(t.turns[5].role, Role::Event);
        assert_eq!(t.compactions.len(), 1);
        let c = &t.compactions[0];
        assert!(c.opaque);
        assert_eq!((c.turn, c.replaced), (5, (0, 4)));
        assert_eq!(c.kind, "openai-responses.compaction");
    }

    #[test]
    fn chat_completions_messages_are_not_responses_items() {
        let chat = r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]"#;
        assert_eq!(read_str(chat).format, Some(Format::OpenaiChat));
    }
}
