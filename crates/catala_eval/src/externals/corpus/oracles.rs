//! `Oracles`, the external module of the income-tax program (`impot_revenu`): carrying prior
//! deficits forward onto a declared income, oldest first, and splitting an amount pro rata over
//! bases with every share rounded to the euro (article 193 of the French tax code) while the
//! shares still add up to the amount.
//!
//! Written from the module's documentation (`impot_revenu/oracles.catala_fr` in
//! CatalaLang/catala-examples) and the behaviour of its reference implementation there, which
//! the expected results of the program's tests come from:
//!
//! * `imputation_aux_déficits_les_plus_anciens of income, deficits`: the deficits are taken by
//!   increasing year (deficits of the same year keep their order); each one that does not exceed
//!   what is left of the income is subtracted from it and disappears; the first one that exceeds
//!   it is reduced by that remainder, the income becomes 0 € and that deficit and the later ones
//!   are returned.
//! * `prorata_arrondi_euro of amount, bases`: every share `amount × base / Σ bases` is rounded
//!   to the euro (half away from zero), remembering whether it went up or down. The rounded
//!   shares miss the amount by some whole number of euros `Δ`; `Δ` of the shares rounded in the
//!   direction of the error get their rounding reversed (one euro back), chosen spread along the
//!   list: scanning it, a share rounded the right way is reversed when `|Δ left| × (shares seen
//!   since the last reversal, counting from 1) > shares rounded that way not yet seen (this one
//!   included)`. The amount must be in whole euros, the bases non-negative and, unless the amount
//!   is zero, not all zero (otherwise the call fails, as the reference's assertions do).
//! * `prorata_arrondi_euro_listes`: the same over the concatenation of several lists, the
//!   result cut back into lists of the same lengths.
//! * `prorata_arrondi_euro_branchement`: the same over nine optional bases (absent counts as
//!   0 €) followed by nine lists, returned as the fields of `RésultatProRataArrondiEuroBranchement`
//!   (the reference implementation copies the ninth list twice and so fails when it is not
//!   empty, which no program of the corpus does; here it is treated like the other eight).

use crate::externals::{ExternalContext, ExternalError, Externals};
use crate::runtime::{Decimal, Integer, Value};
use std::rc::Rc;

/// Module name, as declared by `> Module Oracles external`.
const MODULE: &str = "Oracles";

/// Registers the four declarations of `Oracles`.
pub(crate) fn register(e: &mut Externals) {
    e.register(
        MODULE,
        "imputation_aux_déficits_les_plus_anciens",
        imputation_aux_deficits_les_plus_anciens,
    );
    e.register(MODULE, "prorata_arrondi_euro", |args, _ctx| match args {
        [amount, bases] => {
            let what = "Oracles.prorata_arrondi_euro";
            let amount = money(amount, what)?;
            let bases = money_list(bases, what)?;
            let shares = prorata_rounded_to_euro(amount, &bases, what)?;
            Ok(money_list_value(shares))
        }
        _ => Err(arity("Oracles.prorata_arrondi_euro", 2, args.len())),
    });
    e.register(MODULE, "prorata_arrondi_euro_listes", |args, _ctx| {
        let what = "Oracles.prorata_arrondi_euro_listes";
        match args {
            [amount, lists] => {
                let amount = money(amount, what)?;
                let lists = list(lists, what)?
                    .iter()
                    .map(|l| money_list(l, what))
                    .collect::<Result<Vec<_>, _>>()?;
                let result = prorata_over_lists(amount, &lists, what)?;
                Ok(Value::List(
                    result
                        .into_iter()
                        .map(money_list_value)
                        .collect::<Rc<[_]>>(),
                ))
            }
            _ => Err(arity(what, 2, args.len())),
        }
    });
    e.register(
        MODULE,
        "prorata_arrondi_euro_branchement",
        prorata_arrondi_euro_branchement,
    );
}

/// `imputation_aux_déficits_les_plus_anciens of revenu_déclaré, déficits_antérieurs`.
fn imputation_aux_deficits_les_plus_anciens(
    args: &[Value],
    ctx: &ExternalContext<'_>,
) -> Result<Value, ExternalError> {
    let what = "Oracles.imputation_aux_déficits_les_plus_anciens";
    let [income, deficits] = args else {
        return Err(arity(what, 2, args.len()));
    };
    let mut income = money(income, what)?;
    let deficit = StructLayout::find(ctx, "DéficitAntérieur", &["année", "valeur"], what)?;
    let result = StructLayout::find(
        ctx,
        "RésultatImputation",
        &["revenu_imputé", "déficits_antérieurs_restants"],
        what,
    )?;
    // (year, amount, the deficit value itself), by increasing year; the sort is stable.
    let mut sorted = Vec::new();
    for d in list(deficits, what)?.iter() {
        let fields = deficit.fields_of(d, what)?;
        let year = match &fields[0] {
            Value::Integer(y) => y.clone(),
            _ => return Err(bad_argument(what, "a deficit's year is not an integer")),
        };
        let amount = money(&fields[1], what)?;
        sorted.push((year, amount, d.clone()));
    }
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut remaining = Vec::new();
    let mut rest = sorted.into_iter();
    for (year, amount, _) in rest.by_ref() {
        if amount > income {
            let reduced = amount.sub(&income);
            income = Integer::ZERO;
            remaining.push(deficit.build(vec![Value::Integer(year), Value::Money(reduced)]));
            break;
        }
        income = income.sub(&amount);
    }
    remaining.extend(rest.map(|(_, _, value)| value));
    Ok(result.build(vec![
        Value::Money(income),
        Value::List(remaining.into_iter().collect::<Rc<[_]>>()),
    ]))
}

