//! What `repeated-call` and `reissued-call` share: calls keyed by (tool, equivalent arguments),
//! each paired with the previous identical call in one pass over the trajectory (a hash map, no
//! pairwise scan), and whether a call in between could have changed the answer.
//!
//! A call "could change the answer" when it is a write-kind call (edit, write, create, install,
//! mkdir, `git checkout`, ...: [`CallKind::Write`]) that is not of an inert tool, and either
//! side names no path (a shell write can touch anything) or their paths overlap (the same
//! file, or one inside the other). An edit of `b.rs` does not change what reading `a.rs` shows.
//! [`Repeat::changed_at_path`] is the looser test that ignores writes naming no path when the
//! call names one (a `git add` does not change what reading `a.rs` shows either, in practice).

use crate::extract::null_results::{json_field, CallKind};
use crate::lint::{short, Cx, Rule};
use crate::model::ToolCall;
use std::collections::HashMap;

/// A call: (turn, index among the turn's calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallAt {
    pub turn: usize,
    pub index: usize,
}

/// A call and the previous identical one.
#[derive(Debug, Clone, Copy)]
pub struct Repeat {
    pub prev: CallAt,
    pub cur: CallAt,
    /// A write after `prev` and before `cur` could have changed the answer: one naming an
    /// overlapping path, or naming none (a shell command can touch anything).
    pub changed: bool,
    /// Only a write naming an overlapping path could have (for a call naming no path: any
    /// write).
    pub changed_at_path: bool,
}

/// The argument keys that name what a call reads or writes.
const PATH_KEYS: [&str; 5] = ["file_path", "path", "notebook_path", "filename", "file"];

/// The absolute path a call names, without a trailing `/`. A relative path cannot be compared
/// with another without the working directory: such a call counts as naming none.
fn path_of(call: &ToolCall) -> Option<String> {
    PATH_KEYS
        .iter()
        .find_map(|k| json_field(&call.arguments, k))
        .map(|p| p.trim().trim_end_matches('/').to_string())
        .filter(|p| p.starts_with('/'))
}

/// The directories holding a path: `/a/b/c` → `/a`, `/a/b`; the `MAX_DEPTH` outermost only (a
/// write keeps each of them as a key: a path thousands of directories deep made each write cost
/// its depth times its length).
fn ancestors(p: &str) -> impl Iterator<Item = &str> {
    p.match_indices('/')
        .map(|(i, _)| &p[..i])
        .filter(|a| !a.is_empty())
        .take(MAX_DEPTH)
}

/// How many directories deep `ancestors` looks: far past any real project's tree.
const MAX_DEPTH: usize = 64;

/// Arguments in a canonical form: JSON objects with sorted keys, less `ignore`d top-level keys,
/// strings with their whitespace collapsed; a command line with its whitespace collapsed. (A
/// finding's identity: stable across runs whatever the spacing.)
pub fn canonical_arguments(args: &str, ignore: &[String]) -> String {
    canonical(args, ignore, Lines::Collapsed)
}

/// Arguments as `canonical_arguments` gives them, but for text of several lines, kept as it is:
/// what two calls do. An edit's old text, code to run, a SWE-agent `edit` command: a line break
/// or an indent there is part of what the call says (an `Edit` whose old text failed to match,
/// re-issued with its lines broken as the file has them, is another call).
fn call_key(args: &str, ignore: &[String]) -> String {
    canonical(args, ignore, Lines::Kept)
}

/// Whether text of several lines has its whitespace collapsed.
#[derive(Clone, Copy, PartialEq)]
enum Lines {
    Collapsed,
    Kept,
}

fn canonical(args: &str, ignore: &[String], lines: Lines) -> String {
    let trimmed = args.trim();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(trimmed) {
            if let Some(obj) = v.as_object_mut() {
                obj.retain(|k, _| !ignore.contains(k));
            }
            let mut out = String::new();
            write_canonical(&v, lines, &mut out);
            return out;
        }
    }
    collapse(trimmed, lines)
}

