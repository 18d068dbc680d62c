//! The `absolve` command: a thin layer over the library (see `absolve --help`).

// One `unsafe` call in the program, none in the library: `tune_glibc_malloc` below.
#![deny(unsafe_code)]

mod cli;

/// `--features mimalloc`: mimalloc instead of the system's allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
    tune_glibc_malloc();
    cli::run()
}

/// Keeps the buffers each document needs (its held bytes, its queue of edits, its payload:
/// tens of KiB to a few MiB) in glibc's heap between documents. By default glibc serves a
/// block over 128 KiB with its own `mmap` and unmaps it when freed, and trims the heap's
/// top past 128 KiB free (both thresholds then move with what the program frees), so
/// every page, or run of pages, had each document's buffers faulted in afresh by the
/// kernel: over 2,000 pages `links -r -j 1` took 88,557 page faults and 0.32 s of system
/// time out of 1.5 s; with these thresholds, 632 faults (BENCHMARKS.md, "Crawl scale").
/// Peak memory is unchanged on the largest inputs (it is set by the payloads, which are
/// larger than these thresholds and still mapped on their own); what is kept free is at
/// most `TRIM_THRESHOLD` (8 MiB) per heap (one per thread at most), less than glibc's own moving
/// thresholds allow (up to 32 MiB mapped apart and 64 MiB kept). mimalloc (`--features
/// mimalloc`) keeps freed memory itself and does without this.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
#[allow(unsafe_code)]
fn tune_glibc_malloc() {
    // Below this size glibc's malloc serves a block from its heap; at or above it, from
    // its own `mmap` (given back to the kernel when freed).
    const MMAP_THRESHOLD: libc::c_int = 4 << 20;
    // How much free memory at the top of a heap glibc keeps before it gives it back.
    const TRIM_THRESHOLD: libc::c_int = 8 << 20;
    // SAFETY: `mallopt` takes a parameter number and a value and only sets glibc malloc's
    // parameters, under its own lock; this runs first in `main`, before any thread. A
    // value glibc refuses leaves its default (the result is 0): nothing to undo.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}
