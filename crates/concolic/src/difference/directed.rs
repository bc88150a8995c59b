//! The order of a difference exploration directed at the code that changed ([`ChangedCode`]:
//! the byte ranges of each version that the other does not have, and where OLD's unchanged
//! lines are in NEW). Each run's branches are ranked ([`ChangeDirection`], a
//! `crate::relational_loop::Direction`), the higher ranks negated first:
//!
//! 3. *influence*: a branch of OLD at a position where NEW's run, on the same inputs, met a
//!    condition with another term (NEW's repeats of OLD's conditions are left out of the
//!    path, so a condition of NEW at the same place says the change reached it): going the
//!    other way at OLD's branch separates the versions there (an amount between OLD's ceiling
//!    and NEW's).
//! 2. *gate*: a branch whose other way leads to changed code ([`super::gates`]), or whose
//!    condition itself changed: negating it reaches the change.
//! 1. *downstream*: a branch met after the run went the changed way at a gate: it may decide
//!    whether the changed value reaches the outputs.
//! 0. the rest, in the loop's own order.
//!
//! Only the order changes: every branch is negated before the exploration is complete, so
//! `equivalent` and the regions are those of the undirected order.

use super::gates::ChangeMarks;
use crate::relational_loop::{Direction, Site};
use catala_ir::dcalc::Program;
use catala_syntax::{FileId, Span};
use std::collections::HashSet;

/// A line both versions have unchanged: its bytes in OLD's file and in NEW's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SameLine {
    pub old: Span,
    pub new: Span,
}

/// What changed between the versions, as positions in each version's source files.
#[derive(Clone, Debug, Default)]
pub struct ChangedCode {
    /// The byte ranges of OLD's files whose lines NEW does not have.
    pub old: Vec<Span>,
    /// The byte ranges of NEW's files whose lines OLD does not have.
    pub new: Vec<Span>,
    /// The lines the versions share (any order), to find OLD's positions in NEW.
    pub same_lines: Vec<SameLine>,
}

impl ChangedCode {
    /// Nothing changed (the direction would rank every branch 0).
    pub fn is_empty(&self) -> bool {
        self.old.is_empty() && self.new.is_empty()
    }
}

const INFLUENCE: u8 = 3;
const GATE: u8 = 2;
const DOWNSTREAM: u8 = 1;

/// Ranks the branches of a difference's runs by how they lead to the changed code.
pub(crate) struct ChangeDirection {
    /// OLD's marks (case 0), NEW's (case 1).
    marks: [ChangeMarks; 2],
    /// The shared lines, sorted by OLD's position.
    same_lines: Vec<SameLine>,
}

impl ChangeDirection {
    pub(crate) fn new(old: &Program, new: &Program, changed: &ChangedCode) -> ChangeDirection {
        let mut same_lines = changed.same_lines.clone();
        same_lines.sort_by_key(|l| (l.old.file, l.old.start));
        ChangeDirection {
            marks: [
                ChangeMarks::of(old, &changed.old),
                ChangeMarks::of(new, &changed.new),
            ],
            same_lines,
        }
    }

    /// Where OLD's position `s` is in NEW (on a shared line), if it is.
    fn in_new(&self, s: Span) -> Option<Span> {
        let k = self
            .same_lines
            .partition_point(|l| (l.old.file, l.old.start) <= (s.file, s.start));
        let line = self.same_lines.get(k.checked_sub(1)?)?;
        if line.old.file != s.file || s.start > line.old.end {
            return None;
        }
        let shift = |x: u32| (x + line.new.start).checked_sub(line.old.start);
        Some(Span {
            file: line.new.file,
            start: shift(s.start)?,
            end: shift(s.end)?,
        })
    }

    fn rank_of(&self, s: &Site, downstream: &mut bool) -> u8 {
        let marks = &self.marks[s.case.min(1)];
        let mut rank = if *downstream { DOWNSTREAM } else { 0 };
        if let Some(g) = marks.gates.get(&s.span) {
            if g.enters(s.way ^ 1) {
                rank = GATE;
            }
            *downstream |= g.enters(s.way);
        } else if marks.overlaps(s.span) {
            rank = GATE;
            *downstream = true;
        }
        rank
    }
}

impl Direction for ChangeDirection {
    fn ranks(&mut self, sites: &[Site]) -> Vec<u8> {
        let new_sites: HashSet<(FileId, u32, u32)> = sites
            .iter()
            .filter(|s| s.case == 1)
            .map(|s| (s.span.file, s.span.start, s.span.end))
            .collect();
        let mut downstream = false;
        sites
            .iter()
            .map(|s| {
                let rank = self.rank_of(s, &mut downstream);
                let reached = s.case == 0
                    && !new_sites.is_empty()
                    && self
                        .in_new(s.span)
                        .is_some_and(|n| new_sites.contains(&(n.file, n.start, n.end)));
                if reached {
                    INFLUENCE
                } else {
                    rank
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(file: u32, start: u32, end: u32) -> Span {
        Span {
            file: FileId(file),
            start,
            end,
        }
    }

    #[test]
    fn old_positions_move_with_their_lines() {
        // OLD's line at bytes 10..20 is NEW's line at 14..24 (four bytes were added above).
        let d = ChangeDirection {
            marks: Default::default(),
            same_lines: vec![
                SameLine {
                    old: s(0, 0, 9),
                    new: s(0, 0, 9),
                },
                SameLine {
                    old: s(0, 10, 20),
                    new: s(0, 14, 24),
                },
            ],
        };
        assert_eq!(d.in_new(s(0, 12, 15)), Some(s(0, 16, 19)));
        assert_eq!(d.in_new(s(0, 3, 4)), Some(s(0, 3, 4)));
        assert_eq!(d.in_new(s(0, 25, 26)), None);
        assert_eq!(d.in_new(s(1, 12, 15)), None);
    }
}
