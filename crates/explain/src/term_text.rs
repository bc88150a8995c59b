//! Comparisons that are not bounds on one input, as text over the inputs' names: a linear
//! comparison of several inputs in their units (`rent - 0.25 * income > 200`), anything else
//! (rounding, products, calendar functions) as the term itself.

use crate::inputs::{negate, Inputs, Unit};
use crate::linear::Linear;
use crate::numset::Cmp;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use smt::catala::{Op, Term, TermNode};

/// An exact decimal when the rational has one (denominator of 2s and 5s), else `n/d`.
pub(crate) fn exact(q: &BigRational) -> String {
    let mut d = q.denom().clone();
    let mut places = 0usize;
    let (two, five) = (BigInt::from(2), BigInt::from(5));
    while (&d % &two).is_zero() || (&d % &five).is_zero() {
        if (&d % &two).is_zero() {
            d /= &two;
        } else {
            d /= &five;
        }
        places += 1;
    }
    if !d.is_one() {
        return format!("{}/{}", q.numer(), q.denom());
    }
    if places == 0 {
        return q.numer().to_string();
    }
    let scaled = (q * BigRational::from_integer(BigInt::from(10).pow(places as u32))).to_integer();
    let sign = if scaled.is_negative() { "-" } else { "" };
    let digits = format!("{:0>width$}", scaled.abs(), width = places + 1);
    let (w, f) = digits.split_at(digits.len() - places);
    let f = f.trim_end_matches('0');
    if f.is_empty() {
        format!("{sign}{w}")
    } else {
        format!("{sign}{w}.{f}")
    }
}

fn symbol(c: Cmp) -> &'static str {
    match c {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
        Cmp::Eq => "=",
        Cmp::Ne => "!=",
    }
}

fn comparison(op: Op) -> Option<Cmp> {
    Some(match op {
        Op::Lt => Cmp::Lt,
        Op::Le => Cmp::Le,
        Op::Gt => Cmp::Gt,
        Op::Ge => Cmp::Ge,
        Op::Eq => Cmp::Eq,
        _ => return None,
    })
}

/// `(x, k)` when `t` is `year_of(x) + k` with a constant `k`.
fn year_plus(t: &Term) -> Option<(&Term, &str)> {
    let TermNode::App(Op::Add, args) = &**t else {
        return None;
    };
    let [y, k] = args.as_slice() else {
        return None;
    };
    let (TermNode::App(Op::YearOf, x), TermNode::Int(k)) = (&**y, &**k) else {
        return None;
    };
    Some((x.first()?, k.as_str()))
}

/// `x` when `t` is `op(x)`.
fn unary(t: &Term, op: Op) -> Option<&Term> {
    match &**t {
        TermNode::App(o, args) if *o == op && args.len() == 1 => args.first(),
        _ => None,
    }
}

/// `date(year_of(x) + k, month_of(x), 1) + (day_of(x) − 1)`: the date `x` plus `k` years,
/// counted on past the month's end (as Catala adds years).
fn plus_years(t: &Term) -> Option<(&Term, &str)> {
    let TermNode::App(Op::Add, args) = &**t else {
        return None;
    };
    let [start, offset] = args.as_slice() else {
        return None;
    };
    let TermNode::App(Op::DayNumber, ymd) = &**start else {
        return None;
    };
    let [y, m, one] = ymd.as_slice() else {
        return None;
    };
    let (x, k) = year_plus(y)?;
    let same = unary(m, Op::MonthOf)? == x;
    let TermNode::App(Op::Sub, d) = &**offset else {
        return None;
    };
    let first = matches!(&**one, TermNode::Int(s) if s == "1");
    let day_minus_one = matches!(d.as_slice(), [dd, o] if unary(dd, Op::DayOf) == Some(x)
        && matches!(&**o, TermNode::Int(s) if s == "1"));
    (same && first && day_minus_one).then_some((x, k))
}

/// `day_of(x) <= days_in_month(year_of(x) + k, month_of(x))`: the day `k` years after `x`
/// exists (false only for a 29 February moved to a year that is not a leap year).
fn day_exists_after_years(t: &Term) -> Option<(&Term, &str)> {
    let TermNode::App(Op::Le, args) = &**t else {
        return None;
    };
    let [d, dim] = args.as_slice() else {
        return None;
    };
    let x = unary(d, Op::DayOf)?;
    let TermNode::App(Op::DaysInMonth, ym) = &**dim else {
        return None;
    };
    let [y, m] = ym.as_slice() else {
        return None;
    };
    let (xy, k) = year_plus(y)?;
    (xy == x && unary(m, Op::MonthOf)? == x).then_some((x, k))
}

fn years(k: &str) -> String {
    if k == "1" || k == "-1" {
        format!("{k} year")
    } else {
        format!("{k} years")
    }
}

