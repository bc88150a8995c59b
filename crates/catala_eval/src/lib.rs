//! catala_eval (being written).
