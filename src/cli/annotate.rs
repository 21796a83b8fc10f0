//! `trajlint annotate`: the annotation contract as JSON Lines, or a human view.

use super::{
    collect_inputs, drop_excluded, for_each_mapped, no_log_found, print_read_issues, Input,
    InputArgs, Named,
};
use clap::ValueEnum;
use std::io::Write;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum AnnotateFormat {
    Json,
    Text,
}

pub fn annotate(input: &InputArgs, format: AnnotateFormat) -> ExitCode {
    // (The configuration's lexicons and excludes apply as in `check`.)
    let settings = super::working_dir().and_then(|cwd| {
        let config = input.settings.config(&cwd)?;
        let lex = input.settings.lexicon(&config)?;
        Ok((cwd, config, lex))
    });
    let (cwd, config, lex) = match settings {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut inputs = collect_inputs(&input.paths);
    let named = Named::new(&input.paths);
    let excluded_by = drop_excluded(&mut inputs, &named, &config, &cwd).unwrap_or_default();
    let mut failed = false;
    if inputs.is_empty() {
        eprintln!("error: {}{excluded_by}", no_log_found(&input.paths, 0));
        return ExitCode::from(2);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // The reader went away (`| head`): nothing more is written; the exit code stays the run's.
    let mut closed = false;
    // A file a walk met that holds no log (a `package.json`) is skipped, as `check` skips it;
    // one named on the command line must be a log.
    let walked = |i: &Input| matches!(i, Input::Path(p) if !named.contains(p));
    let (mut logs, mut skipped) = (0, 0);
    let map = |i: &Input, r| (walked(i), r);
    for_each_mapped(
        &inputs,
        input.input_format,
        &lex,
        map,
        |(walked, r)| match r {
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
            Ok(report) if walked && report.read.not_a_log.is_some() => {
                skipped += 1;
                eprintln!(
                    "{}: warning: skipped: {}",
                    trajlint::report::visible_name(&report.source.name),
                    report.read.not_a_log.unwrap_or_default()
                );
            }
            Ok(report) => {
                logs += 1;
                failed |= print_read_issues(&report);
                if closed {
                    return;
                }
                let res = match format {
                    AnnotateFormat::Json => {
                        trajlint::report::annotations::write_json(&mut out, &report)
                    }
                    AnnotateFormat::Text => {
                        trajlint::report::annotations::write_text(&mut out, &report)
                    }
                };
                match res {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => closed = true,
                    Err(e) => {
                        eprintln!("error: writing output: {}", super::why(&e));
                        failed = true;
                        // (Once the output fails, nothing more can be written: one error, not
                        // one per file.)
                        closed = true;
                    }
                    Ok(()) => {}
                }
            }
        },
    );
    // (A full disk shows up here for an output smaller than the buffer.)
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe && !closed => {
            eprintln!("error: writing output: {}", super::why(&e));
            failed = true;
        }
        _ => {}
    }
    if logs == 0 && !failed {
        eprintln!(
            "error: {}{excluded_by}",
            no_log_found(&input.paths, skipped)
        );
        failed = true;
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
