"""The module map checks itself: Package.swift, the code's imports and docs/ARCHITECTURE.md agree.

- Every Swift target imports exactly the targets and products Package.swift gives it: nothing
  undeclared (SwiftPM would let a module built for another target leak in), nothing declared and
  unused (an unused dependency is a false edge in the map).
- docs/ARCHITECTURE.md's target table names, for each target, exactly its dependencies.
- README.md's "Repository organization" names every folder under Sources/.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Modules of the toolchain and the OS, imported without a package dependency.
TOOLCHAIN = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization", "Testing",
             "XCTest", "_Concurrency", "Observation"}
IMPORT = re.compile(r"^\s*(?:public |internal |package |private |fileprivate )?(?:@testable )?import\s+(\w+)", re.M)


@pytest.fixture(scope="module")
def package():
    """The manifest as SwiftPM reads it."""
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def dependencies(target):
    """A target's declared dependencies by module name (targets and products)."""
    names = set()
    for dependency in target.get("dependencies", []):
        kind, value = next(iter(dependency.items()))
        names.add(value[0])
    return names


def folder(target):
    base = "Tests" if target["type"] == "test" else "Sources"
    return ROOT / (target.get("path") or f"{base}/{target['name']}")


def imports(target):
    found = set()
    for path in folder(target).rglob("*.swift"):
        found.update(IMPORT.findall(path.read_text()))
    return found - TOOLCHAIN


def swift_targets(package):
    return [t for t in package["targets"] if t["type"] != "system"]


def test_every_target_imports_exactly_its_dependencies(package):
    problems = []
    for target in swift_targets(package):
        declared = dependencies(target)
        used = {name.replace("-", "_") for name in imports(target)}
        declared_modules = {name.replace("-", "_") for name in declared}
        undeclared = used - declared_modules
        unused = declared_modules - used
        if undeclared:
            problems.append(f"{target['name']} imports {sorted(undeclared)} without depending on them")
        if unused:
            problems.append(f"{target['name']} depends on {sorted(unused)} without importing them")
    assert not problems, "\n".join(problems)


def test_no_test_target_imports_an_executable(package):
    executables = {t["name"].replace("-", "_") for t in package["targets"] if t["type"] == "executable"}
    for target in package["targets"]:
        if target["type"] == "test":
            assert not (imports(target) & executables), f"{target['name']} imports an executable"


def architecture_table():
    """docs/ARCHITECTURE.md's target table: target → the names in its "depends on" cell."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not re.fullmatch(r"`[\w-]+`", cells[0]):
            continue
        rows[cells[0].strip("`")] = set(re.findall(r"`([\w-]+)`", cells[-1]))
    return rows


def test_architecture_table_matches_the_manifest(package):
    rows = architecture_table()
    names = {t["name"] for t in package["targets"]}
    assert set(rows) == names, f"table rows {sorted(set(rows) ^ names)} differ from the manifest's targets"
    for target in package["targets"]:
        assert rows[target["name"]] == dependencies(target), (
            f"ARCHITECTURE.md gives {target['name']} {sorted(rows[target['name']])}, "
            f"Package.swift {sorted(dependencies(target))}"
        )


def test_readme_names_every_source_folder():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Repository organization", 1)[1]
    for path in sorted((ROOT / "Sources").iterdir()):
        if path.is_dir():
            assert f"Sources/{path.name}/" in section, f"README's Repository organization lacks Sources/{path.name}/"
