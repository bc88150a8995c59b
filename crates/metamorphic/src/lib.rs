//! metamorphic (being written).
