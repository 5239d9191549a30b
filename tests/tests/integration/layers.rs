//! ARCHITECTURE invariants about the modules inside each crate, read from the sources' `use`
//! lines and `crate::`/`super::`/`self::` paths (as rust-analyzer's `tidy` tests check its
//! architecture): no two sibling modules import each other, directly or around a circle, and the
//! server's top-level modules import only their own layer or the layers below it (the order
//! lib.rs's comment and ARCHITECTURE.md give). Test modules (`tests.rs`, `#[cfg(test)] mod`)
//! may import anything, and comments (doc links included) do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `["net", "http"]`; the crate root is `[]`.
type ModPath = Vec<String>;

/// The server's layers, bottom to top; a module may import its own layer and those below.
/// The crate root (lib.rs, main.rs) wires everything and is above them all.
const SERVER_LAYERS: &[&[&str]] = &[
    &[
        "clock",
        "config",
        "fairplay",
        "hex",
        "metrics",
        "outbox",
        "rating",
        "store",
        "token_bucket",
    ],
    &["puzzles"],
    &["room"],
    &["pool"],
    &["arena"],
    &["cluster"],
    &["net"],
    &["fuzzing"],
];

/// The crates whose sources are checked, relative to the workspace root.
const CRATES: &[&str] = &[
    "shared",
    "protocol",
    "server",
    "client-cli",
    "load",
    "testkit",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Every non-test source file of the crate at `src`, by module path.
fn crate_files(src: &Path) -> BTreeMap<ModPath, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("read {dir:?}: {e}"));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.ends_with(".rs") || name == "tests.rs" {
                continue;
            }
            let rel = path
                .strip_prefix(src)
                .expect("under src")
                .with_extension("");
            let mut module: ModPath = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.first().is_some_and(|m| m == "bin") {
                continue; // each binary is a crate of its own
            }
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                module.clear();
            }
            if module.is_empty() && name == "main.rs" && src.join("lib.rs").exists() {
                continue; // a main.rs beside a lib.rs is a crate of its own
            }
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            out.insert(module, text);
        }
    }
    out
}

/// The source without comments and without its test module (which may import anything).
fn code_of(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        code.push_str(line.split("//").next().unwrap_or(""));
        code.push('\n');
    }
    code
}

/// Expand a `use` tree (`super::{a, b::{c, d as e}, self}`) into its paths.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    fn split_top(s: &str) -> Vec<&str> {
        let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
        for (i, ch) in s.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts
    }
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let prefix: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut out = Vec::new();
        for part in split_top(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            for tail in expand_use(part) {
                let mut path = prefix.clone();
                path.extend(tail.into_iter().filter(|s| s != "self"));
                out.push(path);
            }
        }
        out
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        vec![path.split("::").map(|s| s.trim().to_string()).collect()]
    }
}

/// Every `crate::`, `super::` or `self::` path the code names, from `use` trees and inline.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let mut t = line.trim_start();
        if let Some(vis) = t.strip_prefix("pub") {
            let vis = vis.trim_start();
            t = match vis.strip_prefix('(') {
                Some(inner) => inner.split_once(')').map_or("", |(_, r)| r.trim_start()),
                None => vis,
            };
        }
        if let Some(tree) = t.strip_prefix("use ") {
            let start = at + (line.len() - tree.len());
            let end = code[start..].find(';').map_or(code.len(), |e| start + e);
            out.extend(expand_use(&code[start..end]));
        }
    }
    let bytes = code.as_bytes();
    for head in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(head) {
            let at = from + found;
            from = at + head.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
            );
        }
    }
    out
}

/// The module of `files` that `path`, named inside module `from`, points into.
fn resolve(files: &BTreeMap<ModPath, String>, from: &ModPath, path: &[String]) -> Option<ModPath> {
    let (mut base, rest): (ModPath, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (from.clone(), &path[1..]),
        Some("super") => {
            let mut base = from.clone();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            (base, rest)
        }
        _ => return None,
    };
    base.extend(rest.iter().cloned());
    (0..=base.len())
        .rev()
        .map(|n| base[..n].to_vec())
        .find(|m| files.contains_key(m))
}

