//! How a test file names what the explored program declares. A program that declares a module
//! (`> Module M`) cannot be included (`> Include`) by a test file: the test file uses it
//! (`> Using M`) and names its scopes, structures, enumerations and cases qualified
//! (`M.Scope`, `M.Type`, `M.Type.Case`). Types of the other modules a program uses are named
//! through the module names the test file uses, whether the program is used or included.

use catala_ir::dcalc::{Program, ScopeId};
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

    /// The names for `program`, compiled from `ast` (the same source parsed: its modules and
    /// the module names its main file sees).
    pub fn of(program: &Program, ast: &ast::Program) -> TestNames {
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
        let mut names = TestNames {
            link: match &declared {
                Some(m) => ProgramLink::Module(m.clone()),
                None => ProgramLink::Include,
            },
            uses: Vec::new(),
            structs: Vec::new(),
            enums: Vec::new(),
            scopes: HashMap::new(),
            uses_modules: ast.modules.iter().any(|m| !m.stdlib),
        };
        // A used program's test file sees none of the program's own `Using` lines: it repeats
        // them (standard-library modules are seen by every file).
        if declared.is_some() {
            for b in &ast.uses {
                if let Some(m) = ast.modules.get(b.module).filter(|m| !m.stdlib) {
                    let alias = (b.name != m.name.name).then(|| b.name.clone());
                    names.uses.push((m.name.name.clone(), alias));
                }
            }
        }
        let mut qualifier = |unit: Option<usize>| -> Option<String> {
            let Some(k) = unit else {
                return declared.clone();
            };
            if let Some(b) = ast.uses.iter().find(|b| b.module == k) {
                return Some(b.name.clone());
            }
            // A module the main file does not use itself: the test file uses it by its name.
            let name = ast.modules.get(k)?.name.name.clone();
            if !names.uses.iter().any(|(m, a)| a.is_none() && *m == name) {
                names.uses.push((name.clone(), None));
            }
            Some(name)
        };
        let structs: Vec<Option<String>> = program
            .structs
            .iter()
            .map(|s| declared_in.get(&s.span).and_then(|u| qualifier(*u)))
            .collect();
        let enums: Vec<Option<String>> = program
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
        for (k, m) in ast.modules.iter().enumerate() {
            if let Some(q) = qualifier_of_scopes(ast, k) {
                names.scopes.insert(m.name.name.clone(), q);
            }
        }
        names.structs = structs;
        names.enums = enums;
        names
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

/// The name under which the main file sees module `k`, if it does.
fn qualifier_of_scopes(ast: &ast::Program, k: usize) -> Option<String> {
    ast.uses
        .iter()
        .find(|b| b.module == k)
        .map(|b| b.name.clone())
}
