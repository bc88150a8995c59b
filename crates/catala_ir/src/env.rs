//! Name resolution of declarations: collects the structures, enumerations, scopes (with their
//! variables, states and sub-scopes) and top-level definitions of a program, checks for duplicates,
//! resolves every written type to a [`Ty`], and lays out each scope's frame (one slot per variable
//! state, then one per sub-scope).

use crate::dcalc::{
    EnumCaseDef, EnumDef, EnumId, FieldDef, InputKind, ScopeId, ScopeVar, Slot, StructDef,
    StructId, TopDefId, Ty,
};
use crate::diag::{name_error, name_error_at};
use catala_syntax::ast::{self, ItemKind, Language, LawHeading, QualName, TypeKind};
use catala_syntax::{Diagnostic, Span};
use std::collections::HashMap;
use std::sync::Arc;

/// A scope variable as declared (all its states together).
#[derive(Clone, Debug)]
pub(crate) struct VarDecl {
    pub name: String,
    /// Content type (the result type for a function variable).
    pub ty: Ty,
    /// Span of the written content type (origin of "expected type" in typing errors).
    pub ty_span: Span,
    /// Parameters of a function variable (`depends on`).
    pub params: Option<Vec<(String, Ty, Span)>>,
    pub kind: InputKind,
    pub output: bool,
    pub is_condition: bool,
    pub states: Vec<String>,
    /// Index of its first state in [`ScopeSig::vars`].
    pub first_var: usize,
    /// Position among the items of the scope declaration (for evaluation order ties).
    pub position: usize,
    pub span: Span,
}

impl VarDecl {
    /// The type of the variable's value (an arrow for a function variable).
    pub(crate) fn value_ty(&self) -> Ty {
        match &self.params {
            Some(ps) => Ty::Arrow(
                ps.iter().map(|(_, t, _)| t.clone()).collect(),
                Box::new(self.ty.clone()),
            ),
            None => self.ty.clone(),
        }
    }

    /// Index in [`ScopeSig::vars`] of the last state (the value seen from outside).
    pub(crate) fn last_var(&self) -> usize {
        self.first_var + self.states.len().max(1) - 1
    }
}

#[derive(Clone, Debug)]
pub(crate) struct SubScopeDecl {
    pub name: String,
    pub scope: ScopeId,
    pub output: bool,
    pub slot: Slot,
    /// Position among the items of the scope declaration (for evaluation order ties).
    pub position: usize,
    pub span: Span,
}

/// Everything known about a scope before its rules are lowered.
#[derive(Clone, Debug)]
pub(crate) struct ScopeSig {
    pub name: String,
    /// The namespace (module) declaring the scope.
    pub module: ModuleId,
    pub language: Language,
    pub span: Span,
    pub headings: Arc<[LawHeading]>,
    pub is_test: bool,
    pub decls: Vec<VarDecl>,
    pub decl_by_name: HashMap<String, usize>,
    /// One entry per variable state, slots `0..vars.len()`.
    pub vars: Vec<ScopeVar>,
    /// For each entry of `vars`, the index of its declaration in `decls`.
    pub var_decl: Vec<usize>,
    pub subscopes: Vec<SubScopeDecl>,
    pub sub_by_name: HashMap<String, usize>,
    /// Declarations (indices in `decls`) of the input and context variables, in order.
    pub inputs: Vec<usize>,
    pub output_struct: StructId,
    /// First free slot after the variables and sub-scopes.
    pub first_local: u32,
}