/// The import graph lifted to siblings: an edge a → b between two modules under the same parent
/// whenever anything in a names anything in b (a child naming its ancestor's items is not one).
fn sibling_graph(files: &BTreeMap<ModPath, String>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (module, text) in files {
        for path in named_paths(&code_of(text)) {
            let Some(target) = resolve(files, module, &path) else {
                continue;
            };
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue; // one is the other's ancestor
            }
            let (a, b) = (module[..=common].to_vec(), target[..=common].to_vec());
            graph.entry(a).or_default().insert(b.clone());
            graph.entry(b).or_default();
        }
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    let reaches = |from: &ModPath| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&ModPath, BTreeSet<ModPath>> =
        graph.keys().map(|m| (m, reaches(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if done.contains(m) || !reach[m].contains(m) {
            continue;
        }
        let comp: Vec<ModPath> = graph
            .keys()
            .filter(|o| *o == m || (reach[m].contains(*o) && reach[*o].contains(m)))
            .cloned()
            .collect();
        done.extend(comp.iter().cloned());
        if comp.len() > 1 {
            out.push(comp);
        }
    }
    out
}

/// Imports from a lower layer's module into a higher one's, as "from -> to".
fn upward(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>, layers: &[&[&str]]) -> Vec<String> {
    let rank = |m: &ModPath| {
        (m.len() == 1)
            .then(|| layers.iter().position(|l| l.contains(&m[0].as_str())))
            .flatten()
    };
    let mut out = Vec::new();
    for (from, tos) in graph {
        for to in tos {
            if from.len() != 1 {
                continue;
            }
            match (rank(from), rank(to)) {
                (Some(a), Some(b)) if b > a => out.push(format!("{} -> {}", from[0], to[0])),
                (None, _) | (_, None) => {
                    out.push(format!("{} -> {} (not in a layer)", from[0], to[0]))
                }
                _ => {}
            }
        }
    }
    out
}

fn show(comp: &[ModPath]) -> String {
    comp.iter()
        .map(|m| m.join("::"))
        .collect::<Vec<_>>()
        .join(" <-> ")
}

#[test]
fn no_module_imports_a_sibling_in_a_circle() {
    let mut found = Vec::new();
    for krate in CRATES {
        let src = workspace_root().join(krate).join("src");
        assert!(src.is_dir(), "{src:?} is not a crate's src");
        let graph = sibling_graph(&crate_files(&src));
        found.extend(
            circles(&graph)
                .iter()
                .map(|c| format!("{krate}: {}", show(c))),
        );
    }
    assert!(found.is_empty(), "modules import each other: {found:#?}");
}

#[test]
fn the_servers_layers_import_only_downward() {
    let files = crate_files(&workspace_root().join("server").join("src"));
    let top: BTreeSet<&str> = files
        .keys()
        .filter(|m| m.len() == 1)
        .map(|m| m[0].as_str())
        .collect();
    let listed: BTreeSet<&str> = SERVER_LAYERS
        .iter()
        .flat_map(|l| l.iter().copied())
        .collect();
    assert_eq!(
        top, listed,
        "every top-level server module has a layer, and no other"
    );
    let up = upward(&sibling_graph(&files), SERVER_LAYERS);
    assert!(up.is_empty(), "upward imports: {up:#?}");
}

/// The checks themselves catch what they are for: a grouped `use super::{…}`, an inline path,
/// a `super::super`, and circles of two and three; a doc link or a test module does not count.
#[test]
fn the_checks_find_circles_and_upward_imports() {
    let files: BTreeMap<ModPath, String> = [
        (vec![], "pub mod low; pub mod high; pub mod net;"),
        (vec!["low".into()], "//! see [`super::high`]\nuse crate::{high::Thing};"),
        (vec!["high".into()], "fn f() { crate::low::g(); }"),
        (vec!["net".into()], "mod http; mod upgrade; mod reply;"),
        (vec!["net".into(), "http".into()], "use super::{reply, upgrade};"),
        (vec!["net".into(), "upgrade".into()], "use super::super::net::reply::Body;\n#[cfg(test)]\nmod tests { use super::super::http; }"),
        (vec!["net".into(), "reply".into()], "use super::{Slot};\nfn f() { self::g() }"),
    ]
    .into_iter()
    .map(|(m, t)| (m, t.to_string()))
    .collect();
    let graph = sibling_graph(&files);
    let found: Vec<String> = circles(&graph).iter().map(|c| show(c)).collect();
    assert_eq!(found, ["high <-> low"], "one circle, and not net's");
    assert_eq!(
        upward(&graph, &[&["low"], &["high"], &["net"]]),
        ["low -> high"]
    );

    let mut with_circle = files.clone();
    with_circle.insert(
        vec!["net".into(), "reply".into()],
        "fn f() -> super::http::Route { todo!() }".into(),
    );
    let found: Vec<String> = circles(&sibling_graph(&with_circle))
        .iter()
        .map(|c| show(c))
        .collect();
    assert!(
        found.contains(&"net::http <-> net::reply <-> net::upgrade".to_string()),
        "{found:?}"
    );
}
