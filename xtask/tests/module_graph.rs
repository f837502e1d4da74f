//! Keeps the workspace's import picture free of circles: no module cycle inside any crate, and
//! no dev-dependency on a workspace package that itself depends on the one declaring it.
//!
//! A node is a source file; an edge "A -> B" means file A names an item that file B defines.
//! Paths are resolved through `use` aliases and re-exports to the module that defines the item,
//! so a façade that re-exports its children is not a cycle, and neither is a private alias
//! (`use container::error;` in `lib.rs`) that children reach as `crate::error::…`.
//!
//! What it does not see: paths inside macro bodies and calls (never parsed), and method
//! calls, which name no module (an `impl` block in one file that another file's code calls
//! is an arrow this test cannot draw); `#[cfg(test)]` items are left out on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use syn::ext::IdentExt as _;
use syn::visit::{self, Visit};
use syn::{Attribute, Item, UseTree, Visibility};

/// A module's path from its crate root: `[]` is the root, `["session", "pipeline"]` below it.
type ModPath = Vec<String>;

/// One file of a crate, as the graph builder takes it.
struct SourceFile {
    /// How messages name the file (relative to the workspace root).
    label: String,
    ast: syn::File,
}

/// Alias chains longer than this are taken to loop (`use a as b; use b as a;`).
const MAX_DEPTH: usize = 32;

// ---------------------------------------------------------------------------------------------
// The tests.

#[test]
fn no_module_cycles_inside_any_crate() {
    let root = workspace_root();
    let metadata = cargo_metadata(&root, &["--no-deps"]);
    let mut crates = 0;
    let mut files = BTreeSet::new();
    let mut report = String::new();
    for (package, kind, src_path) in crate_roots(&root, &metadata) {
        let sources = load_crate(&root, &src_path);
        crates += 1;
        files.extend(sources.values().map(|file| file.label.clone()));
        let graph = build_graph(&sources);
        for cycle in cycles(&graph) {
            let _ = writeln!(report, "cycle in {package} ({kind}):");
            for &node in &cycle {
                let _ = writeln!(report, "    {}", graph.nodes[node]);
            }
            let inside = graph.edges.iter().filter(|((from, to), _)| cycle.contains(from) && cycle.contains(to));
            let mut lines: Vec<String> = inside.map(|(&edge, example)| graph.edge_label(edge, example)).collect();
            lines.sort();
            for line in lines {
                let _ = writeln!(report, "    {line}");
            }
        }
    }
    println!("walked {crates} crates, {} files", files.len());
    assert!(crates > 0 && !files.is_empty(), "found no crate to walk under {}", root.display());
    assert!(report.is_empty(), "module cycles (each file set names its files; edges give one path each):\n{report}");
}

#[test]
fn no_dev_dependency_runs_upward() {
    let root = workspace_root();
    // With the dependency graph; read from the lock as it stands, which the test must not rewrite.
    let metadata = cargo_metadata(&root, &["--locked"]);
    let members: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("cargo metadata lists packages")
        .iter()
        .filter(|package| Path::new(str_field(package, "manifest_path")).starts_with(&root))
        .map(|package| (str_field(package, "id"), str_field(package, "name")))
        .collect();
    // Package id -> what it depends on to build (normal and build kinds), and for its tests only.
    let mut lasting: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut dev: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().expect("cargo metadata resolves dependencies") {
        let id = str_field(node, "id");
        for dep in node["deps"].as_array().into_iter().flatten() {
            let pkg = str_field(dep, "pkg");
            for kind in dep["dep_kinds"].as_array().into_iter().flatten() {
                let into = if kind["kind"].as_str() == Some("dev") { &mut dev } else { &mut lasting };
                into.entry(id).or_default().push(pkg);
            }
        }
    }
    let mut upward = BTreeSet::new();
    for (&package, &name) in &members {
        for &dep in dev.get(package).into_iter().flatten() {
            if dep != package && members.contains_key(dep) && reaches(&lasting, dep, package) {
                upward.insert(format!("{name} dev-depends on {}, which depends on {name}", members[dep]));
            }
        }
    }
    assert!(upward.is_empty(), "dev-dependencies that run upward:\n{}", Vec::from_iter(upward).join("\n"));
}

