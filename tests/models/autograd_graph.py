"""The autograd graph behind a tensor, for tests that look at which operations made it."""

from __future__ import annotations

from collections.abc import Iterator

from torch import Tensor


def graph_nodes(output: Tensor) -> Iterator[object]:
    """Every node of ``output``'s backward graph, each once."""
    seen: set[object] = set()
    todo = [output.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        yield node
        todo.extend(parent for parent, _ in node.next_functions)
