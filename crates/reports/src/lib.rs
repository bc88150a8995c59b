//! Result files read by people and by CI servers, written from plain data so that any engine can
//! feed them: SARIF 2.1.0 logs of findings ([`sarif`]), JUnit XML test reports ([`junit`]), and
//! law coverage of a literate Catala program as a self-contained HTML page and as JSON
//! ([`coverage`]). Nothing here runs a program: the callers record what happened and hand it over.

pub mod coverage;
pub mod junit;
pub mod sarif;
pub(crate) mod uri;
