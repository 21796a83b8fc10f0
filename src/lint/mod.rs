//! The CI gate: rules as data (`rules/*.toml`, embedded at build time), kinds as code (a closed
//! [`RuleKind`], one small function per kind in [`kinds`]), findings with raw byte spans and
//! stable fingerprints.
//!
//! A rule file names a stable `code` (`OB001`), a kebab-case `name` for the bad pattern
//! (`dangling-commitment`), its `kind`, a default `severity`, a `message` template, an optional
//! `help`, the kind's parameters (`facts`, `ignore_arguments`, `inert_tools`) and `[docs]` with
//! `what`, `why` and `example`. Unknown keys, unknown template variables and parameters a kind does
//! not take are errors that point at the rule file's line.
//!
//! Selection follows ruff: `--select`/`--extend-select`/`--ignore` take `ALL`, a code, a code
//! prefix (`OB`, `CP00`) or a rule name.

pub mod baseline;
pub mod config;
pub mod kinds;

use crate::analysis::Analysis;
use crate::extract::lexicon::Lexicon;
use crate::extract::{FactKind, Subkind};
use crate::model::Trajectory;
use crate::source::Span;
use crate::FileReport;
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use toml::Spanned;

/// The built-in rules, one file per rule, embedded at build time.
pub const BUILTIN_RULES: &[(&str, &str)] = &[
    (
        "rules/dangling-commitment.toml",
        include_str!("../../rules/dangling-commitment.toml"),
    ),
    (
        "rules/ignored-retry.toml",
        include_str!("../../rules/ignored-retry.toml"),
    ),
    (
        "rules/unacknowledged-null-result.toml",
        include_str!("../../rules/unacknowledged-null-result.toml"),
    ),
    (
        "rules/repeated-null-query.toml",
        include_str!("../../rules/repeated-null-query.toml"),
    ),
    (
        "rules/unbound-reference.toml",
        include_str!("../../rules/unbound-reference.toml"),
    ),
    (
        "rules/live-span-compacted.toml",
        include_str!("../../rules/live-span-compacted.toml"),
    ),
    (
        "rules/reference-into-compacted-span.toml",
        include_str!("../../rules/reference-into-compacted-span.toml"),
    ),
    (
        "rules/reissued-call-after-compaction.toml",
        include_str!("../../rules/reissued-call-after-compaction.toml"),
    ),
    (
        "rules/opaque-compaction.toml",
        include_str!("../../rules/opaque-compaction.toml"),
    ),
    (
        "rules/unreadable-record.toml",
        include_str!("../../rules/unreadable-record.toml"),
    ),
];

// ---------------------------------------------------------------------------------------------
// Severity

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Severity::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| format!("unknown severity `{s}`; known: info, warning, error"))
    }
}

impl serde::Serialize for Severity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

// ---------------------------------------------------------------------------------------------
// Kinds

/// The closed set of rule kinds: what a rule file can ask for. Each is one function in
/// [`kinds`] that turns an analysed trajectory (for `unreadable-record`, the file as read)
/// into findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    /// A fact of the listed subkinds whose status is still live at the end of the run.
    LiveFact,
    /// A call re-issued, unchanged, after it returned a null result of the listed subkinds.
    RepeatedCall,
    /// A compaction whose summary drops live facts of the turns it replaced (the probe).
    CompactionDrop,
    /// A reference after a compaction whose antecedent lies only in the replaced turns.
    ReferenceAcrossCompaction,
    /// A call after a compaction identical to one whose result the compaction replaced.
    ReissuedCall,
    /// A compaction whose summary cannot be checked.
    OpaqueCompaction,
    /// A record of the file the reader had to skip (the file's, not a trajectory's).
    UnreadableRecord,
}

/// Whether a kind takes a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Required,
    Optional,
    No,
}

