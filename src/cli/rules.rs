//! `trajlint rule NAME|CODE` and `trajlint rules`: the rule catalogue's documentation.

use std::process::ExitCode;
use std::sync::Arc;
use trajlint::lint::{subkind_phrase, Catalogue, Rule, SUBKINDS};

#[derive(clap::Args)]
pub struct RuleArgs {
    /// A rule name (`dangling-commitment`) or code (`OB001`); a code prefix (`NR`) or a comma
    /// list (`NR001,OB002`) shows each rule it names.
    #[arg(value_name = "NAME|CODE")]
    pub rule: String,
    /// Print the rule as JSON (for a code prefix or a list, an array of them).
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct RulesArgs {
    /// One line per rule instead of every rule's documentation.
    #[arg(long)]
    pub list: bool,
    /// Print the catalogue as JSON.
    #[arg(long, conflicts_with = "list")]
    pub json: bool,
}

/// A rule's documentation, in Markdown.
pub fn markdown(r: &Rule) -> String {
    let mut s = format!("# {} ({})\n\n", r.name, r.code);
    s.push_str(&format!(
        "Kind: `{}`. Default severity: {}.",
        r.kind, r.severity
    ));
    if !r.facts.is_empty() {
        let facts: Vec<&str> = r.facts.iter().map(|f| subkind_phrase(*f)).collect();
        s.push_str(&format!(" Looks at: {}.", facts.join(", ")));
    }
    s.push_str("\n\n## What it does\n\n");
    s.push_str(&r.docs.what);
    s.push_str("\n\n## Why it matters\n\n");
    s.push_str(&r.docs.why);
    s.push_str("\n\n## Example\n\n```text\n");
    s.push_str(&r.docs.example);
    s.push_str("\n```\n");
    if let Some(h) = &r.help {
        s.push_str(&format!("\n## How to fix it\n\n{h}\n"));
    }
    s
}

fn json(r: &Rule) -> serde_json::Value {
    let facts: Vec<&str> = r
        .facts
        .iter()
        .filter_map(|f| SUBKINDS.iter().find(|x| x.0 == *f).map(|x| x.1))
        .collect();
    serde_json::json!({
        "code": r.code,
        "name": r.name,
        "kind": r.kind.as_str(),
        "severity": r.severity,
        "facts": facts,
        "help": r.help,
        "docs": {"what": r.docs.what, "why": r.docs.why, "example": r.docs.example},
        "source": r.source,
    })
}

fn print(text: &str) -> ExitCode {
    if super::emit(text) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

pub fn rule(args: &RuleArgs) -> ExitCode {
    let cat = Catalogue::builtin();
    if let Some(r) = cat.get(&args.rule) {
        return if args.json {
            print(&format!("{:#}\n", json(r)))
        } else {
            print(&markdown(r))
        };
    }
    // Code prefixes and comma lists (as `--select` takes them): each rule they name.
    let mut hits = Vec::new();
    for s in args.rule.split(',').map(str::trim) {
        let Ok(found) = cat.resolve(s) else {
            eprintln!(
                "error: no rule named `{s}`{}; `trajlint rules --list` lists them",
                cat.did_you_mean(s)
            );
            return ExitCode::from(2);
        };
        hits.extend(found);
    }
    hits.sort_unstable();
    hits.dedup();
    let rules = hits.iter().map(|&i| &cat.rules[i]);
    if args.json {
        let all: Vec<serde_json::Value> = rules.map(|r| json(r)).collect();
        print(&format!("{:#}\n", serde_json::Value::Array(all)))
    } else {
        print(&rules.map(|r| markdown(r)).collect::<Vec<_>>().join("\n"))
    }
}

pub fn rules(args: &RulesArgs) -> ExitCode {
    let cat = Catalogue::builtin();
    let text = if args.json {
        let all: Vec<serde_json::Value> = cat.rules.iter().map(|r| json(r)).collect();
        format!("{:#}\n", serde_json::Value::Array(all))
    } else if args.list {
        let width = cat.rules.iter().map(|r| r.name.len()).max().unwrap_or(0);
        cat.rules
            .iter()
            .map(|r: &Arc<Rule>| {
                format!(
                    "{}  {:<width$}  {:<7}  {}\n",
                    r.code,
                    r.name,
                    r.severity.as_str(),
                    r.kind
                )
            })
            .collect()
    } else {
        cat.rules
            .iter()
            .map(|r| markdown(r))
            .collect::<Vec<_>>()
            .join("\n")
    };
    print(&text)
}
