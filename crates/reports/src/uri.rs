//! File paths as URI references (RFC 3986), for SARIF's `artifactLocation.uri` and links in
//! the HTML reports: every byte outside the unreserved set and `/` is percent-encoded.

/// `path` (with `/` separators kept) as a relative URI reference.
pub(crate) fn path_to_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_spaces_and_accents_keeps_slashes() {
        assert_eq!(path_to_uri("a b/c.catala_en"), "a%20b/c.catala_en");
        // `é` is C3 A9 in UTF-8.
        assert_eq!(path_to_uri("prestations/é.md"), "prestations/%C3%A9.md");
    }
}
