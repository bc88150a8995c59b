//! Operator overload resolution: picks the [`BinaryOp`]/[`UnaryOp`] for the operand types of a
//! surface operator or built-in, following the legal combinations of Catala
//! (`resolve_overload_aux`), and gives the result type. Operand order may be swapped for the
//! commutative mixed forms (`integer × money` becomes `money × integer`).

use crate::dcalc::{BinaryOp, CmpType, DateRounding, Ty, UnaryOp};
use catala_syntax::ast::{BinOp, Builtin, UnOp};

/// A resolved binary operator: the operator, whether the operands must be swapped, and the
/// result type.
pub(crate) struct ResolvedBinary {
    pub op: BinaryOp,
    pub swap: bool,
    pub result: Ty,
}

/// The comparison type of operands of type `ty`, if comparable with `<`.
pub(crate) fn cmp_type(ty: &Ty) -> Option<CmpType> {
    match ty {
        Ty::Integer => Some(CmpType::Integer),
        Ty::Decimal => Some(CmpType::Decimal),
        Ty::Money => Some(CmpType::Money),
        Ty::Date => Some(CmpType::Date),
        Ty::Duration => Some(CmpType::Duration),
        _ => None,
    }
}

/// Resolves `lhs op rhs` for the given operand types, or `None` when the combination is not
/// legal. `rounding` is the date rounding mode of the enclosing scope.
pub(crate) fn resolve_binary(
    op: BinOp,
    lhs: &Ty,
    rhs: &Ty,
    rounding: DateRounding,
) -> Option<ResolvedBinary> {
    use BinaryOp as B;
    use Ty::*;
    let straight = |op: BinaryOp, result: Ty| {
        Some(ResolvedBinary {
            op,
            swap: false,
            result,
        })
    };
    let swapped = |op: BinaryOp, result: Ty| {
        Some(ResolvedBinary {
            op,
            swap: true,
            result,
        })
    };
    match (op, lhs, rhs) {
        (BinOp::And, Bool, Bool) => straight(B::And, Bool),
        (BinOp::Or, Bool, Bool) => straight(B::Or, Bool),
        (BinOp::Xor, Bool, Bool) => straight(B::Xor, Bool),
        (BinOp::Add, Integer, Integer) => straight(B::AddIntInt, Integer),
        (BinOp::Add, Decimal, Decimal) => straight(B::AddDecDec, Decimal),
        (BinOp::Add, Money, Money) => straight(B::AddMonMon, Money),
        (BinOp::Add, Duration, Duration) => straight(B::AddDurDur, Duration),
        (BinOp::Add, Date, Duration) => straight(B::AddDatDur(rounding), Date),
        (BinOp::Add, Duration, Date) => swapped(B::AddDatDur(rounding), Date),
        (BinOp::Sub, Integer, Integer) => straight(B::SubIntInt, Integer),
        (BinOp::Sub, Decimal, Decimal) => straight(B::SubDecDec, Decimal),
        (BinOp::Sub, Money, Money) => straight(B::SubMonMon, Money),
        (BinOp::Sub, Duration, Duration) => straight(B::SubDurDur, Duration),
        (BinOp::Sub, Date, Date) => straight(B::SubDatDat, Duration),
        (BinOp::Sub, Date, Duration) => straight(B::SubDatDur(rounding), Date),
        (BinOp::Mul, Integer, Integer) => straight(B::MultIntInt, Integer),
        (BinOp::Mul, Decimal, Decimal) => straight(B::MultDecDec, Decimal),
        (BinOp::Mul, Money, Integer) => straight(B::MultMonInt, Money),
        (BinOp::Mul, Integer, Money) => swapped(B::MultMonInt, Money),
        (BinOp::Mul, Money, Decimal) => straight(B::MultMonDec, Money),
        (BinOp::Mul, Decimal, Money) => swapped(B::MultMonDec, Money),
        (BinOp::Mul, Duration, Integer) => straight(B::MultDurInt, Duration),
        (BinOp::Mul, Integer, Duration) => swapped(B::MultDurInt, Duration),
        (BinOp::Div, Integer, Integer) => straight(B::DivIntInt, Decimal),
        (BinOp::Div, Decimal, Decimal) => straight(B::DivDecDec, Decimal),
        (BinOp::Div, Money, Money) => straight(B::DivMonMon, Decimal),
        (BinOp::Div, Money, Integer) => straight(B::DivMonInt, Money),
        (BinOp::Div, Money, Decimal) => straight(B::DivMonDec, Money),
        (BinOp::Div, Duration, Duration) => straight(B::DivDurDur, Decimal),
        // Comparisons are polymorphic in Catala (`'a → 'a → bool`): functions inside the
        // values are a runtime error, not a typing one.
        (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, l, r) if l.compatible(r) => {
            let c = cmp_type(l).unwrap_or(CmpType::Structural);
            let op = match op {
                BinOp::Lt => B::Lt(c),
                BinOp::Le => B::Le(c),
                BinOp::Gt => B::Gt(c),
                _ => B::Ge(c),
            };
            straight(op, Bool)
        }
        (BinOp::Eq, l, r) if l.compatible(r) => straight(B::Eq, Bool),
        (BinOp::Neq, l, r) if l.compatible(r) => straight(B::Neq, Bool),
        (BinOp::Concat, List(a), List(b)) if a.compatible(b) => {
            straight(B::Concat, List(Box::new(a.meet(b))))
        }
        _ => None,
    }
}

