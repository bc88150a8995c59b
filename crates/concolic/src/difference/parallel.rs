//! Threads exploring the subtrees of a pair's path tree side by side: each builds its own
//! product ([`Product`]: terms and values stay in their thread) and runs the relational loop
//! on the subtrees it takes, one at a time, from a queue they share (the subtrees of a plan,
//! the heaviest first). The pair limit counts the pairs of every thread; the time budget runs
//! from one start for all. Each thread hands back its differing leaves as models
//! ([`DifferencePart`]); the subtrees left in the queue when a limit stopped the threads make
//! the exploration incomplete. A restartable exploration (for checkpoints) also gives back the
//! subtrees a limit cut short, without what was found in them, with those left in the queue
//! ([`DifferencePart::left`]). Each thread directs its loop at the changed code as a single
//! loop does ([`super::directed`]).

use super::part::DifferencePart;
use super::product::{PortableMapping, Product, MODE};
use super::{DifferenceError, DifferenceOptions};
use crate::inputs::Assignment;
use crate::path_id::PathId;
use crate::ConcolicError;
use catala_ir::dcalc::{Program, ScopeId};
use std::collections::VecDeque;
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;
use std::time::Instant;

/// Explores the subtrees `seeds` with `jobs` threads; the figures add up, complete when every
/// subtree was explored entirely.
pub(crate) fn explore_seeds(
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &PortableMapping,
    options: &DifferenceOptions,
    seeds: Vec<(PathId, Assignment)>,
    (jobs, restartable): (usize, bool),
    start: Instant,
) -> Result<DifferencePart, DifferenceError> {
    let queue = Mutex::new(VecDeque::from(seeds));
    let pairs = AtomicUsize::new(0);
    let results: Vec<Result<DifferencePart, String>> = std::thread::scope(|threads| {
        let handles: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                let (queue, pairs) = (&queue, &pairs);
                threads.spawn(move || {
                    let shared = (queue, pairs, restartable);
                    one_thread(old, new, mapping, options, shared, start).map_err(|e| e.to_string())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("an exploring thread panicked".to_string()))
            })
            .collect()
    });
    let mut total = DifferencePart::empty();
    for r in results {
        total.add(r.map_err(|e| DifferenceError::Concolic(ConcolicError::Worker(e)))?);
    }
    let left = queue.into_inner().unwrap_or_default();
    if !left.is_empty() {
        total.complete = false;
    }
    total.left.extend(left);
    total.elapsed_s = start.elapsed().as_secs_f64();
    Ok(total)
}

/// One thread: its own product and loop, taking subtrees from the shared queue.
fn one_thread(
    (old, old_scope): (&Program, ScopeId),
    (new, new_scope): (&Program, ScopeId),
    mapping: &PortableMapping,
    options: &DifferenceOptions,
    (queue, pairs, restartable): (&Mutex<VecDeque<(PathId, Assignment)>>, &AtomicUsize, bool),
    start: Instant,
) -> Result<DifferencePart, DifferenceError> {
    let mapping = mapping
        .resolve(new, new_scope)
        .map_err(DifferenceError::Interface)?;
    let product = Product::new(
        (old, old_scope),
        (new, new_scope),
        &mapping,
        options.max_list_length,
    )?;
    let mut goal = product.goal(old, new);
    let programs = [old, new];
    let parts = product.parts(&programs, &options.exploration)?;
    let mut lp = parts.into_loop(&mut goal, start, MODE);
    lp.direction = super::direction((old, new), options);
    lp.seeds = Some(Box::new(|| queue.lock().ok()?.pop_front()));
    lp.shared_pairs = Some(pairs);
    lp.restartable = restartable;
    Ok(DifferencePart::of(lp.run_seeds()?))
}
