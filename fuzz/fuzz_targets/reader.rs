//! `cargo fuzz run reader` (from `fuzz/`). Record checksums are off under `cfg(fuzzing)`,
//! so the fuzzer reaches the decoders; the body is `sgpt_format::fuzz::open_and_walk`,
//! which stable `cargo test` also runs over the fixtures and seeded mutations.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    sgpt_format::fuzz::open_and_walk(data);
});