#[test]
fn resolver_sees_through_a_re_export_facade() {
    let graph = build_graph(&in_memory(&[
        (&[], "lib.rs", "mod a; mod b; use a as first; pub use a::Thing; pub use b::Other;"),
        (&["a"], "a.rs", "pub struct Thing; pub fn make() -> crate::Other { crate::Other }"),
        (
            &["b"],
            "b.rs",
            r#"
            /// Names [`crate::first::Thing`] only in a doc comment.
            pub struct Other;
            const NAME: &str = "crate::a::Thing";
            #[cfg(test)]
            mod tests {
                use super::*;
                use crate::a::Thing;
            }
            "#,
        ),
    ]));
    assert_eq!(edge_labels(&graph), ["a.rs -> b.rs (crate::Other)"]);
    assert!(cycles(&graph).is_empty());
}

#[test]
fn resolver_follows_a_private_alias_to_the_defining_file() {
    let graph = build_graph(&in_memory(&[
        (&[], "lib.rs", "mod container; mod user; use container::error;"),
        (&["container"], "container.rs", "pub mod error;"),
        (&["container", "error"], "container/error.rs", "pub enum DecodeError { Truncated }"),
        (&["user"], "user.rs", "pub fn f() -> crate::error::DecodeError { crate::error::DecodeError::Truncated }"),
    ]));
    assert_eq!(edge_labels(&graph), ["user.rs -> container/error.rs (crate::error::DecodeError)"]);
}

#[test]
fn resolver_finds_mutual_use_between_siblings() {
    let graph = build_graph(&in_memory(&[
        (&[], "lib.rs", "mod a; mod b;"),
        (&["a"], "a.rs", "use crate::b::Other; pub struct Thing(Other);"),
        (&["b"], "b.rs", "pub struct Other; pub fn g(_: &super::a::Thing) {}"),
    ]));
    assert_eq!(edge_labels(&graph), ["a.rs -> b.rs (crate::b::Other)", "b.rs -> a.rs (super::a::Thing)"]);
    assert_eq!(cycle_labels(&graph), [vec!["a.rs", "b.rs"]]);
}

#[test]
fn resolver_finds_a_child_using_its_parent() {
    let graph = build_graph(&in_memory(&[
        (&[], "lib.rs", "mod a; pub struct Root; fn h() { a::f(); }"),
        (&["a"], "a.rs", "pub fn f() -> super::Root { super::Root }"),
    ]));
    assert_eq!(edge_labels(&graph), ["a.rs -> lib.rs (super::Root)", "lib.rs -> a.rs (a::f)"]);
    assert_eq!(cycle_labels(&graph), [vec!["a.rs", "lib.rs"]]);
}

fn in_memory(files: &[(&[&str], &str, &str)]) -> BTreeMap<ModPath, SourceFile> {
    files
        .iter()
        .map(|&(path, label, text)| {
            let ast = syn::parse_file(text).unwrap_or_else(|error| panic!("{label}: {error}"));
            (path.iter().map(ToString::to_string).collect(), SourceFile { label: label.to_owned(), ast })
        })
        .collect()
}

/// Every edge as `from -> to (example path)`, sorted.
fn edge_labels(graph: &Graph) -> Vec<String> {
    let mut labels: Vec<String> = graph.edges.iter().map(|(&edge, example)| graph.edge_label(edge, example)).collect();
    labels.sort();
    labels
}

fn cycle_labels(graph: &Graph) -> Vec<Vec<&str>> {
    let cycles = cycles(graph).into_iter();
    cycles.map(|cycle| cycle.iter().map(|&node| graph.nodes[node].as_str()).collect()).collect()
}