fn collapse(s: &str, lines: Lines) -> String {
    if lines == Lines::Kept && s.contains('\n') {
        return s.to_string();
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn write_canonical(v: &serde_json::Value, lines: Lines, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&m[k], lines, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(x, lines, out);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(&Value::String(collapse(s, lines)).to_string()),
        other => out.push_str(&other.to_string()),
    }
}

fn inert(call: &ToolCall, rule: &Rule) -> bool {
    rule.inert_tools.contains(&call.name)
}

/// Every call paired with the previous identical call (calls of inert tools left out), with
/// whether a write in between could have changed its answer. Calls are numbered in order; the
/// pass keeps the latest write of any kind, the latest naming no path, the latest to each path
/// and the latest inside each directory, so a pair is judged in time linear in its path's depth.
pub fn repeats(cx: &Cx, rule: &Rule) -> Vec<Repeat> {
    let mut seq = 0usize;
    let mut last_write: Option<usize> = None;
    let mut last_pathless_write: Option<usize> = None;
    let mut last_write_at: HashMap<String, usize> = HashMap::new();
    let mut last_write_under: HashMap<String, usize> = HashMap::new();
    let mut last: HashMap<(&str, String), (CallAt, usize)> = HashMap::new();
    let mut out = Vec::new();
    for (t, turn) in cx.traj.turns.iter().enumerate() {
        for (i, call) in turn.calls.iter().enumerate() {
            seq += 1;
            // (A call whose tool the log does not name is like no other: two such calls may
            // be of different tools.)
            if inert(call, rule) || call.name.trim().is_empty() {
                continue;
            }
            let path = path_of(call);
            let key = (
                call.name.as_str(),
                call_key(&call.arguments, &rule.ignore_arguments),
            );
            let cur = CallAt { turn: t, index: i };
            if let Some(&(prev, at)) = last.get(&key) {
                let after = |w: Option<&usize>| w.is_some_and(|w| *w > at);
                let (changed, changed_at_path) = match &path {
                    None => {
                        let any = after(last_write.as_ref());
                        (any, any)
                    }
                    Some(p) => {
                        let at_path = after(last_write_at.get(p))
                            || after(last_write_under.get(p))
                            || ancestors(p).any(|a| after(last_write_at.get(a)));
                        (at_path || after(last_pathless_write.as_ref()), at_path)
                    }
                };
                out.push(Repeat {
                    prev,
                    cur,
                    changed,
                    changed_at_path,
                });
            }
            last.insert(key, (cur, seq));
            if CallKind::of(Some(call), cx.lex) == CallKind::Write {
                last_write = Some(seq);
                match path {
                    Some(p) => {
                        for a in ancestors(&p) {
                            last_write_under.insert(a.to_string(), seq);
                        }
                        last_write_at.insert(p, seq);
                    }
                    None => last_pathless_write = Some(seq),
                }
            }
        }
    }
    out
}

pub fn call<'a>(cx: &Cx<'a>, at: CallAt) -> &'a ToolCall {
    &cx.traj.turns[at.turn].calls[at.index]
}

/// A call as a message shows it: `name(arguments…)`.
pub fn show(call: &ToolCall) -> String {
    format!("{}({})", call.name, short(&call.arguments, 80))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_arguments_ignore_order_whitespace_and_keys() {
        let ignore = vec!["description".to_string()];
        let a = canonical_arguments(
            r#"{"command": "ls  -la", "description": "List files"}"#,
            &ignore,
        );
        let b = canonical_arguments(
            r#"{"description":"Show the directory","command":"ls -la"}"#,
            &ignore,
        );
        assert_eq!(a, b);
        assert_eq!(a, r#"{"command":"ls -la"}"#);
        assert_ne!(a, canonical_arguments(r#"{"command": "ls"}"#, &ignore));
        assert_eq!(canonical_arguments("  grep -rn  foo ", &[]), "grep -rn foo");
    }

    #[test]
    fn text_of_several_lines_is_another_call_when_its_lines_differ() {
        let one = r#"{"old_string": "{:ok, _} = Repo.insert(x)", "file_path": "a.ex"}"#;
        let broken = r#"{"file_path": "a.ex", "old_string": "{:ok, _} =\n  Repo.insert(x)"}"#;
        let blank = r#"{"file_path": "a.ex", "old_string": "{:ok, _} =\n\n  Repo.insert(x)"}"#;
        assert_ne!(call_key(one, &[]), call_key(broken, &[]));
        assert_ne!(call_key(broken, &[]), call_key(blank, &[]));
        // One-line text still meets its respacing, and a finding's identity stays as it was.
        assert_eq!(
            call_key(r#"{"command": "ls  -la"}"#, &[]),
            call_key(r#"{"command": "ls -la"}"#, &[])
        );
        assert_eq!(
            canonical_arguments(broken, &[]),
            canonical_arguments(blank, &[])
        );
        let edit = "edit 6:6\n    return x\nend_of_edit";
        assert_ne!(
            call_key(edit, &[]),
            call_key("edit 6:6\nreturn x\nend_of_edit", &[])
        );
    }

    #[test]
    fn ancestors_of_a_path() {
        assert_eq!(ancestors("/a/b/c").collect::<Vec<_>>(), vec!["/a", "/a/b"]);
        assert_eq!(ancestors("/a").count(), 0);
        let deep = "/d".repeat(1000);
        assert_eq!(ancestors(&deep).count(), super::MAX_DEPTH);
        assert_eq!(ancestors(&deep).last(), Some(&deep[..2 * super::MAX_DEPTH]));
    }
}
