//! catala_ir (being written).
