"""The house's rooms (docs/architecture.md): no module imports another that imports it back, directly or through
others; solver/'s root holds only the shared data, the biped entry point and the pictures; solver/ stays pure
numpy. Read from the source with ast, so a circle fails here before it fails at import time in Blender."""

import ast
import os

from conftest import ROOT

SKIPPED = {".git", ".venv", "__pycache__", "tests", "bench", "docs", "farm", "out", "dist", "wheels"}
SOLVER_ROOT_MOST = 10  # modules at solver/'s root (issue 27): capabilities live in their rooms


def modules_of(root):
    """{dotted module name: file} of every Python file under root (a package is named by its folder)."""
    found = {}
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if f not in SKIPPED and not f.startswith("."))
        for name in names:
            if name.endswith(".py"):
                dotted = os.path.relpath(os.path.join(folder, name), root)[:-3].replace(os.sep, ".")
                found[dotted.removesuffix(".__init__").removesuffix("__init__")] = os.path.join(folder, name)
    return found


def import_graph(root):
    """{module: modules it imports}, from every relative import anywhere in its file (in functions too: a lazy
    import closes a circle as surely). Importing a.b.c runs a/__init__ and a/b/__init__ first: those count,
    except the importer's own packages, which are already running."""
    modules = modules_of(root)
    graph = {}
    for module, path in modules.items():
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            parts = package.split(".") if package else []
            base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            for alias in node.names:
                named = f"{base}.{alias.name}" if base else alias.name
                targets.add(named if named in modules else base)
        own = {".".join(module.split(".")[:k]) for k in range(len(module.split(".")) + 1)}
        graph[module] = set()
        for target in targets:
            parts = target.split(".")
            graph[module] |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)} - own
        graph[module] &= modules.keys()
    return graph


def circles(graph):
    """Each set of modules that reach one another (strongly connected, more than one), as a cycle through them:
    Tarjan's algorithm, iterative (a deep package would overflow recursion)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(_cycle_through(graph, set(members)))
    return found


def _cycle_through(graph, members):
    """A cycle (first module repeated at the end) inside a strongly connected set: breadth-first from its first
    member back to itself."""
    first = min(members)
    came_from, frontier = {first: None}, [first]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & members):
                if successor == first:
                    path = [node]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    return path[::-1] + [first]
                if successor not in came_from:
                    came_from[successor] = node
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{sorted(members)} is not strongly connected")


def test_no_module_imports_another_that_imports_it_back():
    found = circles(import_graph(ROOT))
    assert not found, "import circles (move what both need down into a module both import, or pass it in):\n" + \
        "\n".join(" -> ".join(cycle) for cycle in found)


def test_the_circle_finder_finds_circles_direct_through_others_lazy_and_through_a_package(tmp_path):
    files = {
        "pair/a.py": "from .b import x\n",
        "pair/b.py": "from . import a\nx = 1\n",
        "ring/one.py": "from .two import y\n",
        "ring/two.py": "def later():\n    from .three import z\n",  # a lazy import closes the ring
        "ring/three.py": "from ..ring import one\nz = 1\n",
        "room/__init__.py": "from .inner import thing\n",  # importing room.inner runs room/__init__ first
        "room/inner.py": "thing = 1\n",
        "outside.py": "from .room.inner import thing\n",
        "room/back.py": "from ..outside import thing\n",
        "fine/up.py": "from .down import w\n",
        "fine/down.py": "w = 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for package in ("pair", "ring", "fine"):
        (tmp_path / package / "__init__.py").touch()
    found = {frozenset(cycle) for cycle in circles(import_graph(str(tmp_path)))}
    assert found == {frozenset({"pair.a", "pair.b"}), frozenset({"ring.one", "ring.two", "ring.three"})}
    (tmp_path / "room" / "__init__.py").write_text("from .inner import thing\nfrom . import back\n")
    found = {frozenset(cycle) for cycle in circles(import_graph(str(tmp_path)))}
    assert frozenset({"outside", "room", "room.back"}) in found  # outside -> room (its __init__) -> back -> outside


def test_solver_root_holds_only_the_shared_data_the_biped_entry_and_the_pictures():
    root = os.path.join(ROOT, "solver")
    modules = sorted(name for name in os.listdir(root) if name.endswith(".py") and name != "__init__.py")
    assert len(modules) <= SOLVER_ROOT_MOST, modules
    rooms = sorted(name for name in os.listdir(root) if os.path.isfile(os.path.join(root, name, "__init__.py")))
    assert {"core", "body", "running", "stepping", "planning", "quadruped", "footprints"} <= set(rooms), rooms


def test_solver_imports_no_blender_module():
    blender = {"bpy", "mathutils", "bmesh", "bpy_extras", "gpu", "blf"}
    offenders = []
    for module, path in modules_of(os.path.join(ROOT, "solver")).items():
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            offenders += [f"solver.{module}: {name}" for name in names if name.split(".")[0] in blender]
    assert not offenders, offenders
