//! How a test file names what the explored program declares. A program that declares a module
//! (`> Module M`) cannot be included (`> Include`) by a test file: the test file uses it
//! (`> Using M`) and names its scopes, structures, enumerations and cases qualified
//! (`M.Scope`, `M.Type`, `M.Type.Case`). Types of the other modules a program uses are named
//! through the module names the test file uses, whether the program is used or included.

use catala_ir::dcalc::{Program, ScopeId, Ty};
use catala_syntax::ast::{self, ItemKind};
use catala_syntax::Span;
use std::collections::HashMap;

/// How the program is brought into the test file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramLink {
    /// `> Include: PATH` (a program that declares no module).
    Include,
    /// `> Using M`: the program declares module `M`.
    Module(String),
}

/// The names a test file gives to the explored program's scopes and types.
#[derive(Clone, Debug)]
pub struct TestNames {
    /// How the program is brought in.
    pub link: ProgramLink,
    /// `> Using` lines of the test file besides the program's own: (module, alias).
    pub uses: Vec<(String, Option<String>)>,
    /// The qualifier of each structure (by id), e.g. `Some("AL")`.
    structs: Vec<Option<String>>,
    /// The qualifier of each enumeration (by id).
    enums: Vec<Option<String>>,
    /// The qualifier of the scopes of each module, by module name.
    scopes: HashMap<String, String>,
    /// Whether the program loads a module other than the standard library's (the test
    /// directory then needs the program's module directories).
    pub uses_modules: bool,
}

impl TestNames {
    /// Unqualified names, the program included: the names of a program without modules.
    pub fn plain(program: &Program) -> TestNames {
        TestNames {
            link: ProgramLink::Include,
            uses: Vec::new(),
            structs: vec![None; program.structs.len()],
            enums: vec![None; program.enums.len()],
            scopes: HashMap::new(),
            uses_modules: false,
        }
    }