impl RuleKind {
    pub const ALL: [RuleKind; 7] = [
        RuleKind::LiveFact,
        RuleKind::RepeatedCall,
        RuleKind::CompactionDrop,
        RuleKind::ReferenceAcrossCompaction,
        RuleKind::ReissuedCall,
        RuleKind::OpaqueCompaction,
        RuleKind::UnreadableRecord,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::LiveFact => "live-fact",
            RuleKind::RepeatedCall => "repeated-call",
            RuleKind::CompactionDrop => "compaction-drop",
            RuleKind::ReferenceAcrossCompaction => "reference-across-compaction",
            RuleKind::ReissuedCall => "reissued-call",
            RuleKind::OpaqueCompaction => "opaque-compaction",
            RuleKind::UnreadableRecord => "unreadable-record",
        }
    }

    /// The variables a message template of this kind may use.
    pub fn vars(self) -> &'static [&'static str] {
        match self {
            RuleKind::LiveFact => &["fact", "text", "tool", "turn", "status"],
            RuleKind::RepeatedCall => &["tool", "call", "turn", "first_turn", "result"],
            RuleKind::CompactionDrop => &[
                "what",
                "turn",
                "replacing",
                "replaced",
                "summary_turn",
                "checked",
                "count",
                "facts",
            ],
            RuleKind::ReferenceAcrossCompaction => &[
                "fact",
                "text",
                "turn",
                "antecedent_turn",
                "compaction_turn",
                "replacing",
            ],
            RuleKind::ReissuedCall => &["tool", "call", "turn", "first_turn", "compaction_turn"],
            RuleKind::OpaqueCompaction => &["turn", "compaction", "reason"],
            RuleKind::UnreadableRecord => &["message", "turn"],
        }
    }

    /// (facts, ignore_arguments / inert_tools)
    fn takes(self) -> (Takes, Takes) {
        match self {
            RuleKind::LiveFact => (Takes::Required, Takes::No),
            RuleKind::RepeatedCall => (Takes::Required, Takes::Optional),
            RuleKind::CompactionDrop => (Takes::Optional, Takes::No),
            RuleKind::ReferenceAcrossCompaction => (Takes::Optional, Takes::No),
            RuleKind::ReissuedCall => (Takes::No, Takes::Optional),
            RuleKind::OpaqueCompaction | RuleKind::UnreadableRecord => (Takes::No, Takes::No),
        }
    }

    /// The fact kinds this rule kind can look at, when it takes `facts`.
    fn fact_kinds(self) -> &'static [FactKind] {
        match self {
            RuleKind::RepeatedCall => &[FactKind::NullResult],
            RuleKind::ReferenceAcrossCompaction => &[FactKind::Reference],
            _ => &[
                FactKind::Obligation,
                FactKind::NullResult,
                FactKind::Reference,
            ],
        }
    }
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every fact subkind, with the name rule files use and a phrase for messages.
pub const SUBKINDS: [(Subkind, &str, &str); 10] = [
    (
        Subkind::SelfCommitment,
        "self_commitment",
        "self-commitment",
    ),
    (Subkind::PlanStep, "plan_step", "plan step"),
    (Subkind::ToolRetry, "tool_retry", "tool retry"),
    (Subkind::Empty, "empty", "empty result"),
    (Subkind::NotFound, "not_found", "not-found result"),
    (Subkind::Error, "error", "error result"),
    (Subkind::Ordinal, "ordinal", "ordinal reference"),
    (Subkind::Anaphoric, "anaphoric", "anaphoric reference"),
    (Subkind::Pronoun, "pronoun", "pronoun reference"),
    (Subkind::Identifier, "identifier", "identifier reference"),
];

/// The phrase for a fact subkind in messages ("self-commitment", "not-found result").
pub fn subkind_phrase(s: Subkind) -> &'static str {
    SUBKINDS
        .iter()
        .find(|(k, _, _)| *k == s)
        .map_or("fact", |x| x.2)
}

/// The subkinds a name in a rule's `facts` stands for: a subkind, or a whole fact kind
/// (`obligation`, `null_result`, `reference`).
fn subkinds_named(name: &str) -> Option<Vec<Subkind>> {
    let family = match name {
        "obligation" => Some(FactKind::Obligation),
        "null_result" => Some(FactKind::NullResult),
        "reference" => Some(FactKind::Reference),
        _ => None,
    };
    match family {
        Some(f) => Some(
            SUBKINDS
                .iter()
                .filter(|(k, _, _)| k.kind() == f)
                .map(|x| x.0)
                .collect(),
        ),
        None => SUBKINDS
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|x| vec![x.0]),
    }
}

// ---------------------------------------------------------------------------------------------
// Message templates

/// A message with `{variable}` holes; `{{` and `}}` stand for braces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    Var(&'static str),
}

