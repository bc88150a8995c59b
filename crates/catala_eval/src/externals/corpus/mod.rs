//! The external modules of the catala-examples programs, written from their documented
//! behaviour: `Oracles` (income tax, [`oracles`]) and `Eligibilite_commune` (fibre-connection
//! grant, [`eligibilite_commune`]).

mod eligibilite_commune;
mod oracles;

use super::Externals;

/// Registers the corpus programs' external modules.
pub(crate) fn register(e: &mut Externals) {
    oracles::register(e);
    eligibilite_commune::register(e);
}
