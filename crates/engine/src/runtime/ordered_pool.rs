//! Jobs `0, 1, 2, …` computed on several threads and handed back in job
//! order: how a generated source makes its batches in parallel without
//! changing which rows come in which order.
//!
//! Thread `i` computes jobs `i, i + n, i + 2n, …` and hands each over on
//! its own channel, holding at most [`AHEAD`] done jobs; the reader takes
//! job `j` from thread `j mod n`. So memory stays bounded whatever thread
//! runs ahead, and no reordering is needed.

use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

/// Done jobs a thread may hold before it waits for the reader.
const AHEAD: usize = 1;

pub struct OrderedPool<T> {
    threads: Vec<Receiver<T>>,
    next: u64,
    jobs: u64,
}

impl<T: Send + 'static> OrderedPool<T> {
    /// Computes `make(j)` for `j` in `0..jobs` on `threads` threads.
    pub fn spawn(threads: usize, jobs: u64, make: Arc<dyn Fn(u64) -> T + Send + Sync>) -> Self {
        let threads = threads.max(1) as u64;
        let receivers = (0..threads)
            .map(|i| {
                let (send, recv) = sync_channel(AHEAD);
                let make = Arc::clone(&make);
                std::thread::spawn(move || {
                    let mut j = i;
                    while j < jobs {
                        // The reader has gone (the query ended): stop.
                        if send.send(make(j)).is_err() {
                            return;
                        }
                        j += threads;
                    }
                });
                recv
            })
            .collect();
        OrderedPool {
            threads: receivers,
            next: 0,
            jobs,
        }
    }

    /// The next job's result, in job order; None after the last.
    pub fn next(&mut self) -> Option<T> {
        if self.next >= self.jobs {
            return None;
        }
        let thread = (self.next % self.threads.len() as u64) as usize;
        self.next += 1;
        // A thread only stops early if `make` panicked.
        self.threads[thread].recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_job_order_whatever_the_threads_take() {
        for threads in 1..5 {
            let mut pool = OrderedPool::spawn(
                threads,
                23,
                Arc::new(|j| {
                    // Later jobs finish first.
                    std::thread::sleep(std::time::Duration::from_micros(300 * (j % 3)));
                    j * j
                }),
            );
            let got: Vec<u64> = std::iter::from_fn(|| pool.next()).collect();
            let want: Vec<u64> = (0..23).map(|j| j * j).collect();
            assert_eq!(got, want, "{threads} threads");
        }
    }

    #[test]
    fn no_jobs_is_an_empty_pool() {
        let mut pool = OrderedPool::spawn(3, 0, Arc::new(|j| j));
        assert_eq!(pool.next(), None);
    }
}