impl Template {
    /// Parses a template whose variables must be among `vars`. On error: the byte offset in
    /// `s` and the message.
    pub fn parse(s: &str, vars: &[&'static str]) -> Result<Template, (usize, String)> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|x| x.1) == Some('{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek().map(|x| x.1) == Some('}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let rest = &s[i + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err((i, "unclosed `{` in the message".into()));
                    };
                    let name = &rest[..end];
                    let Some(v) = vars.iter().find(|v| **v == name) else {
                        return Err((
                            i,
                            format!(
                                "unknown variable `{{{name}}}`; this kind offers: {}",
                                vars.iter()
                                    .map(|v| format!("{{{v}}}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    };
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Var(v));
                    for _ in 0..name.chars().count() + 1 {
                        chars.next();
                    }
                }
                '}' => return Err((i, "unmatched `}` in the message (write `}}`)".into())),
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Template { parts })
    }

    /// Fills the holes; a variable `value` does not know renders empty.
    pub fn render(&self, value: impl Fn(&str) -> Option<String>) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(s) => out.push_str(s),
                Part::Var(v) => out.push_str(&value(v).unwrap_or_default()),
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Rules and the catalogue

/// The three sections every rule documents.
#[derive(Debug, Clone)]
pub struct Docs {
    pub what: String,
    pub why: String,
    pub example: String,
}

/// One rule, loaded from its file.
#[derive(Debug, Clone)]
pub struct Rule {
    pub code: String,
    pub name: String,
    pub kind: RuleKind,
    pub severity: Severity,
    /// The fact subkinds the kind looks at (empty: every subkind it can look at).
    pub facts: Vec<Subkind>,
    /// Argument keys that do not change what a call asks for.
    pub ignore_arguments: Vec<String>,
    /// Tools whose calls change nothing a later call could observe.
    pub inert_tools: Vec<String>,
    pub message: Template,
    pub help: Option<String>,
    pub docs: Docs,
    /// The file the rule came from (`rules/dangling-commitment.toml`).
    pub source: String,
}

impl Rule {
    /// Whether the rule looks at facts of this subkind.
    pub fn wants(&self, s: Subkind) -> bool {
        self.facts.is_empty() || self.facts.contains(&s)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    code: Spanned<String>,
    name: Spanned<String>,
    kind: Spanned<RuleKind>,
    severity: Severity,
    facts: Option<Spanned<Vec<String>>>,
    ignore_arguments: Option<Spanned<Vec<String>>>,
    inert_tools: Option<Spanned<Vec<String>>>,
    message: Spanned<String>,
    help: Option<String>,
    docs: DocsFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DocsFile {
    what: Spanned<String>,
    why: Spanned<String>,
    example: Spanned<String>,
}

/// A rule or configuration file that could not be loaded, with the place to point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    /// 1-based line and column; 0 for a file that could not be read at all (no place in it).
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file, self.message),
            _ => write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            ),
        }
    }
}

impl std::error::Error for LoadError {}

pub(crate) fn err_at(
    file: &str,
    text: &str,
    offset: usize,
    message: impl Into<String>,
) -> LoadError {
    let (line, column) = crate::source::text_line_col(text, offset);
    LoadError {
        file: file.to_string(),
        line,
        column,
        message: message.into(),
    }
}

fn is_code(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 5
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..].iter().all(u8::is_ascii_digit)
}

fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-')
            .all(|w| !w.is_empty() && w.bytes().all(|c| c.is_ascii_lowercase()))
}

/// Parses one rule file.
pub fn parse_rule(file: &str, text: &str) -> Result<Rule, LoadError> {
    let raw: RuleFile = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        err_at(file, text, at, e.message().trim_end().to_string())
    })?;
    let at = |s: std::ops::Range<usize>| s.start;
    if !is_code(raw.code.get_ref()) {
        return Err(err_at(
            file,
            text,
            at(raw.code.span()),
            format!(
                "`{}` is not a rule code: two capital letters and three digits (`OB001`)",
                raw.code.get_ref()
            ),
        ));
    }
    if !is_kebab(raw.name.get_ref()) {
        return Err(err_at(
            file,
            text,
            at(raw.name.span()),
            format!(
                "`{}` is not a kebab-case name (`dangling-commitment`)",
                raw.name.get_ref()
            ),
        ));
    }
    let kind = *raw.kind.get_ref();
    let (takes_facts, takes_calls) = kind.takes();
    let mut facts = Vec::new();
    match (&raw.facts, takes_facts) {
        (None, Takes::Required) => {
            return Err(err_at(
                file,
                text,
                at(raw.kind.span()),
                format!("kind `{kind}` needs `facts`: the fact subkinds it looks at"),
            ))
        }
        (Some(f), Takes::No) => {
            return Err(err_at(
                file,
                text,
                at(f.span()),
                format!("kind `{kind}` takes no `facts`"),
            ))
        }
        (Some(f), _) => {
            for name in f.get_ref() {
                let subs = subkinds_named(name).ok_or_else(|| {
                    err_at(
                        file,
                        text,
                        at(f.span()),
                        format!(
                            "unknown fact subkind `{name}`; known: obligation, null_result, reference, {}",
                            SUBKINDS.map(|x| x.1).join(", ")
                        ),
                    )
                })?;
                for s in subs {
                    if !kind.fact_kinds().contains(&s.kind()) {
                        return Err(err_at(
                            file,
                            text,
                            at(f.span()),
                            format!("kind `{kind}` cannot look at `{name}` facts"),
                        ));
                    }
                    if !facts.contains(&s) {
                        facts.push(s);
                    }
                }
            }
            if facts.is_empty() {
                return Err(err_at(file, text, at(f.span()), "`facts` is empty"));
            }
        }
        (None, _) => {}
    }
    for p in [&raw.ignore_arguments, &raw.inert_tools]
        .into_iter()
        .flatten()
    {
        if takes_calls == Takes::No {
            return Err(err_at(
                file,
                text,
                at(p.span()),
                format!("kind `{kind}` takes no `ignore_arguments` or `inert_tools`"),
            ));
        }
    }
    // The message: offsets inside the TOML string map to the file when it has no escapes;
    // otherwise the error points at the string's start.
    let message = Template::parse(raw.message.get_ref(), kind.vars()).map_err(|(off, msg)| {
        let start = raw.message.span().start;
        let quoted = &text[start..raw.message.span().end];
        let plain = quoted.len() == raw.message.get_ref().len() + 2;
        err_at(file, text, if plain { start + 1 + off } else { start }, msg)
    })?;
    for (name, section) in [
        ("what", &raw.docs.what),
        ("why", &raw.docs.why),
        ("example", &raw.docs.example),
    ] {
        if section.get_ref().trim().is_empty() {
            return Err(err_at(
                file,
                text,
                at(section.span()),
                format!("the docs section `{name}` is empty"),
            ));
        }
    }
    Ok(Rule {
        code: raw.code.into_inner(),
        name: raw.name.into_inner(),
        kind,
        severity: raw.severity,
        facts,
        ignore_arguments: raw
            .ignore_arguments
            .map(|s| s.into_inner())
            .unwrap_or_default(),
        inert_tools: raw.inert_tools.map(|s| s.into_inner()).unwrap_or_default(),
        message,
        help: raw.help,
        docs: Docs {
            what: raw.docs.what.into_inner().trim().to_string(),
            why: raw.docs.why.into_inner().trim().to_string(),
            example: raw.docs.example.into_inner().trim_matches('\n').to_string(),
        },
        source: file.to_string(),
    })
}

