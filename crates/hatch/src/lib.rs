//! hatch (being written).