/// `prorata_arrondi_euro_branchement of montant, base_1, …, base_9, liste_1, …, liste_9`.
fn prorata_arrondi_euro_branchement(
    args: &[Value],
    ctx: &ExternalContext<'_>,
) -> Result<Value, ExternalError> {
    let what = "Oracles.prorata_arrondi_euro_branchement";
    if args.len() != 19 {
        return Err(arity(what, 19, args.len()));
    }
    let amount = money(&args[0], what)?;
    let option = ctx.program().option_enum.map(|id| id.0);
    let mut groups: Vec<Vec<Integer>> = Vec::with_capacity(18);
    for a in &args[1..10] {
        let base = match a {
            Value::Enum(e) if Some(e.enum_id) == option && e.case == 0 => Integer::ZERO,
            Value::Enum(e) if Some(e.enum_id) == option && e.case == 1 => money(&e.payload, what)?,
            _ => {
                return Err(bad_argument(
                    what,
                    "a single base is not an optional amount",
                ))
            }
        };
        groups.push(vec![base]);
    }
    for a in &args[10..19] {
        groups.push(money_list(a, what)?);
    }
    let mut fields: Vec<String> = (1..=9).map(|i| format!("valeur_proratisée_{i}")).collect();
    fields.extend((1..=9).map(|i| format!("valeurs_proratisées_liste_{i}")));
    let names: Vec<&str> = fields.iter().map(String::as_str).collect();
    let layout = StructLayout::find(ctx, "RésultatProRataArrondiEuroBranchement", &names, what)?;
    let shares = prorata_over_lists(amount, &groups, what)?;
    let values = shares
        .into_iter()
        .enumerate()
        .map(|(i, group)| {
            if i < 9 {
                group
                    .into_iter()
                    .next()
                    .map(Value::Money)
                    .unwrap_or_else(|| Value::Money(Integer::ZERO))
            } else {
                money_list_value(group)
            }
        })
        .collect();
    Ok(layout.build(values))
}

/// The pro rata of `amount` over the concatenation of `lists`, cut back to their lengths.
fn prorata_over_lists(
    amount: Integer,
    lists: &[Vec<Integer>],
    what: &str,
) -> Result<Vec<Vec<Integer>>, ExternalError> {
    let flat: Vec<Integer> = lists.iter().flatten().cloned().collect();
    let mut shares = prorata_rounded_to_euro(amount, &flat, what)?.into_iter();
    Ok(lists
        .iter()
        .map(|l| shares.by_ref().take(l.len()).collect())
        .collect())
}

/// Which way a share was rounded to the euro.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounded {
    Up,
    Down,
    Exact,
}

