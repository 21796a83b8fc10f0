//! The format-independent trajectory: ordered turns, each with its text, tool calls, tool result
//! and events, every piece carrying `[start, end)` byte offsets into the raw file.

use crate::source::Span;
use crate::text::Text;
use serde::Serialize;
use std::collections::HashMap;
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    Event,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Event => "event",
        }
    }
}

/// What kind of text a segment is: the analysis treats them differently (thinking is assistant
/// text; tool arguments are not prose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// Prose a participant wrote (message text, thoughts, thinking blocks).
    Prose,
    /// Output of a tool or environment.
    Output,
    /// A summary that replaced compacted turns.
    Summary,
}

#[derive(Debug, Clone)]
pub struct Segment {
    pub kind: SegmentKind,
    pub text: Text,
    /// The sentences of `text`, split once for every stage that reads them (see
    /// `extract::words::sentences_of`; a text changed after it was analysed keeps the old ones).
    pub(crate) sentences: std::sync::OnceLock<Vec<crate::text::Sentence>>,
    /// What the tool printed, as decoded offsets into `text`: all of it, but for the status
    /// wrapper a harness puts around a command's output (Codex's "Process exited with code 1\n
    /// Output:", Claude Code's "Exit code 1", mini-swe-agent's `<returncode>` and `<output>`
    /// tags, AG2's "exitcode: 1 (execution failed)\nCode output:", OpenHands' closing "[The
    /// command completed with exit code 1.]"), which the reader of that format takes off.
    pub printed: Range<usize>,
}

impl Segment {
    /// A segment of `text`, all of it printed.
    pub fn new(kind: SegmentKind, text: Text) -> Segment {
        let printed = 0..text.text.len();
        Segment {
            kind,
            text,
            sentences: std::sync::OnceLock::new(),
            printed,
        }
    }

    /// The text the tool printed (see `printed`); all of it if a reader set a range that does
    /// not fit the text.
    pub fn printed_text(&self) -> &str {
        self.text
            .text
            .get(self.printed.clone())
            .unwrap_or(&self.text.text)
    }
}

#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The id the format pairs results with (`toolu_…`, `call_…`), if any.
    pub id: Option<String>,
    pub name: String,
    /// The arguments as text (a JSON object rendered as in the file, or a command line).
    pub arguments: String,
    /// Raw span of the whole call.
    pub span: Span,
    /// Index of the turn holding this call's result, filled by `Trajectory::pair`.
    pub result_turn: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct ToolResult {
    /// The id of the call this answers, when the format pairs by id.
    pub call_id: Option<String>,
    /// (turn, call index) of the call, filled by `Trajectory::pair` or by a positional reader.
    pub call: Option<(usize, usize)>,
    /// The tool's name where the result names it.
    pub name: Option<String>,
    /// A structured error flag (`is_error`, `error`, `success: false`, …).
    pub is_error: bool,
    /// Where the format states it (structured field or a harness header in the text).
    pub exit_code: Option<i64>,
    /// A structured error type (`file_not_found`, `timeout`, …) where the format gives one.
    pub error_kind: Option<String>,
    /// The log keeps only what the harness showed of the result, and it showed nothing: Gemini
    /// CLI's stream-json records a file read's display line, empty, not the file it returned.
    /// An empty output here says nothing about what the call found.
    pub output_unrecorded: bool,
    /// The command had not finished when this output came back (Codex returns what a long
    /// command printed so far, with the session a later `write_stdin` polls): no exit code yet,
    /// and an empty output says nothing about what it will find.
    pub still_running: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// A compaction boundary: the turns before it (back to the previous boundary) were replaced.
    Compaction {
        /// Format-qualified name, e.g. `claude-code.compact_boundary`.
        name: String,
        /// Explicit replaced turn range where the format says exactly (OpenHands), else None.
        replaced: Option<(usize, usize)>,
        /// The summary content is not readable (encrypted) or absent.
        opaque: bool,
    },
    /// Tool results cleared from the agent's context, each replaced by a placeholder, with
    /// everything else left in view (Claude Code's `microcompact_boundary`).
    Clearing {
        /// Format-qualified name, e.g. `claude-code.microcompact_boundary`.
        name: String,
        /// The ids of the calls whose results were cleared.
        call_ids: Vec<String>,
    },
    /// The user reset the context (Aider `/clear`).
    Reset,
    /// A new process of the harness starts with a fresh context (a new Aider session).
    SessionStart(String),
    /// Any other harness event worth keeping as a turn.
    Other(String),
}

