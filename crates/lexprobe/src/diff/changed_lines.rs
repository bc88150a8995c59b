//! The lines of NEW that OLD does not have, as ranges: a longest common subsequence of the
//! two texts' lines after their common beginning and end. Where the changed middle is too
//! large to compare line by line, all of it counts as changed.

/// Above this many line pairs in the middle, the middle is one change.
const MAX_CELLS: usize = 16_000_000;

/// 1-based inclusive ranges of NEW's lines absent from OLD (an empty range list when the
/// texts have the same lines).
pub(crate) fn changed_lines(old: &str, new: &str) -> Vec<(usize, usize)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if mb.is_empty() {
        // Only deletions: the line of NEW where OLD's lines were.
        return if ma.is_empty() {
            Vec::new()
        } else {
            let at = (prefix + 1).min(b.len().max(1));
            vec![(at, at)]
        };
    }
    let kept = if ma.len() * mb.len() > MAX_CELLS {
        vec![false; mb.len()]
    } else {
        common(ma, mb)
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, k) in kept.iter().enumerate() {
        if *k {
            continue;
        }
        let line = prefix + i + 1;
        match out.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ => out.push((line, line)),
        }
    }
    if out.is_empty() {
        // Lines only removed or reordered: point at the first line of the middle.
        out.push((prefix + 1, prefix + 1));
    }
    out
}

/// For each line of `b`: whether it is in a longest common subsequence with `a`.
fn common(a: &[&str], b: &[&str]) -> Vec<bool> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: length of the LCS of a[i..] and b[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a[i] == b[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let mut kept = vec![false; m];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            kept[j] = true;
            i += 1;
            j += 1;
        } else if lcs[at(i + 1, j)] >= lcs[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::changed_lines;

    #[test]
    fn the_lines_new_adds_or_changes_are_found() {
        // Line 2 changed, line 4 added (lines counted in NEW).
        let old = "a\nb\nc\n";
        let new = "a\nB\nc\nd\n";
        assert_eq!(changed_lines(old, new), vec![(2, 2), (4, 4)]);
        assert!(changed_lines(old, old).is_empty());
    }
}