/// The text of a literal and of its negation.
pub(crate) fn literal_texts(t: &Term, inputs: &Inputs) -> (String, String) {
    if let Some((x, k)) = day_exists_after_years(t) {
        let x = term_text(x, inputs);
        let k = years(k);
        return (
            format!("{x} + {k} is a day of the calendar"),
            format!("{x} + {k} is not a day of the calendar ({x} is a 29 February)"),
        );
    }
    if let TermNode::App(op, args) = &**t {
        if let (Some(cmp), [a, b]) = (comparison(*op), args.as_slice()) {
            if a.kind() != smt::catala::Kind::Bool {
                if let (Some(la), Some(lb)) = (Linear::of(a), Linear::of(b)) {
                    let l = la.minus(lb);
                    return (
                        linear_text(&l, cmp, inputs),
                        linear_text(&l, negate(cmp), inputs),
                    );
                }
            }
        }
    }
    if let TermNode::App(op, args) = &**t {
        if let (Some(cmp), [a, b]) = (comparison(*op), args.as_slice()) {
            if a.kind() != smt::catala::Kind::Bool {
                let (a, b) = (term_text(a, inputs), term_text(b, inputs));
                return (
                    format!("{a} {} {b}", symbol(cmp)),
                    format!("{a} {} {b}", symbol(negate(cmp))),
                );
            }
        }
    }
    let text = term_text(t, inputs);
    (text.clone(), format!("not ({text})"))
}

/// `Σ c·x + k cmp 0` written with money in units and the first coefficient 1.
fn linear_text(l: &Linear, cmp: Cmp, inputs: &Inputs) -> String {
    let hundred = BigRational::from_integer(BigInt::from(100));
    let terms: Vec<(String, BigRational)> = l
        .coefficients
        .iter()
        .map(|(v, c)| {
            let info = inputs.info(*v);
            let c = if info.unit == Unit::Money {
                c * &hundred
            } else {
                c.clone()
            };
            (info.name, c)
        })
        .collect();
    let coefficients: Vec<BigRational> = terms.iter().map(|(_, c)| c.clone()).collect();
    let Some(lead) = crate::inputs::divisor(&coefficients) else {
        return format!("{} {} 0", exact(&l.constant), symbol(cmp));
    };
    let cmp = if lead.is_negative() {
        crate::inputs::flip(cmp)
    } else {
        cmp
    };
    let normalized: Vec<(String, BigRational)> = terms
        .into_iter()
        .map(|(name, c)| (name, c / &lead))
        .collect();
    let text = sum_text(&normalized);
    format!("{text} {} {}", symbol(cmp), exact(&(-&l.constant / lead)))
}

/// `Σ cᵢ·nameᵢ` as text: `12 * years + months`, `rent - 0.25 * income`.
pub(crate) fn sum_text(terms: &[(String, BigRational)]) -> String {
    let mut text = String::new();
    for (i, (name, c)) in terms.iter().enumerate() {
        let magnitude = c.abs();
        let sign = match (i, c.is_negative()) {
            (0, true) => "-",
            (0, false) => "",
            (_, true) => " - ",
            (_, false) => " + ",
        };
        let coefficient = if magnitude.is_one() {
            String::new()
        } else {
            format!("{} * ", exact(&magnitude))
        };
        text.push_str(&format!("{sign}{coefficient}{name}"));
    }
    text
}

/// A date input compared with a constant day number: the constant reads as a date.
fn date_comparison(args: &[Term], inputs: &Inputs) -> bool {
    let date = |t: &Term| matches!(&**t, TermNode::Var(v, _) if inputs.info(*v).unit == Unit::Date);
    let constant = |t: &Term| matches!(&**t, TermNode::Int(_));
    matches!(args, [a, b] if date(a) && constant(b) || constant(a) && date(b))
}

/// A day number as a Catala date literal, `|2024-06-01|`.
fn date_literal(days: &str) -> String {
    match days.parse::<i64>() {
        Ok(n) => {
            let (y, m, d) = crate::render::civil_from_days(n);
            format!("|{y:04}-{m:02}-{d:02}|")
        }
        Err(_) => days.to_string(),
    }
}

/// `x = k` for an enumeration input `x` and a case number `k`, as `x = Case`.
fn choice_case(args: &[Term], inputs: &Inputs) -> Option<String> {
    let (v, k) = match args {
        [a, b] => match (&**a, &**b) {
            (TermNode::Var(v, _), TermNode::Int(k)) | (TermNode::Int(k), TermNode::Var(v, _)) => {
                (*v, k)
            }
            _ => return None,
        },
        _ => return None,
    };
    let info = inputs.info(v);
    let Unit::Choice(names) = &info.unit else {
        return None;
    };
    let case = names.get(k.parse::<usize>().ok()?)?;
    Some(format!("{} = {case}", info.name))
}