#[derive(Debug, Clone)]
pub struct Turn {
    pub role: Role,
    /// Raw span of the record(s) this turn was read from.
    pub span: Span,
    pub segments: Vec<Segment>,
    pub calls: Vec<ToolCall>,
    pub result: Option<ToolResult>,
    pub event: Option<EventKind>,
    /// The agent or participant name where the format has several (Who&When, AG2).
    pub name: Option<String>,
    /// This turn is the summary written by a compaction.
    pub is_summary: bool,
    /// The earlier turn whose API message this turn's calls belong to: Claude Code writes each
    /// call of a parallel batch on a line of its own, with the results in between, so one
    /// assistant message (its text and all its calls) is read as several turns.
    pub continues: Option<usize>,
}

/// The prefix of the event name a reader gives a hook's report on a call that the log writes
/// without the header a hook's words otherwise carry ("PostToolUse:Edit hook blocking error from
/// command: …"), followed by the hook's name.
pub const HOOK_REPORT: &str = "hook-report:";

impl EventKind {
    /// Whether the agent's context starts empty after this event.
    pub fn resets_context(&self) -> bool {
        matches!(self, EventKind::Reset | EventKind::SessionStart(_))
    }
}

impl Turn {
    pub fn new(role: Role, span: Span) -> Turn {
        Turn {
            role,
            span,
            segments: Vec::new(),
            calls: Vec::new(),
            result: None,
            event: None,
            name: None,
            is_summary: false,
            continues: None,
        }
    }

    pub fn push_text(&mut self, kind: SegmentKind, text: Text) {
        self.segments.push(Segment::new(kind, text));
    }

    pub fn has_text(&self) -> bool {
        self.segments.iter().any(|s| !s.text.text.trim().is_empty())
    }

    /// Whether the turn says anything in words (prose, not code or a payload).
    pub fn has_prose(&self) -> bool {
        self.segments
            .iter()
            .any(|s| s.kind == SegmentKind::Prose && !s.text.text.trim().is_empty())
    }
}

/// A compaction found in the log, resolved to turn indices.
#[derive(Debug, Clone, Serialize)]
pub struct Compaction {
    pub turn: usize,
    pub kind: String,
    /// Inclusive turn range the compaction replaced.
    pub replaced: (usize, usize),
    pub summary_turn: Option<usize>,
    pub opaque: bool,
    /// A clearing (`EventKind::Clearing`): only the tool results of `replaced` left the
    /// agent's view, each for a placeholder; no summary is meant to carry them, and the turns
    /// around them stay in view.
    #[serde(skip)]
    pub clears: bool,
}

