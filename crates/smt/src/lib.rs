//! smt (being written).