// ---------------------------------------------------------------------------------------------
// The workspace: cargo metadata, crate roots, and the files a crate's `mod` declarations reach.

fn workspace_root() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().expect("xtask/ lies one level below the workspace root").to_path_buf()
}

fn cargo_metadata(root: &Path, extra: &[&str]) -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .args(extra)
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_else(|| panic!("cargo metadata: no string {key:?} in {value}"))
}

/// (package name, target kind, crate root file) of each lib and bin target in the workspace.
fn crate_roots(root: &Path, metadata: &Value) -> Vec<(String, String, PathBuf)> {
    const CRATE_KINDS: [&str; 7] = ["lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro", "bin"];
    let mut roots = Vec::new();
    for package in metadata["packages"].as_array().expect("cargo metadata lists packages") {
        if !Path::new(str_field(package, "manifest_path")).starts_with(root) {
            continue;
        }
        for target in package["targets"].as_array().into_iter().flatten() {
            let kinds: Vec<&str> = target["kind"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            if kinds.iter().any(|kind| CRATE_KINDS.contains(kind)) {
                let name = str_field(package, "name").to_owned();
                roots.push((name, kinds.join("+"), PathBuf::from(str_field(target, "src_path"))));
            }
        }
    }
    roots.sort();
    roots
}

/// Parses a crate's root file and every file its `mod` declarations reach.
fn load_crate(root: &Path, src_path: &Path) -> BTreeMap<ModPath, SourceFile> {
    let mut sources = BTreeMap::new();
    let dir = src_path.parent().expect("a crate root lies in a directory");
    load_file(root, src_path, dir, Vec::new(), &mut sources);
    sources
}

fn load_file(
    root: &Path,
    file: &Path,
    children_dir: &Path,
    path: ModPath,
    sources: &mut BTreeMap<ModPath, SourceFile>,
) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let ast = syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let mut found = Vec::new();
    declared_files(&ast.items, children_dir, file, &path, true, &mut found);
    let label = file.strip_prefix(root).unwrap_or(file).to_string_lossy().replace('\\', "/");
    sources.insert(path, SourceFile { label, ast });
    for (child_path, child_file, child_dir) in found {
        load_file(root, &child_file, &child_dir, child_path, sources);
    }
}

/// The file-backed modules declared in `items` (inline modules included): module path, file,
/// and the directory that file's own children live in.
fn declared_files(
    items: &[Item],
    dir: &Path,
    file: &Path,
    path: &ModPath,
    top_level: bool,
    found: &mut Vec<(ModPath, PathBuf, PathBuf)>,
) {
    for item in items {
        let Item::Mod(module) = item else { continue };
        if is_cfg_test(&module.attrs) {
            continue;
        }
        let name = module.ident.unraw().to_string();
        let child_path = [path.as_slice(), std::slice::from_ref(&name)].concat();
        let path_attr = module.attrs.iter().find(|attr| attr.path().is_ident("path"));
        if let Some((_, content)) = &module.content {
            assert!(path_attr.is_none(), "{}: #[path] on inline `mod {name}` is not handled", file.display());
            declared_files(content, &dir.join(&name), file, &child_path, false, found);
            continue;
        }
        let (child_file, child_dir) = if let Some(attr) = path_attr {
            assert!(top_level, "{}: #[path] on `mod {name};` inside an inline module is not handled", file.display());
            let syn::Meta::NameValue(syn::MetaNameValue {
                value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(target), .. }),
                ..
            }) = &attr.meta
            else {
                panic!("{}: unreadable #[path] on `mod {name};`", file.display())
            };
            // rustc reads a #[path] file's own `mod`s beside it, as it does for a `mod.rs`.
            let target = file.parent().expect("a source file lies in a directory").join(target.value());
            let target_dir = target.parent().expect("a source file lies in a directory").to_path_buf();
            (target, target_dir)
        } else {
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            if flat.is_file() { (flat, dir.join(&name)) } else { (nested, dir.join(&name)) }
        };
        if child_file.is_file() {
            found.push((child_path, child_file, child_dir));
        } else {
            // A cfg'd-out module may name a file that only exists elsewhere; any other must exist.
            let cfgd = module.attrs.iter().any(|attr| attr.path().is_ident("cfg"));
            assert!(cfgd, "{}: `mod {name};` has no file at {}", file.display(), child_file.display());
        }
    }
}

fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|ident| ident == "test"))
}

// ---------------------------------------------------------------------------------------------
// The module tree and its name tables, built from (module path -> parsed file) alone.

type ModId = usize;
type FileId = usize;

#[derive(Default)]
struct Module {
    file: FileId,
    parent: Option<ModId>,
    children: BTreeMap<String, ModId>,
    /// Names brought in by `use` (any visibility) -> the path they stand for, read from here.
    aliases: BTreeMap<String, ModPath>,
    /// `use x::*` sources, read from here.
    globs: Vec<ModPath>,
    /// Names of items this module defines itself.
    items: BTreeSet<String>,
}

/// Where a path lands: a module itself, or an item defined in a module.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Module(ModId),
    ItemIn(ModId),
}

impl Target {
    fn module(self) -> ModId {
        match self {
            Self::Module(module) | Self::ItemIn(module) => module,
        }
    }
}

struct Tree {
    modules: Vec<Module>,
    /// Each file's own (outermost) module; `None` for a file no `mod` declaration reaches.
    file_modules: Vec<Option<ModId>>,
}

impl Tree {
    fn build(sources: &BTreeMap<ModPath, SourceFile>) -> Self {
        let mut tree = Self { modules: Vec::new(), file_modules: vec![None; sources.len()] };
        let files: Vec<&ModPath> = sources.keys().collect();
        tree.add_file(sources, &files, &[], None);
        tree
    }

    fn add_file(
        &mut self,
        sources: &BTreeMap<ModPath, SourceFile>,
        files: &[&ModPath],
        path: &[String],
        parent: Option<ModId>,
    ) -> ModId {
        let file = files.iter().position(|known| known.as_slice() == path).expect("the file is among the sources");
        let id = self.new_module(file, parent);
        self.file_modules[file] = Some(id);
        self.add_items(sources, files, &sources[path].ast.items, path, id);
        id
    }

    fn new_module(&mut self, file: FileId, parent: Option<ModId>) -> ModId {
        self.modules.push(Module { file, parent, ..Module::default() });
        self.modules.len() - 1
    }

    fn add_items(
        &mut self,
        sources: &BTreeMap<ModPath, SourceFile>,
        files: &[&ModPath],
        items: &[Item],
        path: &[String],
        id: ModId,
    ) {
        for item in items {
            if is_cfg_test(item_attrs(item)) {
                continue;
            }
            match item {
                Item::Mod(module) => {
                    let name = module.ident.unraw().to_string();
                    let child_path = [path, std::slice::from_ref(&name)].concat();
                    let child = if let Some((_, content)) = &module.content {
                        let child = self.new_module(self.modules[id].file, Some(id));
                        self.add_items(sources, files, content, &child_path, child);
                        child
                    } else if sources.contains_key(&child_path) {
                        self.add_file(sources, files, &child_path, Some(id))
                    } else {
                        continue; // cfg'd out: the loader found no file for it.
                    };
                    self.modules[id].children.insert(name, child);
                }
                Item::Use(item_use) => {
                    if item_use.leading_colon.is_some() {
                        continue;
                    }
                    for leaf in use_leaves(&item_use.tree) {
                        match leaf.binding {
                            Binding::Name(name) => {
                                self.modules[id].aliases.entry(name).or_insert(leaf.path);
                            }
                            Binding::Glob => self.modules[id].globs.push(leaf.path),
                            Binding::Underscore => {}
                        }
                    }
                }
                _ => {
                    if let Some(name) = item_name(item) {
                        self.modules[id].items.insert(name);
                    }
                }
            }
        }
    }

