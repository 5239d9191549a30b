//! The browser client's scripts and stylesheets without their comments and indentation, as they
//! are served. The sources carry long JSDoc types and comments for `tsc` and for us; a browser
//! needs none of it, and leaving it out takes a third off the compressed first load.
//!
//! This is a line pass, not a minifier: it drops whole lines that are comments (`//` lines in
//! scripts, `/* … */` blocks that start a line and end one), blank lines and leading
//! whitespace, and nothing else. The client's own style keeps comments on their own lines, so
//! that is most of them. Whenever a line is not plainly one or the other (code after a closing
//! `*/`, a block closed mid-line, a template literal left open), the file is served as it is: doubt never changes a program.
//! Lines inside a multi-line template literal are kept byte for byte. The Chromium suite checks
//! that every served script has the same tokens as its source, and every stylesheet the same
//! rules. A crate minifier (swc, oxc, lightningcss) would do more, at the price of a few hundred
//! crates in the build; this is what the budget needed.

/// What kind of text a file is, by its name: `None` for files served as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Script,
    Style,
}

fn kind(name: &str) -> Option<Kind> {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "js" | "mjs" => Some(Kind::Script),
        "css" => Some(Kind::Style),
        _ => None,
    }
}

/// The file `name` slimmed, or `None` to serve it as it is (not a script or stylesheet, not
/// UTF-8, or a line the pass is not sure of).
pub fn slim(name: &str, src: &[u8]) -> Option<Vec<u8>> {
    let kind = kind(name)?;
    let text = std::str::from_utf8(src).ok()?;
    let mut out = String::with_capacity(text.len());
    let mut in_block = false;
    let mut in_template = false;
    for line in text.split('\n') {
        if in_template {
            out.push_str(line);
            out.push('\n');
            in_template ^= odd_backticks(line);
            continue;
        }
        let t = line.trim();
        if in_block {
            match t.find("*/") {
                Some(at) if at + 2 == t.len() => in_block = false,
                Some(_) => return None,
                None => {}
            }
            continue;
        }
        if t.is_empty() || (kind == Kind::Script && t.starts_with("//")) {
            continue;
        }
        if let Some(rest) = t.strip_prefix("/*") {
            match rest.find("*/") {
                Some(at) if at + 2 == rest.len() => {}
                Some(_) => return None,
                None => in_block = true,
            }
            continue;
        }
        // Trailing whitespace stays: it may open a template literal's text.
        let kept = line.trim_start();
        out.push_str(kept);
        out.push('\n');
        if kind == Kind::Script && odd_backticks(kept) {
            // A template literal opened on this line runs on: keep what follows as it is.
            in_template = true;
        }
    }
    if in_block || in_template {
        return None;
    }
    Some(out.into_bytes())
}

/// Whether a line holds an odd number of unescaped backticks (a template literal's start or end).
fn odd_backticks(line: &str) -> bool {
    let mut odd = false;
    let mut escaped = false;
    for b in line.bytes() {
        match b {
            b'\\' if !escaped => escaped = true,
            b'`' if !escaped => odd = !odd,
            _ => escaped = false,
        }
    }
    odd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(name: &str, src: &str, expected: Option<&str>) {
        let got = slim(name, src.as_bytes()).map(|b| String::from_utf8(b).expect("utf-8"));
        assert_eq!(got.as_deref(), expected);
    }

    #[test]
    fn comment_lines_and_indentation_go() {
        check(
            "a.js",
            "// @ts-check\n/**\n * Doc.\n * @param {number} x\n */\nexport function f(x) {\n  // why\n  return x; // kept\n}\n",
            Some("export function f(x) {\nreturn x; // kept\n}\n"),
        );
        check(
            "s.css",
            "/* one */\n.a {\n  color: red;\n}\n\n/* two\n   lines */\n.b{}\n",
            Some(".a {\ncolor: red;\n}\n.b{}\n"),
        );
        // `//` starts no comment in CSS.
        check(
            "s.css",
            "a { b: url(//x); }\n",
            Some("a { b: url(//x); }\n"),
        );
    }

    #[test]
    fn a_template_literal_is_kept_as_it_is() {
        check(
            "t.js",
            "const s = `a\n  // not a comment\n\n  b`;\n  f();\n",
            Some("const s = `a\n  // not a comment\n\n  b`;\nf();\n"),
        );
        check("t.js", "const s = `x\\`y`;\n", Some("const s = `x\\`y`;\n"));
    }

    #[test]
    fn doubt_serves_the_file_as_it_is() {
        check("d.js", "/* a */ f();\n", None);
        check("d.js", "/*\n a */ f();\n", None);
        check("d.js", "/* never closed\n", None);
        check("d.js", "const s = `never closed\n", None);
        check("x.json", "{}", None);
        check("x.html", "<p>\n", None);
        assert_eq!(slim("bad.js", &[0xff, 0xfe]), None);
    }
}
