"""Tasks by name: the decorator a third-party package uses, options, and named errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memrnn.errors import UserError
from memrnn.tasks import TransductionTask, make_task, register_task, task_names
from memrnn.tasks import registry as registry_module
from memrnn.tasks.reversal import ReversalTask


@pytest.fixture
def registry() -> Iterator[None]:
    """Registrations made by a test are forgotten after it."""
    saved = dict(registry_module._FACTORIES)
    yield
    registry_module._FACTORIES.clear()
    registry_module._FACTORIES.update(saved)


def test_make_task_passes_options() -> None:
    task = make_task("copy", vocab_size=5)
    assert isinstance(task, TransductionTask) and task.name == "copy"
    assert task.source_vocab == 5
    reversal = make_task("trask_reversal", vocab_size=3)
    assert isinstance(reversal, ReversalTask) and reversal.vocab_size == 3


def test_a_third_party_task_registers_with_the_decorator(registry: None) -> None:
    @register_task("my_reversal")
    class MyReversal(ReversalTask):
        pass

    assert "my_reversal" in task_names()
    assert isinstance(make_task("my_reversal", vocab_size=4), MyReversal)
    register_task("my_small_reversal", lambda: ReversalTask(2))
    assert make_task("my_small_reversal").output_size == 2


def test_bad_names_and_factories(registry: None) -> None:
    with pytest.raises(ValueError, match="name: a task 'copy' is registered already"):
        register_task("copy", ReversalTask)
    with pytest.raises(ValueError, match="name: expected lower-case letters"):
        register_task("My Task", ReversalTask)
    with pytest.raises(TypeError, match="factory: expected a callable, got int"):
        register_task("number", 3)  # type: ignore[type-var]
    register_task("not_a_task", lambda: "copy")  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError, match="task 'not_a_task': its factory returned a str"):
        make_task("not_a_task")


def test_unknown_names_and_options() -> None:
    with pytest.raises(UserError, match="unknown task 'nope'; the tasks are associative_"):
        make_task("nope")
    with pytest.raises(TypeError, match="vocab_sise"):
        make_task("copy", vocab_sise=5)
    with pytest.raises(ValueError, match="vocab_size: expected an int >= 1"):
        make_task("copy", vocab_size=0)