/// The shares (in cents, each a whole number of euros) of `amount` (in cents) pro rata of
/// `bases` (in cents): see the module documentation.
fn prorata_rounded_to_euro(
    amount: Integer,
    bases: &[Integer],
    what: &str,
) -> Result<Vec<Integer>, ExternalError> {
    if bases.iter().any(|b| b.signum() < 0) {
        return Err(bad_argument(what, "a pro rata base is negative"));
    }
    if !amount.is_zero() && bases.iter().all(Integer::is_zero) {
        return Err(bad_argument(
            what,
            "the pro rata bases are all zero but the amount to distribute is not",
        ));
    }
    let hundred = Integer::from(100);
    if !amount.div_rem(&hundred).1.is_zero() {
        return Err(bad_argument(
            what,
            "the amount to distribute is not a whole number of euros",
        ));
    }
    let total = bases.iter().fold(Integer::ZERO, |acc, b| acc.add(b));
    // Each share in euros, rounded, with the direction of its rounding.
    let rounded: Vec<(Integer, Rounded)> = bases
        .iter()
        .map(|base| {
            if total.is_zero() {
                return (Integer::ZERO, Rounded::Exact);
            }
            let exact = Decimal::from_ratio(&amount.mul(base), &total.mul(&hundred));
            let euros = exact.round();
            let direction = match Decimal::from_integer(&euros).cmp(&exact) {
                std::cmp::Ordering::Greater => Rounded::Up,
                std::cmp::Ordering::Less => Rounded::Down,
                std::cmp::Ordering::Equal => Rounded::Exact,
            };
            (euros, direction)
        })
        .collect();
    let count = |d: Rounded| rounded.iter().filter(|(_, r)| *r == d).count() as i64;
    let (mut ups_left, mut downs_left) = (count(Rounded::Up), count(Rounded::Down));
    // Δ: how many euros the rounded shares exceed the amount by (negative when they fall short).
    let sum = rounded.iter().fold(Integer::ZERO, |acc, (e, _)| acc.add(e));
    let excess = sum.sub(&amount.div_rem(&hundred).0);
    let mut delta = excess
        .to_i64()
        .filter(|d| *d <= ups_left && -*d <= downs_left)
        .ok_or_else(|| bad_argument(what, "the rounding error cannot be corrected"))?;
    let mut since_reversal: i64 = 1;
    let mut shares = Vec::with_capacity(rounded.len());
    for (euros, direction) in rounded {
        let (ups_before, downs_before) = (ups_left, downs_left);
        match direction {
            Rounded::Up => ups_left -= 1,
            Rounded::Down => downs_left -= 1,
            Rounded::Exact => {}
        }
        let mut share = euros;
        if delta == 0 {
            since_reversal = since_reversal.saturating_add(1);
        } else {
            let pending_same_way = match (delta > 0, direction) {
                (true, Rounded::Up) => Some(ups_before),
                (false, Rounded::Down) => Some(downs_before),
                _ => None,
            };
            if let Some(pending) = pending_same_way {
                if delta.abs().saturating_mul(since_reversal) > pending {
                    let step = if delta > 0 { -1 } else { 1 };
                    share = share.add(&Integer::from(step));
                    delta += step;
                    since_reversal = 1;
                } else {
                    since_reversal = since_reversal.saturating_add(1);
                }
            }
        }
        shares.push(share.mul(&hundred));
    }
    Ok(shares)
}

/// A structure declared by the module, found by name and field names, with the position of
/// each expected field among the declared ones.
struct StructLayout {
    id: u32,
    /// `positions[i]`: index in the declaration of the `i`-th expected field.
    positions: Vec<usize>,
}

impl StructLayout {
    fn find(
        ctx: &ExternalContext<'_>,
        name: &str,
        fields: &[&str],
        what: &str,
    ) -> Result<StructLayout, ExternalError> {
        let program = ctx.program();
        program
            .structs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.name == name && s.fields.len() == fields.len())
            .find_map(|(id, s)| {
                let positions = fields
                    .iter()
                    .map(|f| s.fields.iter().position(|d| d.name == *f))
                    .collect::<Option<Vec<_>>>()?;
                Some(StructLayout {
                    id: id as u32,
                    positions,
                })
            })
            .ok_or_else(|| {
                ExternalError::message(format!(
                    "{what}: the program declares no structure {name} with fields {}",
                    fields.join(", ")
                ))
            })
    }

    /// The expected fields of `v`, in the expected order.
    fn fields_of(&self, v: &Value, what: &str) -> Result<Vec<Value>, ExternalError> {
        match v {
            Value::Struct(s) if s.struct_id == self.id => self
                .positions
                .iter()
                .map(|&p| s.fields.get(p).cloned())
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad_argument(what, "a structure lacks a field")),
            _ => Err(bad_argument(
                what,
                "a value is not of the expected structure",
            )),
        }
    }

    /// The structure whose expected fields are `values` (in the expected order).
    fn build(&self, values: Vec<Value>) -> Value {
        let mut fields = vec![Value::Unit; self.positions.len()];
        for (&p, v) in self.positions.iter().zip(values) {
            if let Some(slot) = fields.get_mut(p) {
                *slot = v;
            }
        }
        Value::new_struct(self.id, fields)
    }
}

fn money(v: &Value, what: &str) -> Result<Integer, ExternalError> {
    match v {
        Value::Money(c) => Ok(c.clone()),
        _ => Err(bad_argument(what, "an amount of money was expected")),
    }
}

fn list<'v>(v: &'v Value, what: &str) -> Result<&'v Rc<[Value]>, ExternalError> {
    match v {
        Value::List(l) => Ok(l),
        _ => Err(bad_argument(what, "a list was expected")),
    }
}

fn money_list(v: &Value, what: &str) -> Result<Vec<Integer>, ExternalError> {
    list(v, what)?.iter().map(|m| money(m, what)).collect()
}

fn money_list_value(cents: Vec<Integer>) -> Value {
    Value::List(cents.into_iter().map(Value::Money).collect::<Rc<[_]>>())
}

fn arity(what: &str, expected: usize, got: usize) -> ExternalError {
    ExternalError::message(format!(
        "{what} expects {expected} arguments, it was given {got}"
    ))
}

fn bad_argument(what: &str, why: &str) -> ExternalError {
    ExternalError::message(format!("{what}: {why}"))
}
