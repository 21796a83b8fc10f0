//! `trajlint.toml`: the project's gate settings, found by walking up from the working directory
//! (or named with `--config`). Keys are kebab-case, as in ruff; unknown keys and unknown rule
//! selectors are errors that point at the file's line. Paths in it (per-path ignores, excludes,
//! the baseline, lexicons) are relative to the file's directory, the project root.
//!
//! ```toml
//! select = ["ALL"]            # replaces the default (every rule)
//! extend-select = []
//! ignore = ["RF001"]
//! fail-on = "warning"         # info | warning | error
//! output-format = "full"
//! baseline = "trajlint-baseline.json"
//! lexicons = ["lexicon/our-harness.toml"]
//! exclude = ["runs/scratch/**"]
//!
//! [severity]                  # overrides: selector = severity
//! OB = "error"
//! ignored-retry = "info"
//!
//! [per-path-ignores]          # glob (relative to the project root) = selectors
//! "runs/legacy/**" = ["OB001", "repeated-null-query"]
//! ```
//!
//! There is no in-band suppression: a directive inside a transcript would fire by accident
//! (transcripts talk about linters). Suppression lives here and in the baseline.

use super::{err_at, Catalogue, LoadError, SelectionLayer, Severity};
use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use toml::Spanned;

/// The names a configuration file may have, looked for in this order in each directory.
pub const CONFIG_NAMES: [&str; 2] = ["trajlint.toml", ".trajlint.toml"];

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    select: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    extend_select: Vec<Spanned<String>>,
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default)]
    severity: BTreeMap<Spanned<String>, Severity>,
    fail_on: Option<Severity>,
    output_format: Option<Spanned<String>>,
    #[serde(default)]
    per_path_ignores: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    baseline: Option<String>,
    #[serde(default)]
    lexicons: Vec<String>,
}

/// One per-path ignore: files matching the glob skip these rules.
#[derive(Debug, Clone)]
pub struct PathIgnore {
    pub pattern: String,
    matcher: GlobMatcher,
    /// Whether the pattern names a file anywhere (no `/`): matched against the file name too.
    basename: bool,
    pub rules: Vec<usize>,
}

/// A loaded configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file, when one was found or given.
    pub file: Option<PathBuf>,
    /// The project root: the file's directory, else the working directory.
    pub root: PathBuf,
    pub layer: SelectionLayer,
    pub fail_on: Option<Severity>,
    /// The output format, one of `OUTPUT_FORMATS`.
    pub output_format: Option<String>,
    pub per_path_ignores: Vec<PathIgnore>,
    exclude: GlobSet,
    /// Those written with a `/` (`./scratch`, `runs/scratch`): matched against paths only, not
    /// names, whatever their `.` steps left of them.
    exclude_anchored: GlobSet,
    pub baseline: Option<PathBuf>,
    pub lexicons: Vec<PathBuf>,
}

impl Config {
    /// No configuration file: the defaults, rooted at `cwd`.
    pub fn empty(cwd: &Path) -> Config {
        Config {
            file: None,
            root: cwd.to_path_buf(),
            layer: SelectionLayer::default(),
            fail_on: None,
            output_format: None,
            per_path_ignores: Vec::new(),
            exclude: GlobSet::empty(),
            exclude_anchored: GlobSet::empty(),
            baseline: None,
            lexicons: Vec::new(),
        }
    }

    /// The nearest configuration file at or above `dir`.
    pub fn find(dir: &Path) -> Option<PathBuf> {
        dir.ancestors()
            .flat_map(|d| CONFIG_NAMES.iter().map(move |n| d.join(n)))
            .find(|p| p.is_file())
    }

