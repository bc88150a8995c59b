//! Frame layout during lowering: slot allocation for locals, closure frames whose captured outer
//! slots are discovered while their body is translated, and the final renumbering that puts the
//! captures first in a closure frame (the layout [`Lambda`] documents).

use crate::dcalc::{Expr, ExprKind, Lambda, Slot, Ty};
use std::sync::Arc;

/// One frame under construction.
#[derive(Debug, Default)]
pub(crate) struct FrameBuilder {
    /// Next free slot.
    pub next: u32,
    /// (slot in the enclosing frame, slot in this frame) for each captured value.
    pub captures: Vec<(Slot, Slot)>,
    /// Number of parameters (allocated first, slots `0..params`).
    pub params: u32,
}

/// The stack of frames of the code being translated (the base frame first).
#[derive(Debug, Default)]
pub(crate) struct Frames {
    pub stack: Vec<FrameBuilder>,
}

impl Frames {
    /// A stack with one base frame whose first free slot is `first_free`.
    pub fn new(first_free: u32) -> Frames {
        Frames {
            stack: vec![FrameBuilder {
                next: first_free,
                ..FrameBuilder::default()
            }],
        }
    }

    /// Depth of the current frame (0 for the base frame).
    pub fn depth(&self) -> usize {
        self.stack.len() - 1
    }

    /// A fresh slot in the current frame.
    pub fn alloc(&mut self) -> Slot {
        let f = self.current();
        let s = Slot(f.next);
        f.next += 1;
        s
    }

    fn current(&mut self) -> &mut FrameBuilder {
        let i = self.stack.len() - 1;
        &mut self.stack[i]
    }

    /// Size of the base frame so far.
    pub fn base_size(&self) -> u32 {
        self.stack.first().map_or(0, |f| f.next)
    }

    /// The slot in the current frame through which `slot` of frame `owner` is reached
    /// (capturing it in every frame in between).
    pub fn access(&mut self, owner: usize, slot: Slot) -> Slot {
        let mut s = slot;
        for d in owner + 1..self.stack.len() {
            let f = &mut self.stack[d];
            if let Some(&(_, inner)) = f.captures.iter().find(|(outer, _)| *outer == s) {
                s = inner;
            } else {
                let inner = Slot(f.next);
                f.next += 1;
                f.captures.push((s, inner));
                s = inner;
            }
        }
        s
    }

    /// Opens a closure frame with `n` parameters; returns their slots.
    pub fn open_closure(&mut self, n: usize) -> Vec<Slot> {
        self.stack.push(FrameBuilder {
            next: n as u32,
            captures: Vec::new(),
            params: n as u32,
        });
        (0..n as u32).map(Slot).collect()
    }

    /// Closes the current closure frame around `body`.
    pub fn close_closure(&mut self, params: Vec<(String, Ty)>, mut body: Expr) -> Lambda {
        let f = self.stack.pop().unwrap_or_default();
        let k = f.captures.len() as u32;
        // New numbering: captures, then parameters, then the other locals in order.
        let mut renumber: Vec<u32> = vec![u32::MAX; f.next as usize];
        for (j, (_, inner)) in f.captures.iter().enumerate() {
            renumber[inner.index()] = j as u32;
        }
        for p in 0..f.params {
            renumber[p as usize] = k + p;
        }
        let mut next = k + f.params;
        for r in renumber.iter_mut() {
            if *r == u32::MAX {
                *r = next;
                next += 1;
            }
        }
        renumber_slots(&mut body, &renumber);
        Lambda {
            captures: f.captures.iter().map(|(outer, _)| *outer).collect(),
            params,
            frame_size: f.next,
            body,
        }
    }
}

fn rn(s: &mut Slot, map: &[u32]) {
    if let Some(&n) = map.get(s.index()) {
        *s = Slot(n);
    }
}

