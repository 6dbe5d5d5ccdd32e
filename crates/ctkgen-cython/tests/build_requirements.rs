//! The package users build is the package the Python suite tests: the generated
//! `pyproject.toml` requires, pinned exactly, the same Cython and setuptools the suite installs
//! (`tests/python/requirements.txt`, with the files it includes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A requirement's project name as pip compares names (case and `-`/`_`/`.` do not matter).
fn project(requirement: &str) -> String {
    let end =
        requirement.find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c))).unwrap_or(requirement.len());
    requirement[..end].to_ascii_lowercase().replace(['_', '.'], "-")
}

/// Every requirement of a pip requirements file, by project, following `-r FILE` (relative to
/// the file that names it) as pip does.
fn suite_requirements(path: &Path, out: &mut BTreeMap<String, String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for line in text.lines().map(|l| l.split('#').next().unwrap().trim()).filter(|l| !l.is_empty()) {
        if let Some(included) = line.strip_prefix("-r ").or_else(|| line.strip_prefix("--requirement ")) {
            suite_requirements(&path.parent().unwrap().join(included.trim()), out);
        } else {
            assert!(!line.starts_with('-'), "{}: an option this test does not read: {line}", path.display());
            out.insert(project(line), line.replace(' ', ""));
        }
    }
}

fn fixture_package() -> Vec<ctkgen_ir::OutputFile> {
    let path = root().join("tests/golden/ir/propagate.snap");
    let text = std::fs::read_to_string(&path).unwrap();
    let api = ctkgen_ir::Api::from_json(text.splitn(3, "---\n").nth(2).unwrap()).unwrap();
    let dir = root().join("headers/libraries");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let conventions = toml::from_str(&read("cuda-driver.toml")).unwrap();
    let overrides = ctkgen_cython::Overrides::parse(&read("cuda-driver.cython-params.toml")).unwrap();
    ctkgen_cython::emit(&api, &ctkgen_cython::CythonOptions::new(conventions, overrides)).unwrap()
}

#[test]
fn the_package_builds_with_exactly_what_the_suite_tests_it_with() {
    let files = fixture_package();
    let pyproject = files.iter().find(|f| f.path == "python/pyproject.toml").expect("a pyproject.toml");
    let pyproject: toml::Value = toml::from_str(&pyproject.contents).unwrap();
    let requires: Vec<&str> =
        pyproject["build-system"]["requires"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    let mut suite = BTreeMap::new();
    suite_requirements(&root().join("tests/python/requirements.txt"), &mut suite);
    for name in ["cython", "setuptools"] {
        assert!(suite.contains_key(name), "the suite pins no {name}: {suite:?}");
        assert!(requires.iter().any(|r| project(r) == name), "the package does not require {name}: {requires:?}");
    }
    for requirement in &requires {
        let name = project(requirement);
        let pinned = suite.get(&name).unwrap_or_else(|| panic!("the suite does not install {name}"));
        assert!(
            requirement.contains("==") && !requirement.contains(','),
            "{requirement}: not pinned to one version, so users may build with another than the suite's {pinned}"
        );
        assert_eq!(
            &requirement.replace(' ', ""),
            pinned,
            "the package builds with {requirement}, the suite with {pinned}"
        );
    }
}
