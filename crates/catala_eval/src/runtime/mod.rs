//! The runtime of Catala: exact numbers, calendar arithmetic, values, and their printed and JSON
//! forms. Nothing here knows about expressions; the interpreter in `eval` builds on it.

pub mod date;
pub mod json;
pub mod number;
pub mod print;
pub mod value;

pub use date::{Date, DateError, DateRounding, Duration};
pub use number::{Decimal, Integer};
pub use print::ValuePrinter;
pub use value::{EnumValue, StructValue, TypeNames, Value, ValueError};

use catala_ir::dcalc::{EnumId, Program, StructId};

impl TypeNames for Program {
    fn struct_name(&self, struct_id: u32) -> &str {
        self.structs
            .get(struct_id as usize)
            .map_or("?", |s| s.name.as_str())
    }

    fn field_name(&self, struct_id: u32, field: usize) -> &str {
        self.structs
            .get(struct_id as usize)
            .and_then(|s| s.fields.get(field))
            .map_or("?", |f| f.name.as_str())
    }

    fn enum_name(&self, enum_id: u32) -> &str {
        self.enums
            .get(enum_id as usize)
            .map_or("?", |e| e.name.as_str())
    }

    fn case_name(&self, enum_id: u32, case: usize) -> &str {
        self.enums
            .get(enum_id as usize)
            .and_then(|e| e.cases.get(case))
            .map_or("?", |c| c.name.as_str())
    }

    fn case_has_payload(&self, enum_id: u32, case: usize) -> bool {
        self.enums
            .get(enum_id as usize)
            .and_then(|e| e.cases.get(case))
            .is_some_and(|c| c.payload.is_some())
    }
}

/// The struct id of a value built for `id`.
pub fn struct_id(id: StructId) -> u32 {
    id.0
}

/// The enum id of a value built for `id`.
pub fn enum_id(id: EnumId) -> u32 {
    id.0
}