    /// The names for the tests of `scope` of `program`, compiled from `ast` (the same source
    /// parsed: its modules and the module names its main file sees).
    pub fn of(program: &Program, scope: ScopeId, ast: &ast::Program) -> TestNames {
        let declared = ast.items.iter().find_map(|i| match &i.kind {
            ItemKind::ModuleDef { name, .. } => Some(name.name.clone()),
            _ => None,
        });
        // Where each type is declared: `None` for the main file, else the module's index.
        let mut declared_in: HashMap<Span, Option<usize>> = HashMap::new();
        let mut record = |items: &[ast::Item], unit: Option<usize>| {
            for item in items {
                match &item.kind {
                    ItemKind::StructDecl(s) => {
                        declared_in.insert(s.name.span, unit);
                    }
                    ItemKind::EnumDecl(e) => {
                        declared_in.insert(e.name.span, unit);
                    }
                    _ => {}
                }
            }
        };
        record(&ast.items, None);
        for (k, m) in ast.modules.iter().enumerate() {
            record(&m.items, Some(k));
        }
        let mut uses = Vec::new();
        // The test file repeats the program's own `Using` lines (standard-library modules are
        // seen by every file): a used program's test file sees none of them, and `clerk test`
        // builds only the modules a test file names itself, not those of a file it includes.
        for b in &ast.uses {
            if let Some(m) = ast.modules.get(b.module).filter(|m| !m.stdlib) {
                let alias = (b.name != m.name.name).then(|| b.name.clone());
                uses.push((m.name.name.clone(), alias));
            }
        }
        // The name of module `k` in the test file: the main file's name for it, else its own
        // (the test file then uses it, when it writes one of its types).
        let module_name = |k: usize| -> Option<(String, bool)> {
            match ast.uses.iter().find(|b| b.module == k) {
                Some(b) => Some((b.name.clone(), true)),
                None => Some((ast.modules.get(k)?.name.name.clone(), false)),
            }
        };
        let qualifier = |unit: Option<usize>| -> Option<(String, bool)> {
            match unit {
                None => declared.clone().map(|m| (m, true)),
                Some(k) => module_name(k),
            }
        };
        let structs: Vec<Option<(String, bool)>> = program
            .structs
            .iter()
            .map(|s| declared_in.get(&s.span).and_then(|u| qualifier(*u)))
            .collect();
        let enums: Vec<Option<(String, bool)>> = program
            .enums
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if program.option_enum.map(|o| o.0 as usize) == Some(i) {
                    return None;
                }
                declared_in.get(&e.span).and_then(|u| qualifier(*u))
            })
            .collect();
        // Modules the main file does not name, whose types the tests write: used by name.
        let decl = program.scope(scope);
        let mut written = Written::default();
        for ty in decl
            .inputs
            .iter()
            .map(|i| &i.ty)
            .chain(decl.outputs.iter().map(|o| &o.ty))
        {
            written.visit(program, ty);
        }
        let unnamed = written
            .structs
            .iter()
            .filter_map(|&i| structs.get(i).cloned().flatten())
            .chain(
                written
                    .enums
                    .iter()
                    .filter_map(|&i| enums.get(i).cloned().flatten()),
            )
            .filter(|(_, named)| !named)
            .map(|(m, _)| m);
        for m in unnamed {
            if !uses.iter().any(|(u, a)| a.is_none() && *u == m) {
                uses.push((m, None));
            }
        }
        let mut scopes = HashMap::new();
        for (k, m) in ast.modules.iter().enumerate() {
            if let Some((q, _)) = module_name(k) {
                scopes.insert(m.name.name.clone(), q);
            }
        }
        let strip =
            |v: Vec<Option<(String, bool)>>| v.into_iter().map(|q| q.map(|(m, _)| m)).collect();
        TestNames {
            link: match &declared {
                Some(m) => ProgramLink::Module(m.clone()),
                None => ProgramLink::Include,
            },
            uses,
            structs: strip(structs),
            enums: strip(enums),
            scopes,
            uses_modules: ast.modules.iter().any(|m| !m.stdlib),
        }
    }

    /// The qualifier of structure `i`.
    pub(crate) fn structure(&self, i: usize) -> Option<&str> {
        self.structs.get(i).and_then(|q| q.as_deref())
    }

    /// The qualifier of enumeration `i`.
    pub(crate) fn enumeration(&self, i: usize) -> Option<&str> {
        self.enums.get(i).and_then(|q| q.as_deref())
    }

    /// The qualifier of scope `scope` of `program`.
    pub(crate) fn scope(&self, program: &Program, scope: ScopeId) -> Option<String> {
        match &program.scope(scope).module {
            Some(m) => Some(self.scopes.get(m).cloned().unwrap_or_else(|| m.clone())),
            None => match &self.link {
                ProgramLink::Module(m) => Some(m.clone()),
                ProgramLink::Include => None,
            },
        }
    }
}

/// The structures and enumerations a value of some types may hold (what a test writes).
#[derive(Default)]
struct Written {
    structs: Vec<usize>,
    enums: Vec<usize>,
}

impl Written {
    fn visit(&mut self, program: &Program, ty: &Ty) {
        match ty {
            Ty::Struct(id) => {
                let i = id.0 as usize;
                if !self.structs.contains(&i) {
                    self.structs.push(i);
                    if let Some(def) = program.structs.get(i) {
                        for f in &def.fields {
                            self.visit(program, &f.ty);
                        }
                    }
                }
            }
            Ty::Enum(id) => {
                let i = id.0 as usize;
                if !self.enums.contains(&i) {
                    self.enums.push(i);
                    if let Some(def) = program.enums.get(i) {
                        for c in def.cases.iter().filter_map(|c| c.payload.as_ref()) {
                            self.visit(program, c);
                        }
                    }
                }
            }
            Ty::List(t) | Ty::Option(t) => self.visit(program, t),
            Ty::Tuple(ts) => {
                for t in ts {
                    self.visit(program, t);
                }
            }
            _ => {}
        }
    }
}
