//! The interface of two versions of a scope: one set of input variables for both. The shapes
//! are unfolded once from OLD's input types and carried over to NEW's by names (inputs,
//! structure fields, enumeration cases), so that both versions read the same variables; an
//! input only NEW has takes the caller's default (or, for a context input, its own
//! definition); renamed inputs and outputs follow the caller's renaming. Outputs are paired
//! by name.

use crate::inputs::{InputSpace, Shape};
use catala_eval::runtime::Value;
use catala_ir::dcalc::{InputKind, Program, ScopeId, Ty};
use std::collections::BTreeMap;

/// How the inputs and outputs of NEW correspond to OLD's beyond equal names.
#[derive(Clone, Debug, Default)]
pub struct InterfaceMapping {
    /// Renamed inputs and outputs: OLD's name → NEW's name.
    pub renames: BTreeMap<String, String>,
    /// Values of NEW's inputs that OLD does not have, by NEW's name (values of NEW's program).
    pub defaults: BTreeMap<String, Value>,
}

/// The shapes of both versions' inputs over one input space, and the output pairs.
pub(crate) struct Interface {
    pub(crate) space: InputSpace,
    pub(crate) old_shapes: Vec<Option<Shape>>,
    pub(crate) new_shapes: Vec<Option<Shape>>,
    /// Paired outputs: (OLD's index, NEW's index).
    pub(crate) outputs: Vec<(usize, usize)>,
    /// What the comparison leaves aside: inputs or outputs only one version has, inputs set
    /// to a default.
    pub(crate) notes: Vec<String>,
}

/// The name NEW gives to OLD's input or output `name`.
fn new_name<'a>(mapping: &'a InterfaceMapping, name: &'a str) -> &'a str {
    mapping.renames.get(name).map_or(name, String::as_str)
}

