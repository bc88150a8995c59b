//! The test material written inside a literate Catala file: its ```catala-test-cli blocks (a
//! `$ catala COMMAND` line followed by the command's expected output, ending with
//! `#return code N#` when it exits with N ≠ 0) and whether it declares `#[test]` scopes.

/// One ```catala-test-cli block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliBlock {
    /// The 1-based line of the `$ catala ...` command in the file.
    pub line: usize,
    /// The command without its `$ ` prompt, e.g. `catala test-scope A --disable-warnings`.
    pub command: String,
    /// The expected output, line by line.
    pub expected: Vec<String>,
}

/// Every ```catala-test-cli block of `text`, in order. A block with no `$` line has an empty
/// command (reported as out of scope by the runner).
pub fn cli_blocks(text: &str) -> Vec<CliBlock> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if line.trim_end() != "```catala-test-cli" {
            continue;
        }
        let mut block = CliBlock {
            line: i + 2,
            command: String::new(),
            expected: Vec::new(),
        };
        let mut first = true;
        for (j, l) in lines.by_ref() {
            if l.trim_end() == "```" {
                break;
            }
            match l.strip_prefix("$ ") {
                Some(command) if first => {
                    block.command = command.trim().to_string();
                    block.line = j + 1;
                }
                _ => block.expected.push(l.to_string()),
            }
            first = false;
        }
        blocks.push(block);
    }
    blocks
}

/// Whether `text` declares `#[test]` scopes (the attribute Catala's test runner looks for).
pub(crate) fn has_test_scopes(text: &str) -> bool {
    text.contains("#[test]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_with_their_commands_lines_and_outputs() {
        let text = "# T\n\n```catala-test-cli\n$ catala test-scope A\n┌─[RESULT]─ A ─\n└─\n```\n\
                    text\n```catala-test-cli\n$ catala typecheck\n#return code 123#\n```\n";
        let blocks = cli_blocks(text);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].line, 4);
        assert_eq!(blocks[0].command, "catala test-scope A");
        assert_eq!(blocks[0].expected, vec!["┌─[RESULT]─ A ─", "└─"]);
        assert_eq!(blocks[1].line, 10);
        assert_eq!(blocks[1].expected, vec!["#return code 123#"]);
    }

    #[test]
    fn a_block_without_a_command() {
        let blocks = cli_blocks("```catala-test-cli\nno prompt\n```\n");
        assert_eq!(blocks[0].command, "");
        assert_eq!(blocks[0].expected, vec!["no prompt"]);
    }
}
