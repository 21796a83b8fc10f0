//! Scores the extractors against the hand-labeled corpus (`corpus/labels/**.toml`, format in
//! `corpus/README.md`) and prints the figures: per fact kind, precision and recall at turn level;
//! status agreement; for verdicts, safety (share of truly live turns marked live) and yield
//! (share of truly quiescent bytes left compactable). Below a target, the test fails.
//!
//! Labels on real trajectories of the shared corpus are skipped (and counted as skipped) where
//! that corpus is absent; the targets are then not asserted (they are defined on the whole
//! labeled corpus), and the output says so.
//!
//! `TRAJLINT_LABELS=DIR` scores the label files under DIR instead (a held-out set, say); the
//! targets are asserted on it as on ours. Labels with `source = "external:…"` point into
//! `TRAJLINT_EXTERNAL=DIR` (public trajectories fetched by hand) and are skipped without it.

mod common;

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use trajlint::extract::lexicon::Lexicon;
use trajlint::extract::{FactKind, Status, Subkind};
use trajlint::gate::Verdict;
use trajlint::model::Trajectory;
use trajlint::source::SourceFile;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelFile {
    source: String,
    #[serde(default)]
    trajectory: usize,
    scope_from: Option<String>,
    scope_to: Option<String>,
    #[serde(default)]
    scope_from_nth: usize,
    #[serde(default)]
    scope_to_nth: usize,
    #[serde(default)]
    fact: Vec<LabelFact>,
    #[serde(default)]
    negative: Vec<Negative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelFact {
    kind: String,
    subkind: String,
    status: String,
    quote: String,
    #[serde(default)]
    nth: usize,
    resolved_by: Option<String>,
    #[serde(default)]
    resolved_by_nth: usize,
    antecedent: Option<String>,
    #[serde(default)]
    antecedent_nth: usize,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Negative {
    kind: String,
    quote: String,
    #[serde(default)]
    nth: usize,
    #[allow(dead_code)]
    why: Option<String>,
}

fn kind_of(s: &str) -> Option<FactKind> {
    match s {
        "obligation" => Some(FactKind::Obligation),
        "null_result" => Some(FactKind::NullResult),
        "reference" => Some(FactKind::Reference),
        _ => None,
    }
}

fn status_of(s: &str) -> Option<Status> {
    Some(match s {
        "open" => Status::Open,
        "discharged" => Status::Discharged,
        "unincorporated" => Status::Unincorporated,
        "incorporated" => Status::Incorporated,
        "bound" => Status::Bound,
        "unbound" => Status::Unbound,
        _ => return None,
    })
}

const KINDS: [FactKind; 3] = [
    FactKind::Obligation,
    FactKind::NullResult,
    FactKind::Reference,
];

#[derive(Default)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    /// "P 0.91 R 0.92 (141 tp, 14 fp, 12 fn)", the ratios to `digits` places.
    fn line(&self, digits: usize) -> String {
        format!(
            "P {:.*} R {:.*} ({} tp, {} fp, {} fn)",
            digits,
            self.precision(),
            digits,
            self.recall(),
            self.tp,
            self.fp,
            self.fn_
        )
    }

    fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }
    fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

#[derive(Default)]
struct Totals {
    kinds: BTreeMap<FactKind, Counts>,
    /// Per kind, turns holding a fact that `check` would report (an open obligation, an
    /// unincorporated null result, an unbound reference), found against labeled.
    reported: BTreeMap<FactKind, Counts>,
    by_format: BTreeMap<(String, FactKind), Counts>,
    status_agree: usize,
    status_compared: usize,
    /// References found where labeled, whose label names an antecedent: how many the analyzer
    /// binds to that turn, and how many it keeps live there (bound or as a candidate).
    antecedents_compared: usize,
    antecedents_same: usize,
    antecedents_kept: usize,
    live_true: usize,
    live_caught: usize,
    quiet_bytes: usize,
    quiet_bytes_kept_compactable: usize,
    facts: usize,
    negatives: usize,
    negatives_violated: Vec<String>,
    files: usize,
    skipped: Vec<String>,
    formats: HashSet<String>,
    misses: Vec<String>,
    /// Truly quiescent turns left out of every compactable range: (bytes, why).
    kept_quiet: Vec<(usize, String)>,
}

/// A status the rules report: what the log leaves owed, unrecorded or unbound.
fn unsettled(s: Status) -> bool {
    matches!(s, Status::Open | Status::Unincorporated | Status::Unbound)
}

fn nth_offset(bytes: &[u8], quote: &str, nth: usize) -> Option<usize> {
    memchr::memmem::find_iter(bytes, quote.as_bytes()).nth(nth)
}

/// A labeled fact in a turn.
struct Labeled {
    status: Status,
    /// The offset of its quote.
    off: usize,
    /// How to show it: "subkind: quote".
    shown: String,
    /// A reference's antecedent, where the label names one in another turn.
    antecedent: Option<LabeledAntecedent>,
}

/// A labeled reference's antecedent turn, the length of its quote, and its subkind.
type LabeledAntecedent = (usize, usize, Option<Subkind>);

/// The figures of one scoring run.
struct Figures {
    tot: Totals,
    errors: Vec<String>,
    status: f64,
    safety: f64,
    yield_: f64,
}

impl Figures {
    fn kind(&self, k: FactKind) -> (f64, f64) {
        self.tot
            .kinds
            .get(&k)
            .map(|c| (c.precision(), c.recall()))
            .unwrap_or((1.0, 1.0))
    }

    /// Targets (from the issue) not met, each with its figure.
    fn below(&self, targets: &[Target]) -> Vec<String> {
        let mut out = Vec::new();
        for t in targets {
            match *t {
                Target::Kind(k, min) => {
                    let (p, r) = self.kind(k);
                    if p < min || r < min {
                        out.push(format!(
                            "{k:?}: precision {p:.3}, recall {r:.3} (target {min})"
                        ));
                    }
                }
                Target::Status(min) if self.status < min => out.push(format!(
                    "status agreement {:.3} (target {min})",
                    self.status
                )),
                Target::Safety(min) if self.safety < min => {
                    out.push(format!("safety {:.3} (target {min})", self.safety))
                }
                Target::Yield(min) if self.yield_ < min => {
                    out.push(format!("yield {:.3} (target {min})", self.yield_))
                }
                _ => {}
            }
        }
        out
    }
}

enum Target {
    Kind(FactKind, f64),
    Status(f64),
    Safety(f64),
    Yield(f64),
}

/// The targets: below any of them the build fails.
const TARGETS: [Target; 6] = [
    Target::Kind(FactKind::NullResult, 0.95),
    Target::Kind(FactKind::Obligation, 0.85),
    Target::Kind(FactKind::Reference, 0.80),
    Target::Status(0.90),
    Target::Safety(0.98),
    Target::Yield(0.70),
];

/// Label integrity (every quote resolves inside the right turn), a corpus of a useful size, and
/// every target of the issue at its threshold on the whole labeled corpus.
#[test]
fn labels_resolve_and_every_target_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let labels = std::env::var_os("TRAJLINT_LABELS")
        .map_or_else(|| root.join("corpus/labels"), PathBuf::from);
    let f = score(&labels, "labeled corpus");
    assert!(
        f.errors.is_empty(),
        "label errors:\n{}",
        f.errors.join("\n")
    );
    assert!(
        f.tot.facts >= 150,
        "only {} labeled facts scored",
        f.tot.facts
    );
    // The targets hold on the whole labeled corpus. Our fixtures alone are small trajectories
    // built around live facts (their yield says little), so without the real trajectories the
    // figures are printed and the targets are not asserted.
    if !f.tot.skipped.is_empty() {
        println!(
            "targets not asserted: {} label files point into the absent shared corpus",
            f.tot.skipped.len()
        );
        return;
    }
    let below = f.below(&TARGETS);
    assert!(
        below.is_empty(),
        "below target (set TRAJLINT_SCORE_VERBOSE=1 for every miss):\n{}",
        below.join("\n")
    );
}