/// Builds the interface of `old_scope` of `old` and `new_scope` of `new`, or says what
/// cannot be matched.
pub(crate) fn interface(
    (old, old_scope): (&Program, ScopeId),
    (new, new_scope): (&Program, ScopeId),
    mapping: &InterfaceMapping,
    max_list_length: usize,
) -> Result<Interface, String> {
    let (od, nd) = (old.scope(old_scope), new.scope(new_scope));
    let mut errors = Vec::new();
    // Renamings name things that exist.
    for (o, n) in &mapping.renames {
        let in_old =
            od.inputs.iter().any(|i| &i.name == o) || od.outputs.iter().any(|x| &x.name == o);
        let in_new =
            nd.inputs.iter().any(|i| &i.name == n) || nd.outputs.iter().any(|x| &x.name == n);
        if !in_old {
            errors.push(format!(
                "--rename {o}={n}: OLD's scope has no input or output `{o}`"
            ));
        }
        if !in_new {
            errors.push(format!(
                "--rename {o}={n}: NEW's scope has no input or output `{n}`"
            ));
        }
    }
    for name in mapping.defaults.keys() {
        if !nd.inputs.iter().any(|i| &i.name == name) {
            errors.push(format!(
                "--default {name}: NEW's scope has no input `{name}`"
            ));
        }
    }
    let mut space = InputSpace::new(max_list_length);
    let mut notes = Vec::new();
    let mut old_shapes = Vec::with_capacity(od.inputs.len());
    for input in &od.inputs {
        old_shapes.push(match input.kind {
            InputKind::Input if !matches!(input.ty, Ty::Arrow(..)) => {
                Some(space.shape_of(old, &input.ty, &input.name, 0))
            }
            InputKind::Context if !matches!(input.ty, Ty::Arrow(..)) => {
                Some(space.optional_shape(old, &input.ty, &input.name))
            }
            InputKind::Context => None,
            _ => {
                errors.push(format!("input `{}` of OLD is a function", input.name));
                None
            }
        });
    }
    let mut new_shapes = Vec::with_capacity(nd.inputs.len());
    let mut used = vec![false; od.inputs.len()];
    for input in &nd.inputs {
        let counterpart = od
            .inputs
            .iter()
            .position(|o| new_name(mapping, &o.name) == input.name);
        let shape = match counterpart {
            Some(k) => {
                used[k] = true;
                match (&old_shapes[k], mapping.defaults.get(&input.name)) {
                    (_, Some(v)) => {
                        notes.push(format!(
                            "input `{}` of NEW set to the default given, whatever OLD's `{}`",
                            input.name, od.inputs[k].name
                        ));
                        Some(Shape::Fixed(v.clone()))
                    }
                    (None, None) => None,
                    (Some(s), None) => {
                        let at = &input.name;
                        let shape = match (s, input.kind) {
                            (Shape::Optional { given, inner }, InputKind::Context) => {
                                carry(old, &od.inputs[k].ty, inner, new, &input.ty, at).map(
                                    |inner| Shape::Optional {
                                        given: *given,
                                        inner: Box::new(inner),
                                    },
                                )
                            }
                            (Shape::Optional { inner, .. }, _) => {
                                notes.push(format!(
                                    "input `{at}`: a context input of OLD, a plain input of NEW, \
                                     given to NEW whether or not given to OLD"
                                ));
                                carry(old, &od.inputs[k].ty, inner, new, &input.ty, at)
                            }
                            (s, _) => carry(old, &od.inputs[k].ty, s, new, &input.ty, at),
                        };
                        match shape {
                            Ok(s) => Some(s),
                            Err(e) => {
                                errors.push(e);
                                None
                            }
                        }
                    }
                }
            }
            None => match (mapping.defaults.get(&input.name), input.kind) {
                (Some(v), _) => {
                    notes.push(format!(
                        "input `{}` only in NEW, set to the default given",
                        input.name
                    ));
                    Some(Shape::Fixed(v.clone()))
                }
                (None, InputKind::Context) => {
                    notes.push(format!(
                        "context input `{}` only in NEW, left to NEW's definitions",
                        input.name
                    ));
                    None
                }
                (None, _) => {
                    errors.push(format!(
                        "input `{}` of NEW has no counterpart in OLD: give it a value with \
                         --default {}=VALUE, or name OLD's input it replaces with --rename \
                         OLD_NAME={}",
                        input.name, input.name, input.name
                    ));
                    None
                }
            },
        };
        new_shapes.push(shape);
    }
    for (k, input) in od.inputs.iter().enumerate() {
        if !used[k] {
            notes.push(format!(
                "input `{}` only in OLD (NEW does not read it)",
                input.name
            ));
        }
    }
    let mut outputs = Vec::new();
    let mut paired_new = vec![false; nd.outputs.len()];
    for (k, o) in od.outputs.iter().enumerate() {
        match nd
            .outputs
            .iter()
            .position(|n| n.name == new_name(mapping, &o.name))
        {
            Some(j) => {
                paired_new[j] = true;
                outputs.push((k, j));
            }
            None => notes.push(format!("output `{}` only in OLD, not compared", o.name)),
        }
    }
    for (j, o) in nd.outputs.iter().enumerate() {
        if !paired_new[j] {
            notes.push(format!("output `{}` only in NEW, not compared", o.name));
        }
    }
    if outputs.is_empty() && errors.is_empty() {
        errors.push(
            "the two scopes have no output in common (name them with --rename OLD=NEW)".into(),
        );
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    Ok(Interface {
        space,
        old_shapes,
        new_shapes,
        outputs,
        notes,
    })
}

/// OLD's shape `shape` of type `old_ty` carried over to NEW's type `new_ty` (of the input or
/// part at `path`), by field and case names.
fn carry(
    old: &Program,
    old_ty: &Ty,
    shape: &Shape,
    new: &Program,
    new_ty: &Ty,
    path: &str,
) -> Result<Shape, String> {
    let mismatch = || {
        Err(format!(
            "input `{path}` has another type in NEW than in OLD; give NEW's a value with \
             --default"
        ))
    };
    Ok(match (old_ty, shape, new_ty) {
        (Ty::Bool, s, Ty::Bool)
        | (Ty::Integer, s, Ty::Integer)
        | (Ty::Decimal, s, Ty::Decimal)
        | (Ty::Money, s, Ty::Money)
        | (Ty::Date, s, Ty::Date)
        | (Ty::Duration, s, Ty::Duration) => s.clone(),
        (_, Shape::Fixed(v), _) => Shape::Fixed(v.clone()),
        (Ty::Struct(oid), Shape::Struct(_, fields), Ty::Struct(nid)) => {
            let (od, nd) = (old.structure(*oid), new.structure(*nid));
            let mut parts = Vec::with_capacity(nd.fields.len());
            for f in &nd.fields {
                let at = format!("{path}.{}", f.name);
                let Some(k) = od.fields.iter().position(|o| o.name == f.name) else {
                    return Err(format!("field `{at}` only in NEW's structure {}", nd.name));
                };
                parts.push(carry(old, &od.fields[k].ty, &fields[k], new, &f.ty, &at)?);
            }
            Shape::Struct(nid.0, parts)
        }
        (Ty::Enum(oid), Shape::Enum { tag, payloads, .. }, Ty::Enum(nid)) => {
            let (od, nd) = (old.enumeration(*oid), new.enumeration(*nid));
            let same_cases = od.cases.len() == nd.cases.len()
                && od
                    .cases
                    .iter()
                    .zip(&nd.cases)
                    .all(|(a, b)| a.name == b.name);
            if !same_cases {
                return Err(format!(
                    "input `{path}`: enumeration {} has other cases in NEW than in OLD",
                    nd.name
                ));
            }
            let mut mapped = Vec::with_capacity(payloads.len());
            for ((oc, nc), p) in od.cases.iter().zip(&nd.cases).zip(payloads) {
                let at = format!("{path}.{}", nc.name);
                mapped.push(match (&oc.payload, p, &nc.payload) {
                    (Some(ot), Some(p), Some(nt)) => Some(carry(old, ot, p, new, nt, &at)?),
                    (None, None, None) => None,
                    _ => return mismatch(),
                });
            }
            Shape::Enum {
                enum_id: nid.0,
                tag: *tag,
                payloads: mapped,
            }
        }
        (Ty::Option(ot), Shape::Enum { tag, payloads, .. }, Ty::Option(nt)) => {
            let Some(id) = new.option_enum else {
                return mismatch();
            };
            let present = match payloads.get(1) {
                Some(Some(p)) => Some(carry(old, ot, p, new, nt, &format!("{path}.Present"))?),
                _ => None,
            };
            Shape::Enum {
                enum_id: id.0,
                tag: *tag,
                payloads: vec![None, present],
            }
        }
        (Ty::List(ot), Shape::List { len, max, elems }, Ty::List(nt)) => Shape::List {
            len: *len,
            max: *max,
            elems: elems
                .iter()
                .enumerate()
                .map(|(i, e)| carry(old, ot, e, new, nt, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        },
        (Ty::Tuple(ots), Shape::Tuple(items), Ty::Tuple(nts)) if ots.len() == nts.len() => {
            Shape::Tuple(
                ots.iter()
                    .zip(items)
                    .zip(nts)
                    .enumerate()
                    .map(|(i, ((ot, s), nt))| carry(old, ot, s, new, nt, &format!("{path}.{i}")))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => return mismatch(),
    })
}