    /// Resolves `path` as written in module `from`, with block-local aliases `scopes` (innermost
    /// last); `None` for anything outside the crate (or a local name, which no edge needs).
    fn resolve(
        &self,
        from: ModId,
        path: &[String],
        scopes: &[BTreeMap<String, ModPath>],
        depth: usize,
    ) -> Option<Target> {
        let (first, rest) = path.split_first()?;
        let mut at = match first.as_str() {
            "crate" => Target::Module(0),
            "self" => Target::Module(from),
            "super" => Target::Module(self.modules[from].parent?),
            "Self" => return None,
            name => self.lookup_in_scope(from, name, scopes, depth)?,
        };
        for segment in rest {
            let Target::Module(module) = at else { break };
            at = if segment == "super" {
                Target::Module(self.modules[module].parent?)
            } else {
                // Past the first segment, a name the module does not bring in is defined there.
                self.lookup(module, segment, depth)?.unwrap_or(Target::ItemIn(module))
            };
        }
        Some(at)
    }

    fn lookup_in_scope(
        &self,
        from: ModId,
        name: &str,
        scopes: &[BTreeMap<String, ModPath>],
        depth: usize,
    ) -> Option<Target> {
        if let Some(alias) = scopes.iter().rev().find_map(|scope| scope.get(name)) {
            return self.resolve(from, alias, &[], depth + 1);
        }
        self.lookup(from, name, depth)?
    }

    /// What `name` means in `module`: `Some(None)` when the module does not know it, `None` when
    /// it stands for something outside the crate (or an alias loop).
    fn lookup(&self, module: ModId, name: &str, depth: usize) -> Option<Option<Target>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let node = &self.modules[module];
        if let Some(&child) = node.children.get(name) {
            return Some(Some(Target::Module(child)));
        }
        if let Some(alias) = node.aliases.get(name) {
            return self.resolve(module, alias, &[], depth + 1).map(Some);
        }
        if node.items.contains(name) {
            return Some(Some(Target::ItemIn(module)));
        }
        for glob in &node.globs {
            if let Some(Target::Module(source)) = self.resolve(module, glob, &[], depth + 1)
                && source != module
                && let Some(Some(found)) = self.lookup(source, name, depth + 1)
            {
                return Some(Some(found));
            }
        }
        Some(None)
    }
}

/// What one leaf of a `use` tree binds.
enum Binding {
    Name(String),
    Glob,
    Underscore,
}

struct UseLeaf {
    path: ModPath,
    binding: Binding,
}

