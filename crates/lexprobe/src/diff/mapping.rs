//! The correspondence of two versions' interfaces as the user gives it: `--rename OLD=NEW`
//! (renamed inputs and outputs), `--default NAME=VALUE` (a value for an input only NEW has;
//! the value as JSON like `run`'s inputs, or a Catala literal: `$20,000`, `|2025-07-01|`,
//! `true`, `3`, a case name), and `--mapping FILE` (JSON:
//! `{"rename": {"old": "new"}, "default": {"name": value}}`).

use catala_ir::dcalc::{Program, ScopeId};
use concolic::difference::InterfaceMapping;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::Path;

/// Renamings and defaults as given, before NEW's types read the defaults.
#[derive(Clone, Debug, Default)]
pub(crate) struct GivenMapping {
    pub(crate) renames: BTreeMap<String, String>,
    pub(crate) defaults: BTreeMap<String, Json>,
}

/// `NAME=VALUE` split at the first `=`.
fn pair<'a>(flag: &str, arg: &'a str) -> Result<(&'a str, &'a str), String> {
    match arg.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => Ok((k.trim(), v.trim())),
        _ => Err(format!("{flag} {arg}: expected NAME=VALUE")),
    }
}

/// A value written on the command line as JSON or as a Catala literal, as JSON.
pub(crate) fn literal_json(text: &str) -> Json {
    if let Ok(j) = serde_json::from_str::<Json>(text) {
        return j;
    }
    let t = text.trim();
    if let Some(date) = t.strip_prefix('|').and_then(|s| s.strip_suffix('|')) {
        return Json::String(date.to_string());
    }
    if let Some(amount) = t.strip_prefix('$') {
        return Json::String(amount.replace(',', ""));
    }
    if let Some(amount) = t.strip_suffix('€') {
        return Json::String(amount.trim().replace([' ', '\u{a0}'], "").replace(',', "."));
    }
    Json::String(t.to_string())
}

impl GivenMapping {
    /// The mapping of the command line's flags and mapping file.
    pub(crate) fn read(
        renames: &[String],
        defaults: &[String],
        file: Option<&Path>,
    ) -> Result<GivenMapping, String> {
        let mut m = GivenMapping::default();
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let j: Json = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
            let Json::Object(top) = &j else {
                return Err(format!(
                    "{}: expected {{\"rename\": {{…}}, \"default\": {{…}}}}",
                    path.display()
                ));
            };
            for key in top.keys() {
                if key != "rename" && key != "default" {
                    return Err(format!(
                        "{}: unknown key `{key}` (expected `rename`, `default`)",
                        path.display()
                    ));
                }
            }
            if let Some(Json::Object(r)) = top.get("rename") {
                for (k, v) in r {
                    let Json::String(v) = v else {
                        return Err(format!("{}: rename {k}: expected a name", path.display()));
                    };
                    m.renames.insert(k.clone(), v.clone());
                }
            }
            if let Some(Json::Object(d)) = top.get("default") {
                for (k, v) in d {
                    m.defaults.insert(k.clone(), v.clone());
                }
            }
        }
        for r in renames {
            let (o, n) = pair("--rename", r)?;
            m.renames.insert(o.to_string(), n.to_string());
        }
        for d in defaults {
            let (k, v) = pair("--default", d)?;
            m.defaults.insert(k.to_string(), literal_json(v));
        }
        Ok(m)
    }

    /// The mapping with the defaults read as values of NEW's input types.
    pub(crate) fn resolve(
        &self,
        new: &Program,
        scope: ScopeId,
    ) -> Result<InterfaceMapping, String> {
        let decl = new.scope(scope);
        let mut defaults = BTreeMap::new();
        for (name, j) in &self.defaults {
            let Some(input) = decl.inputs.iter().find(|i| &i.name == name) else {
                return Err(format!(
                    "--default {name}: NEW's scope has no input `{name}`"
                ));
            };
            let v = catala_eval::runtime::json::value_from_json(new, &input.ty, j, "")
                .map_err(|e| format!("--default {name}: {}", e.message))?;
            defaults.insert(name.clone(), v);
        }
        Ok(InterfaceMapping {
            renames: self.renames.clone(),
            defaults,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catala_literals_read_as_json_values() {
        assert_eq!(literal_json("$20,000.50"), Json::String("20000.50".into()));
        assert_eq!(
            literal_json("|2025-07-01|"),
            Json::String("2025-07-01".into())
        );
        assert_eq!(literal_json("true"), Json::Bool(true));
        assert_eq!(literal_json("3"), serde_json::json!(3));
        assert_eq!(literal_json("Mountain"), Json::String("Mountain".into()));
    }
}
