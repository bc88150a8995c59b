//! The line diff of two versions' texts: which lines of NEW are not in OLD, as ranges (where
//! result files point), and the two texts aligned row by row (the side-by-side view of the
//! HTML report). Lines are matched after the texts' common beginning and end by a longest
//! common subsequence; where the changed middle is too large to compare line by line, the
//! lines found exactly once in each text anchor the match (the longest run of them in the same
//! order) and the pieces between anchors are compared again; a piece still too large, or
//! without anchors, counts as changed.

use std::collections::HashMap;

/// Above this many line pairs, a piece is not compared line by line.
const MAX_CELLS: usize = 16_000_000;

/// 1-based inclusive ranges of NEW's lines absent from OLD (an empty range list when the
/// texts have the same lines).
pub(crate) fn changed_lines(old: &str, new: &str) -> Vec<(usize, usize)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let (prefix, suffix) = common_ends(&a, &b);
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
    let mut kept = vec![false; mb.len()];
    for (_, j) in matched_lines(ma, mb) {
        kept[j] = true;
    }
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

/// What a row of the aligned texts shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// The same line in both.
    Same,
    /// A line of OLD replaced by a line of NEW.
    Changed,
    /// A line of OLD only.
    Removed,
    /// A line of NEW only.
    Added,
}

/// One row of the aligned texts: 1-based line numbers of OLD and NEW (`None` on the side
/// without a line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) old: Option<usize>,
    pub(crate) new: Option<usize>,
    pub(crate) kind: RowKind,
}

/// The two texts aligned: every line of each, in order, matched lines on one row; between
/// two matched lines, the lines of OLD and of NEW there paired row by row as changed, the
/// rest removed or added. Lines are matched ignoring their spaces (a re-indented rule stays
/// beside its old version) and marked changed when their spaces differ.
pub(crate) fn aligned_rows(old: &str, new: &str) -> Vec<Row> {
    let words = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let (wa, wb) = (words(old), words(new));
    let a: Vec<&str> = wa.iter().map(String::as_str).collect();
    let b: Vec<&str> = wb.iter().map(String::as_str).collect();
    let (raw_a, raw_b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let (prefix, suffix) = common_ends(&a, &b);
    let mut pairs: Vec<(usize, usize)> = (0..prefix).map(|i| (i, i)).collect();
    pairs.extend(
        matched_lines(&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix])
            .into_iter()
            .map(|(i, j)| (i + prefix, j + prefix)),
    );
    pairs.extend((0..suffix).map(|k| (a.len() - suffix + k, b.len() - suffix + k)));
    pairs.push((a.len(), b.len()));
    let mut rows = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    for (mi, mj) in pairs {
        let (gap_a, gap_b) = (mi - i, mj - j);
        for k in 0..gap_a.max(gap_b) {
            let old = (k < gap_a).then_some(i + k + 1);
            let new = (k < gap_b).then_some(j + k + 1);
            let kind = match (old, new) {
                (Some(_), Some(_)) => RowKind::Changed,
                (Some(_), None) => RowKind::Removed,
                _ => RowKind::Added,
            };
            rows.push(Row { old, new, kind });
        }
        if mi < a.len() {
            rows.push(Row {
                old: Some(mi + 1),
                new: Some(mj + 1),
                kind: if raw_a[mi] == raw_b[mj] {
                    RowKind::Same
                } else {
                    RowKind::Changed
                },
            });
        }
        (i, j) = (mi + 1, mj + 1);
    }
    rows
}

/// How many lines the texts share at their beginning and, after it, at their end.
fn common_ends(a: &[&str], b: &[&str]) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, suffix)
}

/// The pairs (index in `a`, index in `b`), increasing in both, of the lines matched.
fn matched_lines(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    match_piece(a, b, 0, 0, &mut out);
    out
}

/// Matches the lines of `a` and `b` (which start at `at_a` and `at_b` of the whole texts).
fn match_piece(a: &[&str], b: &[&str], at_a: usize, at_b: usize, out: &mut Vec<(usize, usize)>) {
    let (prefix, suffix) = common_ends(a, b);
    out.extend((0..prefix).map(|k| (at_a + k, at_b + k)));
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (ia, ib) = (at_a + prefix, at_b + prefix);
    if !ma.is_empty() && !mb.is_empty() {
        if ma.len() * mb.len() <= MAX_CELLS {
            out.extend(common(ma, mb).into_iter().map(|(i, j)| (ia + i, ib + j)));
        } else {
            let anchors = unique_anchors(ma, mb);
            let (mut pa, mut pb) = (0, 0);
            for (i, j) in anchors {
                match_piece(&ma[pa..i], &mb[pb..j], ia + pa, ib + pb, out);
                out.push((ia + i, ib + j));
                (pa, pb) = (i + 1, j + 1);
            }
            // Without anchors this piece is as large as before: counted as changed.
            if pa > 0 {
                match_piece(&ma[pa..], &mb[pb..], ia + pa, ib + pb, out);
            }
        }
    }
    let (ea, eb) = (at_a + a.len() - suffix, at_b + b.len() - suffix);
    out.extend((0..suffix).map(|k| (ea + k, eb + k)));
}