/// Resolves a unary operator.
pub(crate) fn resolve_unary(op: UnOp, arg: &Ty) -> Option<(UnaryOp, Ty)> {
    match (op, arg) {
        (UnOp::Not, Ty::Bool) => Some((UnaryOp::Not, Ty::Bool)),
        (UnOp::Minus, Ty::Integer) => Some((UnaryOp::MinusInt, Ty::Integer)),
        (UnOp::Minus, Ty::Decimal) => Some((UnaryOp::MinusDec, Ty::Decimal)),
        (UnOp::Minus, Ty::Money) => Some((UnaryOp::MinusMon, Ty::Money)),
        (UnOp::Minus, Ty::Duration) => Some((UnaryOp::MinusDur, Ty::Duration)),
        _ => None,
    }
}

/// Resolves a built-in function applied to an argument of type `arg`.
pub(crate) fn resolve_builtin(b: Builtin, arg: &Ty) -> Option<(UnaryOp, Ty)> {
    use UnaryOp as U;
    match (b, arg) {
        (Builtin::Round, Ty::Money) => Some((U::RoundMon, Ty::Money)),
        (Builtin::Round, Ty::Decimal) => Some((U::RoundDec, Ty::Decimal)),
        (Builtin::ToDecimal, Ty::Integer) => Some((U::ToDecInt, Ty::Decimal)),
        (Builtin::ToDecimal, Ty::Money) => Some((U::ToDecMon, Ty::Decimal)),
        (Builtin::ToDecimal, Ty::Decimal) => None,
        (Builtin::ToMoney, Ty::Decimal) => Some((U::ToMonDec, Ty::Money)),
        (Builtin::ToMoney, Ty::Integer) => Some((U::ToMonInt, Ty::Money)),
        (Builtin::ToInteger, Ty::Decimal) => Some((U::ToIntDec, Ty::Integer)),
        (Builtin::ToInteger, Ty::Money) => Some((U::ToIntMon, Ty::Integer)),
        (Builtin::GetDay, Ty::Date) => Some((U::GetDay, Ty::Integer)),
        (Builtin::GetMonth, Ty::Date) => Some((U::GetMonth, Ty::Integer)),
        (Builtin::GetYear, Ty::Date) => Some((U::GetYear, Ty::Integer)),
        (Builtin::FirstDayOfMonth, Ty::Date) => Some((U::FirstDayOfMonth, Ty::Date)),
        (Builtin::LastDayOfMonth, Ty::Date) => Some((U::LastDayOfMonth, Ty::Date)),
        _ => None,
    }
}

/// Catala's name of a built-in (for error messages).
pub(crate) fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::Round => "round",
        Builtin::ToDecimal => "decimal of",
        Builtin::ToMoney => "money of",
        Builtin::ToInteger => "integer of",
        Builtin::GetDay => "get_day",
        Builtin::GetMonth => "get_month",
        Builtin::GetYear => "get_year",
        Builtin::FirstDayOfMonth => "first_day_of_month",
        Builtin::LastDayOfMonth => "last_day_of_month",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_money_products_are_normalised_money_first() {
        let r = resolve_binary(BinOp::Mul, &Ty::Decimal, &Ty::Money, DateRounding::Abort)
            .map(|r| (r.op, r.swap, r.result));
        assert_eq!(r, Some((BinaryOp::MultMonDec, true, Ty::Money)));
    }

    #[test]
    fn money_times_money_is_illegal() {
        assert!(resolve_binary(BinOp::Mul, &Ty::Money, &Ty::Money, DateRounding::Abort).is_none());
    }

    #[test]
    fn integer_division_gives_a_decimal() {
        let r = resolve_binary(BinOp::Div, &Ty::Integer, &Ty::Integer, DateRounding::Abort);
        assert_eq!(r.map(|r| r.result), Some(Ty::Decimal));
    }

    #[test]
    fn date_addition_carries_the_scope_rounding() {
        let r = resolve_binary(BinOp::Add, &Ty::Date, &Ty::Duration, DateRounding::Up);
        assert_eq!(r.map(|r| r.op), Some(BinaryOp::AddDatDur(DateRounding::Up)));
    }

    #[test]
    fn comparisons_need_equal_types() {
        assert!(
            resolve_binary(BinOp::Lt, &Ty::Integer, &Ty::Decimal, DateRounding::Abort).is_none()
        );
        // Polymorphic on other types (catala-tests/introspection/bad/functions: `foo < foo` on
        // functions type-checks and fails at run time).
        let r = resolve_binary(BinOp::Lt, &Ty::Bool, &Ty::Bool, DateRounding::Abort);
        assert_eq!(r.map(|r| r.op), Some(BinaryOp::Lt(CmpType::Structural)));
        let f = Ty::Arrow(vec![Ty::Money], Box::new(Ty::Money));
        let r = resolve_binary(BinOp::Eq, &f, &f, DateRounding::Abort);
        assert_eq!(r.map(|r| r.op), Some(BinaryOp::Eq));
        let r = resolve_binary(BinOp::Ge, &Ty::Money, &Ty::Money, DateRounding::Abort);
        assert_eq!(r.map(|r| r.op), Some(BinaryOp::Ge(CmpType::Money)));
    }
}
