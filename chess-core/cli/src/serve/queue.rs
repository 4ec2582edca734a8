//! Slots for the work of requests: a bounded, first-come first-served queue per kind of request
//! (program runs, engine moves), so that a flood of one kind cannot starve the other, and a slot
//! that stays taken until the work it was given has ended.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The kinds of work, each with its own queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `POST /api/run`.
    Run,
    /// `POST /api/move`.
    Move,
}

/// Why a request got no slot.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Busy {
    /// Its kind's queue was full.
    #[error("the server is busy ({0} requests of this kind are waiting); try again shortly")]
    Full(usize),
    /// It waited longer than the queue time.
    #[error("the server is busy: no slot became free within {0:.1} s; try again shortly")]
    Waited(f64),
}

/// The slots of a server.
#[derive(Clone, Debug)]
pub struct Slots {
    all: Arc<Semaphore>,
    lanes: [Arc<Semaphore>; 2],
    waiting: [Arc<AtomicUsize>; 2],
    queue_len: usize,
}

/// A slot: held while work runs, freed when dropped.
#[derive(Debug)]
pub struct Slot {
    _lane: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

/// Counts a waiting request while it lives.
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Slots {
    /// `concurrent` slots in all; each kind may hold `concurrent - 1` of them (at least one), and
    /// at most `queue_len` requests of a kind wait.
    pub fn new(concurrent: usize, queue_len: usize) -> Slots {
        let concurrent = concurrent.max(1);
        let per_kind = concurrent.saturating_sub(1).max(1);
        Slots {
            all: Arc::new(Semaphore::new(concurrent)),
            lanes: [
                Arc::new(Semaphore::new(per_kind)),
                Arc::new(Semaphore::new(per_kind)),
            ],
            waiting: [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))],
            queue_len,
        }
    }

    /// Waits (first come, first served) for a slot for work of `kind`, at most `wait`.
    pub async fn acquire(&self, kind: Kind, wait: Duration) -> Result<Slot, Busy> {
        let i = kind as usize;
        let before = self.waiting[i].fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(Arc::clone(&self.waiting[i]));
        if before >= self.queue_len {
            return Err(Busy::Full(before));
        }
        let lane = Arc::clone(&self.lanes[i]);
        let all = Arc::clone(&self.all);
        let take = async move {
            let lane = lane.acquire_owned().await.ok()?;
            let all = all.acquire_owned().await.ok()?;
            Some(Slot {
                _lane: lane,
                _all: all,
            })
        };
        match tokio::time::timeout(wait, take).await {
            Ok(Some(slot)) => Ok(slot),
            _ => Err(Busy::Waited(wait.as_secs_f64())),
        }
    }

    /// Slots free now (for tests).
    pub fn free(&self) -> usize {
        self.all.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_kind_cannot_take_every_slot() {
        let slots = Slots::new(2, 4);
        let a = slots.acquire(Kind::Move, Duration::from_millis(50)).await;
        assert!(a.is_ok());
        // A second move waits although a slot is free: it is kept for runs.
        let b = slots.acquire(Kind::Move, Duration::from_millis(50)).await;
        assert!(matches!(b, Err(Busy::Waited(_))), "{b:?}");
        let c = slots.acquire(Kind::Run, Duration::from_millis(50)).await;
        assert!(c.is_ok());
        assert_eq!(slots.free(), 0);
        drop(a);
        assert_eq!(slots.free(), 1);
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let slots = Slots::new(2, 1);
        let held = slots.acquire(Kind::Run, Duration::from_millis(50)).await;
        assert!(held.is_ok());
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move { slots.acquire(Kind::Run, Duration::from_secs(5)).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let refused = slots.acquire(Kind::Run, Duration::from_secs(5)).await;
        assert!(matches!(refused, Err(Busy::Full(1))), "{refused:?}");
        drop(held);
        assert!(waiter.await.expect("joined").is_ok());
    }
}
