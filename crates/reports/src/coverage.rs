//! Law coverage.
