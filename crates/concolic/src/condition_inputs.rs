//! The names and units under which problem conditions are written: each solver variable of the
//! scope's inputs as the reader knows it (`household.income`, `zone` with its case names,
//! `number of children`, `years of period`), and the domains of the exploration (the date
//! range, list lengths), which conditions leave unsaid.

use crate::inputs::{InputSpace, Shape};
use catala_ir::dcalc::{EnumId, Program};
use explain::{Inputs, Unit, VarInfo};
use smt::catala::{Kind, VarId};
use std::collections::BTreeMap;

/// The readable name of an input variable from its path in the input space.
fn readable(path: &str) -> String {
    for (suffix, lead) in [
        ("#length", "number of "),
        ("#years", "years of "),
        ("#months", "months of "),
        ("#days", "days of "),
    ] {
        if let Some(base) = path.strip_suffix(suffix) {
            return format!("{lead}{base}");
        }
    }
    if let Some(base) = path.strip_suffix("#given") {
        return format!("{base} is given");
    }
    path.strip_suffix("#case").unwrap_or(path).to_string()
}

fn enum_tags(program: &Program, shape: &Shape, out: &mut BTreeMap<VarId, Vec<String>>) {
    match shape {
        Shape::Enum {
            enum_id,
            tag,
            payloads,
        } => {
            let names = program
                .enumeration(EnumId(*enum_id))
                .cases
                .iter()
                .map(|c| c.name.clone())
                .collect();
            out.insert(*tag, names);
            for p in payloads.iter().flatten() {
                enum_tags(program, p, out);
            }
        }
        Shape::List { elems, .. } | Shape::Tuple(elems) | Shape::Struct(_, elems) => {
            for e in elems {
                enum_tags(program, e, out);
            }
        }
        Shape::Optional { inner, .. } => enum_tags(program, inner, out),
        _ => {}
    }
}

/// The inputs of an exploration over `space`, whose scope arguments have `shapes`.
pub(crate) fn condition_inputs(program: &Program, space: &InputSpace, shapes: &[Shape]) -> Inputs {
    let mut choices = BTreeMap::new();
    for s in shapes {
        enum_tags(program, s, &mut choices);
    }
    let vars = space.vars.iter().enumerate().map(|(i, v)| {
        let id = VarId(i as u32);
        let unit = if let Some(names) = choices.remove(&id) {
            Unit::Choice(names)
        } else if space.dates.contains(&id) {
            Unit::Date
        } else if v.is_money {
            Unit::Money
        } else {
            match v.kind {
                Kind::Bool => Unit::Bool,
                Kind::Real => Unit::Decimal,
                Kind::Int if v.path.contains('#') => Unit::Count,
                Kind::Int => Unit::Integer,
            }
        };
        let info = VarInfo {
            name: readable(&v.path),
            unit,
        };
        (id, info)
    });
    Inputs::new(vars, &space.domains)
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn solver_paths_read_as_catala() {
        assert_eq!(
            readable("household.children#length"),
            "number of household.children"
        );
        assert_eq!(readable("zone#case"), "zone");
        assert_eq!(readable("period#days"), "days of period");
        assert_eq!(readable("ceiling#given"), "ceiling is given");
        assert_eq!(readable("household.income"), "household.income");
    }
}