/// The lines that occur exactly once in `a` and once in `b`, the longest run of them in the
/// same order in both, as index pairs.
fn unique_anchors(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    // Per line: occurrences in a, its index in a, occurrences in b, its index in b.
    let mut seen: HashMap<&str, (u32, usize, u32, usize)> = HashMap::new();
    for (i, l) in a.iter().enumerate() {
        let e = seen.entry(l).or_insert((0, i, 0, 0));
        e.0 += 1;
    }
    for (j, l) in b.iter().enumerate() {
        if let Some(e) = seen.get_mut(l) {
            e.2 += 1;
            e.3 = j;
        }
    }
    let mut unique: Vec<(usize, usize)> = seen
        .values()
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    unique.sort_by_key(|&(_, j)| j);
    longest_increasing(&unique)
}

/// The longest subsequence of `pairs` (sorted by their second index) increasing in the
/// first index.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: the index in `pairs` of the smallest end of an increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(i, _)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].0 < i);
        before[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut k = tails.last().copied();
    while let Some(x) = k {
        run.push(pairs[x]);
        k = before[x];
    }
    run.reverse();
    run
}

/// The index pairs of a longest common subsequence of `a` and `b`.
fn common(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
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
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if lcs[at(i + 1, j)] >= lcs[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::{aligned_rows, changed_lines, match_piece, Row, RowKind};

    #[test]
    fn the_lines_new_adds_or_changes_are_found() {
        // Line 2 changed, line 4 added (lines counted in NEW).
        let old = "a\nb\nc\n";
        let new = "a\nB\nc\nd\n";
        assert_eq!(changed_lines(old, new), vec![(2, 2), (4, 4)]);
        assert!(changed_lines(old, old).is_empty());
    }

    fn row(old: Option<usize>, new: Option<usize>, kind: RowKind) -> Row {
        Row { old, new, kind }
    }

    #[test]
    fn the_texts_are_aligned_row_by_row() {
        // OLD a b c x, NEW a B c d: b/B changed on one row, x removed then d added after c
        // (paired as a changed row), every line of each text once, in order.
        let rows = aligned_rows("a\nb\nc\nx\ny\n", "a\nB\nc\nd\n");
        use RowKind::*;
        assert_eq!(
            rows,
            vec![
                row(Some(1), Some(1), Same),
                row(Some(2), Some(2), Changed),
                row(Some(3), Some(3), Same),
                row(Some(4), Some(4), Changed),
                row(Some(5), None, Removed),
            ]
        );
        let rows = aligned_rows("a\nc\n", "a\nb1\nb2\nc\n");
        assert_eq!(
            rows,
            vec![
                row(Some(1), Some(1), Same),
                row(None, Some(2), Added),
                row(None, Some(3), Added),
                row(Some(2), Some(4), Same),
            ]
        );
        assert!(aligned_rows("", "").is_empty());
        // A re-indented line stays beside its old version, marked changed.
        let rows = aligned_rows("x\n    a b\ny\nz\n", "  a  b\nz\n");
        assert_eq!(
            rows,
            vec![
                row(Some(1), None, Removed),
                row(Some(2), Some(1), Changed),
                row(Some(3), None, Removed),
                row(Some(4), Some(2), Same),
            ]
        );
    }

    #[test]
    fn unique_lines_anchor_a_piece_too_large_to_compare_line_by_line() {
        // 5,000 × 5,000 lines is above the limit: the unique lines anchor the match, and only
        // the one line changed in the middle is left unmatched.
        let old: Vec<String> = (0..5000).map(|i| format!("line {i}")).collect();
        let mut new = old.clone();
        new[2500] = "changed".into();
        let (a, b): (Vec<&str>, Vec<&str>) = (
            old.iter().map(String::as_str).collect(),
            new.iter().map(String::as_str).collect(),
        );
        // Reversed ends so that the common beginning and end do not already settle it.
        let mut a2 = vec!["first old"];
        a2.extend(&a);
        a2.push("last old");
        let mut b2 = vec!["first new"];
        b2.extend(&b);
        b2.push("last new");
        let mut out = Vec::new();
        match_piece(&a2, &b2, 0, 0, &mut out);
        assert_eq!(out.len(), 4999);
        assert!(!out.contains(&(2501, 2501)));
        assert!(out.contains(&(2500, 2500)) && out.contains(&(2502, 2502)));
        let text = |v: &[&str]| v.join("\n");
        assert_eq!(
            changed_lines(&text(&a2), &text(&b2)),
            vec![(1, 1), (2502, 2502), (5002, 5002)]
        );
    }
}
