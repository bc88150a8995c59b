//! `lexprobe diff`: the parts of the comparison of two versions of a scope — where each
//! version comes from ([`versions`]), how their interfaces correspond ([`mapping`]), the
//! report ([`report`]), the lines NEW changed, where result files point ([`changed_lines`]),
//! the changed code of both versions the exploration is directed at ([`changed_code`]),
//! threads, plans and shards ([`scale`]) and checkpoints ([`checkpoint`]).
//! The exploration itself is `concolic::difference`.

pub(crate) mod changed_code;
pub(crate) mod changed_lines;
pub(crate) mod checkpoint;
pub(crate) mod mapping;
pub(crate) mod report;
pub(crate) mod scale;
pub(crate) mod versions;