/// The held-out set (`corpus/heldout/`): real trajectories labeled by people who saw neither the
/// analyzer's output nor its code, scored the same way (it grew in batches, each first scored
/// before any change was made with it in view; the README gives those figures too). Its
/// figures are printed for the record, as the team's own held-out evaluation would
/// give them; the targets are asserted on the labeled corpus above, not here (the
/// README gives both). Label integrity is asserted as everywhere.
#[test]
fn heldout_labels_resolve_and_their_figures_are_printed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f = score(&root.join("corpus/heldout"), "held-out set");
    assert!(
        f.errors.is_empty(),
        "label errors:\n{}",
        f.errors.join("\n")
    );
    if f.tot.files == 0 {
        println!("held-out set not scored: its label files point into the absent shared corpus");
        return;
    }
    assert!(
        f.tot.facts >= 250,
        "only {} held-out facts scored",
        f.tot.facts
    );
    let below = f.below(&TARGETS);
    println!(
        "held-out: {} of {} targets met{}",
        TARGETS.len() - below.len(),
        TARGETS.len(),
        if below.is_empty() {
            String::new()
        } else {
            format!("; below: {}", below.join("; "))
        }
    );
}

/// The file a label file's `source` names: `shared:` in the shared corpus beside the checkout,
/// `external:` under `TRAJLINT_EXTERNAL` (trajectories fetched from public repositories, see
/// corpus/heldout/external/README.md; absent unless fetched), else under `corpus/`.
fn source_path(source: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(rest) = source.strip_prefix("shared:") {
        root.join("../shared/corpus").join(rest)
    } else if let Some(rest) = source.strip_prefix("external:") {
        std::env::var_os("TRAJLINT_EXTERNAL")
            .map_or_else(
                || root.join("corpus/heldout/external/absent"),
                PathBuf::from,
            )
            .join(rest)
    } else {
        root.join("corpus").join(source)
    }
}