impl ScopeSig {
    /// Position of declaration `decl` among the scope's inputs.
    pub(crate) fn input_index(&self, decl: usize) -> Option<usize> {
        self.inputs.iter().position(|&d| d == decl)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct TopDefSig {
    pub name: String,
    /// True for a declaration without `equals` in an external module.
    pub external: bool,
    pub ty: Ty,
    pub ty_span: Span,
    pub params: Vec<(String, Ty, Span)>,
    pub span: Span,
}

impl TopDefSig {
    pub(crate) fn value_ty(&self) -> Ty {
        if self.params.is_empty() {
            self.ty.clone()
        } else {
            Ty::Arrow(
                self.params.iter().map(|(_, t, _)| t.clone()).collect(),
                Box::new(self.ty.clone()),
            )
        }
    }
}

/// Index of a namespace in [`Env::namespaces`]: one per module, in loading order (dependencies
/// first), the main program last.
pub(crate) type ModuleId = usize;

/// The type variables of one polymorphic signature, numbered from 0.
#[derive(Debug, Default)]
pub(crate) struct TypeVars {
    named: HashMap<String, u32>,
    count: u32,
}

impl TypeVars {
    fn get(&mut self, name: Option<&str>) -> u32 {
        if let Some(n) = name {
            if let Some(&v) = self.named.get(n) {
                return v;
            }
        }
        let v = self.count;
        self.count += 1;
        if let Some(n) = name {
            self.named.insert(n.to_string(), v);
        }
        v
    }
}

/// A type name as declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TypeRef {
    Struct(StructId),
    Enum(EnumId),
    /// A scope's name used as a type: its output structure.
    Scope(ScopeId),
}

/// The names declared in one module (or in the main program), each with its visibility: an item
/// of a ```catala-metadata block (and a `#[test]` scope) is public, one of a ```catala block is
/// private to its module.
#[derive(Debug, Default)]
pub(crate) struct Namespace {
    /// The module's name (empty for the main program).
    pub name: String,
    pub external: bool,
    pub stdlib: bool,
    pub types: HashMap<String, (TypeRef, bool, Span)>,
    pub scopes: HashMap<String, (ScopeId, bool)>,
    pub topdefs: HashMap<String, (TopDefId, bool)>,
    /// Constructor name → every (enum, case) of this module carrying it.
    pub ctors: HashMap<String, Vec<(EnumId, u32)>>,
    /// Module names and aliases visible here → namespace.
    pub uses: HashMap<String, ModuleId>,
    /// Types exposed under a used module's name (`> Using M` exposes M's public type `M`; the
    /// standard library's `Period` its type `Period`).
    pub root_types: HashMap<String, TypeRef>,
}

/// The resolved declarations of a program.
#[derive(Debug, Default)]
pub(crate) struct Env {
    pub structs: Vec<StructDef>,
    /// Span of each field's written type, per structure.
    pub field_type_spans: Vec<Vec<Span>>,
    pub enums: Vec<EnumDef>,
    /// Span of each case's written payload type, per enumeration.
    pub case_type_spans: Vec<Vec<Option<Span>>>,
    pub scopes: Vec<ScopeSig>,
    pub topdefs: Vec<TopDefSig>,
    pub namespaces: Vec<Namespace>,
    /// The built-in enumeration of optional values (`Absent`, `Present content x`).
    pub option_enum: EnumId,
    /// Warnings found while lowering (deprecated constructions), in order.
    pub warnings: std::cell::RefCell<Vec<Diagnostic>>,
}

impl Env {
    pub fn scope(&self, id: ScopeId) -> &ScopeSig {
        &self.scopes[id.0 as usize]
    }

    /// Records a warning at `span`.
    pub(crate) fn warn(&self, message: String, span: Span) {
        let d = Diagnostic::new(catala_syntax::DiagnosticKind::Typing, message).at(span);
        self.warnings.borrow_mut().push(d);
    }

    pub(crate) fn ns(&self, m: ModuleId) -> &Namespace {
        &self.namespaces[m]
    }

    /// The main program's namespace.
    pub(crate) fn main_module(&self) -> ModuleId {
        self.namespaces.len().saturating_sub(1)
    }

    pub(crate) fn type_name(&self, ty: &Ty) -> String {
        crate::dcalc::TyDisplay {
            ty,
            structs: &self.structs,
            enums: &self.enums,
        }
        .to_string()
    }

    /// The namespace reached from `m` through the module qualifiers `path`.
    pub fn module_path(&self, m: ModuleId, path: &[ast::Ident]) -> Result<ModuleId, Diagnostic> {
        let mut current = m;
        for q in path {
            match self.namespaces[current].uses.get(&q.name) {
                Some(&next) => current = next,
                None => {
                    return Err(name_error(
                        format!("Module \"{}\" not found", q.name),
                        q.span,
                    ))
                }
            }
        }
        Ok(current)
    }

    /// True if `path` names a module visible from `m`.
    pub(crate) fn is_module_path(&self, m: ModuleId, path: &[ast::Ident]) -> bool {
        !path.is_empty() && self.module_path(m, path).is_ok()
    }

    /// Resolves a type name written in module `m`.
    pub(crate) fn lookup_type(&self, m: ModuleId, q: &QualName) -> Result<TypeRef, Diagnostic> {
        let n = &q.name.name;
        let (target, qualified) = if q.path.is_empty() {
            (m, false)
        } else {
            let Some(first) = q.path.first() else {
                return Err(name_error("Empty qualified name", q.name.span));
            };
            if !self.namespaces[m].uses.contains_key(&first.name) {
                return Err(name_error(
                    format!("This refers to module {}, which was not found", first.name),
                    first.span,
                ));
            }
            (self.module_path(m, &q.path)?, true)
        };
        let ns = &self.namespaces[target];
        if let Some(&(t, public, decl)) = ns.types.get(n) {
            if qualified && !public {
                return Err(private_type(&ns.name, n, q.span(), decl));
            }
            return Ok(t);
        }
        if !qualified {
            if let Some(&t) = ns.root_types.get(n) {
                return Ok(t);
            }
            if let Some(&used) = ns.uses.get(n) {
                let uns = &self.namespaces[used];
                if let Some(&(_, false, decl)) = uns.types.get(n) {
                    // Catala names the module alone when its root type is private.
                    let mut d = private_type(&uns.name, n, q.span(), decl);
                    d.message = format!("Type {n} is private and cannot be used here.");
                    return Err(d);
                }
            }
        }
        Err(name_error(
            format!(
                "Unknown type \"{n}\": no declaration for a structure, enumeration, scope or \
                 external type by this name was found."
            ),
            q.name.span,
        ))
    }