/// A term written out; money inputs read in cents here (`cents(income)`).
pub(crate) fn term_text(t: &Term, inputs: &Inputs) -> String {
    match &**t {
        TermNode::Var(v, _) => {
            let info = inputs.info(*v);
            if info.unit == Unit::Money {
                format!("cents({})", info.name)
            } else {
                info.name
            }
        }
        TermNode::Bool(b) => b.to_string(),
        TermNode::Int(s) => s.clone(),
        TermNode::Real(n, d) => match crate::linear::rational(n, d) {
            Some(q) => exact(&q),
            None => format!("{n}/{d}"),
        },
        TermNode::App(..) if plus_years(t).is_some() => match plus_years(t) {
            Some((x, k)) => format!("({} + {})", term_text(x, inputs), years(k)),
            None => String::new(),
        },
        TermNode::App(op, args) => {
            let parts: Vec<String> = args.iter().map(|a| term_text(a, inputs)).collect();
            let infix = |s: &str| format!("({})", parts.join(s));
            match op {
                Op::Not => format!("not {}", parts.join("")),
                Op::And => infix(" and "),
                Op::Or => infix(" or "),
                Op::Xor => infix(" xor "),
                Op::Add => infix(" + "),
                Op::Sub => infix(" - "),
                Op::Mul => infix(" * "),
                Op::Div => infix(" / "),
                Op::Neg => format!("-{}", parts.join("")),
                Op::ToReal => parts.join(""),
                Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq if date_comparison(args, inputs) => {
                    let side = |a: &Term| match &**a {
                        TermNode::Int(k) => date_literal(k),
                        _ => term_text(a, inputs),
                    };
                    let symbol = match op {
                        Op::Lt => "<",
                        Op::Le => "<=",
                        Op::Gt => ">",
                        Op::Ge => ">=",
                        _ => "=",
                    };
                    format!("{} {symbol} {}", side(&args[0]), side(&args[1]))
                }
                Op::Lt => parts.join(" < "),
                Op::Le => parts.join(" <= "),
                Op::Gt => parts.join(" > "),
                Op::Ge => parts.join(" >= "),
                Op::Eq => match choice_case(args, inputs) {
                    Some(text) => text,
                    None => parts.join(" = "),
                },
                Op::Ite => match parts.as_slice() {
                    [c, a, b] => format!("(if {c} then {a} else {b})"),
                    _ => format!("ite({})", parts.join(", ")),
                },
                Op::Round => format!("round({})", parts.join(", ")),
                Op::Truncate => format!("truncate({})", parts.join(", ")),
                Op::IntDiv => format!("floor_div({})", parts.join(", ")),
                Op::Mod => format!("mod({})", parts.join(", ")),
                Op::YearOf => format!("year_of({})", parts.join(", ")),
                Op::MonthOf => format!("month_of({})", parts.join(", ")),
                Op::DayOf => format!("day_of({})", parts.join(", ")),
                Op::DaysInMonth => format!("days_in_month({})", parts.join(", ")),
                Op::DayNumber => format!("date({})", parts.join(", ")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::VarInfo;
    use smt::catala::term::{app, int_const, var};
    use smt::catala::{Kind, VarId};

    #[test]
    fn adding_years_to_a_date_reads_as_such() {
        let inputs = Inputs::new(
            [(
                VarId(0),
                VarInfo {
                    name: "begin".into(),
                    unit: Unit::Date,
                },
            )],
            &[],
        );
        let x = var(VarId(0), Kind::Int);
        let year5 = app(
            Op::Add,
            vec![app(Op::YearOf, vec![x.clone()]), int_const("5")],
        );
        let month = app(Op::MonthOf, vec![x.clone()]);
        let day = app(Op::DayOf, vec![x.clone()]);
        let later = app(
            Op::Add,
            vec![
                app(
                    Op::DayNumber,
                    vec![year5.clone(), month.clone(), int_const("1")],
                ),
                app(Op::Sub, vec![day.clone(), int_const("1")]),
            ],
        );
        assert_eq!(term_text(&later, &inputs), "(begin + 5 years)");
        let exists = app(Op::Le, vec![day, app(Op::DaysInMonth, vec![year5, month])]);
        let (pos, neg) = literal_texts(&exists, &inputs);
        assert_eq!(pos, "begin + 5 years is a day of the calendar");
        assert_eq!(
            neg,
            "begin + 5 years is not a day of the calendar (begin is a 29 February)"
        );
        // Other comparisons are negated by their operator.
        let (pos, neg) = literal_texts(&app(Op::Le, vec![x.clone(), later]), &inputs);
        assert_eq!(pos, "begin <= (begin + 5 years)");
        assert_eq!(neg, "begin > (begin + 5 years)");
    }

    #[test]
    fn rationals_print_as_exact_decimals_or_fractions() {
        let q = |n: i64, d: i64| BigRational::new(BigInt::from(n), BigInt::from(d));
        assert_eq!(exact(&q(1, 4)), "0.25");
        assert_eq!(exact(&q(-5, 2)), "-2.5");
        assert_eq!(exact(&q(200, 1)), "200");
        assert_eq!(exact(&q(1, 3)), "1/3");
        assert_eq!(exact(&q(1, 100)), "0.01");
    }
}