/// Finds a quote's turn in one trajectory of a file.
struct Locator<'a> {
    /// The label file, to name it in errors.
    name: &'a str,
    bytes: &'a [u8],
    /// (start, end, turn) of every turn's span, by start.
    by_start: Vec<(usize, usize, usize)>,
    trajectory: usize,
}

impl<'a> Locator<'a> {
    fn new(name: &'a str, traj: &Trajectory, trajectory: usize, bytes: &'a [u8]) -> Locator<'a> {
        let mut by_start: Vec<(usize, usize, usize)> = traj
            .turns
            .iter()
            .enumerate()
            .map(|(i, t)| (t.span.start, t.span.end, i))
            .collect();
        by_start.sort();
        Locator {
            name,
            bytes,
            by_start,
            trajectory,
        }
    }

    fn turn_at(&self, off: usize) -> Option<usize> {
        let k = self.by_start.partition_point(|&(s, _, _)| s <= off);
        (k > 0 && off < self.by_start[k - 1].1).then(|| self.by_start[k - 1].2)
    }

    /// The turn holding the `nth` occurrence of `quote`, and its offset; a quote missing or
    /// outside every turn is an error.
    fn locate(
        &self,
        quote: &str,
        nth: usize,
        what: &str,
        errors: &mut Vec<String>,
    ) -> Option<(usize, usize)> {
        let name = self.name;
        match nth_offset(self.bytes, quote, nth) {
            None => {
                errors.push(format!(
                    "{name}: {what} quote not found (nth {nth}): {quote:?}"
                ));
                None
            }
            Some(off) => match self.turn_at(off) {
                Some(t) => Some((t, off)),
                None => {
                    errors.push(format!(
                        "{name}: {what} quote lies in no turn of trajectory {}: {quote:?}",
                        self.trajectory
                    ));
                    None
                }
            },
        }
    }
}

/// A label file read against its trajectory.
struct Reading {
    /// The labeled facts in scope, by (turn, kind).
    truth: HashMap<(usize, FactKind), Vec<Labeled>>,
    /// The turns the labels make live (a live fact's, an antecedent's), each with why.
    live: HashMap<usize, String>,
    /// The labeled turns, both included.
    from: usize,
    to: usize,
    /// How many facts lie in scope.
    facts: usize,
}

impl Reading {
    fn in_scope(&self, t: usize) -> bool {
        (self.from..=self.to).contains(&t)
    }
}