    /// Resolves a scope name written in module `m`.
    pub(crate) fn lookup_scope(&self, m: ModuleId, q: &QualName) -> Result<ScopeId, Diagnostic> {
        let target = self.module_path(m, &q.path)?;
        match self.namespaces[target].scopes.get(&q.name.name) {
            Some(&(id, public)) if public || target == m => Ok(id),
            Some(_) => Err(name_error(
                format!(
                    "Scope {}.{} is private and cannot be used here.",
                    self.namespaces[target].name, q.name.name
                ),
                q.span(),
            )),
            None => Err(name_error(
                format!("No scope named {} found", q.name.name),
                q.name.span,
            )),
        }
    }

    /// Resolves a top-level definition written in module `m` (`x` or `M.x`); `None` when no
    /// definition has that name there.
    pub(crate) fn lookup_topdef(
        &self,
        m: ModuleId,
        path: &[ast::Ident],
        name: &ast::Ident,
    ) -> Result<Option<TopDefId>, Diagnostic> {
        let target = self.module_path(m, path)?;
        match self.namespaces[target].topdefs.get(&name.name) {
            Some(&(id, public)) if public || target == m => Ok(Some(id)),
            Some(_) => Err(name_error(
                format!(
                    "Definition {}.{} is private and cannot be used here.",
                    self.namespaces[target].name, name.name
                ),
                name.span,
            )),
            None => Ok(None),
        }
    }

    /// The structure named `q` in module `m` (a declared structure, or a scope's output
    /// structure), if any.
    pub(crate) fn lookup_struct(&self, m: ModuleId, q: &QualName) -> Result<StructId, Diagnostic> {
        match self.lookup_type(m, q) {
            Ok(TypeRef::Struct(s)) => Ok(s),
            Ok(TypeRef::Scope(s)) => Ok(self.scopes[s.0 as usize].output_struct),
            Ok(TypeRef::Enum(_)) | Err(_) => {
                if !q.path.is_empty() && !self.is_module_path(m, &q.path) {
                    return Err(name_error(
                        format!(
                            "This refers to module {}, which was not found",
                            q.path[0].name
                        ),
                        q.path[0].span,
                    ));
                }
                Err(name_error(
                    format!("No struct named {} found", q.name.name),
                    q.name.span,
                ))
            }
        }
    }

    /// Resolves a (possibly qualified) enumeration constructor name written in module `m`:
    /// `C`, `E.C`, `M.C`, `M.E.C`. An unqualified constructor is looked up in `m`, then in the
    /// modules `m` uses directly.
    pub(crate) fn resolve_ctor(
        &self,
        m: ModuleId,
        name: &QualName,
    ) -> Result<(EnumId, u32), Diagnostic> {
        let ctor = &name.name.name;
        if let Some(qual) = name.path.last() {
            let modules = &name.path[..name.path.len() - 1];
            let enum_name = QualName {
                path: modules.to_vec(),
                name: qual.clone(),
            };
            let as_enum = self.lookup_type(m, &enum_name);
            if let Ok(TypeRef::Enum(eid)) = as_enum {
                let e = &self.enums[eid.0 as usize];
                return match e.cases.iter().position(|c| &c.name == ctor) {
                    Some(i) => Ok((eid, i as u32)),
                    None => Err(name_error(
                        format!("Enum {} does not contain case {}.", e.name, ctor),
                        name.name.span,
                    )),
                };
            }
            // `M.C` (the whole path naming a module) is refused as Catala refuses it: a used
            // module's constructor is written `M.Enum.C`.
            if !modules.is_empty() {
                self.module_path(m, modules)?;
            }
            if let Err(e) = as_enum {
                if e.message.contains("private") {
                    return Err(e);
                }
            }
            return Err(name_error(
                format!("No enum named {} found", qual.name),
                qual.span,
            ));
        }
        if self.namespaces[m].ctors.contains_key(ctor) {
            return self.unqualified_ctor(&[m], name);
        }
        let mut used: Vec<ModuleId> = self.namespaces[m].uses.values().copied().collect();
        used.sort_unstable();
        used.dedup();
        // The module itself first (it has no such constructor; it names the suggestions).
        used.insert(0, m);
        match self.unqualified_ctor(&used, name) {
            Err(_) if matches!(ctor.as_str(), "Present" | "Présent" | "Obecny") => {
                Ok((self.option_enum, 1))
            }
            Err(_) if matches!(ctor.as_str(), "Absent" | "Nieobecny") => Ok((self.option_enum, 0)),
            r => r,
        }
    }