/// Applies a slot renumbering to every slot of the current frame used in `e` (nested closures
/// keep their own frames; only their capture lists refer to this one).
pub(crate) fn renumber_slots(e: &mut Expr, map: &[u32]) {
    match &mut e.kind {
        ExprKind::Local(s) => rn(s, map),
        ExprKind::Literal(_)
        | ExprKind::TopDef(_)
        | ExprKind::ScopeArg(_)
        | ExprKind::ScopeArgGiven(_)
        | ExprKind::Impossible
        | ExprKind::ImpossibleMessage(_)
        | ExprKind::Empty => {}
        ExprKind::DebugPrint { expr, .. } => renumber_slots(expr, map),
        ExprKind::Let { slot, value, body } => {
            rn(slot, map);
            renumber_slots(value, map);
            renumber_slots(body, map);
        }
        ExprKind::Assert { check, next, .. } => {
            renumber_slots(check, map);
            renumber_slots(next, map);
        }
        ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            renumber_slots(cond, map);
            renumber_slots(then_branch, map);
            renumber_slots(else_branch, map);
        }
        ExprKind::Lambda(l) => {
            let l = Arc::make_mut(l);
            for c in &mut l.captures {
                rn(c, map);
            }
        }
        ExprKind::Apply { func, args } => {
            renumber_slots(func, map);
            args.iter_mut().for_each(|a| renumber_slots(a, map));
        }
        ExprKind::StructNew { fields, .. } => {
            fields.iter_mut().for_each(|a| renumber_slots(a, map))
        }
        ExprKind::StructField { expr, .. }
        | ExprKind::IsCase { expr, .. }
        | ExprKind::TupleGet { expr, .. } => renumber_slots(expr, map),
        ExprKind::EnumInject { payload, .. } => {
            if let Some(p) = payload {
                renumber_slots(p, map);
            }
        }
        ExprKind::Match { expr, arms, .. } => {
            renumber_slots(expr, map);
            for arm in arms {
                if let Some(b) = &mut arm.binder {
                    rn(b, map);
                }
                renumber_slots(&mut arm.body, map);
            }
        }
        ExprKind::ListFind {
            binder, list, cond, ..
        } => {
            rn(binder, map);
            renumber_slots(list, map);
            renumber_slots(cond, map);
        }
        ExprKind::ListSort {
            binder, list, keys, ..
        } => {
            if let Some(b) = binder {
                rn(b, map);
            }
            renumber_slots(list, map);
            keys.iter_mut().for_each(|k| renumber_slots(k, map));
        }
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::ListZip(es)
        | ExprKind::External { args: es, .. } => es.iter_mut().for_each(|a| renumber_slots(a, map)),
        ExprKind::ListMap {
            binder,
            list,
            body: x,
        }
        | ExprKind::ListFilter {
            binder,
            list,
            cond: x,
        }
        | ExprKind::ListExists {
            binder,
            list,
            cond: x,
        }
        | ExprKind::ListForAll {
            binder,
            list,
            cond: x,
        } => {
            rn(binder, map);
            renumber_slots(list, map);
            renumber_slots(x, map);
        }
        ExprKind::ListFold {
            binder,
            acc,
            list,
            init,
            step,
        } => {
            rn(binder, map);
            rn(acc, map);
            renumber_slots(list, map);
            renumber_slots(init, map);
            renumber_slots(step, map);
        }
        ExprKind::ListAggregate { list, default, .. } => {
            renumber_slots(list, map);
            if let Some(d) = default {
                renumber_slots(d, map);
            }
        }
        ExprKind::ListArgExtremum {
            binder,
            list,
            key,
            default,
            ..
        } => {
            rn(binder, map);
            renumber_slots(list, map);
            renumber_slots(key, map);
            if let Some(d) = default {
                renumber_slots(d, map);
            }
        }
        ExprKind::ListContains { list, elem } => {
            renumber_slots(list, map);
            renumber_slots(elem, map);
        }
        ExprKind::ScopeCall { args, .. } => args
            .iter_mut()
            .flatten()
            .for_each(|a| renumber_slots(a, map)),
        ExprKind::Unary { arg, .. } => renumber_slots(arg, map),
        ExprKind::Binary { lhs, rhs, .. } => {
            renumber_slots(lhs, map);
            renumber_slots(rhs, map);
        }
        ExprKind::Default {
            exceptions,
            justification,
            consequence,
        } => {
            exceptions.iter_mut().for_each(|a| renumber_slots(a, map));
            renumber_slots(justification, map);
            renumber_slots(consequence, map);
        }
        ExprKind::PureDefault(x) | ExprKind::ErrorOnEmpty { expr: x, .. } => renumber_slots(x, map),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catala_syntax::Span;

    fn local(s: u32) -> Expr {
        Expr::new(ExprKind::Local(Slot(s)), Span::default())
    }

    #[test]
    fn closure_frames_put_captures_before_parameters() {
        let mut frames = Frames::new(3);
        let params = frames.open_closure(1);
        assert_eq!(params, vec![Slot(0)]);
        // A local allocated before the capture is discovered.
        let tmp = frames.alloc();
        assert_eq!(tmp, Slot(1));
        // The body reads outer slot 2 of the base frame.
        let captured = frames.access(0, Slot(2));
        assert_eq!(captured, Slot(2));
        let body = Expr::new(
            ExprKind::Tuple(vec![local(0), local(1), local(2)]),
            Span::default(),
        );
        let lambda = frames.close_closure(vec![("x".into(), Ty::Integer)], body);
        assert_eq!(lambda.captures, vec![Slot(2)]);
        assert_eq!(lambda.frame_size, 3);
        let ExprKind::Tuple(es) = &lambda.body.kind else {
            panic!("body kind changed")
        };
        let slots: Vec<u32> = es
            .iter()
            .map(|e| match e.kind {
                ExprKind::Local(s) => s.0,
                _ => u32::MAX,
            })
            .collect();
        // param 0 -> 1 (after the capture), tmp 1 -> 2, capture 2 -> 0.
        assert_eq!(slots, vec![1, 2, 0]);
        assert_eq!(lambda.param_slot(0), Slot(1));
    }
}
