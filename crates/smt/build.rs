//! Links Z3 so that libz3 is loaded only when a query reaches it.
//!
//! The `z3-sys` crate asks the linker for `-lz3`. On x86-64 GNU/Linux this script puts a
//! static `libz3.a` of its own first on the linker's search path: one stub per function of
//! Z3's C API (the names read from Z3's headers) that jumps through a table filled on the
//! first call, when `native/z3_loader.c` loads the shared library with `dlopen`. Runs that
//! never need Z3 (printing the version, running a program, explorations whose every query is
//! answered before Z3) then start without mapping libz3 and the C++ runtime it needs.
//!
//! Elsewhere, or with `LEXPROBE_EAGER_Z3=1` in the build's environment, nothing is done and
//! the system library is linked as usual.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=native/z3_loader.c");
    println!("cargo:rerun-if-env-changed=LEXPROBE_EAGER_Z3");
    println!("cargo:rerun-if-env-changed=Z3_SYS_Z3_HEADER");
    println!("cargo:rustc-check-cfg=cfg(lazy_libz3)");

    let target_is = |key: &str, value: &str| env::var(key).is_ok_and(|v| v == value);
    let supported = target_is("CARGO_CFG_TARGET_ARCH", "x86_64")
        && target_is("CARGO_CFG_TARGET_OS", "linux")
        && target_is("CARGO_CFG_TARGET_ENV", "gnu");
    if !supported || env::var("LEXPROBE_EAGER_Z3").is_ok_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    let Some(header) = find_header() else {
        println!("cargo:warning=z3.h not found: libz3 is linked at start-up");
        return;
    };
    let names = api_functions(&header);
    if names.is_empty() {
        println!(
            "cargo:warning=no function found in {}: libz3 is linked at start-up",
            header.display()
        );
        return;
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let stubs = out.join("z3_stubs.c");
    fs::write(&stubs, stubs_source(&names, &library_candidates())).expect("write z3_stubs.c");
    cc::Build::new()
        .file("native/z3_loader.c")
        .file(&stubs)
        .cargo_metadata(false)
        .warnings(true)
        .compile("z3");
    // The linker searches this directory before the system's: `-lz3` finds the stubs.
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-cfg=lazy_libz3");
}

/// Z3's main header: `Z3_SYS_Z3_HEADER` (as `z3-sys` reads it), else `z3.h` in the include
/// directories of the environment and the system's.
fn find_header() -> Option<PathBuf> {
    if let Ok(path) = env::var("Z3_SYS_Z3_HEADER") {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let mut dirs: Vec<PathBuf> = ["CPATH", "C_INCLUDE_PATH"]
        .iter()
        .filter_map(env::var_os)
        .flat_map(|v| env::split_paths(&v).collect::<Vec<_>>())
        .collect();
    dirs.extend(["/usr/local/include", "/usr/include", "/usr/include/z3"].map(PathBuf::from));
    dirs.into_iter()
        .map(|d| d.join("z3.h"))
        .find(|p| p.is_file())
}

/// The functions `Z3_API` declares in `header` and the headers it includes from its directory.
fn api_functions(header: &Path) -> Vec<String> {
    let dir = header.parent().unwrap_or(Path::new("."));
    let mut pending = vec![header.to_path_buf()];
    let mut seen = Vec::new();
    let mut names = Vec::new();
    while let Some(file) = pending.pop() {
        if seen.contains(&file) {
            continue;
        }
        println!("cargo:rerun-if-changed={}", file.display());
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("#include") {
                let included = rest
                    .trim()
                    .trim_matches(|c| c == '"' || c == '<' || c == '>');
                if included.starts_with("z3") && !included.contains("++") {
                    pending.push(dir.join(included));
                }
            }
        }
        collect_declared(&text, &mut names);
        seen.push(file);
    }
    names.sort();
    names.dedup();
    names
}

/// Appends the name following each `Z3_API` (on its line or the next) that opens a parameter
/// list: `Z3_ast Z3_API Z3_mk_add(Z3_context c, …);`.
fn collect_declared(text: &str, names: &mut Vec<String>) {
    let mut rest = text;
    while let Some(at) = rest.find("Z3_API") {
        rest = &rest[at + "Z3_API".len()..];
        let after = rest.trim_start();
        let end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let (name, tail) = after.split_at(end);
        if name.starts_with("Z3_") && tail.trim_start().starts_with('(') {
            names.push(name.to_string());
        }
    }
}