/// Each fact of `labels` to the turn its quote lies in. Quotes that do not resolve are errors;
/// `None` when the scope itself does not.
fn read_labels(locator: &Locator, labels: &LabelFile, errors: &mut Vec<String>) -> Option<Reading> {
    let name = locator.name;
    let from = match &labels.scope_from {
        Some(q) => locator
            .locate(q, labels.scope_from_nth, "scope_from", errors)
            .map(|x| x.0),
        None => Some(0),
    };
    let to = match &labels.scope_to {
        Some(q) => locator
            .locate(q, labels.scope_to_nth, "scope_to", errors)
            .map(|x| x.0),
        None => Some(locator.by_start.len().saturating_sub(1)),
    };
    let (Some(from), Some(to)) = (from, to) else {
        return None;
    };
    let mut reading = Reading {
        truth: HashMap::new(),
        live: HashMap::new(),
        from,
        to,
        facts: 0,
    };
    for f in &labels.fact {
        let (Some(kind), Some(status)) = (kind_of(&f.kind), status_of(&f.status)) else {
            errors.push(format!(
                "{name}: bad kind/status {:?}/{:?}",
                f.kind, f.status
            ));
            continue;
        };
        let Some((t, off)) = locator.locate(&f.quote, f.nth, "fact", errors) else {
            continue;
        };
        if let Some(q) = &f.resolved_by {
            locator.locate(q, f.resolved_by_nth, "resolved_by", errors);
        }
        if !reading.in_scope(t) {
            continue;
        }
        reading.facts += 1;
        if status.is_live() {
            reading.live.insert(
                t,
                format!(
                    "holds {} {}: {}",
                    f.subkind,
                    f.status,
                    f.quote.chars().take(60).collect::<String>()
                ),
            );
        }
        let a = f
            .antecedent
            .as_ref()
            .and_then(|q| locator.locate(q, f.antecedent_nth, "antecedent", errors))
            .map(|(a, _)| a)
            .filter(|&a| a != t);
        if let Some(a) = a.filter(|&a| reading.in_scope(a)) {
            reading.live.entry(a).or_insert_with(|| {
                format!(
                    "antecedent of turn {t} {}: {}",
                    f.subkind,
                    f.quote.chars().take(60).collect::<String>()
                )
            });
        }
        let subkind = trajlint::lint::SUBKINDS
            .iter()
            .find(|(_, name, _)| *name == f.subkind)
            .map(|x| x.0);
        reading.truth.entry((t, kind)).or_default().push(Labeled {
            status,
            off,
            shown: format!(
                "{}: {}",
                f.subkind,
                f.quote.chars().take(80).collect::<String>()
            ),
            antecedent: a.map(|a| (a, f.quote.len(), subkind)),
        });
    }
    Some(reading)
}

