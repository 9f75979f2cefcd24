"""No import cycle inside engine/, pbem/ or web/ (issue 25).

Modules that import each other in a circle cannot be read, tested or moved one at a time: a
cycle is a strongly connected component of more than one module in the import graph, built by
grimp (the graph import-linter reads). Imports inside functions and under
``TYPE_CHECKING`` count too: an import moved into a function hides a cycle, it does not remove
it. A failure names each cycle's modules and the imports that close it.
"""

from __future__ import annotations

import grimp
import pytest


def _cycles(package: str) -> list[tuple[list[str], list[str]]]:
    """Each strongly connected component of more than one module (Tarjan, iteratively), with
    the imports between its modules."""
    graph = grimp.build_graph(package, cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [(c, [f"{m} -> {t}" for m in c for t in edges.get(m, []) if t in set(c)]) for c in found]


@pytest.mark.parametrize("package", ["engine", "pbem", "web"])
def test_no_import_cycle(package: str) -> None:
    cycles = _cycles(package)
    assert not cycles, "\n\n".join(
        f"import cycle of {len(modules)} modules in {package}: {', '.join(modules)}\n  "
        + "\n  ".join(imports)
        for modules, imports in cycles
    )