/// Every rule known, in code order.
#[derive(Debug, Clone)]
pub struct Catalogue {
    pub rules: Vec<Arc<Rule>>,
}

impl Catalogue {
    /// The built-in rules (parsed once per process).
    pub fn builtin() -> &'static Catalogue {
        static CAT: OnceLock<Catalogue> = OnceLock::new();
        CAT.get_or_init(|| {
            let files: Vec<(String, String)> = BUILTIN_RULES
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect();
            Catalogue::load(&files).unwrap_or_else(|e| panic!("built-in rule: {e}"))
        })
    }

    /// Loads rule files `(name, content)`. Codes and names must be unique; a file named
    /// `<name>.toml` must hold the rule of that name.
    pub fn load(files: &[(String, String)]) -> Result<Catalogue, LoadError> {
        let mut rules: Vec<Arc<Rule>> = Vec::new();
        for (file, text) in files {
            let rule = parse_rule(file, text)?;
            let stem = std::path::Path::new(file)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let name_at = text.find("name").unwrap_or(0);
            if stem != rule.name {
                return Err(err_at(
                    file,
                    text,
                    name_at,
                    format!("the rule `{}` must live in `{}.toml`", rule.name, rule.name),
                ));
            }
            if let Some(other) = rules
                .iter()
                .find(|r| r.code == rule.code || r.name == rule.name)
            {
                return Err(err_at(
                    file,
                    text,
                    0,
                    format!(
                        "rule `{} {}` clashes with `{} {}` from {}",
                        rule.code, rule.name, other.code, other.name, other.source
                    ),
                ));
            }
            rules.push(Arc::new(rule));
        }
        rules.sort_by(|a, b| a.code.cmp(&b.code));
        Ok(Catalogue { rules })
    }

    /// A rule by code or name (either in any case, as every selector).
    pub fn get(&self, code_or_name: &str) -> Option<&Arc<Rule>> {
        self.rules.iter().find(|r| {
            r.name.eq_ignore_ascii_case(code_or_name) || r.code.eq_ignore_ascii_case(code_or_name)
        })
    }

    /// The indices of the rules a selector names: `ALL`, a rule name, a code or a code prefix
    /// (each in any case: `all`, `ob001`, `Dangling-Commitment`).
    pub fn resolve(&self, selector: &str) -> Result<Vec<usize>, String> {
        let s = selector.trim();
        if s.eq_ignore_ascii_case("ALL") {
            return Ok((0..self.rules.len()).collect());
        }
        if let Some(i) = self
            .rules
            .iter()
            .position(|r| r.name.eq_ignore_ascii_case(s))
        {
            return Ok(vec![i]);
        }
        let upper = s.to_ascii_uppercase();
        let hits: Vec<usize> = if upper.is_empty() {
            Vec::new()
        } else {
            self.rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.code.starts_with(&upper))
                .map(|(i, _)| i)
                .collect()
        };
        if hits.is_empty() {
            Err(format!(
                "unknown rule selector `{s}`{}: not ALL, a rule code or code prefix ({}), or a rule name (`trajlint rules --list`)",
                self.did_you_mean(s),
                self.prefixes().join(", ")
            ))
        } else {
            Ok(hits)
        }
    }

    /// The rule name or code nearest a selector that names none (`unreadable-recrod`,
    /// `OB01`), as " (did you mean `…`?)", or nothing when none is near.
    pub fn did_you_mean(&self, selector: &str) -> String {
        let s = selector.trim().to_ascii_lowercase();
        self.rules
            .iter()
            .flat_map(|r| [r.name.as_str(), r.code.as_str()])
            .map(|k| (strsim::jaro_winkler(&s, &k.to_ascii_lowercase()), k))
            .filter(|&(score, _)| score >= 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map_or_else(String::new, |(_, k)| format!(" (did you mean `{k}`?)"))
    }

    /// The two-letter code families.
    fn prefixes(&self) -> Vec<String> {
        let mut p: Vec<String> = self.rules.iter().map(|r| r.code[..2].to_string()).collect();
        p.dedup();
        p
    }

    /// How specific a selector is: `ALL` < short prefix < long prefix < code or name.
    fn specificity(&self, selector: &str) -> usize {
        let s = selector.trim();
        // (A rule's name and its code name one rule alike: the most specific a selector gets.)
        if s.eq_ignore_ascii_case("ALL") {
            0
        } else if self
            .rules
            .iter()
            .any(|r| r.name.eq_ignore_ascii_case(s) || r.code.eq_ignore_ascii_case(s))
        {
            usize::MAX
        } else {
            s.len()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Selection

/// One layer of selection options (the config file, then the command line).
#[derive(Debug, Clone, Default)]
pub struct SelectionLayer {
    /// Replaces what the layers before selected.
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    /// Severity overrides: selector → severity.
    pub severity: Vec<(String, Severity)>,
}

/// The rules enabled, each with its effective severity.
#[derive(Debug, Clone)]
pub struct Selection {
    pub enabled: Vec<bool>,
    pub severity: Vec<Severity>,
}

impl Selection {
    /// Applies the layers in order over the default (every rule, at its own severity).
    pub fn resolve(cat: &Catalogue, layers: &[SelectionLayer]) -> Result<Selection, String> {
        let n = cat.rules.len();
        let mut enabled = vec![true; n];
        let mut severity: Vec<Severity> = cat.rules.iter().map(|r| r.severity).collect();
        for layer in layers {
            if layer.select.is_some() {
                enabled = vec![false; n];
            }
            // The more specific selector wins, as in ruff (`--ignore OB --extend-select
            // OB001` keeps OB001; `--select OB --ignore OB001` drops it); at equal
            // specificity, ignoring wins.
            let mut selectors: Vec<(&String, bool)> = layer
                .select
                .iter()
                .flatten()
                .chain(&layer.extend_select)
                .map(|s| (s, true))
                .chain(layer.ignore.iter().map(|s| (s, false)))
                .collect();
            selectors.sort_by_key(|&(s, on)| (cat.specificity(s), !on));
            for (s, on) in selectors {
                for i in cat.resolve(s)? {
                    enabled[i] = on;
                }
            }
            // Less specific overrides first, so `OB = "error"` and `OB002 = "info"` compose.
            let mut overrides = layer.severity.clone();
            overrides.sort_by_key(|(s, _)| cat.specificity(s));
            for (s, sev) in overrides {
                for i in cat.resolve(&s)? {
                    severity[i] = sev;
                }
            }
        }
        Ok(Selection { enabled, severity })
    }

    /// The enabled rules with their severities, less the ones `ignored` (per-path ignores).
    pub fn active(&self, cat: &Catalogue, ignored: &[usize]) -> Vec<ActiveRule> {
        cat.rules
            .iter()
            .enumerate()
            .filter(|(i, _)| self.enabled[*i] && !ignored.contains(i))
            .map(|(i, r)| ActiveRule {
                rule: r.clone(),
                severity: self.severity[i],
            })
            .collect()
    }
}

/// A rule to run, at the severity the configuration gives it.
#[derive(Debug, Clone)]
pub struct ActiveRule {
    pub rule: Arc<Rule>,
    pub severity: Severity,
}

// ---------------------------------------------------------------------------------------------
// Findings

/// A secondary place a finding points at: the resolving or missing counterpart, the
/// compaction boundary, a dropped fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Raw byte span in the file.
    pub span: Span,
    pub message: String,
}

/// One finding. Positions are raw byte offsets; line and column are computed only when
/// printing, from the file's line index.
#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: Arc<Rule>,
    pub severity: Severity,
    /// The file as displayed.
    pub file: Arc<str>,
    /// Which trajectory of the file (0-based, file order).
    pub trajectory: usize,
    /// The turn the finding is in.
    pub turn: usize,
    /// The primary span.
    pub span: Span,
    /// False where the trajectory lies compressed in the file (a deflated `.eval` entry): the
    /// spans are then the whole entry, and its lines and columns mean nothing.
    pub bytes_exact: bool,
    /// A short label for the primary span.
    pub label: String,
    pub message: String,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// Stable across appended lines: rule, file, the trajectory's record id, the turn's role
    /// and the text at issue, plus an occurrence number among equal ones. Never byte offsets.
    pub fingerprint: String,
}

/// What a kind hands back; the framework adds the rule, severity, file and fingerprint.
pub struct Draft {
    pub turn: usize,
    pub span: Span,
    pub label: String,
    pub message: String,
    pub labels: Vec<Label>,
    /// What makes this finding the same finding after the log grows: the role of the turn and
    /// the text at issue (never an offset).
    pub identity: String,
}

/// What a kind function sees: one analysed trajectory.
pub struct Cx<'a> {
    pub traj: &'a Trajectory,
    pub analysis: &'a Analysis,
    pub bytes: &'a [u8],
    pub lex: &'a Lexicon,
    replaced_by: OnceLock<Vec<Option<usize>>>,
    into_compacted: OnceLock<Vec<(crate::extract::Fact, usize)>>,
}

