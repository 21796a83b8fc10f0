//! Byte-pair merging over the static `o200k_base` rank table (laid out by `build.rs`).
//!
//! The merge is tiktoken's: repeatedly join the adjacent pair whose bytes form the
//! lowest-ranked token, the leftmost on a tie, until no pair is a token; the piece's token
//! count is the number of parts left. Short pieces use tiktoken's scan of a part vector;
//! long ones (minified code, base64) a heap over a linked list, so a piece of n bytes costs
//! O(n log n), not O(n²). Both are checked against `bpe-openai` in the tests.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.bytes"));
static STARTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.starts"));
static SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.slots"));
const BITS: u32 = include!(concat!(env!("OUT_DIR"), "/o200k.bits"));

/// A pair that is no token: never merged.
const NONE: u32 = u32::MAX;
/// Pieces up to this length merge by scanning; longer ones through the heap.
const SCAN_LIMIT: usize = 128;

fn word(table: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(table[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// The rank of the token whose bytes are `bytes`, or `NONE`.
pub fn rank(bytes: &[u8]) -> u32 {
    let mask = (1usize << BITS) - 1;
    let mut at = (super::rank_hash::hash(bytes) >> (64 - BITS)) as usize;
    loop {
        let slot = word(SLOTS, at);
        if slot == 0 {
            return NONE;
        }
        let id = (slot - 1) as usize;
        if &BYTES[word(STARTS, id) as usize..word(STARTS, id + 1) as usize] == bytes {
            return slot - 1;
        }
        at = (at + 1) & mask;
    }
}

/// The number of `o200k_base` tokens of one pre-tokenized piece.
pub fn count(piece: &[u8]) -> usize {
    match piece.len() {
        0 => 0,
        1 => 1,
        _ if rank(piece) != NONE => 1,
        n if n <= SCAN_LIMIT => count_by_scan(piece),
        _ => count_by_heap(piece),
    }
}

/// tiktoken's `_byte_pair_merge`: parts as (start, rank of the pair starting there).
fn count_by_scan(piece: &[u8]) -> usize {
    let mut parts: Vec<(usize, u32)> = Vec::with_capacity(piece.len() + 1);
    parts.extend((0..piece.len() - 1).map(|i| (i, rank(&piece[i..i + 2]))));
    parts.push((piece.len() - 1, NONE));
    parts.push((piece.len(), NONE));
    // The rank of the part at `i` joined with its successor, before `parts[i + 1]` is removed.
    let joined = |parts: &[(usize, u32)], i: usize| {
        if i + 3 < parts.len() {
            rank(&piece[parts[i].0..parts[i + 3].0])
        } else {
            NONE
        }
    };
    loop {
        let (i, &(_, min)) = parts[..parts.len() - 1]
            .iter()
            .enumerate()
            .min_by_key(|&(i, &(_, r))| (r, i))
            .expect("at least two parts");
        if min == NONE {
            return parts.len() - 1;
        }
        if i > 0 {
            parts[i - 1].1 = joined(&parts, i - 1);
        }
        parts[i].1 = joined(&parts, i);
        parts.remove(i + 1);
    }
}

/// The same merge with a min-heap of (rank, start) and the parts as a linked list; stale heap
/// entries are told by their rank, since distinct byte strings have distinct ranks. Indices are
/// `u32` and a heap entry is one `u64` (rank above start, so the order is tiktoken's): 21 bytes
/// of state per byte of the piece, where `usize` links and tuple entries took 37 and a piece of
/// megabytes (a run of one character) spent its time in cache misses.
fn count_by_heap(piece: &[u8]) -> usize {
    // (Beyond 4 GiB a piece is counted in parts of that size: no log holds such a word.)
    const PART: usize = u32::MAX as usize - 1;
    if piece.len() > PART {
        return piece.chunks(PART).map(count_by_heap).sum();
    }
    let n = piece.len();
    let end = n as u32;
    let entry = |r: u32, i: u32| Reverse((r as u64) << 32 | i as u64);
    // Part i spans piece[i..next[i]]; removed parts have `alive[i] == false`.
    let mut next: Vec<u32> = (1..=end).collect();
    let mut prev: Vec<u32> = (0..end).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let mut pair: Vec<u32> = (0..n)
        .map(|i| {
            if i + 1 < n {
                rank(&piece[i..i + 2])
            } else {
                NONE
            }
        })
        .collect();
    let mut heap: BinaryHeap<Reverse<u64>> = pair
        .iter()
        .enumerate()
        .filter(|&(_, &r)| r != NONE)
        .map(|(i, &r)| entry(r, i as u32))
        .collect();
    let mut parts = n;
    // The rank of part `i` joined with the part after it.
    let joined = |next: &[u32], i: u32| {
        let j = next[i as usize];
        if j < end {
            rank(&piece[i as usize..next[j as usize] as usize])
        } else {
            NONE
        }
    };
    while let Some(Reverse(e)) = heap.pop() {
        let (r, i) = ((e >> 32) as u32, e as u32);
        if !alive[i as usize] || pair[i as usize] != r {
            continue;
        }
        // Merge part i with its successor j.
        let j = next[i as usize];
        alive[j as usize] = false;
        next[i as usize] = next[j as usize];
        if next[j as usize] < end {
            prev[next[j as usize] as usize] = i;
        }
        parts -= 1;
        let r = joined(&next, i);
        pair[i as usize] = r;
        if r != NONE {
            heap.push(entry(r, i));
        }
        let p = prev[i as usize];
        if p < end {
            let r = joined(&next, p);
            pair[p as usize] = r;
            if r != NONE {
                heap.push(entry(r, p));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_at_its_rank() {
        let tokens = STARTS.len() / 4 - 1;
        assert!(
            tokens > 199_000,
            "o200k has ~200k tokens, table has {tokens}"
        );
        for id in (0..tokens).step_by(97) {
            let bytes = &BYTES[word(STARTS, id) as usize..word(STARTS, id + 1) as usize];
            assert_eq!(rank(bytes), id as u32);
        }
        assert_eq!(rank(b"\xff\xfe no such token \x00"), NONE);
    }

    #[test]
    fn scan_and_heap_agree() {
        let texts: [&[u8]; 5] = [
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9eyJzdWIiOiIxMjM0NTY3ODkwIn0",
            b"abababababababababababababcabcabcabcabc",
            b"internationalization_localization_configuration",
            b"\xe6\x9d\xb1\xe4\xba\xac\xe6\x9d\xb1\xe4\xba\xac",
        ];
        for t in texts {
            assert_eq!(
                count_by_scan(t),
                count_by_heap(t),
                "{:?}",
                String::from_utf8_lossy(t)
            );
        }
    }
}