    /// Reads and checks a configuration file against the rule catalogue.
    pub fn load(path: &Path, cwd: &Path, cat: &Catalogue) -> Result<Config, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError {
            file: path.display().to_string(),
            line: 0,
            column: 0,
            message: crate::io_why(&e),
        })?;
        let abs = normalize(&cwd.join(path));
        let root = abs
            .parent()
            .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
        Config::parse(&path.display().to_string(), &text, &root, cat).map(|mut c| {
            c.file = Some(abs);
            c
        })
    }

    /// Parses configuration text; `root` is the directory its paths are relative to.
    pub fn parse(
        file: &str,
        text: &str,
        root: &Path,
        cat: &Catalogue,
    ) -> Result<Config, LoadError> {
        let raw: ConfigFile = toml::from_str(text).map_err(|e| {
            err_at(
                file,
                text,
                e.span().map_or(0, |s| s.start),
                e.message().trim_end().to_string(),
            )
        })?;
        // (Checked even where the command line overrides it: the file is wrong either way.)
        if let Some(f) = &raw.output_format {
            if !OUTPUT_FORMATS.contains(&f.get_ref().as_str()) {
                return Err(err_at(
                    file,
                    text,
                    f.span().start,
                    format!(
                        "unknown output format `{}`; known: {}",
                        f.get_ref(),
                        OUTPUT_FORMATS.join(", ")
                    ),
                ));
            }
        }
        let check = |s: &Spanned<String>| -> Result<Vec<usize>, LoadError> {
            cat.resolve(s.get_ref())
                .map_err(|m| err_at(file, text, s.span().start, m))
        };
        let selectors = |list: &[Spanned<String>]| -> Result<Vec<String>, LoadError> {
            list.iter()
                .map(|s| check(s).map(|_| s.get_ref().clone()))
                .collect()
        };
        let mut layer = SelectionLayer {
            select: raw.select.as_deref().map(selectors).transpose()?,
            extend_select: selectors(&raw.extend_select)?,
            ignore: selectors(&raw.ignore)?,
            severity: Vec::new(),
        };
        for (k, v) in &raw.severity {
            check(k)?;
            layer.severity.push((k.get_ref().clone(), *v));
        }
        // Patterns are matched against paths relative to the root: an absolute one is made so
        // (it matched nothing, silently).
        // (A relative one is read as the path it names: "./runs/scratch" is "runs/scratch".)
        let rooted = |pattern: &str| match Path::new(pattern).is_absolute() {
            true => relative_path(Path::new(pattern), root, root),
            false => normalize_pattern(pattern),
        };
        let mut per_path_ignores = Vec::new();
        for (pattern, list) in &raw.per_path_ignores {
            let matcher = glob(&rooted(pattern.get_ref()))
                .map_err(|m| err_at(file, text, pattern.span().start, m))?
                .compile_matcher();
            let mut rules = Vec::new();
            for s in list {
                rules.extend(check(s)?);
            }
            per_path_ignores.push(PathIgnore {
                pattern: pattern.get_ref().clone(),
                matcher,
                basename: !pattern.get_ref().contains('/'),
                rules,
            });
        }
        let (mut ex, mut anchored) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        for p in &raw.exclude {
            // ("runs/scratch/" names the directory as "runs/scratch" does.)
            let written = p.get_ref().trim_end_matches('/');
            let g = glob(&rooted(written)).map_err(|m| err_at(file, text, p.span().start, m))?;
            if written.contains('/') {
                anchored.add(g);
            } else {
                ex.add(g);
            }
        }
        let built = |b: GlobSetBuilder| b.build().map_err(|e| err_at(file, text, 0, e.to_string()));
        let (exclude, exclude_anchored) = (built(ex)?, built(anchored)?);
        Ok(Config {
            file: None,
            root: root.to_path_buf(),
            layer,
            fail_on: raw.fail_on,
            output_format: raw.output_format.map(Spanned::into_inner),
            per_path_ignores,
            exclude,
            exclude_anchored,
            baseline: raw.baseline.map(|b| root.join(b)),
            lexicons: raw.lexicons.iter().map(|l| root.join(l)).collect(),
        })
    }

    /// The rules per-path ignores turn off for a file (`rel`: relative to the root).
    pub fn ignored_for(&self, rel: &str) -> Vec<usize> {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let mut out: Vec<usize> = Vec::new();
        for p in &self.per_path_ignores {
            if p.matcher.is_match(rel) || p.basename && p.matcher.is_match(name) {
                out.extend(&p.rules);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether a file found by walking a directory is excluded: a pattern that matches it, or
    /// a directory above it, skips it ("runs/scratch" and "scratch" skip
    /// `runs/scratch/a.jsonl`, as a directory in ruff's `exclude` or a `.gitignore` does).
    pub fn excluded(&self, rel: &str) -> bool {
        // (Only the directories below the root: not `..`, nor those a path outside it crosses.)
        let outside = rel.starts_with("../") || rel.starts_with('/') || rel == "..";
        let mut path = rel;
        loop {
            let name = path.rsplit('/').next().unwrap_or(path);
            if self.exclude.is_match(path)
                || self.exclude.is_match(name)
                || self.exclude_anchored.is_match(path)
            {
                return true;
            }
            match path.rfind('/') {
                Some(k) if !outside => path = &path[..k],
                _ => return false,
            }
        }
    }

    /// A path as the configuration's globs and the fingerprints see it: relative to the root,
    /// `/`-separated, lexically normalized (`..` where the file lies outside the root).
    pub fn relative(&self, path: &Path, cwd: &Path) -> String {
        relative_path(path, &self.root, cwd)
    }
}

fn glob(pattern: &str) -> Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| format!("bad glob `{pattern}`: {e}"))
}