impl<'a> Cx<'a> {
    pub fn new(
        traj: &'a Trajectory,
        analysis: &'a Analysis,
        bytes: &'a [u8],
        lex: &'a Lexicon,
    ) -> Self {
        Cx {
            traj,
            analysis,
            bytes,
            lex,
            replaced_by: OnceLock::new(),
            into_compacted: OnceLock::new(),
        }
    }

    /// References made after a compaction whose antecedent lies in the turns it replaced, as
    /// the binder finds them when it is let see through compactions, each with the index of
    /// that compaction (see [`kinds`]' `compacted_reference`). Computed once per trajectory.
    pub fn into_compacted(&self) -> &[(crate::extract::Fact, usize)] {
        self.into_compacted
            .get_or_init(|| kinds::references_into_compacted(self))
    }

    /// For each turn, the compaction (index into `traj.compactions`) that replaced it.
    pub fn replaced_by(&self) -> &[Option<usize>] {
        self.replaced_by.get_or_init(|| {
            let n = self.traj.turns.len();
            let mut v = vec![None; n];
            // (Each turn by the first compaction that replaced it, marked once.)
            let mut marks = crate::marks::Marks::new(n);
            for (k, c) in self.traj.compactions.iter().enumerate() {
                for (a, b) in marks.mark(c.replaced.0, c.replaced.1) {
                    v[a..=b].fill(Some(k));
                }
            }
            v
        })
    }
}

