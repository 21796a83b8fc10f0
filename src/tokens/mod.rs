//! Token counts with a real BPE tokenizer: OpenAI's `o200k_base`.
//!
//! Text is cut into pieces (`split`) and each piece is merged against the rank table
//! (`bpe`), which the build lays out as static data: counting needs no start-up work. Logs
//! repeat the same words endlessly, so the count of each short piece is memoized per thread:
//! the merge runs once per distinct piece instead of once per occurrence. The sum is exactly
//! tiktoken's count (o200k applies no normalization), checked against `bpe-openai` in the tests.

mod bpe;
mod rank_hash;
mod split;

pub use split::pieces;

use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// The name written into annotations as `tokenizer`.
pub const TOKENIZER: &str = "o200k_base";

/// Pieces longer than this are counted directly (they rarely repeat).
const MEMO_PIECE: usize = 24;
/// The per-thread memo is dropped when it grows past this many pieces: memory stays bounded.
const MEMO_LIMIT: usize = 1 << 16;

thread_local! {
    static MEMO: RefCell<FxHashMap<Box<str>, u32>> = RefCell::new(FxHashMap::default());
}

/// Number of tokens in `text`.
pub fn count(text: &str) -> usize {
    count_all(std::iter::once(text))
}

/// Number of tokens in all of `texts`, each piece counted through the per-thread memo.
pub fn count_all<'a>(texts: impl Iterator<Item = &'a str>) -> usize {
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        if memo.len() > MEMO_LIMIT {
            memo.clear();
        }
        texts
            .flat_map(pieces)
            .map(|piece| count_piece(piece, &mut memo))
            .sum()
    })
}

fn count_piece(piece: &str, memo: &mut FxHashMap<Box<str>, u32>) -> usize {
    // Every byte is a token: a one-byte piece needs no lookup.
    if piece.len() == 1 {
        return 1;
    }
    if piece.len() > MEMO_PIECE {
        return bpe::count(piece.as_bytes());
    }
    if let Some(&n) = memo.get(piece) {
        return n as usize;
    }
    let n = bpe::count(piece.as_bytes());
    memo.insert(piece.into(), n as u32);
    n
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_real_tokens() {
        assert_eq!(super::count(""), 0);
        assert_eq!(super::count("hello world"), 2);
        assert!(super::count("The quick brown fox jumps over the lazy dog.") >= 9);
    }

    #[test]
    fn memoized_counts_equal_the_tokenizer_s() {
        let t = bpe_openai::o200k_base();
        let texts = [
            "fn main() {\n    println!(\"hello\");\n}\n",
            "Error: reservation not found. Error: reservation not found.",
            "   indented   text\twith\ttabs \r\n and unicode: Straße, 東京, 🦀🦀",
            &"repeat repeat ".repeat(200),
        ];
        for s in texts {
            assert_eq!(super::count(s), t.count(s), "{s:?}");
            assert_eq!(super::count(s), t.count(s), "second call, memo warm: {s:?}");
            let two = super::count_all([s, s].into_iter());
            assert_eq!(two, 2 * t.count(s), "two copies: {s:?}");
        }
    }
}