fn use_leaves(tree: &UseTree) -> Vec<UseLeaf> {
    fn walk(tree: &UseTree, prefix: &mut ModPath, out: &mut Vec<UseLeaf>) {
        match tree {
            UseTree::Path(path) => {
                prefix.push(path.ident.unraw().to_string());
                walk(&path.tree, prefix, out);
                prefix.pop();
            }
            UseTree::Name(name) => leaf(prefix, &name.ident, &name.ident, out),
            UseTree::Rename(rename) => leaf(prefix, &rename.ident, &rename.rename, out),
            UseTree::Glob(_) => out.push(UseLeaf { path: prefix.clone(), binding: Binding::Glob }),
            UseTree::Group(group) => group.items.iter().for_each(|tree| walk(tree, prefix, out)),
        }
    }
    fn leaf(prefix: &ModPath, ident: &syn::Ident, bound: &syn::Ident, out: &mut Vec<UseLeaf>) {
        let mut path = prefix.clone();
        // `x::{self}` imports `x` itself; `use x::{self as y}` renames it.
        let name = if ident == "self" { prefix.last().cloned().unwrap_or_default() } else { ident.unraw().to_string() };
        if ident != "self" {
            path.push(name.clone());
        }
        let bound = if bound == "self" { name } else { bound.unraw().to_string() };
        let binding = if bound == "_" { Binding::Underscore } else { Binding::Name(bound) };
        out.push(UseLeaf { path, binding });
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(item) => &item.attrs,
        Item::Enum(item) => &item.attrs,
        Item::ExternCrate(item) => &item.attrs,
        Item::Fn(item) => &item.attrs,
        Item::ForeignMod(item) => &item.attrs,
        Item::Impl(item) => &item.attrs,
        Item::Macro(item) => &item.attrs,
        Item::Mod(item) => &item.attrs,
        Item::Static(item) => &item.attrs,
        Item::Struct(item) => &item.attrs,
        Item::Trait(item) => &item.attrs,
        Item::TraitAlias(item) => &item.attrs,
        Item::Type(item) => &item.attrs,
        Item::Union(item) => &item.attrs,
        Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

fn item_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(item) => &item.ident,
        Item::Enum(item) => &item.ident,
        Item::Fn(item) => &item.sig.ident,
        Item::Macro(item) => item.ident.as_ref()?,
        Item::Static(item) => &item.ident,
        Item::Struct(item) => &item.ident,
        Item::Trait(item) => &item.ident,
        Item::TraitAlias(item) => &item.ident,
        Item::Type(item) => &item.ident,
        Item::Union(item) => &item.ident,
        _ => return None,
    };
    Some(ident.unraw().to_string())
}

// ---------------------------------------------------------------------------------------------
// The file graph: edges from paths in code and private `use`s, then strongly connected parts.

struct Graph {
    /// File labels, indexed by file id.
    nodes: Vec<String>,
    /// (from, to) -> the first path, in source order, that made the edge.
    edges: BTreeMap<(FileId, FileId), String>,
}

impl Graph {
    fn edge_label(&self, (from, to): (FileId, FileId), example: &str) -> String {
        format!("{} -> {} ({example})", self.nodes[from], self.nodes[to])
    }
}

fn build_graph(sources: &BTreeMap<ModPath, SourceFile>) -> Graph {
    let tree = Tree::build(sources);
    let mut edges = BTreeMap::new();
    for (file, source) in sources.values().enumerate() {
        let Some(module) = tree.file_modules[file] else {
            continue; // No `mod` declaration reaches this file.
        };
        let mut collector =
            Collector { tree: &tree, file, modules: vec![module], scopes: Vec::new(), edges: &mut edges };
        collector.visit_file(&source.ast);
    }
    Graph { nodes: sources.values().map(|source| source.label.clone()).collect(), edges }
}

struct Collector<'a> {
    tree: &'a Tree,
    file: FileId,
    /// Inline modules entered so far, the file's own module first.
    modules: Vec<ModId>,
    /// Aliases of the `use`s in enclosing blocks (function bodies).
    scopes: Vec<BTreeMap<String, ModPath>>,
    edges: &'a mut BTreeMap<(FileId, FileId), String>,
}

