"""The browser client's module map checks itself: web/js's imports follow docs/WEB.md's layers.

- Every module sits in a folder that docs/WEB.md's layer table lists, and every listed folder holds
  a module (no stale row).
- Every import (`import … from`, `export … from`, a bare `import "…"`, `import("…")` in code or a
  JSDoc type) is a relative path to a module that exists under web/js.
- A module imports only from its own folder or from a folder on a lower layer: never upwards, never
  sideways into another folder of its own layer.
- No import cycle, inside a folder or across folders.
- `model/` is pure: none of the browser's globals for the DOM, the network, storage or time.

The checks are functions of a folder and a table, so `test_the_checks_catch_violations` runs them
on a small tree that breaks every rule and expects each break reported.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB_JS = ROOT / "web" / "js"
TABLE = ROOT / "docs" / "WEB.md"

# `import … from "x"` and `export … from "x"` (over several lines; the clause holds no quote or
# semicolon), a bare `import "x"`, and `import("x")` (dynamic, or a JSDoc type).
STATIC = re.compile(r"""^[ \t]*(?:import|export)\b[^"';]*?\bfrom\s*(["'])(.+?)\1""", re.M)
BARE = re.compile(r"""^[ \t]*import\s*(["'])(.+?)\1""", re.M)
DYNAMIC = re.compile(r"""\bimport\s*\(\s*(["'])(.+?)\1\s*\)""")

# Comments and string literals, blanked before looking for globals (a sentence may say "window").
COMMENT_OR_STRING = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`""", re.S)
# What a pure module never touches: the DOM, the network, storage, clocks and timers.
IMPURE = ["document", "window", "globalThis", "self", "navigator", "location", "history", "localStorage",
          "sessionStorage", "indexedDB", "WebSocket", "fetch", "XMLHttpRequest", "EventSource", "setTimeout",
          "setInterval", "requestAnimationFrame", "performance", "Date"]
GLOBAL = re.compile(r"(?<![\w$.])(" + "|".join(IMPURE) + r")\b")
PURE_FOLDERS = {"model"}


def layer_table(path=TABLE):
    """The layer table: folder ("." for web/js itself) → layer number."""
    rows = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit() and re.fullmatch(r"`[\w.-]+/?`", cells[1]):
            rows[cells[1].strip("`").rstrip("/")] = int(cells[0])
    return rows


def modules(root=WEB_JS):
    """Every module under `root`, by its path relative to it ("net/session.js")."""
    return {path.relative_to(root).as_posix(): path.read_text() for path in sorted(root.rglob("*.js"))}


def folder(module):
    """A module's folder relative to web/js ("." for web/js itself)."""
    return Path(module).parent.as_posix()


def specifiers(text):
    found = [m.group(2) for pattern in (STATIC, BARE, DYNAMIC) for m in pattern.finditer(text)]
    return list(dict.fromkeys(found))


def imports(root=WEB_JS):
    """module → the modules it imports, and the problems of imports that name no module under root."""
    graph, problems = {}, []
    found = modules(root)
    for module, text in found.items():
        graph[module] = set()
        for spec in specifiers(text):
            if not spec.startswith(("./", "../")):
                problems.append(f"{module} imports '{spec}', which is not a relative path (no import map resolves it)")
                continue
            target = (root / module).parent.joinpath(spec).resolve()
            try:
                name = target.relative_to(root.resolve()).as_posix()
            except ValueError:
                name = None
            if name not in found:
                problems.append(f"{module} imports '{spec}', which is not a module under web/js")
                continue
            graph[module].add(name)
    return graph, problems


def unlisted_folders(graph, table):
    problems = [f"{m} is in {folder(m)}/, a folder docs/WEB.md's layer table does not list"
                for m in sorted(graph) if folder(m) not in table]
    held = {folder(m) for m in graph}
    problems += [f"docs/WEB.md lists {name}/, which holds no module" for name in sorted(set(table) - held)]
    return problems


def layer_breaks(graph, table):
    problems = []
    for module, targets in sorted(graph.items()):
        here = folder(module)
        for target in sorted(targets):
            there = folder(target)
            if here == there or here not in table or there not in table:
                continue
            if table[there] > table[here]:
                problems.append(f"{module} (layer {table[here]}) imports {target} from a higher layer ({table[there]})")
            elif table[there] == table[here]:
                problems.append(f"{module} imports {target}: {here}/ and {there}/ share layer {table[here]}")
    return problems


def cycles(graph):
    """The cycles a depth-first walk closes (one per import back to a module still open), as "a → b → a"."""
    state, stack, found = {}, [], []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                found.append(" → ".join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return [f"import cycle: {cycle}" for cycle in found]


def impurities(root=WEB_JS):
    problems = []
    for module, text in modules(root).items():
        if folder(module) in PURE_FOLDERS:
            code = COMMENT_OR_STRING.sub(" ", text)
            used = sorted(set(GLOBAL.findall(code)))
            if used:
                problems.append(f"{module} is in pure {folder(module)}/ but uses {', '.join(used)}")
    return problems


def test_every_module_is_in_a_listed_folder():
    graph, _ = imports()
    table = layer_table()
    assert table, "docs/WEB.md has no layer table"
    problems = unlisted_folders(graph, table)
    assert not problems, "\n".join(problems)


def test_every_import_names_a_module_under_web_js():
    graph, problems = imports()
    assert sum(len(targets) for targets in graph.values()) > len(graph), "too few imports found: is the parser blind?"
    assert not problems, "\n".join(problems)


def test_no_module_imports_upwards_or_sideways():
    graph, _ = imports()
    problems = layer_breaks(graph, layer_table())
    assert not problems, "\n".join(problems)


def test_no_import_cycle():
    graph, _ = imports()
    problems = cycles(graph)
    assert not problems, "\n".join(problems)


def test_model_is_pure():
    problems = impurities()
    assert not problems, "\n".join(problems)


def test_the_checks_catch_violations(tmp_path):
    table = tmp_path / "WEB.md"
    table.write_text("| Layer | Folder | What |\n| --- | --- | --- |\n"
                     "| 1 | `model/` | x |\n| 1 | `ui/` | x |\n| 2 | `net/` | x |\n| 3 | `.` | x |\n| 4 | `gone/` | x |\n")
    root = tmp_path / "js"
    files = {
        "model/a.js": 'import { b } from "./b.js";\nexport const x = document.title; // "window" here is fine\n',
        "model/b.js": 'import {\n  a,\n} from "./a.js";\nimport { up } from "../net/c.js";\n',
        "ui/d.js": 'export { a } from "../model/a.js";\nconst s = "window";\n',
        "net/c.js": '/** @param {import("../ui/d.js").D} d */\nimport "../nowhere.js";\nimport x from "lodash";\n',
        "app.js": 'const page = await import("./net/c.js");\n',
        "extra/e.js": "export const e = 1;\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    rows = layer_table(table)
    assert rows == {"model": 1, "ui": 1, "net": 2, ".": 3, "gone": 4}
    graph, problems = imports(root)
    assert graph["app.js"] == {"net/c.js"} and graph["net/c.js"] == {"ui/d.js"}
    assert problems == ["net/c.js imports 'lodash', which is not a relative path (no import map resolves it)",
                        "net/c.js imports '../nowhere.js', which is not a module under web/js"]
    assert unlisted_folders(graph, rows) == [
        "extra/e.js is in extra/, a folder docs/WEB.md's layer table does not list",
        "docs/WEB.md lists gone/, which holds no module"]
    assert layer_breaks(graph, rows) == [
        "model/b.js (layer 1) imports net/c.js from a higher layer (2)",
        "ui/d.js imports model/a.js: ui/ and model/ share layer 1"]
    assert cycles(graph) == ["import cycle: model/a.js → model/b.js → model/a.js",
                             "import cycle: net/c.js → ui/d.js → model/a.js → model/b.js → net/c.js"]
    assert impurities(root) == ["model/a.js is in pure model/ but uses document"]