/// Runs the active rules over every trajectory of a file. `display` is the file as printed;
/// `path_key` the path the fingerprints use (relative to the project root, `/`-separated).
pub fn check_file(
    report: &FileReport,
    rules: &[ActiveRule],
    lex: &Lexicon,
    display: &Arc<str>,
    path_key: &str,
) -> Vec<Finding> {
    let mut found: Vec<(Finding, String)> = Vec::new();
    let trajectories = &report.read.trajectories;
    let mut add = |active: &ActiveRule, t: usize, d: Draft| {
        let identity = match &trajectories[t].id {
            Some(id) => format!("{id}\u{0}{}", d.identity),
            None => d.identity,
        };
        let finding = Finding {
            rule: active.rule.clone(),
            severity: active.severity,
            file: display.clone(),
            trajectory: t,
            turn: d.turn,
            span: d.span,
            // (By where the span lies, not by trajectory: a lost record is no trajectory's.)
            bytes_exact: !report
                .read
                .compressed
                .iter()
                .any(|r| r.start <= d.span.start && d.span.end <= r.end),
            label: d.label,
            message: d.message,
            labels: d.labels,
            help: active.rule.help.clone(),
            fingerprint: String::new(),
        };
        found.push((finding, identity));
    };
    for active in rules {
        if active.rule.kind == RuleKind::UnreadableRecord {
            for (t, d) in kinds::unreadable_record(&active.rule, &report.read) {
                add(active, t, d);
            }
            continue;
        }
        for (t, (traj, analysis)) in trajectories.iter().zip(&report.analyses).enumerate() {
            let cx = Cx::new(traj, analysis, &report.source.bytes, lex);
            let mut drafts = Vec::new();
            kinds::run(&active.rule, &cx, &mut drafts);
            for d in drafts {
                add(active, t, d);
            }
        }
    }
    found.sort_by(|(a, _), (b, _)| {
        (a.trajectory, a.span.start, &a.rule.code, a.span.end).cmp(&(
            b.trajectory,
            b.span.start,
            &b.rule.code,
            b.span.end,
        ))
    });
    // Fingerprint: a stable hash of rule code, path and identity, and the occurrence number
    // among findings with the same hash, in file order.
    let mut seen: HashMap<u64, usize> = HashMap::new();
    found
        .into_iter()
        .map(|(mut f, identity)| {
            let h = fnv1a(&[
                f.rule.code.as_bytes(),
                path_key.as_bytes(),
                identity.as_bytes(),
            ]);
            let k = seen.entry(h).or_default();
            f.fingerprint = format!("{h:016x}:{k}");
            *k += 1;
            f
        })
        .collect()
}