/// The names `output-format` takes: those of `check --output-format` (a test of the CLI keeps
/// the two lists alike).
pub const OUTPUT_FORMATS: [&str; 7] = [
    "full",
    "concise",
    "json",
    "json-lines",
    "sarif",
    "github",
    "junit",
];

/// `.` and `..` resolved by name, without touching the file system (for a path that may not
/// be there to canonicalize). Above the root is the root; a relative path keeps the `..` it
/// cannot resolve.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A relative glob with its `.` and `..` steps resolved, as `normalize` resolves a path's
/// (`./runs/*.jsonl` is `runs/*.jsonl`; a `..` it cannot resolve stays).
fn normalize_pattern(pattern: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in pattern.split('/') {
        match part {
            "." => {}
            ".." if out.last().is_some_and(|p| *p != ".." && !p.contains("**")) => {
                out.pop();
            }
            _ => out.push(part),
        }
    }
    if out.is_empty() {
        ".".into()
    } else {
        out.join("/")
    }
}

/// `path` relative to `base` (both taken from `cwd` when relative), `/`-separated.
pub fn relative_path(path: &Path, base: &Path, cwd: &Path) -> String {
    let parts: Vec<String> = relative_parts(path, base, cwd)
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// The steps from `base` to `path` (both taken from `cwd` when relative): `..` for each step up,
/// then the names down, as the file system holds them.
pub fn relative_parts(path: &Path, base: &Path, cwd: &Path) -> Vec<std::ffi::OsString> {
    let p = normalize(&cwd.join(path));
    let b = normalize(&cwd.join(base));
    let pc: Vec<Component> = p.components().collect();
    let bc: Vec<Component> = b.components().collect();
    let common = pc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    let up = (common..bc.len()).map(|_| "..".into());
    up.chain(pc[common..].iter().map(|c| c.as_os_str().to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_by_name() {
        assert_eq!(
            normalize(Path::new("/tmp/a/sar/../../nonexist/./x.json")),
            PathBuf::from("/tmp/nonexist/x.json")
        );
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(normalize(Path::new("../../x")), PathBuf::from("../../x"));
        assert_eq!(normalize(Path::new("a/../../x")), PathBuf::from("../x"));
    }

    #[test]
    fn relative_paths() {
        let cwd = Path::new("/work/main");
        assert_eq!(
            relative_path(Path::new("./runs/a.jsonl"), Path::new("/work/main"), cwd),
            "runs/a.jsonl"
        );
        assert_eq!(
            relative_path(Path::new("../shared/x.jsonl"), Path::new("/work/main"), cwd),
            "../shared/x.jsonl"
        );
        assert_eq!(
            relative_path(Path::new("/work/main/sub/b.json"), Path::new("sub"), cwd),
            "b.json"
        );
    }

    #[test]
    fn an_excluded_directory_skips_everything_under_it() {
        let cat = Catalogue::builtin();
        let exclude = |pattern: &str| {
            let text = format!("exclude = [{pattern:?}]\n");
            Config::parse("t.toml", &text, Path::new("/p"), cat).unwrap()
        };
        for pattern in [
            "runs/scratch",
            "runs/scratch/",
            "scratch",
            "runs/scratch/**",
        ] {
            let c = exclude(pattern);
            assert!(c.excluded("runs/scratch/bad.jsonl"), "{pattern}");
            assert!(c.excluded("runs/scratch/deep/bad.jsonl"), "{pattern}");
            assert!(!c.excluded("runs/bad.jsonl"), "{pattern}");
            assert!(!c.excluded("runs/scratchpad/bad.jsonl"), "{pattern}");
        }
        // A file's own name or glob still matches it alone.
        let c = exclude("*.json");
        assert!(c.excluded("runs/a.json"));
        assert!(!c.excluded("runs/a.jsonl"));
        // Directories above the root are not its to exclude: `..` is no hidden directory.
        let c = exclude(".*");
        assert!(!c.excluded("../shared/logs/a.jsonl"));
        assert!(c.excluded("runs/.cache/a.jsonl"));
        let c = exclude("tmp");
        assert!(!c.excluded("../tmp/run1/a.jsonl"));
    }

    #[test]
    fn unknown_keys_and_selectors_point_at_their_line() {
        let cat = Catalogue::builtin();
        let root = Path::new("/p");
        let e = Config::parse(
            "t.toml",
            "select = [\"OB\"]\nfail_on = \"error\"\n",
            root,
            cat,
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (2, 1), "{e}");
        assert!(e.message.contains("unknown field `fail_on`"), "{e}");
        let e = Config::parse("t.toml", "ignore = [\n  \"ZZ9\",\n]\n", root, cat).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("unknown rule selector `ZZ9`"), "{e}");
    }

    #[test]
    fn per_path_ignores_match_globs_and_names() {
        let cat = Catalogue::builtin();
        let c = Config::parse(
            "t.toml",
            "[per-path-ignores]\n\"runs/legacy/**\" = [\"OB\"]\n\"*.md\" = [\"dangling-commitment\"]\n",
            Path::new("/p"),
            cat,
        )
        .unwrap();
        let ob: Vec<usize> = cat.resolve("OB").unwrap();
        assert_eq!(c.ignored_for("runs/legacy/x/a.jsonl"), ob);
        assert!(c.ignored_for("runs/new/a.jsonl").is_empty());
        assert_eq!(
            c.ignored_for("notes/session.md"),
            cat.resolve("dangling-commitment").unwrap()
        );
        // An absolute pattern is taken relative to the root, as every path it is matched
        // against: inside the root or beyond it.
        let c = Config::parse(
            "t.toml",
            "exclude = [\"/p/runs/scratch\"]\n[per-path-ignores]\n\"/p/runs/a.jsonl\" = [\"OB\"]\n\"/q/b.jsonl\" = [\"OB\"]\n",
            Path::new("/p"),
            cat,
        )
        .unwrap();
        assert_eq!(c.ignored_for("runs/a.jsonl"), ob);
        assert_eq!(c.ignored_for("../q/b.jsonl"), ob);
        assert!(c.ignored_for("runs/b.jsonl").is_empty());
        assert!(c.excluded("runs/scratch/x.jsonl") && !c.excluded("runs/a.jsonl"));
        // A relative pattern names the path its `.` and `..` steps resolve to.
        let c = Config::parse(
            "t.toml",
            "exclude = [\"./runs/scratch/\", \"runs/old/../legacy\"]\n[per-path-ignores]\n\"./runs/*.jsonl\" = [\"OB\"]\n",
            Path::new("/p"),
            cat,
        )
        .unwrap();
        assert!(c.excluded("runs/scratch/x.jsonl") && c.excluded("runs/legacy/y.jsonl"));
        assert!(!c.excluded("runs/old/y.jsonl") && !c.excluded("runs/a.jsonl"));
        assert_eq!(c.ignored_for("runs/a.jsonl"), ob);
        assert_eq!(normalize_pattern("./a/./b"), "a/b");
        assert_eq!(normalize_pattern("../q/*.jsonl"), "../q/*.jsonl");
        assert_eq!(normalize_pattern("a/.."), ".");
        // Written with a `/`, it stays anchored: `./scratch` is the top-level one alone.
        let c = Config::parse(
            "t.toml",
            "exclude = [\"./scratch\"]\n",
            Path::new("/p"),
            cat,
        )
        .unwrap();
        assert!(c.excluded("scratch/x.jsonl") && !c.excluded("runs/scratch/x.jsonl"));
    }
}
