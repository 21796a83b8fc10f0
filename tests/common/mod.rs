//! Helpers the integration tests share: the shared corpus beside the checkout (skipped with a
//! printed reason where it is absent), reading one of its files, counting roles.

#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use trajlint::formats::{self, ReadOutput};
use trajlint::model::{Role, Trajectory};

/// `../shared/corpus`, or None (printing why) where it is absent: the test then passes empty.
pub fn shared_corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if p.is_dir() {
        Some(p)
    } else {
        println!("skipped: ../shared/corpus not present");
        None
    }
}

/// The bytes of `root/rel` and what reading them (with detection) gives.
pub fn read(root: &Path, rel: &str) -> (Vec<u8>, ReadOutput) {
    let bytes = std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let out = formats::read(&bytes, None);
    (bytes, out)
}

/// How many turns of a trajectory have this role.
pub fn count(t: &Trajectory, role: Role) -> usize {
    t.turns.iter().filter(|x| x.role == role).count()
}

/// Every file under `dir`, sorted, leaving out the corpus's own README and SOURCES notes.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if !p.ends_with("README.md") && !p.ends_with("SOURCES.md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

/// The facts found in a log given as text (read with detection, analysed with the built-in
/// lexicon), of its first trajectory.
pub fn facts_of(text: &str) -> Vec<trajlint::extract::Fact> {
    let lex = trajlint::extract::lexicon::Lexicon::builtin();
    let source = trajlint::source::SourceFile::new("log", None, text.as_bytes().to_vec());
    let mut report = trajlint::process(source, None, &lex);
    assert!(!report.analyses.is_empty(), "no trajectory read");
    report.analyses.swap_remove(0).facts
}

/// The null results among `facts`: turn, subkind and quoted text.
pub fn null_results(
    facts: &[trajlint::extract::Fact],
) -> Vec<(usize, trajlint::extract::Subkind, &str)> {
    facts
        .iter()
        .filter(|f| f.kind() == trajlint::extract::FactKind::NullResult)
        .map(|f| (f.turn, f.subkind, f.text.as_str()))
        .collect()
}

/// The obligations and null results among `facts`: turn, subkind, status and the turn that
/// resolved each.
pub fn resolutions(
    facts: &[trajlint::extract::Fact],
) -> Vec<(
    usize,
    trajlint::extract::Subkind,
    trajlint::extract::Status,
    Option<usize>,
)> {
    facts
        .iter()
        .filter(|f| f.kind() != trajlint::extract::FactKind::Reference)
        .map(|f| (f.turn, f.subkind, f.status, f.resolved_by.map(|l| l.turn)))
        .collect()
}