    fn unqualified_ctor(
        &self,
        modules: &[ModuleId],
        name: &QualName,
    ) -> Result<(EnumId, u32), Diagnostic> {
        let ctor = &name.name.name;
        let mut found: Vec<(EnumId, u32)> = Vec::new();
        for &m in modules {
            if let Some(list) = self.namespaces[m].ctors.get(ctor) {
                found.extend(list.iter().copied());
            }
        }
        found.sort_unstable();
        found.dedup();
        match found.as_slice() {
            [one] => Ok(*one),
            many if many.len() > 1 => {
                let names: Vec<&str> = many
                    .iter()
                    .map(|(e, _)| self.enums[e.0 as usize].name.as_str())
                    .collect();
                Err(name_error(
                    format!(
                        "This constructor name is ambiguous, it can belong to {}. Disambiguate \
                         it by prefixing it with the enum name.",
                        names.join(" or ")
                    ),
                    name.name.span,
                ))
            }
            _ => {
                let mut d = Diagnostic::new(
                    catala_syntax::DiagnosticKind::NameResolution,
                    "The name of this constructor has not been defined before\n(it's probably a \
                     typographical error).",
                );
                let mut here = catala_syntax::Label::new(name.name.span);
                here.note = Some("Here is your code :".to_string());
                d = d.with_label(here);
                let mut known: Vec<&str> = Vec::new();
                for &m in modules {
                    let mut names: Vec<&str> = self.namespaces[m]
                        .ctors
                        .keys()
                        .map(String::as_str)
                        .collect();
                    names.sort_unstable();
                    known.extend(names);
                }
                if let Some(hint) = catala_syntax::suggestion(ctor, known, false) {
                    d = d.with_label(catala_syntax::Label::note_only(hint));
                }
                Err(d)
            }
        }
    }

    /// Resolves a type written in module `m`.
    pub(crate) fn resolve_type(&self, m: ModuleId, t: &ast::Type) -> Result<Ty, Diagnostic> {
        self.resolve_type_vars(m, t, &mut None)
    }

    /// Resolves a type written in module `m`; with `vars`, `anything [of type t]` stands for a
    /// type variable (the same one for each occurrence of `t`, a fresh one for each bare
    /// `anything`), as in the signature of a polymorphic top-level declaration.
    pub(crate) fn resolve_type_vars(
        &self,
        m: ModuleId,
        t: &ast::Type,
        vars: &mut Option<TypeVars>,
    ) -> Result<Ty, Diagnostic> {
        Ok(match &t.kind {
            TypeKind::Boolean => Ty::Bool,
            TypeKind::Integer => Ty::Integer,
            TypeKind::Decimal => Ty::Decimal,
            TypeKind::Money => Ty::Money,
            TypeKind::Date => Ty::Date,
            TypeKind::Duration => Ty::Duration,
            TypeKind::Named(q) => match self.lookup_type(m, q)? {
                TypeRef::Struct(s) => Ty::Struct(s),
                TypeRef::Enum(e) => Ty::Enum(e),
                TypeRef::Scope(s) => Ty::Struct(self.scopes[s.0 as usize].output_struct),
            },
            TypeKind::List(inner) => Ty::List(Box::new(self.resolve_type_vars(m, inner, vars)?)),
            TypeKind::Optional(inner) => {
                Ty::Option(Box::new(self.resolve_type_vars(m, inner, vars)?))
            }
            TypeKind::Tuple(ts) => Ty::Tuple(
                ts.iter()
                    .map(|t| self.resolve_type_vars(m, t, vars))
                    .collect::<Result<_, _>>()?,
            ),
            TypeKind::Any(name) if vars.is_some() => {
                let Some(vars) = vars.as_mut() else {
                    return Err(name_error("Unexpected type variable", t.span));
                };
                Ty::Var(vars.get(name.as_ref().map(|n| n.name.as_str())))
            }
            // `anything` elsewhere, source positions: not supported.
            _ => {
                return Err(name_error(
                    "Specifying type `anything` is not allowed at this point",
                    t.span,
                ))
            }
        })
    }
}

fn private_type(module: &str, name: &str, at: Span, decl: Span) -> Diagnostic {
    let mut d = name_error(
        format!("Type {module}.{name} is private and cannot be used here."),
        at,
    );
    let mut label = catala_syntax::Label::new(decl);
    label.note = Some(
        "The type definition is private because it is inside a ```catala block and not a \
         ```catala-metadata block:"
            .to_string(),
    );
    d.labels.push(label);
    d
}

fn check_unique(
    seen: &mut HashMap<String, Span>,
    ident: &ast::Ident,
    what: &str,
) -> Result<(), Diagnostic> {
    if let Some(prev) = seen.get(&ident.name) {
        let message = if what == "struct" {
            format!("struct name \"{}\" already defined", ident.name)
        } else {
            format!("{what} name \"{}\" already used", ident.name)
        };
        return Err(name_error_at(message, &[*prev, ident.span]));
    }
    seen.insert(ident.name.clone(), ident.span);
    Ok(())
}

/// One compilation unit: a module's items, or the main program's.
pub(crate) struct Unit<'p> {
    pub module: ModuleId,
    pub items: &'p [ast::Item],
}

