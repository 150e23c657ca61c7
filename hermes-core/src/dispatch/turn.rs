//! The calls of one assistant message: started as their dependencies allow, at most
//! `max_parallel_tools` at once, duplicates answered from the first, results handed
//! out in call order within the turn's budget.

use std::future::Future;
use std::pin::Pin;

use futures_util::stream::{self, FuturesUnordered};
use futures_util::{FutureExt, Stream, StreamExt};

use super::budget::{self, SpillTarget};
use super::repair::{Repair, RepairKind};
use super::schedule::{self, Footprint};
use super::{CallReport, Dispatcher, Done, Pending, report_repair};
use crate::{RunContext, ToolCall};

type Running<'a> = Pin<Box<dyn Future<Output = (usize, Done)> + Send + 'a>>;

pub(super) struct Turn<'a> {
    dispatcher: &'a Dispatcher,
    run: &'a RunContext,
    /// Calls not started yet.
    waiting: Vec<Option<Pending<'a>>>,
    /// For each call, the earlier calls it waits for.
    after: Vec<Vec<usize>>,
    /// For each call, the earlier call it duplicates.
    duplicate_of: Vec<Option<usize>>,
    /// Finished and not handed out yet.
    finished: Vec<Option<Done>>,
    /// Finished, handed out or not.
    complete: Vec<bool>,
    running: FuturesUnordered<Running<'a>>,
    /// The next call to hand out.
    next: usize,
    /// Bytes of results handed out so far.
    handed_out: usize,
}

impl<'a> Turn<'a> {
    pub(super) fn new(
        dispatcher: &'a Dispatcher,
        calls: &'a [ToolCall],
        run: &'a RunContext,
    ) -> Self {
        let mut waiting: Vec<Pending<'a>> = calls
            .iter()
            .map(|call| dispatcher.begin(call, run))
            .collect();
        let duplicate_of = if dispatcher.repairs.duplicates && calls.len() > 1 {
            find_duplicates(&mut waiting, run)
        } else {
            vec![None; calls.len()]
        };
        let footprints: Vec<Option<Footprint>> = waiting
            .iter()
            .zip(&duplicate_of)
            .map(
                |(pending, duplicate)| match (&pending.prepared, duplicate) {
                    (Ok((entry, args)), None) => Some(Footprint::of(entry.spec(), args)),
                    _ => None,
                },
            )
            .collect();
        let n = calls.len();
        Self {
            dispatcher,
            run,
            waiting: waiting.into_iter().map(Some).collect(),
            after: schedule::dependencies(&footprints),
            duplicate_of,
            finished: (0..n).map(|_| None).collect(),
            complete: vec![false; n],
            running: FuturesUnordered::new(),
            next: 0,
            handed_out: 0,
        }
    }

    pub(super) fn into_stream(self) -> impl Stream<Item = CallReport> + Send + 'a {
        stream::unfold(self, |mut turn| async move {
            let report = turn.hand_out().await?;
            Some((report, turn))
        })
    }

    /// The next report in call order, once it is finished.
    async fn hand_out(&mut self) -> Option<CallReport> {
        if self.next == self.waiting.len() {
            return None;
        }
        loop {
            self.start_ready();
            if self.finished[self.next].is_some() {
                break;
            }
            let (index, done) = self.running.next().await?;
            self.finish(index, done);
        }
        // Whatever else has finished by now counts toward the budget too, so the
        // largest of them is the one spilled.
        while let Some(Some((index, done))) = self.running.next().now_or_never() {
            self.finish(index, done);
            self.start_ready();
        }
        self.fit_budget().await;
        let done = self.finished[self.next].take()?;
        self.next += 1;
        self.handed_out += done.body.len();
        Some(done.into_report())
    }

    /// Start, in call order, every waiting call whose dependencies have finished, while
    /// there is room.
    fn start_ready(&mut self) {
        for index in 0..self.waiting.len() {
            if self.running.len() >= self.dispatcher.max_parallel_tools {
                return;
            }
            if self.waiting[index].is_none()
                || self.duplicate_of[index].is_some()
                || !self.after[index]
                    .iter()
                    .all(|&before| self.complete[before])
            {
                continue;
            }
            let Some(pending) = self.waiting[index].take() else {
                continue;
            };
            let (dispatcher, run) = (self.dispatcher, self.run);
            self.running.push(Box::pin(async move {
                (index, dispatcher.complete(pending, run).await)
            }));
        }
    }

    /// Record a finished call, and answer its duplicates from it.
    fn finish(&mut self, index: usize, done: Done) {
        for later in index + 1..self.waiting.len() {
            if self.duplicate_of[later] == Some(index) {
                if let Some(pending) = self.waiting[later].take() {
                    self.finished[later] =
                        Some(self.dispatcher.duplicate(&done, pending, self.run));
                    self.complete[later] = true;
                }
            }
        }
        self.finished[index] = Some(done);
        self.complete[index] = true;
    }

    /// Keep the turn within its byte budget: spill the largest finished results not
    /// handed out yet.
    async fn fit_budget(&mut self) {
        let budget = &self.dispatcher.budget;
        let held: usize = self
            .finished
            .iter()
            .flatten()
            .map(|done| done.body.len())
            .sum();
        if self.handed_out + held <= budget.turn_bytes {
            return;
        }
        let run = self.run;
        let mut bodies: Vec<(&mut budget::Body, SpillTarget<'_>)> = self
            .finished
            .iter_mut()
            .flatten()
            .map(|done| {
                let at = SpillTarget {
                    run,
                    tool_call_id: &done.tool_call_id,
                };
                (&mut done.body, at)
            })
            .collect();
        budget::fit_turn(&mut bodies, self.handed_out, budget).await;
    }
}

/// Mark each call that repeats an earlier one (same tool, same arguments once parsed, or
/// the same text when they did not parse): it will not run.
fn find_duplicates(pendings: &mut [Pending<'_>], run: &RunContext) -> Vec<Option<usize>> {
    let keys: Vec<String> = pendings
        .iter()
        .map(|pending| match &pending.prepared {
            Ok((entry, args)) => schedule::call_key(entry.spec().name(), args),
            Err(_) => format!(
                "\u{1}{}\0{}",
                pending.call.name(),
                pending.call.arguments().trim()
            ),
        })
        .collect();
    let duplicate_of = schedule::duplicates(&keys);
    for (index, first) in duplicate_of.iter().enumerate() {
        let Some(first) = *first else { continue };
        let repair = Repair::new(
            RepairKind::Duplicate,
            format!(
                "same call as {}: it runs once and this call gets its result",
                pendings[first].call.id
            ),
        );
        let pending = &mut pendings[index];
        report_repair(run, pending.call, pending.name(), &repair);
        pending.repairs.push(repair);
    }
    duplicate_of
}
