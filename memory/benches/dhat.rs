//! dhat-rs's cost per alloc+free pair (64 bytes), beside the `memory` bench's figures.
//! dhat can only measure as the global allocator, so it has its own binary.

#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use std::hint::black_box;
    use std::time::Instant;

    const PAIRS: usize = 200_000;
    let run = || {
        let started = Instant::now();
        for round in 0..PAIRS {
            let block = Box::new([round as u8; 64]);
            black_box(&block);
            drop(block);
        }
        started.elapsed().as_nanos() as f64 / PAIRS as f64
    };
    let idle = run();
    // Testing mode keeps dhat from writing its heap profile file on drop.
    let profiler = dhat::Profiler::builder().testing().build();
    let heap = run();
    drop(profiler);
    println!("alloc+free pair, 64 B, {PAIRS} pairs");
    println!("  dhat::Alloc, no profiler   {idle:7.1} ns");
    println!("  dhat heap profiler         {heap:7.1} ns  (+{:.1})", heap - idle);
}

#[cfg(target_arch = "wasm32")]
fn main() {
    println!("dhat-rs is native only");
}