impl Compaction {
    /// The first turn in view after this compaction, `view` being the first in view before it:
    /// the first turn it kept word for word (between what it replaced and itself: Claude
    /// Code's preserved segment, the events a condensation did not forget), else the next.
    pub fn view_after(&self, view: usize) -> usize {
        let kept = (self.replaced.1 + 1).max(view);
        if kept < self.turn {
            kept
        } else {
            self.turn + 1
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    ClaudeCode,
    Codex,
    Cursor,
    Opencode,
    QwenCode,
    Pi,
    Goose,
    ManagedAgents,
    Openhands,
    SweAgent,
    MiniSweAgent,
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Gemini,
    Inspect,
    Aider,
    WhoAndWhen,
    Autogen,
    Text,
}

impl Format {
    pub const ALL: [Format; 20] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::Cursor,
        Format::Opencode,
        Format::QwenCode,
        Format::Pi,
        Format::Goose,
        Format::ManagedAgents,
        Format::Openhands,
        Format::SweAgent,
        Format::MiniSweAgent,
        Format::OpenaiChat,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Inspect,
        Format::Aider,
        Format::WhoAndWhen,
        Format::Autogen,
        Format::Text,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Cursor => "cursor",
            Format::Opencode => "opencode",
            Format::QwenCode => "qwen-code",
            Format::Pi => "pi",
            Format::Goose => "goose",
            Format::ManagedAgents => "managed-agents",
            Format::Openhands => "openhands",
            Format::SweAgent => "swe-agent",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::OpenaiChat => "openai-chat",
            Format::OpenaiResponses => "openai-responses",
            Format::Gemini => "gemini",
            Format::Anthropic => "anthropic",
            Format::Inspect => "inspect",
            Format::Aider => "aider",
            Format::WhoAndWhen => "who-and-when",
            Format::Autogen => "autogen",
            Format::Text => "text",
        }
    }

    pub fn from_name(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }
}

#[derive(Debug, Clone)]
pub struct Trajectory {
    pub format: Format,
    /// The record id from the source, if it has one.
    pub id: Option<String>,
    /// Raw span of the whole trajectory (the file, or its record).
    pub span: Span,
    pub turns: Vec<Turn>,
    pub compactions: Vec<Compaction>,
    /// Its text lies compressed in the file (an Inspect sample in a deflated ZIP entry): every
    /// span covers the whole compressed entry, not the turn or fact, and no one may cut by it.
    pub compressed: bool,
    /// Where a record inside it could not be read (a broken line between two turns), in file
    /// order: what it held is unknown, so no compactable range spans it.
    pub lost: Vec<Span>,
}

/// Calls a result without an id may answer, in order, with the first maybe unanswered.
#[derive(Default)]
struct Positional {
    calls: Vec<(usize, usize)>,
    from: usize,
}

impl Positional {
    fn clear(&mut self) {
        self.calls.clear();
        self.from = 0;
    }

    /// The first call not yet answered.
    fn next(
        &mut self,
        answered: &std::collections::HashSet<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        while self
            .calls
            .get(self.from)
            .is_some_and(|c| answered.contains(c))
        {
            self.from += 1;
        }
        self.calls.get(self.from).copied()
    }
}

impl Trajectory {
    pub fn new(format: Format, span: Span) -> Trajectory {
        Trajectory {
            format,
            id: None,
            span,
            turns: Vec::new(),
            compactions: Vec::new(),
            compressed: false,
            lost: Vec::new(),
        }
    }

    /// Pairs results with calls by id, then derives the compaction list from event turns.
    /// Readers call this once after pushing every turn.
    pub fn finish(&mut self) {
        self.pair();
        self.derive_compactions();
    }

    /// Links every tool result to its call: by id where both have one, else to the nearest
    /// earlier call not yet answered (positional formats), one without an id first where the
    /// log's results carry ids (a call with one may get its result by it later). A result goes to the first call of its id
    /// not yet answered, among the calls made since the id's last exchange ended (a result or a
    /// user message after them): consecutive calling turns may repeat an id before any result,
    /// while a later exchange reusing it starts over. An empty id is no id. One pass with a
    /// hash map; then a result written before its call is paired (see
    /// `pair_results_before_their_calls`).
    fn pair(&mut self) {
        // Each id's calls in order, and how many of them are surely answered.
        let mut by_id: HashMap<String, (Vec<(usize, usize)>, usize)> = HashMap::new();
        // Calls of the latest turn that made calls: what a positional result answers, the first
        // not yet answered; those without an id apart. (Answered calls are marked, not taken
        // out: a turn of thousands of parallel calls was quadratic.)
        let mut pending = Positional::default();
        let mut pending_anonymous = Positional::default();
        let mut answered: std::collections::HashSet<(usize, usize)> = Default::default();
        // The latest turn that ended an exchange: a result, or a user message.
        let mut exchange_end: Option<usize> = None;
        // (Calls without an id answer first only where results carry ids: then a call with
        // one may get its result by it. In a log whose results carry none, all pair in order.)
        let results_have_ids = self.turns.iter().any(|t| {
            t.result
                .as_ref()
                .and_then(|r| r.call_id.as_ref())
                .is_some_and(|i| !i.is_empty())
        });
        for t in 0..self.turns.len() {
            // A new calling turn, or a message in between, ends what a positional result answers.
            let speaks = matches!(self.turns[t].role, Role::User | Role::Assistant);
            if !self.turns[t].calls.is_empty() || speaks {
                pending.clear();
                pending_anonymous.clear();
            }
            for c in 0..self.turns[t].calls.len() {
                if let Some(id) = self.turns[t].calls[c].id.as_ref().filter(|i| !i.is_empty()) {
                    let (calls, done) = by_id.entry(id.clone()).or_default();
                    // (A later exchange reusing the id starts over: its results are for its
                    // calls.)
                    if calls
                        .last()
                        .is_some_and(|&(ct, _)| exchange_end.is_some_and(|e| e > ct))
                    {
                        calls.clear();
                        *done = 0;
                    }
                    calls.push((t, c));
                } else {
                    pending_anonymous.calls.push((t, c));
                }
                pending.calls.push((t, c));
            }
            if self.turns[t].result.is_some() || self.turns[t].role == Role::User {
                exchange_end = Some(t);
            }
            let Some(result) = &self.turns[t].result else {
                continue;
            };
            let id = result.call_id.as_ref().filter(|i| !i.is_empty());
            let target = match (result.call, id) {
                (Some(tc), _) => Some(tc),
                (None, Some(id)) => by_id.get_mut(id).and_then(|(calls, done)| {
                    while calls.get(*done).is_some_and(|c| answered.contains(c)) {
                        *done += 1;
                    }
                    // (A second result for the one call: the latest call of the id.)
                    calls.get(*done).or(calls.last()).copied()
                }),
                (None, None) => results_have_ids
                    .then(|| pending_anonymous.next(&answered))
                    .flatten()
                    .or_else(|| pending.next(&answered)),
            };
            let Some((ct, cc)) = target else { continue };
            answered.insert((ct, cc));
            if let Some(call) = self.turns.get_mut(ct).and_then(|x| x.calls.get_mut(cc)) {
                call.result_turn = Some(t);
            }
            if let Some(r) = self.turns[t].result.as_mut() {
                r.call = Some((ct, cc));
            }
        }
        self.pair_results_before_their_calls(&answered);
    }

    /// A result whose id no earlier call has goes to the first later call of that id left
    /// unanswered, within the same exchange (no user message between them): an export that
    /// writes each of a turn's parallel calls as its own message may put the first call's result
    /// before the second call. A leftover result of an earlier session is no answer to a call
    /// that reuses its id. (One pass over the results, one over the calls.)
    fn pair_results_before_their_calls(
        &mut self,
        answered: &std::collections::HashSet<(usize, usize)>,
    ) {
        let mut orphans: HashMap<String, std::collections::VecDeque<usize>> = HashMap::new();
        for (t, turn) in self.turns.iter().enumerate() {
            if let Some(id) = turn
                .result
                .as_ref()
                .filter(|r| r.call.is_none())
                .and_then(|r| r.call_id.clone())
                .filter(|i| !i.is_empty())
            {
                orphans.entry(id).or_default().push_back(t);
            }
        }
        if orphans.is_empty() {
            return;
        }
        // How many user messages come before each turn: two turns with as many before them lie
        // in one exchange.
        let users_before: Vec<usize> = self
            .turns
            .iter()
            .scan(0, |users, turn| {
                let before = *users;
                *users += usize::from(turn.role == Role::User);
                Some(before)
            })
            .collect();
        for ct in 0..self.turns.len() {
            for cc in 0..self.turns[ct].calls.len() {
                if answered.contains(&(ct, cc)) {
                    continue;
                }
                let call = &self.turns[ct].calls[cc];
                let Some(waiting) = call.id.as_ref().and_then(|id| orphans.get_mut(id)) else {
                    continue;
                };
                // (Results of an exchange before this call's answer no call of it.)
                while waiting
                    .front()
                    .is_some_and(|&t| users_before[t] < users_before[ct])
                {
                    waiting.pop_front();
                }
                let Some(t) = waiting.front().copied().filter(|&t| t < ct) else {
                    continue;
                };
                waiting.pop_front();
                self.turns[ct].calls[cc].result_turn = Some(t);
                if let Some(r) = self.turns[t].result.as_mut() {
                    r.call = Some((ct, cc));
                }
            }
        }
    }

