//! `trajlint annotate`: the annotation contract as JSON Lines, or a human view.

use super::{
    collect_inputs, for_each_report, load_lexicon, no_log_found, print_read_issues, InputArgs,
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
    let lex = match load_lexicon(&input.lexicon) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let inputs = collect_inputs(&input.paths);
    let mut failed = false;
    if inputs.is_empty() {
        eprintln!("error: {}", no_log_found(&input.paths));
        return ExitCode::from(2);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // The reader went away (`| head`): nothing more is written; the exit code stays the run's.
    let mut closed = false;
    for_each_report(&inputs, input.input_format, &lex, |r| match r {
        Err(e) => {
            eprintln!("error: {e}");
            failed = true;
        }
        Ok(report) => {
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
                    eprintln!("error: writing output: {e}");
                    failed = true;
                }
                Ok(()) => {}
            }
        }
    });
    let _ = out.flush();
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
