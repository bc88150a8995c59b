//! What a `catala ...` command line of a test block asks for, and whether lexprobe reproduces
//! it. This is the one list of what is out of scope: the compiler backends and the tracing
//! flags; every other command and flag the Catala test suite uses is either reproduced or
//! reported as unsupported, never silently dropped.

/// Commands that generate code or other artefacts instead of interpreting: out of scope.
pub(crate) const BACKENDS: &[&str] = &[
    "ocaml",
    "python",
    "c",
    "java",
    "lcalc",
    "dcalc",
    "scalc",
    "scopelang",
    "json-schema",
    "dependency-graph",
    "exceptions",
    "proof",
];

/// Flags that print an evaluation trace or the compiler's debugging output (which also changes
/// how values are printed): out of scope.
pub const TRACING_FLAGS: &[&str] = &["--trace", "-t", "--trace-format", "--debug"];

/// Flags that change how Catala compiles or what it checks on the way, never the results or the
/// errors a block compares: accepted and ignored.
pub(crate) const NEUTRAL_FLAGS: &[&str] = &[
    "--disable-warnings",
    "--check-invariants",
    "-O",
    "--optimize",
    "--lcalc",
    "--closure-conversion",
    "--monomorphize-types",
    "--avoid-exceptions",
    "--quiet",
];

/// A command lexprobe reproduces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `catala interpret` / `catala test-scope S`.
    Interpret(InterpretOptions),
    /// `catala typecheck`.
    Typecheck,
}

/// The options of an interpretation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterpretOptions {
    /// The scope; `None` runs every `#[test]` scope.
    pub scope: Option<String>,
    /// The `--input` JSON text.
    pub input: Option<String>,
    /// `-F json`: outputs as JSON.
    pub json: bool,
    /// `--message-format=gnu`: one-line errors.
    pub gnu: bool,
    /// `--no-fail-on-assert`: failed assertions are warnings.
    pub no_fail_on_assert: bool,
}

/// A block's command: reproduced, or skipped with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    InScope(Invocation),
    OutOfScope(String),
}

/// Reads `catala COMMAND ARGS...` (the prompt already removed).
pub fn parse(command_line: &str) -> Command {
    let words: Vec<&str> = command_line.split_whitespace().collect();
    let out = |why: String| Command::OutOfScope(why);
    let Some((&"catala", rest)) = words.split_first() else {
        return out(format!("not a catala command: `{command_line}`"));
    };
    let Some((&name, args)) = rest.split_first() else {
        return out("no command given".to_string());
    };
    let name = name.to_lowercase();
    if BACKENDS.contains(&name.as_str()) {
        return out(format!("backend `{name}`"));
    }
    let mut options = InterpretOptions::default();
    let args = match name.as_str() {
        "typecheck" => return typecheck(args),
        "interpret" => args,
        "test-scope" => match args.split_first() {
            Some((scope, rest)) if !scope.starts_with('-') => {
                options.scope = Some(scope.to_string());
                rest
            }
            _ => return out("test-scope without a scope".to_string()),
        },
        other => return out(format!("unknown command `{other}`")),
    };
    let mut i = 0;
    while i < args.len() {
        let (flag, inline) = match args[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (args[i], None),
        };
        let takes_value = matches!(
            flag,
            "-s" | "--scope" | "--input" | "-F" | "--format" | "--message-format"
        ) || flag == "--trace-format";
        let value = match (&inline, takes_value) {
            (Some(v), _) => Some(v.clone()),
            (None, true) => {
                i += 1;
                match args.get(i) {
                    Some(v) => Some(v.to_string()),
                    None => return out(format!("flag {flag} without a value")),
                }
            }
            (None, false) => None,
        };
        i += 1;
        if TRACING_FLAGS.contains(&flag) {
            return out(format!("tracing or debugging flag {flag}"));
        }
        if NEUTRAL_FLAGS.contains(&flag) {
            continue;
        }
        let value = value.unwrap_or_default();
        match flag {
            "-s" | "--scope" => options.scope = Some(value),
            "--input" => options.input = Some(value),
            "-F" | "--format" => match value.as_str() {
                "json" => options.json = true,
                "human" => options.json = false,
                other => return out(format!("output format {other}")),
            },
            "--message-format" => match value.as_str() {
                "gnu" => options.gnu = true,
                "human" => options.gnu = false,
                other => return out(format!("message format {other}")),
            },
            "--no-fail-on-assert" => options.no_fail_on_assert = true,
            other => return out(format!("unsupported flag {other}")),
        }
    }
    Command::InScope(Invocation::Interpret(options))
}

fn typecheck(args: &[&str]) -> Command {
    match args.iter().find(|a| !NEUTRAL_FLAGS.contains(a)) {
        None => Command::InScope(Invocation::Typecheck),
        Some(flag) => Command::OutOfScope(format!("unsupported flag {flag}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interpret(line: &str) -> InterpretOptions {
        match parse(line) {
            Command::InScope(Invocation::Interpret(o)) => o,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn test_scope_and_interpret_forms() {
        let o = interpret("catala test-scope A --disable-warnings -O --check-invariants");
        assert_eq!(o.scope.as_deref(), Some("A"));
        let o = interpret("catala Interpret -s B --message-format=gnu");
        assert_eq!((o.scope.as_deref(), o.gnu), (Some("B"), true));
        let o = interpret("catala test-scope S --input {\"x\":1} -F json");
        assert_eq!(o.input.as_deref(), Some("{\"x\":1}"));
        assert!(o.json);
        assert_eq!(
            interpret("catala interpret --scope=C").scope.as_deref(),
            Some("C")
        );
        assert_eq!(interpret("catala interpret --lcalc").scope, None);
        assert!(interpret("catala test-scope A --no-fail-on-assert").no_fail_on_assert);
        assert_eq!(
            parse("catala Typecheck --check-invariants"),
            Command::InScope(Invocation::Typecheck)
        );
    }

    #[test]
    fn backends_tracing_and_unknown_flags_are_out_of_scope() {
        for (line, why) in [
            ("catala ocaml", "backend `ocaml`"),
            ("catala Lcalc -O", "backend `lcalc`"),
            (
                "catala interpret -s T --trace",
                "tracing or debugging flag --trace",
            ),
            ("catala Interpret -t -s T", "tracing or debugging flag -t"),
            (
                "catala interpret -s T --frobnicate",
                "unsupported flag --frobnicate",
            ),
            ("catala test-scope", "test-scope without a scope"),
            ("clerk build", "not a catala command: `clerk build`"),
        ] {
            assert_eq!(parse(line), Command::OutOfScope(why.to_string()), "{line}");
        }
    }
}
