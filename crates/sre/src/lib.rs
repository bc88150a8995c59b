//! sre (being written).