fn score(labels: &Path, title: &str) -> Figures {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<PathBuf> = common::files_under(labels)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    assert!(
        !files.is_empty(),
        "no label files under {}",
        labels.display()
    );
    let lex = Lexicon::builtin();
    let mut tot = Totals::default();
    let mut errors: Vec<String> = Vec::new();

    for lf in &files {
        let name = lf.strip_prefix(root).unwrap_or(lf).display().to_string();
        let labels: LabelFile = match toml::from_str(&std::fs::read_to_string(lf).unwrap()) {
            Ok(l) => l,
            Err(e) => {
                errors.push(format!("{name}: {e}"));
                continue;
            }
        };
        let path = source_path(&labels.source);
        if !path.exists() {
            tot.skipped.push(name);
            continue;
        }
        let src = SourceFile::read(&path).unwrap();
        let report = trajlint::process(src, None, &lex);
        let bytes = &report.source.bytes;
        let Some(traj) = report.read.trajectories.get(labels.trajectory) else {
            errors.push(format!(
                "{name}: trajectory {} not in {} ({} read)",
                labels.trajectory,
                path.display(),
                report.read.trajectories.len()
            ));
            continue;
        };
        let analysis = &report.analyses[labels.trajectory];
        tot.files += 1;
        tot.formats.insert(
            report
                .read
                .format
                .map(|f| f.name().to_string())
                .unwrap_or_default(),
        );
        let format = report
            .read
            .format
            .map(|f| f.name().to_string())
            .unwrap_or_default();

        let locator = Locator::new(&name, traj, labels.trajectory, bytes);
        let Some(reading) = read_labels(&locator, &labels, &mut errors) else {
            continue;
        };
        let Reading {
            truth,
            live: live_true,
            from,
            to,
            facts,
        } = reading;
        let in_scope = |t: usize| (from..=to).contains(&t);
        tot.facts += facts;

        // Predictions in scope.
        let mut pred: HashMap<(usize, FactKind), Vec<(Status, usize)>> = HashMap::new();
        for f in &analysis.facts {
            if in_scope(f.turn) {
                pred.entry((f.turn, f.kind()))
                    .or_default()
                    .push((f.status, f.span.start));
            }
        }

        for t in from..=to {
            for kind in KINDS {
                let tr = truth.get(&(t, kind));
                let pr = pred.get(&(t, kind));
                // What the rules report is the facts left unsettled: scored the same way.
                let labeled_open = tr.is_some_and(|tr| tr.iter().any(|l| unsettled(l.status)));
                let found_open = pr.is_some_and(|pr| pr.iter().any(|&(s, _)| unsettled(s)));
                let r = tot.reported.entry(kind).or_default();
                match (labeled_open, found_open) {
                    (true, true) => r.tp += 1,
                    (false, true) => r.fp += 1,
                    (true, false) => r.fn_ += 1,
                    (false, false) => {}
                }
                let c = tot.kinds.entry(kind).or_default();
                let cf = tot.by_format.entry((format.clone(), kind)).or_default();
                match (tr, pr) {
                    (Some(tr), Some(pr)) => {
                        c.tp += 1;
                        cf.tp += 1;
                        for labeled in tr {
                            let (ts, toff, q) = (labeled.status, labeled.off, &labeled.shown);
                            // The predicted fact nearest the labeled text.
                            let nearest =
                                pr.iter().min_by_key(|(_, off)| off.abs_diff(toff)).unwrap();
                            tot.status_compared += 1;
                            if nearest.0 == ts {
                                tot.status_agree += 1;
                            } else {
                                tot.misses.push(format!("{name} turn {t}: {kind:?} status labeled {ts:?}, found {:?}: {q}", nearest.0));
                            }
                            let Some((a, len, subkind)) =
                                labeled.antecedent.filter(|_| kind == FactKind::Reference)
                            else {
                                continue;
                            };
                            // The found reference of the labeled subkind that overlaps the
                            // labeled quote (none: the two name different expressions).
                            let Some(f) = analysis
                                .facts
                                .iter()
                                .filter(|f| {
                                    f.turn == t
                                        && f.kind() == kind
                                        && f.span.start < toff + len
                                        && toff < f.span.end
                                })
                                .min_by_key(|f| {
                                    (Some(f.subkind) != subkind, f.span.start.abs_diff(toff))
                                })
                            else {
                                continue;
                            };
                            let bound = f.antecedent.map(|l| l.turn);
                            tot.antecedents_compared += 1;
                            tot.antecedents_same += usize::from(bound == Some(a));
                            if bound == Some(a) || f.candidates.contains(&a) {
                                tot.antecedents_kept += 1;
                            } else {
                                tot.misses.push(format!("{name} turn {t}: antecedent labeled turn {a}, bound to {bound:?} (or {:?}): {q}", f.candidates));
                            }
                        }
                    }
                    (Some(tr), None) => {
                        c.fn_ += 1;
                        cf.fn_ += 1;
                        tot.misses
                            .push(format!("{name} turn {t}: missed {kind:?}: {}", tr[0].shown));
                    }
                    (None, Some(p)) => {
                        c.fp += 1;
                        cf.fp += 1;
                        let f = analysis
                            .facts
                            .iter()
                            .find(|f| f.turn == t && f.kind() == kind && f.span.start == p[0].1)
                            .unwrap();
                        tot.misses.push(format!(
                            "{name} turn {t}: spurious {kind:?}/{:?}: {:?}",
                            f.subkind,
                            f.text.chars().take(90).collect::<String>()
                        ));
                    }
                    (None, None) => {}
                }
            }
        }
        for n in &labels.negative {
            let Some(kind) = kind_of(&n.kind) else {
                errors.push(format!("{name}: bad negative kind {:?}", n.kind));
                continue;
            };
            let Some((t, _)) = locator.locate(&n.quote, n.nth, "negative", &mut errors) else {
                continue;
            };
            if !in_scope(t) {
                continue;
            }
            tot.negatives += 1;
            if pred.contains_key(&(t, kind)) && !truth.contains_key(&(t, kind)) {
                tot.negatives_violated
                    .push(format!("{name} turn {t} {kind:?}: {:?}", n.quote));
            }
        }

        // Verdicts.
        let compactable: HashSet<usize> =
            analysis.ranges.iter().flat_map(|&(s, e)| s..=e).collect();
        for t in from..=to {
            let bytes_t = traj.turns[t].span.len();
            if let Some(why) = live_true.get(&t) {
                tot.live_true += 1;
                if analysis.turns[t].verdict == Verdict::Live {
                    tot.live_caught += 1;
                } else {
                    tot.misses.push(format!(
                        "{name} turn {t}: live turn judged quiescent ({why})"
                    ));
                }
            } else {
                tot.quiet_bytes += bytes_t;
                if compactable.contains(&t) {
                    tot.quiet_bytes_kept_compactable += bytes_t;
                } else {
                    let why: Vec<String> = analysis.turns[t]
                        .reasons
                        .iter()
                        .map(|&id| {
                            let f = &analysis.facts[id];
                            let text: String = f.text.chars().take(60).collect();
                            format!("{:?} {:?} {text:?}", f.subkind, f.status)
                        })
                        .collect();
                    tot.kept_quiet
                        .push((bytes_t, format!("{name} turn {t}: {}", why.join("; "))));
                }
            }
        }
    }

    // Report.
    println!(
        "\n{title}: {} label files scored, {} facts, {} hard negatives, formats: {:?}",
        tot.files,
        tot.facts,
        tot.negatives,
        {
            let mut f: Vec<_> = tot.formats.iter().collect();
            f.sort();
            f
        }
    );
    if !tot.skipped.is_empty() {
        println!("skipped (source absent): {} label files", tot.skipped.len());
    }
    println!(
        "{:<12} {:>9} {:>7} {:>5} {:>5} {:>5}",
        "kind", "precision", "recall", "tp", "fp", "fn"
    );
    for (k, c) in &tot.kinds {
        println!(
            "{:<12} {:>9.3} {:>7.3} {:>5} {:>5} {:>5}",
            format!("{k:?}"),
            c.precision(),
            c.recall(),
            c.tp,
            c.fp,
            c.fn_
        );
    }
    println!("per format:");
    for ((f, k), c) in &tot.by_format {
        if c.tp + c.fp + c.fn_ > 0 {
            println!("  {:<15} {:<12} {}", f, format!("{k:?}"), c.line(2));
        }
    }
    let status = ratio(tot.status_agree, tot.status_compared);
    let safety = ratio(tot.live_caught, tot.live_true);
    let yield_ = ratio(tot.quiet_bytes_kept_compactable, tot.quiet_bytes);
    println!(
        "status agreement {:.3} ({}/{})",
        status, tot.status_agree, tot.status_compared
    );
    println!(
        "unsettled facts, as check reports them (turns holding an open obligation, an unincorporated null result, an unbound reference):"
    );
    for (k, c) in &tot.reported {
        println!("  {:<12} {}", format!("{k:?}"), c.line(3));
    }
    println!(
        "antecedents: of {} references found where labeled with an antecedent, bound to it {} ({:.3}), kept live there (bound or a candidate) {} ({:.3})",
        tot.antecedents_compared,
        tot.antecedents_same,
        ratio(tot.antecedents_same, tot.antecedents_compared),
        tot.antecedents_kept,
        ratio(tot.antecedents_kept, tot.antecedents_compared)
    );
    println!(
        "safety {:.3} ({}/{} truly live turns marked live)",
        safety, tot.live_caught, tot.live_true
    );
    println!(
        "yield {:.3} ({}/{} truly quiescent bytes compactable)",
        yield_, tot.quiet_bytes_kept_compactable, tot.quiet_bytes
    );
    println!(
        "hard negatives flagged: {}/{}",
        tot.negatives_violated.len(),
        tot.negatives
    );
    if std::env::var_os("TRAJLINT_SCORE_VERBOSE").is_some() {
        for m in tot.misses.iter().chain(&tot.negatives_violated) {
            println!("  {m}");
        }
        // Where yield goes: the largest quiescent turns kept from compaction
        // (`TRAJLINT_SCORE_KEPT=N` shows N of them, 25 by default).
        let mut kept = tot.kept_quiet.clone();
        kept.sort_by_key(|k| std::cmp::Reverse(k.0));
        let shown = std::env::var("TRAJLINT_SCORE_KEPT")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(25);
        for (bytes, why) in kept.iter().take(shown) {
            println!("  quiescent turn kept ({bytes} bytes): {why}");
        }
    }

    Figures {
        tot,
        errors,
        status,
        safety,
        yield_,
    }
}

