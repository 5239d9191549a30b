//! ARCHITECTURE invariants about the crate graph, read from the manifests (`cargo metadata`):
//! the engine does no IO and does not know the protocol, and the protocol crate stays plain
//! data (no async runtime, no sockets, no database). Dev-dependencies do not count.

use std::process::Command;

use serde_json::Value;

/// The workspace's packages, as `cargo metadata --no-deps` lists them.
fn packages() -> Vec<Value> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    meta["packages"]
        .as_array()
        .expect("cargo metadata lists packages")
        .clone()
}

/// The packages `package` depends on outside its dev-dependencies.
fn normal_deps(packages: &[Value], package: &str) -> Vec<String> {
    let pkg = packages
        .iter()
        .find(|p| p["name"] == package)
        .unwrap_or_else(|| panic!("no package {package} in the workspace"));
    pkg["dependencies"]
        .as_array()
        .expect("a package lists its dependencies")
        .iter()
        .filter(|d| d["kind"] != "dev")
        .map(|d| {
            d["name"]
                .as_str()
                .expect("a dependency has a name")
                .to_owned()
        })
        .collect()
}

#[track_caller]
fn check_no_normal_deps(package: &str, forbidden: &[&str]) {
    let deps = normal_deps(&packages(), package);
    let found: Vec<&String> = deps
        .iter()
        .filter(|d| forbidden.contains(&d.as_str()))
        .collect();
    assert!(found.is_empty(), "{package} depends on {found:?}");
}

#[test]
fn the_engine_has_no_protocol_async_or_io_crate() {
    check_no_normal_deps(
        "sudoku-race-shared",
        &[
            "serde",
            "serde_json",
            "tokio",
            "tokio-tungstenite",
            "futures",
            "rusqlite",
            "sudoku-race-protocol",
        ],
    );
}

#[test]
fn the_protocol_has_no_async_or_io_crate() {
    check_no_normal_deps(
        "sudoku-race-protocol",
        &["tokio", "tokio-tungstenite", "rusqlite", "futures"],
    );
}

#[test]
fn the_dependency_lists_are_read() {
    // The checks above pass trivially if the names were never read: the server must show its own.
    let deps = normal_deps(&packages(), "sudoku-race-server");
    for name in [
        "sudoku-race-shared",
        "sudoku-race-protocol",
        "tokio",
        "rusqlite",
    ] {
        assert!(deps.iter().any(|d| d == name), "server deps {deps:?}");
    }
}

/// Each package with its enabled features, as `cargo tree` resolves a build of `packages`
/// (normal and build dependencies: what `cargo build` compiles). The workspace-hack is left out.
fn resolved_features(packages: &[&str]) -> std::collections::BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args([
        "tree",
        "-e",
        "normal,build",
        "--prefix",
        "none",
        "-f",
        "{p} [{f}]",
    ]);
    for p in packages {
        cmd.args(["-p", p]);
    }
    let out = cmd
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_end_matches(" (*)").to_owned())
        .filter(|l| !l.is_empty() && !l.contains("workspace-hack"))
        .collect()
}

/// Every documented build command (README's install, scripts/cluster.sh's and docs/deploy.md's
/// server, docs/benchmarks.md's loadgen, `cargo run`'s client) resolves each shared dependency
/// with the same features as the widest one, so switching between them recompiles nothing.
#[test]
fn every_documented_build_resolves_the_same_features() {
    let all = resolved_features(&["sudoku-race", "sudoku-race-server", "sudoku-race-load"]);
    for build in [
        &["sudoku-race-server"][..],
        &["sudoku-race"],
        &["sudoku-race-load"],
        &["sudoku-race", "sudoku-race-server"],
        &["sudoku-race-server", "sudoku-race-load"],
    ] {
        let resolved = resolved_features(build);
        let differs: Vec<&String> = resolved.difference(&all).collect();
        assert!(
            differs.is_empty(),
            "building {build:?} resolves features the full build does not: {differs:#?}"
        );
    }
    assert!(
        all.iter().any(|l| l.starts_with("tokio-tungstenite ")),
        "the tree lists the shared dependencies: {all:?}"
    );
}

/// Unit tests live beside the code; end-to-end tests in one integration binary per crate that
/// needs one (the server's `e2e`, this crate's `integration`): a second `tests/*.rs` file or
/// `[[test]]` target would be a second home.
#[test]
fn every_crate_has_at_most_one_integration_test_binary() {
    let packages = packages();
    for p in &packages {
        let tests: Vec<&str> = p["targets"]
            .as_array()
            .expect("a package lists its targets")
            .iter()
            .filter(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.contains(&"test".into()))
            })
            .map(|t| t["name"].as_str().expect("a target has a name"))
            .collect();
        assert!(
            tests.len() <= 1,
            "{} has test binaries {tests:?}",
            p["name"]
        );
    }
    let server = packages
        .iter()
        .find(|p| p["name"] == "sudoku-race-server")
        .expect("the server package");
    let has_e2e = server["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .any(|t| t["name"] == "e2e");
    assert!(has_e2e, "the server's end-to-end binary is `e2e`");
}