/// What the loader tries, in order: the shared library's soname and its file, as found on
/// this machine, then `libz3.so`.
fn library_candidates() -> Vec<String> {
    let mut dirs: Vec<PathBuf> = env::var_os("LIBRARY_PATH")
        .map(|v| env::split_paths(&v).collect())
        .unwrap_or_default();
    dirs.extend(
        [
            "/usr/local/lib",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
            "/usr/lib",
        ]
        .map(PathBuf::from),
    );
    let mut candidates = Vec::new();
    if let Some(file) = dirs
        .iter()
        .map(|d| d.join("libz3.so"))
        .find(|p| p.is_file())
    {
        let real = fs::canonicalize(&file).unwrap_or(file);
        if let Some(soname) = fs::read(&real).ok().and_then(|b| elf_soname(&b)) {
            candidates.push(soname);
        }
        candidates.push(real.display().to_string());
    }
    candidates.push("libz3.so".to_string());
    candidates.dedup();
    candidates
}

/// The `DT_SONAME` of a little-endian 64-bit ELF shared object.
fn elf_soname(bytes: &[u8]) -> Option<String> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(bytes.get(o..o + 2)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(bytes.get(o..o + 8)?.try_into().ok()?));
    if bytes.get(0..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (phoff, phentsize, phnum) = (u64_at(0x20)? as usize, u16_at(0x36)?, u16_at(0x38)?);
    let headers: Vec<(u32, u64, u64, u64)> = (0..phnum as usize)
        .filter_map(|i| {
            let h = phoff + i * phentsize as usize;
            let kind = u32::from_le_bytes(bytes.get(h..h + 4)?.try_into().ok()?);
            Some((kind, u64_at(h + 8)?, u64_at(h + 16)?, u64_at(h + 32)?))
        })
        .collect();
    let file_offset = |vaddr: u64| {
        headers
            .iter()
            .find(|&&(kind, _, v, size)| kind == 1 && v <= vaddr && vaddr < v + size)
            .map(|&(_, offset, v, _)| (vaddr - v + offset) as usize)
    };
    let &(_, dynamic, _, size) = headers.iter().find(|h| h.0 == 2)?;
    let (mut strtab, mut soname) = (None, None);
    for entry in (dynamic as usize..(dynamic + size) as usize).step_by(16) {
        match u64_at(entry)? {
            0 => break,
            5 => strtab = Some(u64_at(entry + 8)?),
            14 => soname = Some(u64_at(entry + 8)? as usize),
            _ => {}
        }
    }
    let start = file_offset(strtab?)? + soname?;
    let len = bytes.get(start..)?.iter().position(|&b| b == 0)?;
    String::from_utf8(bytes[start..start + len].to_vec()).ok()
}

/// The generated C file: the names, the empty table, the candidates and one stub per name.
fn stubs_source(names: &[String], candidates: &[String]) -> String {
    let mut c = String::from(
        "/* Generated by crates/smt/build.rs: one stub per function of Z3's C API. */\n\
         #define HIDDEN __attribute__((visibility(\"hidden\")))\n",
    );
    let _ = writeln!(
        c,
        "HIDDEN const unsigned long lexprobe_z3_count = {};",
        names.len()
    );
    let _ = writeln!(c, "HIDDEN void *lexprobe_z3_slots[{}];", names.len());
    c.push_str("HIDDEN const char *const lexprobe_z3_names[] = {\n");
    for name in names {
        let _ = writeln!(c, "  \"{name}\",");
    }
    c.push_str("};\nHIDDEN const char *const lexprobe_z3_candidates[] = {\n");
    for candidate in candidates {
        let escaped = candidate.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(c, "  \"{escaped}\",");
    }
    c.push_str("  0,\n};\n__asm__(\".text\\n\"\n");
    for (i, name) in names.iter().enumerate() {
        let _ = writeln!(
            c,
            "  \".globl {name}\\n.type {name},@function\\n{name}:\\n\"\n\
             \"  movq lexprobe_z3_slots+{offset}(%rip), %r11\\n  testq %r11, %r11\\n  jz 1f\\n  jmp *%r11\\n\"\n\
             \"1: movl ${i}, %r11d\\n  jmp lexprobe_z3_resolve\\n.size {name}, .-{name}\\n\"",
            offset = i * 8
        );
    }
    c.push_str(");\n");
    c
}
