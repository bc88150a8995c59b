//! concolic (being written).
