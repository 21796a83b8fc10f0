//! The SARIF output validates against the official SARIF 2.1.0 JSON schema, and has what GitHub
//! code scanning needs: rules with help, `partialFingerprints`, relative URIs with a base,
//! 1-based regions.
//!
//! The schema (`sarif-schema-2.1.0.json`, OASIS) is not committed here: the `serde-sarif`
//! dev-dependency ships it in its source (`src/schema.json`), found through `cargo metadata`.
//! Where it cannot be found (no cargo, an offline registry without the crate), the validation is
//! skipped with a printed reason; the GitHub checks and the typed parse still run.

mod check_support;

use check_support::{root, scratch, shared_corpus, trajlint};
use serde_json::Value;
use std::path::PathBuf;

/// The host's target triple, so that `cargo metadata` needs no other platform's crates (an
/// offline resolve of every platform fails on crates never downloaded, and the schema check
/// was skipped).
fn host_triple() -> Result<String, String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| "rustc -vV names no host".into())
}

fn schema_path() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let host = host_triple()?;
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", &host])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or("serde-sarif is not among the packages")?;
    let schema = PathBuf::from(manifest)
        .parent()
        .unwrap()
        .join("src/schema.json");
    schema
        .is_file()
        .then_some(schema.clone())
        .ok_or_else(|| format!("{} is missing", schema.display()))
}

/// Replaces the malformed `language` pattern everywhere in the schema; returns how often.
fn fix_language_pattern(v: &mut Value) -> usize {
    const BAD: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match v {
        Value::String(s) if s == BAD => {
            *s = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into();
            1
        }
        Value::Array(a) => a.iter_mut().map(fix_language_pattern).sum(),
        Value::Object(o) => o.values_mut().map(fix_language_pattern).sum(),
        _ => 0,
    }
}

fn sarif_of(paths: &[&str], cwd: &std::path::Path) -> (i32, Value) {
    let mut args = vec!["check", "--isolated", "--output-format", "sarif"];
    args.extend_from_slice(paths);
    let run = trajlint(&args, cwd, None);
    let v = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("SARIF is JSON: {e}\n{}", run.stdout));
    (run.code, v)
}

fn validate(log: &Value) {
    match schema_path() {
        // (Where CI runs, the schema must be found: a check that silently skips passes nothing.)
        Err(why) if std::env::var_os("CI").is_some() => panic!("schema validation: {why}"),
        Err(why) => println!("SKIPPED schema validation: {why}"),
        Ok(path) => {
            let mut schema: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            // The published schema carries a malformed pattern for the `language` properties
            // (an unmatched `]`), which the validator's meta-schema check rejects. trajlint
            // never writes `language`; the pattern is replaced by the one its description means.
            let fixed = fix_language_pattern(&mut schema);
            assert!(
                fixed >= 1,
                "the known erratum was not found: has the schema changed?"
            );
            assert_eq!(
                schema["title"],
                "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
            );
            let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
            let errors: Vec<String> = validator
                .iter_errors(log)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .take(20)
                .collect();
            assert!(
                errors.is_empty(),
                "SARIF schema violations:\n{}",
                errors.join("\n")
            );
        }
    }
}

