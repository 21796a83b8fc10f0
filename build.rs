//! Lays out the `o200k_base` rank table as static data, so that counting tokens needs no
//! start-up work: the table is three byte arrays the binary maps, not a structure built (or
//! deserialized, ~45 ms for `bpe-openai`) at run time. The vocabulary comes from `bpe-openai`,
//! which ships OpenAI's published `o200k_base.tiktoken`; a token's id is its merge rank.
//!
//! Files written to `OUT_DIR`:
//! - `o200k.bytes`: every token's bytes, concatenated in rank order;
//! - `o200k.starts`: `u32` little-endian offsets into it, one per token plus the end;
//! - `o200k.slots`: an open-addressing table of `u32` (rank + 1, 0 empty), indexed by the top
//!   bits of `rank_hash::hash`, probed linearly.

#[path = "src/tokens/rank_hash.rs"]
mod rank_hash;

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/tokens/rank_hash.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bpe = &bpe_openai::o200k_base().bpe;
    let n = bpe.num_tokens();

    let mut bytes = Vec::new();
    let mut starts = Vec::with_capacity(4 * (n + 1));
    for id in 0..n as u32 {
        starts.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        bytes.extend_from_slice(bpe.token_bytes(id));
    }
    starts.extend_from_slice(&(bytes.len() as u32).to_le_bytes());

    // Load factor under 0.4: a miss (most pair lookups during a merge) ends in a probe or two.
    let bits = (n * 5 / 2).next_power_of_two().trailing_zeros();
    let mut slots = vec![0u32; 1 << bits];
    let mask = slots.len() - 1;
    for id in 0..n as u32 {
        let mut at = (rank_hash::hash(bpe.token_bytes(id)) >> (64 - bits)) as usize;
        while slots[at] != 0 {
            at = (at + 1) & mask;
        }
        slots[at] = id + 1;
    }
    let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();

    std::fs::write(out.join("o200k.bytes"), bytes).expect("writes OUT_DIR");
    std::fs::write(out.join("o200k.starts"), starts).expect("writes OUT_DIR");
    std::fs::write(out.join("o200k.slots"), slots).expect("writes OUT_DIR");
    std::fs::write(out.join("o200k.bits"), bits.to_string()).expect("writes OUT_DIR");
}
