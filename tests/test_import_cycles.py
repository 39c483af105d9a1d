"""No import cycles between the modules of forge_cli, also none hidden in function-level imports.

The graph is grimp's (import-linter builds it the same way): every ``import`` statement of a
module counts wherever it stands, at the top, inside a function (the lazy imports that keep start-up
fast) or under ``if TYPE_CHECKING:``. A lazy import only postpones a cycle to run time, so it
counts in full. A type-only import never executes, but it is still coupling: the module cannot be
read, type-checked or moved without the other, and the cycle it closes is almost always cheap to
break with a small ``Protocol`` the lower module defines (the slash commands' view of the chat
session, :mod:`forge_cli.repl.commands.context`), so those count too.

One import is written as a string: :class:`forge_cli.cli.main.LazyGroup` imports each
sub-command's module by the name :data:`forge_cli.cli.commands.COMMANDS` gives it (so ``--help``
loads none of them). The test adds those imports to the graph; a sub-command that imported
``cli.main`` back would be a cycle grimp cannot see.

The unit is the module: a package stands for its ``__init__`` only (an explicit
``from forge_cli.repl.commands import X`` imports it; the implicit import of a module's parent
packages does not count, or every package would be a cycle with its own children). Cycles between
sibling packages are the import-linter layers contract's business (``pyproject.toml``, ADR-0001).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Set
from pathlib import Path

import grimp
import pytest


def _import_graph(package: str) -> grimp.ImportGraph:
    # No cache: a stale cache would hide a cycle just written.
    return grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)


def _edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    return {m: set(graph.find_modules_directly_imported_by(m)) - {m} for m in graph.modules}


def _add_lazy_subcommands(graph: grimp.ImportGraph) -> None:
    """The imports LazyGroup makes by name (``importlib``), which no import statement shows."""
    from forge_cli.cli.commands import COMMANDS

    for target, _help in COMMANDS.values():
        module = target.split(":")[0]
        assert module in graph.modules, f"COMMANDS names {module}, which does not exist"
        graph.add_import(importer="forge_cli.cli.main", imported=module)


def strongly_connected(edges: Mapping[str, Set[str]]) -> list[list[str]]:
    """The groups of two or more modules that import each other, directly or through others
    (Tarjan's algorithm, iterative so a deep graph needs no deep recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def successors(node: str) -> Iterator[str]:
        return iter(sorted(edges.get(node, ())))

    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, successors(root))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            child = next(todo, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, successors(child)))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def describe_cycles(graph: grimp.ImportGraph) -> list[str]:
    """One paragraph per cycle: its modules and every import between them, with line numbers."""
    edges = _edges(graph)
    found = []
    for group in strongly_connected(edges):
        members = set(group)
        lines = [f"cycle of {len(group)} modules:"]
        for importer in group:
            for imported in sorted(edges[importer] & members):
                details = graph.get_import_details(importer=importer, imported=imported)
                lines_at = ", ".join(str(d["line_number"]) for d in details)
                where = f"line {lines_at}" if lines_at else "by name"
                lines.append(f"  {importer} ({where}) -> {imported}")
        found.append("\n".join(lines))
    return found


def test_forge_cli_has_no_import_cycles() -> None:
    graph = _import_graph("forge_cli")
    _add_lazy_subcommands(graph)
    cycles = describe_cycles(graph)
    assert not cycles, "import cycles (ADR-0001, 'Cycles'):\n" + "\n".join(cycles)


def test_the_finder_sees_cycles_hidden_in_functions_and_type_checking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cyclepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from cyclepkg import b\n")
    (package / "b.py").write_text("def g():\n    import cyclepkg.a\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cyclepkg.d import D\n"
    )
    (package / "d.py").write_text("from cyclepkg.c import C\nD = C\n")
    (package / "e.py").write_text("import cyclepkg.a\n")  # imports into a cycle: not part of it
    monkeypatch.syspath_prepend(str(tmp_path))

    cycles = describe_cycles(_import_graph("cyclepkg"))

    assert cycles == [
        "cycle of 2 modules:\n"
        "  cyclepkg.a (line 2) -> cyclepkg.b\n"
        "  cyclepkg.b (line 2) -> cyclepkg.a",
        "cycle of 2 modules:\n"
        "  cyclepkg.c (line 3) -> cyclepkg.d\n"
        "  cyclepkg.d (line 1) -> cyclepkg.c",
    ]


def test_strongly_connected_groups() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"], ["d", "e"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []
