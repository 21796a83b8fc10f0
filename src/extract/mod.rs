//! Extraction: the facts of a trajectory (obligations, null results, references), each with the
//! exact raw span of the text that establishes it. Extractors only find facts; `resolve` decides
//! their status.

pub mod calls;
pub mod lexicon;
pub mod null_results;
pub mod obligations;
pub mod references;
pub mod words;

use crate::model::{Trajectory, Turn};
use crate::source::Span;
use crate::text::Text;
use lexicon::Lexicon;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    Obligation,
    NullResult,
    Reference,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Subkind {
    SelfCommitment,
    PlanStep,
    ToolRetry,
    Empty,
    NotFound,
    Error,
    Ordinal,
    Anaphoric,
    Pronoun,
    Identifier,
}

impl Subkind {
    pub fn kind(self) -> FactKind {
        match self {
            Subkind::SelfCommitment | Subkind::PlanStep | Subkind::ToolRetry => {
                FactKind::Obligation
            }
            Subkind::Empty | Subkind::NotFound | Subkind::Error => FactKind::NullResult,
            _ => FactKind::Reference,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Discharged,
    Unincorporated,
    Incorporated,
    Bound,
    Unbound,
}

impl Status {
    /// Whether a fact with this status keeps its turn live.
    pub fn is_live(self) -> bool {
        matches!(
            self,
            Status::Open | Status::Unincorporated | Status::Unbound
        )
    }
}

/// A turn and the text in it that resolves or anchors a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Link {
    pub turn: usize,
    pub bytes: Span,
}

#[derive(Debug, Clone)]
pub struct Fact {
    pub id: usize,
    pub subkind: Subkind,
    pub turn: usize,
    /// Raw span of the text that establishes the fact.
    pub span: Span,
    /// That text, decoded.
    pub text: String,
    pub status: Status,
    pub resolved_by: Option<Link>,
    pub antecedent: Option<Link>,
    /// Other turns a reference may point at: kept live with the antecedent.
    pub candidates: Vec<usize>,
    /// What the fact is about, as content terms (stems): the object of an obligation, what a
    /// null result looked for. `@name` marks an action family ("@test"), `!word` a word of a
    /// failure message that a later turn may quote. The resolver and the probe match on these.
    pub terms: Vec<String>,
    /// Objects an obligation names verbatim as code (`ledger import`), as the terms of each: a
    /// call performs it only if it holds every term of one of them.
    pub code: Vec<Vec<String>>,
    /// The kind of action an obligation owes (its verb's family: `edit`, `test`, `read`, …),
    /// so that only a call of a fitting kind discharges it.
    pub action: Option<String>,
    /// The tool a null result or retry came from, or that a set of actions done one call at a
    /// time goes on with (a later call of it performs the rest).
    pub tool: Option<String>,
    /// A todo item's normalized content (TodoWrite-style plans), matched across later writes.
    pub todo_key: Option<String>,
    /// What a later call must name to take up a deferral that answers no call (the output file
    /// a background job left: its id, or its path).
    pub awaits: Option<String>,
    /// The participants a plan assigns a step to ("2. **Assistant**:" over it, "**Assign to
    /// WebSurfer**: …", "**Assistant & FileSurfer:**"): in a log of several participants,
    /// only they perform it. Empty: anyone.
    pub performers: Vec<String>,
}

impl Fact {
    pub fn kind(&self) -> FactKind {
        self.subkind.kind()
    }

    /// "null_result/not_found unincorporated": kind, subkind and status as the annotation JSON
    /// names them, for the human views.
    pub fn label(&self) -> String {
        let name = |v: serde_json::Result<serde_json::Value>| {
            v.ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        };
        format!(
            "{}/{} {}",
            name(serde_json::to_value(self.kind())),
            name(serde_json::to_value(self.subkind)),
            name(serde_json::to_value(self.status))
        )
    }

    pub fn new(subkind: Subkind, turn: usize, span: Span, text: String) -> Fact {
        let status = match subkind.kind() {
            FactKind::Obligation => Status::Open,
            FactKind::NullResult => Status::Unincorporated,
            FactKind::Reference => Status::Unbound,
        };
        Fact {
            id: 0,
            subkind,
            turn,
            span,
            text,
            status,
            resolved_by: None,
            antecedent: None,
            candidates: Vec::new(),
            terms: Vec::new(),
            code: Vec::new(),
            action: None,
            tool: None,
            todo_key: None,
            awaits: None,
            performers: Vec::new(),
        }
    }
}

/// A fact anchored in a piece of decoded text: the raw span comes from the text's offset map.
pub fn fact_at(subkind: Subkind, turn: usize, text: &Text, s: usize, e: usize) -> Fact {
    let span = text.raw_span(s, e);
    let snippet: String = text.text[s..e].chars().take(300).collect();
    Fact::new(subkind, turn, span, snippet)
}

/// The whole-turn span of a turn with no text to point at (an empty result).
pub fn turn_anchor(turn: &Turn) -> Span {
    turn.segments.first().map_or(turn.span, |s| s.text.span)
}

/// Extracts every fact of a trajectory, in turn order, with ids assigned.
pub fn extract(traj: &Trajectory, bytes: &[u8], lex: &Lexicon, calls: &calls::Calls) -> Vec<Fact> {
    // The three extractors are independent: they run in parallel. The references take about
    // as long as the other two together, so this thread starts on them at once while another
    // takes the other two in turn (nested the other way, one thread ran two of the three and
    // the extractors took as long in parallel as one after another).
    let run = |f: &(dyn Fn(&mut Vec<Fact>) + Sync)| {
        let mut facts = Vec::new();
        f(&mut facts);
        facts
    };
    let (references, (mut facts, obligations)) = rayon::join(
        || run(&|out| references::extract(traj, lex, calls, references::Compactions::Stop, out)),
        || {
            rayon::join(
                || run(&|out| null_results::extract(traj, lex, calls, out)),
                || run(&|out| obligations::extract(traj, bytes, lex, calls, out)),
            )
        },
    );
    facts.extend(obligations);
    facts.extend(references);
    facts.sort_by_key(|f| (f.turn, f.span.start, f.subkind));
    for (i, f) in facts.iter_mut().enumerate() {
        f.id = i;
    }
    facts
}