/// FNV-1a, 64 bits, over parts each followed by a 0xff byte (which UTF-8 text never holds):
/// stable across platforms and Rust versions (unlike `DefaultHasher`), so baselines stay valid.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Text for a message: one line, whitespace collapsed, at most `max` characters (with `…`).
pub fn short(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for w in text.split_whitespace() {
        let len = w.chars().count();
        if n > 0 {
            if n + 1 > max {
                out.push('…');
                return out;
            }
            out.push(' ');
            n += 1;
        }
        if n + len > max {
            out.extend(w.chars().take(max.saturating_sub(n)));
            out.push('…');
            return out;
        }
        out.push_str(w);
        n += len;
    }
    out
}

/// The identity of a text for fingerprints: whitespace collapsed, so re-wrapping does not count.
pub fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rules_load() {
        let cat = Catalogue::builtin();
        assert_eq!(cat.rules.len(), BUILTIN_RULES.len());
    }

    #[test]
    fn every_rule_file_is_built_in_and_documented() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml") && n != "lexicon.toml")
            .map(|n| format!("rules/{n}"))
            .collect();
        on_disk.sort();
        let mut built_in: Vec<String> = BUILTIN_RULES.iter().map(|r| r.0.to_string()).collect();
        built_in.sort();
        assert_eq!(on_disk, built_in, "rules/*.toml and BUILTIN_RULES differ");
        for r in &Catalogue::builtin().rules {
            for (section, text) in [
                ("What it does", &r.docs.what),
                ("Why it matters", &r.docs.why),
                ("Example", &r.docs.example),
            ] {
                assert!(
                    text.split_whitespace().count() >= 10,
                    "{}: {section}",
                    r.name
                );
            }
            assert!(r.help.is_some(), "{}: help", r.name);
        }
        // The rules the issue asks for, at least.
        for name in [
            "dangling-commitment",
            "ignored-retry",
            "unacknowledged-null-result",
            "repeated-null-query",
            "unbound-reference",
            "live-span-compacted",
            "reference-into-compacted-span",
            "reissued-call-after-compaction",
            "opaque-compaction",
            "unreadable-record",
        ] {
            assert!(Catalogue::builtin().get(name).is_some(), "{name}");
        }
    }

    fn load_one(text: &str) -> Result<Catalogue, LoadError> {
        Catalogue::load(&[("rules/x-rule.toml".into(), text.into())])
    }

    const GOOD: &str = "code = \"XX001\"\nname = \"x-rule\"\nkind = \"live-fact\"\nseverity = \"info\"\nfacts = [\"empty\"]\nmessage = \"{text}\"\n\n[docs]\nwhat = \"w\"\nwhy = \"y\"\nexample = \"e\"\n";

    #[test]
    fn rule_file_errors_point_at_the_line() {
        assert!(load_one(GOOD).is_ok());
        let e = load_one(&GOOD.replace("severity", "sevrity")).unwrap_err();
        assert_eq!((e.line, e.column), (4, 1), "{e}");
        assert!(e.message.contains("unknown field `sevrity`"), "{e}");
        let e = load_one(&GOOD.replace("why = \"y\"\n", "")).unwrap_err();
        assert!(e.message.contains("missing field `why`"), "{e}");
        let e = load_one(&GOOD.replace("example = \"e\"", "example = \"  \"")).unwrap_err();
        assert!(e.message.contains("`example` is empty"), "{e}");
        let e = load_one(&GOOD.replace("{text}", "{txt}")).unwrap_err();
        assert_eq!((e.line, e.column), (6, 12), "{e}");
        let e = load_one(&GOOD.replace("live-fact", "live-facts")).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = load_one(&GOOD.replace("facts = [\"empty\"]\n", "")).unwrap_err();
        assert!(e.message.contains("needs `facts`"), "{e}");
        let e = load_one(&GOOD.replace("\"empty\"", "\"emptiness\"")).unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        let e = load_one(&GOOD.replace("kind = \"live-fact\"", "kind = \"opaque-compaction\""))
            .unwrap_err();
        assert!(e.message.contains("takes no `facts`"), "{e}");
        let e = load_one(&GOOD.replace("XX001", "X1")).unwrap_err();
        assert!(e.message.contains("not a rule code"), "{e}");
        let e = Catalogue::load(&[("rules/other.toml".into(), GOOD.into())]).unwrap_err();
        assert!(e.message.contains("must live in `x-rule.toml`"), "{e}");
    }

    #[test]
    fn selectors_and_severity_overrides() {
        let cat = Catalogue::builtin();
        assert_eq!(cat.resolve("ALL").unwrap().len(), cat.rules.len());
        // Every selector in any case: `all` as `ALL`, a name as the name.
        assert_eq!(cat.resolve("all").unwrap().len(), cat.rules.len());
        assert_eq!(
            cat.resolve("DANGLING-COMMITMENT").unwrap(),
            cat.resolve("OB001").unwrap()
        );
        assert_eq!(cat.specificity("all"), cat.specificity("ALL"));
        assert_eq!(cat.specificity("Dangling-Commitment"), usize::MAX);
        assert!(cat.get("DANGLING-COMMITMENT").is_some());
        assert_eq!(cat.resolve("CP").unwrap().len(), 4);
        assert_eq!(
            cat.resolve("cp001").unwrap(),
            cat.resolve("live-span-compacted").unwrap()
        );
        assert!(cat.resolve("ZZ").is_err());
        let layer = SelectionLayer {
            select: Some(vec!["OB".into()]),
            severity: vec![
                ("OB002".into(), Severity::Info),
                ("ALL".into(), Severity::Error),
            ],
            ..Default::default()
        };
        let sel = Selection::resolve(cat, &[layer]).unwrap();
        let active = sel.active(cat, &[]);
        let sev: Vec<(&str, Severity)> = active
            .iter()
            .map(|a| (a.rule.code.as_str(), a.severity))
            .collect();
        assert_eq!(sev, [("OB001", Severity::Error), ("OB002", Severity::Info)]);
        let ob001 = cat.resolve("OB001").unwrap();
        assert_eq!(sel.active(cat, &ob001).len(), 1);
    }

    #[test]
    fn the_more_specific_selector_wins_and_ignore_wins_a_tie() {
        let cat = Catalogue::builtin();
        let codes = |layers: &[SelectionLayer]| -> Vec<String> {
            let sel = Selection::resolve(cat, layers).unwrap();
            sel.active(cat, &[])
                .iter()
                .map(|a| a.rule.code.clone())
                .collect()
        };
        let layer = |select: Option<&[&str]>, extend: &[&str], ignore: &[&str]| SelectionLayer {
            select: select.map(|s| s.iter().map(|x| x.to_string()).collect()),
            extend_select: extend.iter().map(|x| x.to_string()).collect(),
            ignore: ignore.iter().map(|x| x.to_string()).collect(),
            severity: Vec::new(),
        };
        assert_eq!(codes(&[layer(Some(&["OB001"]), &[], &["OB"])]), ["OB001"]);
        assert_eq!(codes(&[layer(Some(&["OB"]), &[], &["OB001"])]), ["OB002"]);
        assert_eq!(
            codes(&[layer(Some(&["CP"]), &["OB002"], &["CP", "OB002"])]),
            Vec::<String>::new()
        );
        // A rule's name is as specific as its code.
        let all = codes(&[layer(Some(&["ALL"]), &["dangling-commitment"], &["OB"])]);
        assert!(all.contains(&"OB001".to_string()) && !all.contains(&"OB002".to_string()));
        assert_eq!(all.len(), cat.rules.len() - 1);
        // ... and no more: one rule named by its name and by its code is a tie, which the
        // ignore wins, whichever way round (and whatever the case of the code).
        for (extend, ignore) in [
            ("dangling-commitment", "OB001"),
            ("OB001", "dangling-commitment"),
            ("ob001", "dangling-commitment"),
        ] {
            let codes = codes(&[layer(Some(&["OB"]), &[extend], &[ignore])]);
            assert_eq!(
                codes,
                ["OB002"],
                "--extend-select {extend} --ignore {ignore}"
            );
        }
        // A later layer (the command line) still overrides an earlier one (the config file).
        assert_eq!(
            codes(&[layer(Some(&["OB001"]), &[], &[]), layer(None, &[], &["OB"])]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn template_vars_are_checked() {
        let t = Template::parse("a {text} b {{x}}", &["text"]).unwrap();
        assert_eq!(t.render(|v| Some(v.to_uppercase())), "a TEXT b {x}");
        let e = Template::parse("a {nope}", &["text"]).unwrap_err();
        assert_eq!(e.0, 2);
        assert!(e.1.contains("unknown variable `{nope}`"), "{}", e.1);
        assert!(Template::parse("a {text", &["text"]).is_err());
        assert!(Template::parse("a } b", &["text"]).is_err());
    }

    #[test]
    fn short_cuts_on_words() {
        assert_eq!(short("a  b\n c", 10), "a b c");
        assert_eq!(short("abcdef ghij", 8), "abcdef g…");
        assert_eq!(short("", 5), "");
    }
}
