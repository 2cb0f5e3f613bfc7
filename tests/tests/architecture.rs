//! The layout rules of the engine, checked on its source so they cannot
//! erode: no import circle among the core's modules, the core knows nothing
//! of the battle, the production passes name no baseline, and every CPU twin
//! sits under its pass's name.
//!
//! The import graph is read from the source: a module is a file (`a/b.rs`
//! or `a/b/mod.rs` is `a::b`), and it imports every module its
//! `crate::...`, `super::...` and child-module paths name (the longest
//! prefix that is a module). A circle is a strongly connected component of
//! more than one module (Tarjan's algorithm).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `src`, by module path ("" for the crate root).
fn modules(src: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("read a source folder") {
            let path = entry.expect("source entry").path();
            if path.is_dir() {
                walk(&path, src, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src).expect("under src");
                let mut name = relative
                    .with_extension("")
                    .to_string_lossy()
                    .replace(['/', '\\'], "::");
                if name == "lib" || name == "main" || name == "mod" {
                    name.clear();
                } else if let Some(parent) = name.strip_suffix("::mod") {
                    name = parent.to_owned();
                }
                let text = std::fs::read_to_string(&path).expect("read a source file");
                out.insert(name, text);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// `text` without `//` comments.
fn code(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths `text` names after `crate::`, one per imported item
/// (a `{a, b::c}` group gives one path each).
fn crate_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let end = rest
            .find(|c: char| {
                !(c.is_alphanumeric()
                    || c == '_'
                    || c == ':'
                    || c == '{'
                    || c == ','
                    || c.is_whitespace()
                    || c == '}')
            })
            .unwrap_or(rest.len());
        let used = &rest[..end];
        match used.find('{') {
            Some(open) => {
                let head = used[..open].trim_end_matches(':');
                let close = used.find('}').unwrap_or(used.len());
                for item in used[open + 1..close].split(',') {
                    let item: String = item.split_whitespace().collect();
                    if !item.is_empty() {
                        paths.push(format!("{head}::{item}"));
                    }
                }
            }
            None => paths.push(used.split_whitespace().next().unwrap_or("").to_owned()),
        }
    }
    paths
}

/// Module -> the modules it imports.
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|candidate| modules.contains_key(candidate))
    };
    let mut graph = BTreeMap::new();
    for (name, text) in &modules {
        let mut text = code(text);
        let prefix = if name.is_empty() {
            String::new()
        } else {
            format!("{name}::")
        };
        // Child modules named without `crate::`, and `super::`.
        for child in modules.keys() {
            let Some(local) = child.strip_prefix(&prefix) else {
                continue;
            };
            if child != name && !local.contains("::") {
                for opener in ["use ", "use self::", "pub use "] {
                    text = text.replace(
                        &format!("{opener}{local}::"),
                        &format!("{opener}crate::{child}::"),
                    );
                }
            }
        }
        let parent = name.rsplit_once("::").map_or("", |(parent, _)| parent);
        let parent_prefix = if parent.is_empty() {
            "crate::".to_owned()
        } else {
            format!("crate::{parent}::")
        };
        let text = text.replace("super::", &parent_prefix);
        let imports: BTreeSet<String> = crate_paths(&text)
            .iter()
            .filter_map(|path| resolve(path))
            .filter(|target| target != name && !target.is_empty())
            .filter(|target| !name.starts_with(&format!("{target}::")))
            .collect();
        graph.insert(name.clone(), imports);
    }
    graph
}

/// The strongly connected components of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let next = self.index.len();
            self.index.insert(v, next);
            self.low.insert(v, next);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !tarjan.index.contains_key(v.as_str()) {
            tarjan.visit(v);
        }
    }
    tarjan.found
}

fn engine(path: &str) -> std::path::PathBuf {
    horde_tests::repo_root().join("engine").join(path)
}

#[test]
fn no_import_circle_in_the_core_or_the_battle() {
    for crate_src in ["src", "battle/src"] {
        let graph = import_graph(&engine(crate_src));
        assert!(graph.len() > 3, "read no modules from {crate_src}");
        let found = circles(&graph);
        assert!(
            found.is_empty(),
            "import circles in engine/{crate_src}: {found:?}"
        );
    }
}

#[test]
fn the_circle_check_finds_a_circle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("world", vec!["passes::cull"]),
        ("passes::cull", vec!["world::buffers"]),
        ("world::buffers", vec!["world"]),
        ("scene", vec!["world"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_owned(), to.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(
        circles(&graph),
        vec![vec!["passes::cull", "world", "world::buffers"]]
    );
    let paths = crate_paths(
        "use crate::passes::{cull::CullPass, draw};\nlet x = crate::world::World::new();",
    );
    assert_eq!(
        paths,
        vec![
            "passes::cull::CullPass",
            "passes::draw",
            "world::World::new"
        ]
    );
}

#[test]
fn the_core_knows_nothing_of_the_battle_or_the_baselines_in_its_passes() {
    let manifest = std::fs::read_to_string(engine("Cargo.toml")).expect("engine/Cargo.toml");
    assert!(
        !manifest.contains("horde-battle"),
        "the core depends on the battle"
    );
    for (name, text) in modules(&engine("src")) {
        let text = code(&text);
        assert!(
            !text.contains("horde_battle") && !text.to_lowercase().contains("battle::"),
            "engine/src module {name} names the battle"
        );
        if name.starts_with("passes") {
            assert!(
                !text.contains("baselines"),
                "production pass {name} names a baseline"
            );
        }
    }
}

#[test]
fn every_cpu_twin_sits_under_its_pass_name() {
    for crate_src in ["src", "battle/src"] {
        let twins = std::fs::read_dir(engine(crate_src).join("reference")).expect("reference/");
        let mut count = 0;
        for twin in twins {
            let path = twin.expect("reference entry").path();
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("file name");
            if stem == "mod" {
                continue;
            }
            // A pass is a file, or a folder of files (`mod.rs` first).
            let passes = engine(crate_src).join("passes");
            let pass = passes.join(format!("{stem}.rs"));
            let folder = passes.join(stem).join("mod.rs");
            assert!(
                pass.is_file() || folder.is_file(),
                "{} has no pass {} (or {})",
                path.display(),
                pass.display(),
                folder.display()
            );
            count += 1;
        }
        assert!(count > 0, "no CPU twins in engine/{crate_src}/reference");
    }
}
