//! The answer as the markdown report lists it, to be read at a glance: each sentence of
//! [`super::answer`] a bullet wrapped at [`WIDTH`] columns (a code span is never broken), the
//! ratios of Servo's verifiers to the other browsers' as a small table under their bullet, the
//! other hook's command on a line of its own. JSON and the HTML report keep the sentences
//! whole.

use super::answer::{comparisons, words};
use super::pq;
use super::table::plain_table;
use crate::answer::{Answer, Answers, ServoAgainst};

/// The widest line of a bullet, its `- ` included (a longer code span makes a longer line).
pub(crate) const WIDTH: usize = 100;

/// `text` as a bullet: `- ` before its first line, two spaces before the others, words moved
/// to the next line before one would pass [`WIDTH`].
pub(crate) fn bullet(text: &str) -> String {
    // Words, a code span with its spaces counting as one; a word that could open a block at
    // the start of a line (`- `, `= `, `| `, `1.` …) stays with the word before it.
    let opens_block = |w: &str| {
        w.starts_with(['-', '+', '*', '#', '>', '=', '|'])
            || (w.ends_with(['.', ')']) && w[..w.len() - 1].chars().all(|c| c.is_ascii_digit()))
    };
    let mut words: Vec<String> = Vec::new();
    let mut open = false;
    for w in text.split(' ') {
        match words.last_mut() {
            Some(last) if open || opens_block(w) => {
                last.push(' ');
                last.push_str(w);
            }
            _ => words.push(w.to_owned()),
        }
        open ^= w.matches('`').count() % 2 == 1;
    }
    let mut out = String::from("- ");
    let mut width = 2;
    for (i, w) in words.iter().enumerate() {
        let len = w.chars().count();
        if i > 0 && width + 1 + len > WIDTH {
            out.push_str("\n  ");
            width = 2;
        } else if i > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(w);
        width += len;
    }
    out.push('\n');
    out
}

/// Servo's verifiers (rows) against the other browsers' (columns): the median per-site ratio
/// of own costs, the sites in brackets.
fn servo_table(against: &[ServoAgainst]) -> String {
    let mut browsers: Vec<&str> = Vec::new();
    for (b, _, _) in against.iter().flat_map(|s| &s.browsers) {
        if !browsers.contains(&b.as_str()) {
            browsers.push(b);
        }
    }
    let columns: Vec<String> = browsers.iter().map(|b| format!("÷ {b}'s")).collect();
    let mut header = vec!["Servo's verifier"];
    header.extend(columns.iter().map(String::as_str));
    let rows = (against.iter())
        .filter(|s| !s.browsers.is_empty())
        .map(|s| {
            let mut row = vec![s.servo.clone()];
            row.extend(browsers.iter().map(|b| {
                (s.browsers.iter())
                    .find(|(c, _, _)| c == b)
                    .map_or("—".to_owned(), |(_, ratio, n)| {
                        format!("×{ratio:.2} ({n})")
                    })
            }));
            row
        })
        .collect();
    plain_table(&header, rows, 1)
}

/// The comparison's bullets.
fn comparison(a: &Answer) -> String {
    let servo = comparisons(a);
    let hook = a
        .other_hook
        .as_ref()
        .map(|cmd| format!("The other hook: `{cmd}`."));
    let mut out = String::new();
    for line in words(a) {
        if let Some((_, heading, against)) = servo.iter().find(|(s, _, _)| *s == line) {
            out.push_str(&bullet(heading));
            out.push('\n');
            for row in servo_table(against).lines() {
                out.push_str(&format!("  {row}\n"));
            }
            out.push('\n');
        } else if Some(&line) == hook.as_ref() {
            let cmd = a.other_hook.as_deref().unwrap_or_default();
            out.push_str(&format!("- The other hook:\n  `{cmd}`\n"));
        } else {
            out.push_str(&bullet(&line));
        }
    }
    out
}

/// The answer's bullets: the comparison's, then the twins'.
pub(crate) fn list(a: &Answers) -> String {
    let mut out = a.comparison.as_ref().map(comparison).unwrap_or_default();
    for line in a.pq.as_ref().map(pq::answer).unwrap_or_default() {
        out.push_str(&bullet(&line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bullet_wraps_between_words_and_keeps_a_code_span_whole() {
        let text = format!("{} `a code span` end.", "word ".repeat(19).trim_end());
        let b = bullet(&text);
        assert_eq!(
            b,
            format!(
                "- {}\n  `a code span` end.\n",
                "word ".repeat(19).trim_end()
            )
        );
        assert!(b.lines().all(|l| l.chars().count() <= WIDTH), "{b}");
        assert_eq!(bullet("short."), "- short.\n");
        // No line starts with what would open a list or a heading.
        let b = bullet(&format!("{} = TCP - 2. #3", "word ".repeat(19).trim_end()));
        assert!(
            b.lines()
                .skip(1)
                .all(|l| !l[2..].starts_with(['=', '-', '#', '2'])),
            "{b}"
        );
    }
}