/// What GitHub code scanning requires beyond the schema.
fn github_ready(log: &Value) {
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(!rules.is_empty());
    for r in rules {
        assert!(r["help"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Example")));
        assert!(r["shortDescription"]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));
    }
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
    for r in run["results"].as_array().unwrap() {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
        assert!(r["partialFingerprints"]["trajlintFingerprint/v1"].is_string());
        assert!(r["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        let locs = std::iter::once(&r["locations"][0])
            .chain(r["relatedLocations"].as_array().into_iter().flatten());
        for loc in locs {
            let p = &loc["physicalLocation"];
            // Relative to the checkout, or (a file outside it) an absolute file URI.
            let uri = p["artifactLocation"]["uri"].as_str().unwrap();
            if uri.starts_with("file:///") {
                assert!(p["artifactLocation"]["uriBaseId"].is_null(), "{uri}");
            } else {
                assert!(
                    !uri.contains("://") && !uri.starts_with('/') && !uri.starts_with("../"),
                    "relative: {uri}"
                );
                assert_eq!(p["artifactLocation"]["uriBaseId"], "%SRCROOT%");
            }
            let reg = &p["region"];
            assert!(reg["startLine"].as_u64().unwrap() >= 1);
            assert!(reg["startColumn"].as_u64().unwrap() >= 1);
            assert!(reg["endLine"].as_u64() >= reg["startLine"].as_u64());
        }
    }
}

#[test]
fn sarif_of_the_fixtures_is_valid_and_github_ready() {
    let (code, log) = sarif_of(&["tests/fixtures/check"], &root());
    assert_eq!(code, 1);
    validate(&log);
    github_ready(&log);
    // (The nine findings listed in tests/check_snapshots.rs, the cut-off record's included.)
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 9);
    // The typed SARIF model of serde-sarif reads it back.
    let typed: serde_sarif::sarif::Sarif =
        serde_json::from_value(log).expect("serde-sarif reads it");
    assert_eq!(typed.runs.len(), 1);
}

#[test]
fn sarif_with_no_findings_and_with_unreadable_input_is_valid() {
    let (code, log) = sarif_of(
        &["--select", "RF", "tests/fixtures/check/session.jsonl"],
        &root(),
    );
    assert_eq!(code, 0);
    validate(&log);
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    let (code, log) = sarif_of(&["corpus/fixtures/malformed/not-a-trajectory.md"], &root());
    assert_eq!(code, 2);
    validate(&log);
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    // The notification says where: the file, and the place in it where reading failed.
    let at = &notes[0]["locations"][0]["physicalLocation"];
    assert_eq!(
        at["artifactLocation"]["uri"],
        "corpus/fixtures/malformed/not-a-trajectory.md"
    );
    assert_eq!(at["region"]["startLine"], 1);
    // A missing input: the file alone, as named under the root.
    let (code, log) = sarif_of(&["no-such-dir/run.jsonl"], &root());
    assert_eq!(code, 2);
    validate(&log);
    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    let at = &notes[0]["locations"][0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "no-such-dir/run.jsonl");
    assert!(at.get("region").is_none(), "{at}");
    // Outside the root: an absolute URI, its `..` folded away (it cannot be canonicalized).
    let (_, log) = sarif_of(&["../no-such-dir-64/../gone/run.jsonl"], &root());
    validate(&log);
    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    let uri = notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let parent = root()
        .canonicalize()
        .unwrap()
        .parent()
        .unwrap()
        .join("gone/run.jsonl");
    assert_eq!(uri, format!("file://{}", parent.display()), "{notes}");
}

/// A reader's warning about a log it read (a line of an unexpected shape skipped) reaches the
/// machine formats that have a place for it, at its line: SARIF as a notification, GitHub as a
/// `::warning` annotation; the run still succeeds.
#[test]
fn reader_warnings_reach_sarif_and_github() {
    let dir = check_support::scratch("reader-warnings");
    let log = std::fs::read_to_string(root().join("tests/fixtures/check/session.jsonl")).unwrap();
    let lines = log.lines().count();
    std::fs::write(
        dir.join("stray.jsonl"),
        format!("{log}\"a stray string\"\n"),
    )
    .unwrap();
    let (_, sarif) = sarif_of(&["stray.jsonl"], &dir);
    validate(&sarif);
    let inv = &sarif["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["level"], "warning");
    assert!(notes[0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("JSON string rather than an object"));
    let at = &notes[0]["locations"][0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "stray.jsonl");
    assert_eq!(at["region"]["startLine"], lines + 1);
    let gh = trajlint(
        &[
            "check",
            "--isolated",
            "--output-format",
            "github",
            "stray.jsonl",
        ],
        &dir,
        None,
    );
    let expected = format!(
        "::warning file=stray.jsonl,line={},col=1,title=trajlint%3A reader warning::",
        lines + 1
    );
    assert!(gh.stdout.contains(&expected), "{}", gh.stdout);
}

#[test]
fn sarif_of_the_team_fixtures_and_the_shared_corpus_is_valid() {
    let (_, log) = sarif_of(&["corpus/fixtures"], &root());
    validate(&log);
    github_ready(&log);
    let Some(corpus) = shared_corpus("sarif_of_the_shared_corpus") else {
        return;
    };
    let (_, log) = sarif_of(&[corpus.to_str().unwrap()], &root());
    validate(&log);
    github_ready(&log);
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());
}

/// Where a result is, for a viewer to open it: a file outside the working directory by its
/// canonical absolute URI (not `../../x` under the checkout's base), standard input by `-` and a
/// description; and a rule's default level is its own, a `--severity` override showing in
/// each result's level.
#[test]
fn sarif_locations_and_levels_say_what_a_viewer_needs() {
    let dir = check_support::scratch("sarif-places");
    std::fs::create_dir_all(dir.join("here")).unwrap();
    let log = root().join("tests/fixtures/check/session.jsonl");
    std::fs::copy(&log, dir.join("outside.jsonl")).unwrap();
    let args = ["check", "--isolated", "--output-format", "sarif"];
    let run = |extra: &[&str], stdin: Option<&[u8]>| {
        let mut all = args.to_vec();
        all.extend_from_slice(extra);
        let r = trajlint(&all, &dir.join("here"), stdin);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        validate(&v);
        v
    };
    let first = |v: &Value| {
        v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"].clone()
    };
    let outside = first(&run(&["../outside.jsonl"], None));
    let uri = outside["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/outside.jsonl"),
        "{outside}"
    );
    assert!(outside["uriBaseId"].is_null(), "{outside}");
    let bytes = std::fs::read(&log).unwrap();
    let stdin = first(&run(&["-"], Some(&bytes)));
    assert_eq!(stdin["uri"], "-", "{stdin}");
    assert_eq!(stdin["description"]["text"], "standard input");
    // (`..` resolved: from a subdirectory, the file beside it.)
    std::fs::create_dir_all(dir.join("here/sub")).unwrap();
    let r = trajlint(
        &[&args[..], &["sub/../../outside.jsonl"]].concat(),
        &dir.join("here"),
        None,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let uri = first(&v)["uri"].as_str().unwrap().to_string();
    assert!(!uri.contains(".."), "{uri}");
    let v = run(&["--severity", "OB001=error", "../outside.jsonl"], None);
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let ob001 = rules.iter().find(|r| r["id"] == "OB001").unwrap();
    assert_eq!(ob001["defaultConfiguration"]["level"], "warning");
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(results
        .iter()
        .filter(|r| r["ruleId"] == "OB001")
        .all(|r| r["level"] == "error"));
    assert!(results.iter().any(|r| r["ruleId"] == "OB001"));
}

/// A file name that is not UTF-8 is named in SARIF by its own bytes, percent-encoded: as
/// U+FFFD it would name another file.
#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_keeps_its_bytes_in_the_uri() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("sarif-bytes");
    let name = std::ffi::OsStr::from_bytes(b"logs/bad\xff name.jsonl");
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::copy(
        root().join("corpus/fixtures/claude-code/dangling-verify.jsonl"),
        dir.join(name),
    )
    .unwrap();
    let (code, log) = sarif_of(&["logs"], &dir);
    assert_eq!(code, 1);
    let uris: std::collections::BTreeSet<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str())
        .collect();
    assert_eq!(
        uris.into_iter().collect::<Vec<_>>(),
        ["logs/bad%FF%20name.jsonl"]
    );
}