    fn derive_compactions(&mut self) {
        let mut prev_end = 0usize;
        let mut out = Vec::new();
        // Call id → result turn, built when a clearing first needs it.
        let mut result_of: Option<HashMap<&str, usize>> = None;
        // (A result an earlier clearing took is not cleared again.)
        let mut cleared_before: std::collections::HashSet<usize> = Default::default();
        for (i, t) in self.turns.iter().enumerate() {
            match &t.event {
                Some(EventKind::Compaction {
                    name,
                    replaced,
                    opaque,
                }) => {
                    let since = prev_end;
                    prev_end = i + 1;
                    // (One right after another, or opening the log, replaced nothing of it.)
                    let Some(replaced) = replaced.or((since < i).then(|| (since, i - 1))) else {
                        continue;
                    };
                    let summary_turn = self.turns[i + 1..]
                        .iter()
                        .take(3)
                        .position(|t| t.is_summary)
                        .map(|k| i + 1 + k);
                    out.push(Compaction {
                        turn: i,
                        kind: name.clone(),
                        replaced,
                        summary_turn,
                        opaque: *opaque,
                        clears: false,
                    });
                }
                // One entry per run of consecutive cleared turns: each replaced exactly what
                // its range says. (Ids of calls the log does not hold, or whose results come
                // later, name nothing cleared here.)
                Some(EventKind::Clearing { name, call_ids }) => {
                    let result_of = result_of.get_or_insert_with(|| {
                        let mut m = HashMap::new();
                        for c in self.turns.iter().flat_map(|t| &t.calls) {
                            if let (Some(id), Some(r)) = (&c.id, c.result_turn) {
                                m.insert(id.as_str(), r);
                            }
                        }
                        m
                    });
                    let mut cleared: Vec<usize> = call_ids
                        .iter()
                        .filter_map(|id| result_of.get(id.as_str()).copied())
                        .filter(|&r| r < i && cleared_before.insert(r))
                        .collect();
                    cleared.sort_unstable();
                    cleared.dedup();
                    for run in cleared.chunk_by(|a, b| a + 1 == *b) {
                        out.push(Compaction {
                            turn: i,
                            kind: name.clone(),
                            replaced: (run[0], run[run.len() - 1]),
                            summary_turn: None,
                            opaque: false,
                            clears: true,
                        });
                    }
                }
                Some(EventKind::Reset | EventKind::SessionStart(_)) => prev_end = i + 1,
                _ => {}
            }
        }
        self.compactions = out;
    }

    /// For each turn, the earliest clearing (its event turn) that took it out of view; empty
    /// when the log holds no clearing.
    pub fn cleared_at(&self) -> Vec<Option<usize>> {
        let mut at: Vec<Option<usize>> = Vec::new();
        for c in self.compactions.iter().filter(|c| c.clears) {
            let (a, b) = c.replaced;
            if at.len() <= b {
                at.resize(b + 1, None);
            }
            for slot in &mut at[a..=b] {
                slot.get_or_insert(c.turn);
            }
        }
        at
    }

    /// The call a result answers.
    pub fn call_of(&self, turn: usize) -> Option<&ToolCall> {
        let (t, c) = self.turns.get(turn)?.result.as_ref()?.call?;
        self.turns.get(t)?.calls.get(c)
    }
}
