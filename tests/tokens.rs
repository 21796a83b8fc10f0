//! Token counts over real logs: the hand-cut pre-tokenizer gives exactly the pieces of the
//! `o200k_base` regex, and a turn's tally exactly the tokenizer's own count, on every text of
//! every file of our fixtures and of the shared corpus (real logs in many languages).

mod common;

use std::path::Path;

#[test]
fn pieces_and_counts_match_the_tokenizer_on_every_log() {
    let tokenizer = bpe_openai::o200k_base();
    let mut roots = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fixtures")];
    let shared = common::shared_corpus();
    roots.extend(shared.clone());
    let (mut texts, mut non_ascii) = (0, 0);
    for root in roots {
        for path in common::files_under(&root) {
            let bytes = std::fs::read(&path).unwrap();
            let out = trajlint::formats::read(&bytes, None);
            for traj in &out.trajectories {
                for turn in &traj.turns {
                    let mut expected = 0;
                    for segment in &turn.segments {
                        let text = &segment.text.text;
                        let ours: Vec<&str> = trajlint::tokens::pieces(text).collect();
                        let theirs: Vec<&str> = tokenizer.split(text).collect();
                        assert_eq!(ours, theirs, "{}: {text:?}", path.display());
                        texts += 1;
                        non_ascii += usize::from(!text.is_ascii());
                        expected += tokenizer.count(text.as_str());
                    }
                    for call in &turn.calls {
                        expected += tokenizer.count(call.name.as_str())
                            + tokenizer.count(call.arguments.as_str());
                    }
                    let counted = trajlint::analysis::turn_tokens(turn);
                    assert_eq!(counted, expected, "{}", path.display());
                }
            }
        }
    }
    println!("{texts} texts cut exactly, {non_ascii} of them with non-ASCII characters");
    assert!(
        texts > 100 && non_ascii > 5,
        "{texts} texts, {non_ascii} non-ASCII"
    );
    if shared.is_some() {
        assert!(
            texts > 10_000 && non_ascii > 1000,
            "{texts} texts, {non_ascii} non-ASCII"
        );
    }
}

/// Long unbroken pieces (minified code, base64, repeated letters) take the heap merge; short
/// ones the scan. Both must give the tokenizer's count.
#[test]
fn long_pieces_count_as_the_tokenizer_does() {
    let tokenizer = bpe_openai::o200k_base();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabets: [&[u8]; 4] = [
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        b"ab",
        b"abcdefghijklmnopqrstuvwxyz",
        b"{}[]()<>=;:,.\"'!@#$%^&*-_+|~`",
    ];
    for len in [129, 200, 1000, 5000] {
        for alphabet in alphabets {
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            assert_eq!(
                trajlint::tokens::count(&text),
                tokenizer.count(&text),
                "{len} bytes over {:?}",
                String::from_utf8_lossy(alphabet)
            );
        }
        let same = "a".repeat(len);
        assert_eq!(trajlint::tokens::count(&same), tokenizer.count(&same));
    }
}