/// Second readings (`corpus/second-readings/`): files of the held-out set, or of the labeled
/// corpus, labeled again, blind, by another labeler from the same definitions. How far two
/// readings agree is the ceiling the held-out figures are read against: where the readings
/// differ, no analyzer can match both. On the labeled corpus it also says how far the labels the
/// targets are asserted on are in the analyzer's image: its figures against an independent
/// reading. Printed, per origin of the first reading: the second reading scored against the
/// first as the analyzer is scored; and the analyzer scored on what both readings agree on (a
/// fact both label, a turn holding neither's; turns where they differ are left out). Asserted:
/// every second reading pairs with a first reading of the same trajectory and scope, and its
/// quotes resolve.
#[test]
fn second_readings_pair_with_first_ones_and_their_agreement_is_printed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &Path| -> LabelFile {
        toml::from_str(&std::fs::read_to_string(p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let key = |l: &LabelFile| {
        (
            l.source.clone(),
            l.trajectory,
            l.scope_from.clone(),
            l.scope_to.clone(),
        )
    };
    const ORIGINS: [(&str, &str); 2] =
        [("held-out", "corpus/heldout"), ("labeled", "corpus/labels")];
    let mut firsts: HashMap<_, (PathBuf, &str)> = HashMap::new();
    for (origin, dir) in ORIGINS {
        for p in common::files_under(&root.join(dir)) {
            if p.extension().is_some_and(|e| e == "toml") {
                firsts.insert(key(&read(&p)), (p, origin));
            }
        }
    }
    let lex = Lexicon::builtin();
    let mut errors = Vec::new();
    let mut skipped = 0;
    let mut by_origin: BTreeMap<&str, Agreement> = BTreeMap::new();
    for p in common::files_under(&root.join("corpus/second-readings")) {
        if p.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
        let b = read(&p);
        let Some((first_path, origin)) = firsts.get(&key(&b)) else {
            errors.push(format!(
                "{name}: no held-out or labeled file reads the same source, trajectory and scope"
            ));
            continue;
        };
        let a = read(first_path);
        let path = source_path(&a.source);
        if !path.exists() {
            skipped += 1;
            continue;
        }
        let report = trajlint::process(SourceFile::read(&path).unwrap(), None, &lex);
        let traj = &report.read.trajectories[a.trajectory];
        let analysis = &report.analyses[a.trajectory];
        let first_name = first_path.strip_prefix(root).unwrap().display().to_string();
        let (la, lb) = (
            Locator::new(&first_name, traj, a.trajectory, &report.source.bytes),
            Locator::new(&name, traj, b.trajectory, &report.source.bytes),
        );
        let (Some(ra), Some(rb)) = (
            read_labels(&la, &a, &mut errors),
            read_labels(&lb, &b, &mut errors),
        ) else {
            continue;
        };
        by_origin
            .entry(origin)
            .or_default()
            .add(&name, &ra, &rb, analysis);
    }
    assert!(errors.is_empty(), "label errors:\n{}", errors.join("\n"));
    if by_origin.is_empty() {
        println!("second readings not scored: their trajectories are absent ({skipped} skipped)");
        return;
    }
    println!("\nsecond readings ({skipped} skipped: source absent)");
    for (origin, g) in &by_origin {
        g.print(origin);
    }
    if std::env::var_os("TRAJLINT_SCORE_VERBOSE").is_some() {
        println!("where the analyzer differs from what both readings agree on:");
        for line in by_origin.values().flat_map(|g| &g.misses) {
            println!("  {line}");
        }
    }
}

/// Two readings of the same files, and the analyzer, compared (see the test above).
#[derive(Default)]
struct Agreement {
    files: usize,
    /// Per kind: the second reading against the first; the analyzer against the consensus.
    second: BTreeMap<FactKind, Counts>,
    consensus: BTreeMap<FactKind, Counts>,
    /// Facts both readings hold, and those of them with a status in common.
    status_shared: usize,
    status_agree: usize,
    /// Of those agreed on, the ones the analyzer finds, and those it gives that status.
    analyzer_status: usize,
    analyzer_status_agree: usize,
    /// Live turns by the first reading, the second, both, and of each the analyzer's.
    live_first: usize,
    live_second: usize,
    live_both: usize,
    live_first_caught: usize,
    live_second_caught: usize,
    live_both_caught: usize,
    /// Each difference from the consensus, for `TRAJLINT_SCORE_VERBOSE`.
    misses: Vec<String>,
}

impl Agreement {
    fn add(
        &mut self,
        name: &str,
        ra: &Reading,
        rb: &Reading,
        analysis: &trajlint::analysis::Analysis,
    ) {
        self.files += 1;
        let mut pred: HashMap<(usize, FactKind), Vec<(Status, usize)>> = HashMap::new();
        for f in &analysis.facts {
            pred.entry((f.turn, f.kind()))
                .or_default()
                .push((f.status, f.span.start));
        }
        for t in ra.from..=ra.to {
            for kind in KINDS {
                let (fa, fb) = (ra.truth.get(&(t, kind)), rb.truth.get(&(t, kind)));
                let found = pred.get(&(t, kind));
                let c = self.second.entry(kind).or_default();
                match (fa, fb) {
                    (Some(_), Some(_)) => c.tp += 1,
                    (None, Some(_)) => c.fp += 1,
                    (Some(_), None) => c.fn_ += 1,
                    (None, None) => {}
                }
                let c = self.consensus.entry(kind).or_default();
                match (fa, fb, found) {
                    (Some(_), Some(_), Some(_)) => c.tp += 1,
                    (Some(labeled), Some(_), None) => {
                        c.fn_ += 1;
                        self.misses.push(format!(
                            "{name} turn {t}: missed {kind:?}: {}",
                            labeled[0].shown
                        ));
                    }
                    (None, None, Some(_)) => {
                        c.fp += 1;
                        let text = analysis
                            .facts
                            .iter()
                            .find(|f| f.turn == t && f.kind() == kind)
                            .map_or("", |f| f.text.as_str());
                        self.misses
                            .push(format!("{name} turn {t}: spurious {kind:?}: {text:?}"));
                    }
                    _ => {}
                }
                // Statuses where both readings hold the fact: the same status at least once.
                let (Some(fa), Some(fb)) = (fa, fb) else {
                    continue;
                };
                self.status_shared += 1;
                let common: Vec<Status> = fa
                    .iter()
                    .map(|x| x.status)
                    .filter(|s| fb.iter().any(|y| y.status == *s))
                    .collect();
                if common.is_empty() {
                    continue;
                }
                self.status_agree += 1;
                if let Some(found) = found {
                    let off = fa.iter().find(|x| common.contains(&x.status)).unwrap().off;
                    let nearest = found.iter().min_by_key(|(_, o)| o.abs_diff(off)).unwrap();
                    self.analyzer_status += 1;
                    self.analyzer_status_agree += usize::from(common.contains(&nearest.0));
                }
            }
        }
        self.live_first += ra.live.len();
        self.live_second += rb.live.len();
        let caught = |t: &usize| analysis.turns[*t].verdict == Verdict::Live;
        self.live_first_caught += ra.live.keys().filter(|t| caught(t)).count();
        self.live_second_caught += rb.live.keys().filter(|t| caught(t)).count();
        for t in ra.live.keys().filter(|t| rb.live.contains_key(t)) {
            self.live_both += 1;
            self.live_both_caught += usize::from(analysis.turns[*t].verdict == Verdict::Live);
        }
    }

    fn print(&self, origin: &str) {
        println!("{origin}: {} files read twice", self.files);
        println!("kind         second vs first P / R    analyzer vs consensus P / R");
        for kind in KINDS {
            let (s, c) = (&self.second[&kind], &self.consensus[&kind]);
            println!(
                "{:<12} {:.3} / {:.3} ({} both, {} second only, {} first only)    {:.3} / {:.3} ({} tp, {} fp, {} fn)",
                format!("{kind:?}"),
                s.precision(),
                s.recall(),
                s.tp,
                s.fp,
                s.fn_,
                c.precision(),
                c.recall(),
                c.tp,
                c.fp,
                c.fn_
            );
        }
        println!(
            "status: the readings agree on {} of {} facts both hold ({:.3}); the analyzer on {} of the {} of those it finds ({:.3})",
            self.status_agree,
            self.status_shared,
            ratio(self.status_agree, self.status_shared),
            self.analyzer_status_agree,
            self.analyzer_status,
            ratio(self.analyzer_status_agree, self.analyzer_status)
        );
        println!(
            "live turns: {} by the first reading, {} by the second, {} by both (the second marks {:.3} of the first's live); the analyzer marks {} of the {} live ({:.3})",
            self.live_first,
            self.live_second,
            self.live_both,
            ratio(self.live_both, self.live_first),
            self.live_both_caught,
            self.live_both,
            ratio(self.live_both_caught, self.live_both)
        );
        println!(
            "safety against each reading alone: the first {} of {} ({:.3}), the second {} of {} ({:.3})",
            self.live_first_caught,
            self.live_first,
            ratio(self.live_first_caught, self.live_first),
            self.live_second_caught,
            self.live_second,
            ratio(self.live_second_caught, self.live_second)
        );
    }
}