/// The compilation units of `program`: its modules in loading order (each after the modules it
/// uses), then the main program.
pub(crate) fn units(program: &ast::Program) -> Vec<Unit<'_>> {
    let mut out: Vec<Unit<'_>> = program
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| Unit {
            module: i,
            items: &m.items,
        })
        .collect();
    out.push(Unit {
        module: program.modules.len(),
        items: &program.items,
    });
    out
}

fn is_public(item: &ast::Item) -> bool {
    item.metadata
        || item
            .attributes
            .iter()
            .any(|a| a.path.len() == 1 && a.path[0] == "test")
}

/// Collects and resolves all declarations of `program`.
pub(crate) fn collect(program: &ast::Program) -> Result<Env, Vec<Diagnostic>> {
    let mut env = Env::default();
    let mut errors = Vec::new();
    for m in &program.modules {
        env.namespaces.push(Namespace {
            name: m.name.name.clone(),
            external: m.external,
            stdlib: m.stdlib,
            uses: m.uses.iter().map(|b| (b.name.clone(), b.module)).collect(),
            ..Namespace::default()
        });
    }
    env.namespaces.push(Namespace {
        uses: program
            .uses
            .iter()
            .map(|b| (b.name.clone(), b.module))
            .collect(),
        ..Namespace::default()
    });
    let units = units(program);

    // Pass 1: names.
    for unit in &units {
        let mut type_names: HashMap<String, Span> = HashMap::new();
        let mut scope_names: HashMap<String, Span> = HashMap::new();
        let mut topdef_names: HashMap<String, Span> = HashMap::new();
        let m = unit.module;
        for item in unit.items {
            let public = is_public(item);
            let r = match &item.kind {
                ItemKind::StructDecl(s) => {
                    check_unique(&mut type_names, &s.name, "struct").map(|()| {
                        let id = StructId(env.structs.len() as u32);
                        env.namespaces[m].types.insert(
                            s.name.name.clone(),
                            (TypeRef::Struct(id), public, s.name.span),
                        );
                        env.structs.push(StructDef {
                            name: s.name.name.clone(),
                            fields: Vec::new(),
                            span: s.name.span,
                        });
                        env.field_type_spans.push(Vec::new());
                    })
                }
                ItemKind::EnumDecl(e) => check_unique(&mut type_names, &e.name, "Type").map(|()| {
                    let id = EnumId(env.enums.len() as u32);
                    env.namespaces[m].types.insert(
                        e.name.name.clone(),
                        (TypeRef::Enum(id), public, e.name.span),
                    );
                    env.enums.push(EnumDef {
                        name: e.name.name.clone(),
                        cases: Vec::new(),
                        span: e.name.span,
                    });
                    env.case_type_spans.push(Vec::new());
                }),
                ItemKind::ScopeDecl(s) => {
                    if env.namespaces[m].external {
                        errors.push(name_error(
                            "Scopes are forbidden in external modules.",
                            s.name.span,
                        ));
                        continue;
                    }
                    check_unique(&mut scope_names, &s.name, "Scope").map(|()| {
                        let id = ScopeId(env.scopes.len() as u32);
                        env.namespaces[m]
                            .scopes
                            .insert(s.name.name.clone(), (id, public));
                        if !env.namespaces[m].types.contains_key(&s.name.name) {
                            env.namespaces[m].types.insert(
                                s.name.name.clone(),
                                (TypeRef::Scope(id), public, s.name.span),
                            );
                        }
                        env.scopes.push(ScopeSig {
                            name: s.name.name.clone(),
                            module: m,
                            language: item.language,
                            span: s.name.span,
                            headings: item.headings.clone(),
                            is_test: item
                                .attributes
                                .iter()
                                .any(|a| a.path.len() == 1 && a.path[0] == "test"),
                            decls: Vec::new(),
                            decl_by_name: HashMap::new(),
                            vars: Vec::new(),
                            var_decl: Vec::new(),
                            subscopes: Vec::new(),
                            sub_by_name: HashMap::new(),
                            inputs: Vec::new(),
                            output_struct: StructId(0),
                            first_local: 0,
                        });
                    })
                }
                ItemKind::TopDef(t) => {
                    // A declaration without `equals` (in a ```catala-metadata block, say) and
                    // one definition with it are the same top-level definition.
                    if let Some(&(id, was_public)) = env.namespaces[m].topdefs.get(&t.name.name) {
                        let sig = &mut env.topdefs[id.0 as usize];
                        if sig.external != t.external {
                            env.namespaces[m]
                                .topdefs
                                .insert(t.name.name.clone(), (id, was_public || public));
                            if sig.external {
                                sig.external = false;
                            }
                            continue;
                        }
                    }
                    check_unique(&mut topdef_names, &t.name, "Variable").map(|()| {
                        let id = TopDefId(env.topdefs.len() as u32);
                        env.namespaces[m]
                            .topdefs
                            .insert(t.name.name.clone(), (id, public));
                        env.topdefs.push(TopDefSig {
                            name: t.name.name.clone(),
                            external: t.external,
                            ty: Ty::Bool,
                            ty_span: t.typ.span,
                            params: Vec::new(),
                            span: t.name.span,
                        });
                    })
                }
                // Rules are lowered later; module directives were followed by the loader.
                _ => Ok(()),
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    env.option_enum = EnumId(env.enums.len() as u32);
    env.enums.push(EnumDef {
        name: "Optional".to_string(),
        cases: vec![
            EnumCaseDef {
                name: "Absent".to_string(),
                payload: None,
            },
            EnumCaseDef {
                // Printed in the main program's language, as Catala does.
                name: match program.items.first().map(|i| i.language) {
                    Some(ast::Language::Fr) => "Présent".to_string(),
                    _ => "Present".to_string(),
                },
                // The content's type is the one of each `optional of t`.
                payload: Some(Ty::Bool),
            },
        ],
        span: Span::default(),
    });
    env.case_type_spans.push(vec![None, None]);
    // Types exposed under a used module's name.
    for m in 0..env.namespaces.len() {
        let mut roots = HashMap::new();
        for (alias, &target) in &env.namespaces[m].uses {
            let tns = &env.namespaces[target];
            if let Some(&(t, true, _)) = tns.types.get(alias) {
                if !matches!(t, TypeRef::Scope(_)) && (alias == &tns.name || tns.stdlib) {
                    roots.insert(alias.clone(), t);
                }
            }
        }
        env.namespaces[m].root_types = roots;
    }
    // Each scope's output structure (named after the scope, usable as a type), after the
    // declared structures; its fields are filled once variable types are known.
    for i in 0..env.scopes.len() {
        let sid = StructId(env.structs.len() as u32);
        env.scopes[i].output_struct = sid;
        env.structs.push(StructDef {
            name: env.scopes[i].name.clone(),
            fields: Vec::new(),
            span: env.scopes[i].span,
        });
        env.field_type_spans.push(Vec::new());
    }

    // Pass 2: types of fields, cases, variables and top-level definitions.
    for unit in &units {
        for item in unit.items {
            if let Err(e) = resolve_item(&mut env, unit.module, item) {
                errors.push(e);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if let Err(e) = check_type_cycles(&env) {
        return Err(vec![e]);
    }

    // Pass 3: scope output structures (output variables and output sub-scopes in declaration
    // order) and frame layout.
    for i in 0..env.scopes.len() {
        let sig = &env.scopes[i];
        let mut outs: Vec<(usize, FieldDef, Span)> = sig
            .decls
            .iter()
            .filter(|d| d.output)
            .map(|d| {
                let field = FieldDef {
                    name: d.name.clone(),
                    ty: d.value_ty(),
                };
                (d.position, field, d.ty_span)
            })
            .collect();
        for s in sig.subscopes.iter().filter(|s| s.output) {
            let field = FieldDef {
                name: s.name.clone(),
                ty: Ty::Struct(env.scopes[s.scope.0 as usize].output_struct),
            };
            outs.push((s.position, field, s.span));
        }
        outs.sort_by_key(|(p, _, _)| *p);
        let sid = sig.output_struct.0 as usize;
        env.field_type_spans[sid] = outs.iter().map(|(_, _, s)| *s).collect();
        env.structs[sid].fields = outs.into_iter().map(|(_, f, _)| f).collect();
        let sig = &mut env.scopes[i];
        for (j, s) in sig.subscopes.iter_mut().enumerate() {
            s.slot = Slot((sig.vars.len() + j) as u32);
        }
        sig.first_local = (sig.vars.len() + sig.subscopes.len()) as u32;
    }
    Ok(env)
}

fn resolve_item(env: &mut Env, m: ModuleId, item: &ast::Item) -> Result<(), Diagnostic> {
    match &item.kind {
        ItemKind::StructDecl(s) => {
            let Some(&(TypeRef::Struct(id), _, _)) = env.namespaces[m].types.get(&s.name.name)
            else {
                return Ok(());
            };
            if s.fields.is_empty() {
                return Err(name_error(
                    format!(
                        "No fields defined for structure {}. Please define at least one.",
                        s.name.name
                    ),
                    s.name.span,
                ));
            }
            let mut seen = HashMap::new();
            let mut fields = Vec::new();
            let mut spans = Vec::new();
            for f in &s.fields {
                if seen.insert(f.name.name.clone(), f.name.span).is_some() {
                    return Err(name_error(
                        format!(
                            "Duplicate field {} in enumeration {}",
                            f.name.name, s.name.name
                        ),
                        f.name.span,
                    ));
                }
                let mut ty = env.resolve_type(m, &f.typ)?;
                if !f.params.is_empty() {
                    let params = resolve_params(env, m, &f.params)?;
                    ty = Ty::Arrow(
                        params.into_iter().map(|(_, t, _)| t).collect(),
                        Box::new(ty),
                    );
                }
                fields.push(FieldDef {
                    name: f.name.name.clone(),
                    ty,
                });
                spans.push(f.typ.span);
            }
            env.structs[id.0 as usize].fields = fields;
            env.field_type_spans[id.0 as usize] = spans;
        }
        ItemKind::EnumDecl(e) => {
            let Some(&(TypeRef::Enum(id), _, _)) = env.namespaces[m].types.get(&e.name.name) else {
                return Ok(());
            };
            if e.cases.is_empty() && !e.abstract_type {
                return Err(name_error(
                    format!(
                        "No cases defined for enumeration {}. Please define at least one.",
                        e.name.name
                    ),
                    e.name.span,
                ));
            }
            let mut cases: Vec<EnumCaseDef> = Vec::new();
            for c in &e.cases {
                if cases.iter().any(|x| x.name == c.name.name) {
                    return Err(name_error(
                        format!(
                            "Duplicate constructor {} in enumeration {}",
                            c.name.name, e.name.name
                        ),
                        c.name.span,
                    ));
                }
                let payload = match &c.payload {
                    Some(t) => Some(env.resolve_type(m, t)?),
                    None => None,
                };
                env.namespaces[m]
                    .ctors
                    .entry(c.name.name.clone())
                    .or_default()
                    .push((id, cases.len() as u32));
                cases.push(EnumCaseDef {
                    name: c.name.name.clone(),
                    payload,
                });
            }
            env.enums[id.0 as usize].cases = cases;
            env.case_type_spans[id.0 as usize] = e
                .cases
                .iter()
                .map(|c| c.payload.as_ref().map(|t| t.span))
                .collect();
        }
        ItemKind::ScopeDecl(s) => resolve_scope_decl(env, m, s)?,
        ItemKind::TopDef(t) => {
            let Some(&(id, _)) = env.namespaces[m].topdefs.get(&t.name.name) else {
                return Ok(());
            };
            let mut vars = Some(TypeVars::default());
            let params = t
                .params
                .iter()
                .map(|p| {
                    Ok((
                        p.name.name.clone(),
                        env.resolve_type_vars(m, &p.typ, &mut vars)?,
                        p.name.span,
                    ))
                })
                .collect::<Result<Vec<_>, Diagnostic>>()?;
            let ty = env.resolve_type_vars(m, &t.typ, &mut vars)?;
            let sig = &mut env.topdefs[id.0 as usize];
            sig.ty = ty;
            sig.params = params;
        }
        _ => {}
    }
    Ok(())
}

fn resolve_params(
    env: &Env,
    m: ModuleId,
    params: &[ast::Param],
) -> Result<Vec<(String, Ty, Span)>, Diagnostic> {
    params
        .iter()
        .map(|p| {
            Ok((
                p.name.name.clone(),
                env.resolve_type(m, &p.typ)?,
                p.name.span,
            ))
        })
        .collect()
}

fn resolve_scope_decl(env: &mut Env, m: ModuleId, s: &ast::ScopeDecl) -> Result<(), Diagnostic> {
    let Some(&(id, _)) = env.namespaces[m].scopes.get(&s.name.name) else {
        return Ok(());
    };
    let mut decls: Vec<VarDecl> = Vec::new();
    let mut decl_by_name: HashMap<String, usize> = HashMap::new();
    let mut vars: Vec<ScopeVar> = Vec::new();
    let mut var_decl = Vec::new();
    let mut subscopes = Vec::new();
    let mut sub_by_name: HashMap<String, usize> = HashMap::new();
    let mut names: HashMap<String, Span> = HashMap::new();
    for (position, item) in s.items.iter().enumerate() {
        match item {
            ast::ScopeDeclItem::Var(v) => {
                check_unique(&mut names, &v.name, "Variable")?;
                let ty = if v.is_condition {
                    Ty::Bool
                } else {
                    env.resolve_type(m, &v.typ)?
                };
                let params = if v.params.is_empty() {
                    None
                } else {
                    Some(resolve_params(env, m, &v.params)?)
                };
                let mut states: Vec<String> = Vec::new();
                for st in &v.states {
                    if let Some(first) = v.states.iter().find(|s| s.name == st.name) {
                        if states.contains(&st.name) {
                            return Err(name_error_at(
                                "There are two states with the same name for the same variable: \
                                 this is ambiguous. Please change the name of either states.",
                                &[first.span, st.span],
                            ));
                        }
                    }
                    states.push(st.name.clone());
                }
                let kind = match v.io.input {
                    ast::InputKind::Input => InputKind::Input,
                    ast::InputKind::Context => InputKind::Context,
                    ast::InputKind::Internal => InputKind::Internal,
                };
                let decl = VarDecl {
                    name: v.name.name.clone(),
                    ty: ty.clone(),
                    ty_span: v.typ.span,
                    params,
                    kind,
                    output: v.io.output,
                    is_condition: v.is_condition,
                    states: states.clone(),
                    first_var: vars.len(),
                    position,
                    span: v.name.span,
                };
                let value_ty = decl.value_ty();
                let di = decls.len();
                decl_by_name.insert(v.name.name.clone(), di);
                let state_list: Vec<Option<String>> = if states.is_empty() {
                    vec![None]
                } else {
                    states.into_iter().map(Some).collect()
                };
                for st in state_list {
                    vars.push(ScopeVar {
                        name: v.name.name.clone(),
                        state: st,
                        ty: value_ty.clone(),
                        kind,
                        output: v.io.output,
                        is_condition: v.is_condition,
                        slot: Slot(vars.len() as u32),
                        span: v.name.span,
                        may_be_empty: false,
                    });
                    var_decl.push(di);
                }
                decls.push(decl);
            }
            ast::ScopeDeclItem::SubScope(sub) => {
                check_unique(&mut names, &sub.name, "Subscope")?;
                let callee = env.lookup_scope(m, &sub.scope)?;
                sub_by_name.insert(sub.name.name.clone(), subscopes.len());
                subscopes.push(SubScopeDecl {
                    name: sub.name.name.clone(),
                    scope: callee,
                    output: sub.output,
                    slot: Slot(0),
                    position,
                    span: sub.name.span,
                });
            }
        }
    }
    let inputs = decls
        .iter()
        .enumerate()
        .filter(|(_, d)| d.kind != InputKind::Internal)
        .map(|(i, _)| i)
        .collect();
    let sig = &mut env.scopes[id.0 as usize];
    sig.decls = decls;
    sig.decl_by_name = decl_by_name;
    sig.vars = vars;
    sig.var_decl = var_decl;
    sig.subscopes = subscopes;
    sig.sub_by_name = sub_by_name;
    sig.inputs = inputs;
    Ok(())
}

/// Rejects structures and enumerations that contain themselves (directly or not) other than
/// through a list.
fn check_type_cycles(env: &Env) -> Result<(), Diagnostic> {
    fn direct(ty: &Ty, span: Option<Span>, out: &mut Vec<(Ty, Option<Span>)>) {
        match ty {
            Ty::Struct(_) | Ty::Enum(_) => out.push((ty.clone(), span)),
            Ty::Tuple(ts) => ts.iter().for_each(|t| direct(t, span, out)),
            Ty::Option(t) => direct(t, span, out),
            _ => {}
        }
    }
    // The types a type contains (not through a list), with the span of the written type.
    let node_deps = |ty: &Ty| -> Vec<(Ty, Option<Span>)> {
        let mut out = Vec::new();
        match ty {
            Ty::Struct(s) => {
                let spans = &env.field_type_spans[s.0 as usize];
                for (i, f) in env.structs[s.0 as usize].fields.iter().enumerate() {
                    direct(&f.ty, spans.get(i).copied(), &mut out);
                }
            }
            Ty::Enum(e) => {
                let spans = &env.case_type_spans[e.0 as usize];
                for (i, c) in env.enums[e.0 as usize].cases.iter().enumerate() {
                    if let Some(p) = &c.payload {
                        direct(p, spans.get(i).copied().flatten(), &mut out);
                    }
                }
            }
            _ => {}
        }
        out
    };
    let roots: Vec<Ty> = (0..env.structs.len())
        .map(|i| Ty::Struct(StructId(i as u32)))
        .chain((0..env.enums.len()).map(|i| Ty::Enum(EnumId(i as u32))))
        .collect();
    for root in roots {
        let decl_span = match &root {
            Ty::Struct(s) => env.structs[s.0 as usize].span,
            Ty::Enum(e) => env.enums[e.0 as usize].span,
            _ => Span::default(),
        };
        let first = node_deps(&root);
        if let Some((_, span)) = first.iter().find(|(t, _)| *t == root) {
            return Err(name_error(
                format!(
                    "The type {} is defined using itself, which is not supported (Catala does \
                     not allow recursive types).",
                    env.type_name(&root)
                ),
                span.unwrap_or(decl_span),
            ));
        }
        let mut stack: Vec<Ty> = first.into_iter().map(|(t, _)| t).collect();
        let mut seen: Vec<Ty> = Vec::new();
        while let Some(t) = stack.pop() {
            if t == root {
                return Err(name_error(
                    "Cyclic dependency detected between types.",
                    decl_span,
                ));
            }
            if !seen.contains(&t) {
                stack.extend(node_deps(&t).into_iter().map(|(t, _)| t));
                seen.push(t);
            }
        }
    }
    Ok(())
}
