//! How many threads absolve's parallel work gets: rayon's global pool, bounded.
//!
//! What runs in parallel (the files of `links -r`, a WARC file's batches of payloads)
//! runs on rayon's global pool, unless the caller runs absolve inside a pool of its own.
//! Each thread of it holds its own buffers: a WARC batch of 4 MiB and the next being read,
//! and in the command, up to four files' lines ahead of the one being written. So memory
//! grows with the thread count, and past the cores more threads only add memory (and
//! rayon's work stealing, which looks at every thread, slows down: 15,000 threads spent
//! minutes on a few small files). [`global_pool`] gives the pool what is asked, at most
//! [`most_threads`]: four per core the process may run on, enough for reads that wait
//! (a slow disk, a network file system) to leave the cores busy.
//!
//! ```
//! use std::num::NonZeroUsize;
//!
//! let most = absolve::threads::most_threads();
//! let asked = NonZeroUsize::new(1_000_000).unwrap();
//! assert_eq!(absolve::threads::bounded(asked), most);
//! assert_eq!(absolve::threads::bounded(NonZeroUsize::MIN), NonZeroUsize::MIN);
//! ```

use std::num::NonZeroUsize;

/// Threads per core at most (see the [module](self)).
pub const PER_CORE: usize = 4;

/// The variable rayon reads for its global pool's size, as absolve reads it.
pub const ENV: &str = "RAYON_NUM_THREADS";

/// The most threads the global pool is given: [`PER_CORE`] per core this process may run
/// on (`std::thread::available_parallelism`: CPU affinity and cgroup quotas counted).
///
/// ```
/// assert!(absolve::threads::most_threads().get() >= absolve::threads::PER_CORE);
/// ```
pub fn most_threads() -> NonZeroUsize {
    let cores = std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN);
    cores.saturating_mul(NonZeroUsize::new(PER_CORE).expect("PER_CORE is not zero"))
}

/// `requested`, at most [`most_threads`].
///
/// ```
/// use std::num::NonZeroUsize;
///
/// let two = NonZeroUsize::new(2).unwrap();
/// assert_eq!(absolve::threads::bounded(two), two.min(absolve::threads::most_threads()));
/// ```
pub fn bounded(requested: NonZeroUsize) -> NonZeroUsize {
    requested.min(most_threads())
}

/// Where a thread count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// From the caller (the command's `-j N`).
    Caller(NonZeroUsize),
    /// From [`ENV`] (`RAYON_NUM_THREADS`).
    Environment(NonZeroUsize),
}

impl Asked {
    /// The count asked for.
    ///
    /// ```
    /// use absolve::threads::Asked;
    /// use std::num::NonZeroUsize;
    ///
    /// assert_eq!(Asked::Caller(NonZeroUsize::MIN).count(), NonZeroUsize::MIN);
    /// ```
    pub fn count(self) -> NonZeroUsize {
        match self {
            Asked::Caller(n) | Asked::Environment(n) => n,
        }
    }
}

/// What [`global_pool`] gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pool {
    /// What was asked, if anything was (the caller's count, else [`ENV`]).
    pub asked: Option<Asked>,
    /// The threads given (a pool built before keeps its own count).
    pub threads: usize,
}

impl Pool {
    /// Whether fewer threads were given than asked ([`most_threads`]).
    ///
    /// ```
    /// use absolve::threads::{Asked, Pool};
    /// use std::num::NonZeroUsize;
    ///
    /// let pool = Pool { asked: Some(Asked::Caller(NonZeroUsize::new(9).unwrap())), threads: 8 };
    /// assert!(pool.lowered());
    /// ```
    pub fn lowered(&self) -> bool {
        self.asked
            .is_some_and(|asked| asked.count().get() > self.threads)
    }
}

/// Builds rayon's global pool with `requested` threads, else those [`ENV`] asks for, at
/// most [`most_threads`]. [`ENV`] is read as rayon reads it (a count above zero, anything
/// else ignored), and the pool is built only if what rayon would do by itself must change
/// (`requested`, or [`ENV`] past the bound): otherwise it starts, as rayon starts it, at
/// the first parallel work, so that a process that forks before then (Python's
/// `multiprocessing`) has no threads missing in its children. A pool built already is
/// left as it is: rayon builds its global pool once.
///
/// ```
/// use std::num::NonZeroUsize;
///
/// let pool = absolve::threads::global_pool(NonZeroUsize::new(2));
/// assert_eq!(pool.threads, rayon::current_num_threads());
/// assert!(pool.threads <= absolve::threads::most_threads().get());
/// ```
pub fn global_pool(requested: Option<NonZeroUsize>) -> Pool {
    let asked = requested.map(Asked::Caller).or_else(|| {
        let from_env = std::env::var(ENV).ok()?.trim().parse::<usize>().ok()?;
        NonZeroUsize::new(from_env).map(Asked::Environment)
    });
    // rayon's own default: one thread per core.
    let threads = asked.map_or_else(
        || std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN),
        |asked| bounded(asked.count()),
    );
    let build = match asked {
        Some(Asked::Caller(_)) => true,
        Some(Asked::Environment(count)) => count > threads,
        None => false,
    };
    if build {
        // It fails only if the pool was built already: then there is nothing to change.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.get())
            .build_global();
    }
    Pool {
        asked,
        threads: threads.get(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_above_the_bound_are_lowered_to_it() {
        let most = most_threads();
        assert_eq!(bounded(most), most);
        assert_eq!(bounded(most.saturating_add(1)), most);
        assert_eq!(bounded(NonZeroUsize::MAX), most);
        assert_eq!(bounded(NonZeroUsize::MIN), NonZeroUsize::MIN);
    }

    #[test]
    fn a_pool_says_when_it_was_given_fewer_threads_than_asked() {
        let lowered = |asked: Option<usize>, threads| {
            let asked = asked.map(|n| Asked::Environment(NonZeroUsize::new(n).unwrap()));
            Pool { asked, threads }.lowered()
        };
        assert!(lowered(Some(5), 4));
        assert!(!lowered(Some(4), 4));
        assert!(!lowered(None, 4));
    }
}