impl Collector<'_> {
    fn module(&self) -> ModId {
        *self.modules.last().expect("a collector is always inside a module")
    }

    fn edge(&mut self, to: Target, example: &[String]) {
        let to = self.tree.modules[to.module()].file;
        if to != self.file {
            self.edges.entry((self.file, to)).or_insert_with(|| example.join("::"));
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    // Doc comments (and doc links) live in attributes; `pub(in path)` names no item.
    fn visit_attribute(&mut self, _: &'ast Attribute) {}
    fn visit_visibility(&mut self, _: &'ast Visibility) {}

    fn visit_item(&mut self, item: &'ast Item) {
        if !is_cfg_test(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        // A file-backed module is walked as its own file.
        let Some((_, content)) = &module.content else { return };
        let name = module.ident.unraw().to_string();
        let Some(&child) = self.tree.modules[self.module()].children.get(&name) else { return };
        self.modules.push(child);
        content.iter().for_each(|item| self.visit_item(item));
        self.modules.pop();
    }

    fn visit_item_use(&mut self, item_use: &'ast syn::ItemUse) {
        // A re-export is a façade, not a dependency; a private `use` (or one in a block) is.
        let in_block = !self.scopes.is_empty();
        if item_use.leading_colon.is_some() || (!in_block && !matches!(item_use.vis, Visibility::Inherited)) {
            return;
        }
        for leaf in use_leaves(&item_use.tree) {
            let target = self.tree.resolve(self.module(), &leaf.path, &self.scopes, 0);
            match (target, leaf.binding) {
                // Importing a module names no item; the paths that go through it will.
                (Some(Target::Module(_)), Binding::Name(_) | Binding::Underscore) | (None, _) => {}
                (Some(target), _) => self.edge(target, &leaf.path),
            }
        }
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        let mut scope = BTreeMap::new();
        for stmt in &block.stmts {
            if let syn::Stmt::Item(Item::Use(item_use)) = stmt
                && item_use.leading_colon.is_none()
                && !is_cfg_test(&item_use.attrs)
            {
                for leaf in use_leaves(&item_use.tree) {
                    if let Binding::Name(name) = leaf.binding {
                        scope.entry(name).or_insert(leaf.path);
                    }
                }
            }
        }
        self.scopes.push(scope);
        visit::visit_block(self, block);
        self.scopes.pop();
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: ModPath = path.segments.iter().map(|segment| segment.ident.unraw().to_string()).collect();
            let target = self.tree.resolve(self.module(), &segments, &self.scopes, 0);
            // A path names an item; one that lands on a module is a local shadowing its name.
            if let Some(target @ Target::ItemIn(_)) = target {
                self.edge(target, &segments);
            }
        }
        visit::visit_path(self, path);
    }
}

/// The strongly connected components with more than one file, each sorted, in sorted order
/// (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<FileId>> {
    struct Tarjan<'a> {
        next: &'a BTreeMap<FileId, Vec<FileId>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<FileId>,
        counter: usize,
        components: Vec<Vec<FileId>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, node: FileId) {
            self.index[node] = Some(self.counter);
            self.low[node] = self.counter;
            self.counter += 1;
            self.stack.push(node);
            self.on_stack[node] = true;
            for &to in self.next.get(&node).into_iter().flatten() {
                match self.index[to] {
                    None => {
                        self.visit(to);
                        self.low[node] = self.low[node].min(self.low[to]);
                    }
                    Some(index) if self.on_stack[to] => self.low[node] = self.low[node].min(index),
                    Some(_) => {}
                }
            }
            if Some(self.low[node]) == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack[top] = false;
                    component.push(top);
                    if top == node {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let mut next: BTreeMap<FileId, Vec<FileId>> = BTreeMap::new();
    for &(from, to) in graph.edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let count = graph.nodes.len();
    let mut tarjan = Tarjan {
        next: &next,
        index: vec![None; count],
        low: vec![0; count],
        on_stack: vec![false; count],
        stack: Vec::new(),
        counter: 0,
        components: Vec::new(),
    };
    for node in 0..count {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    let mut components: Vec<Vec<FileId>> =
        tarjan.components.into_iter().filter(|component| component.len() > 1).collect();
    for component in &mut components {
        component.sort_by(|a, b| graph.nodes[*a].cmp(&graph.nodes[*b]));
    }
    components.sort_by(|a, b| graph.nodes[a[0]].cmp(&graph.nodes[b[0]]));
    components
}

/// Whether `to` is reachable from `from` along `edges`.
fn reaches(edges: &BTreeMap<&str, Vec<&str>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::from([from]);
    let mut todo = vec![from];
    while let Some(at) = todo.pop() {
        if at == to {
            return true;
        }
        for &next in edges.get(at).into_iter().flatten() {
            if seen.insert(next) {
                todo.push(next);
            }
        }
    }
    false
}
