//! `Prorata_external`, the example external module of Catala's own test suite (its modules
//! tests call it): share an amount of money between weights.
//! - `prorata amount weights`: each share is `amount × (w / total)` rounded to the cent; the
//!   rounding errors all go to the last share, so the shares add up to `amount`.
//! - `prorata2 amount weights`: each share is `remaining amount × (w / remaining weights)`, so
//!   the rounding errors are spread along the way.

use super::{ExternalError, Externals};
use crate::eval::RuntimeErrorKind;
use crate::runtime::value::{money_div_money, money_mul_decimal};
use crate::runtime::{Integer, Value};

/// Registers `Prorata_external`.
pub(crate) fn register(e: &mut Externals) {
    e.register("Prorata_external", "prorata", |args, _| {
        let (amount, weights) = amount_and_weights(args)?;
        let total = weights.iter().fold(Integer::from(0), |acc, w| acc.add(w));
        let mut remaining = amount.clone();
        let mut shares = Vec::with_capacity(weights.len());
        for w in &weights {
            let ratio = money_div_money(w, &total).map_err(|_| division_by_zero())?;
            let share = money_mul_decimal(&amount, &ratio);
            remaining = remaining.sub(&share);
            shares.push(share);
        }
        if let Some(last) = shares.last_mut() {
            *last = last.add(&remaining);
        }
        Ok(money_list(shares))
    });
    e.register("Prorata_external", "prorata2", |args, _| {
        let (amount, weights) = amount_and_weights(args)?;
        let mut rem_amount = amount;
        let mut rem_weights = weights.iter().fold(Integer::from(0), |acc, w| acc.add(w));
        let mut shares = Vec::with_capacity(weights.len());
        for w in &weights {
            let ratio = money_div_money(w, &rem_weights).map_err(|_| division_by_zero())?;
            let share = money_mul_decimal(&rem_amount, &ratio);
            rem_amount = rem_amount.sub(&share);
            rem_weights = rem_weights.sub(w);
            shares.push(share);
        }
        Ok(money_list(shares))
    });
}

fn division_by_zero() -> ExternalError {
    ExternalError::Runtime(RuntimeErrorKind::DivisionByZero)
}

fn money_list(shares: Vec<Integer>) -> Value {
    Value::List(
        shares
            .into_iter()
            .map(Value::Money)
            .collect::<Vec<_>>()
            .into(),
    )
}

fn amount_and_weights(args: &[Value]) -> Result<(Integer, Vec<Integer>), ExternalError> {
    let [Value::Money(amount), Value::List(weights)] = args else {
        return Err(ExternalError::message(
            "prorata expects an amount of money and a list of money",
        ));
    };
    let weights = weights
        .iter()
        .map(|w| match w {
            Value::Money(m) => Ok(m.clone()),
            _ => Err(ExternalError::message("prorata expects a list of money")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((amount.clone(), weights))
}
