//! The standard library's native part: the `*_internal` external modules its Catala sources
//! use (`Date_internal`, `Decimal_internal`, `Money_internal`, `List_internal`,
//! `Period_internal`).

use super::Externals;

/// Registers the standard library's internal implementations.
pub(crate) fn register(_e: &mut Externals) {}
