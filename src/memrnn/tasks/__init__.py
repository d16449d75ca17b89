"""Tasks for memory-augmented recurrent networks, on one contract (:mod:`memrnn.tasks.base`)
and by name (:mod:`memrnn.tasks.registry`)."""

from memrnn.tasks.base import IGNORE_INDEX, StackTask, Task, TaskBatch
from memrnn.tasks.registry import make_task, register_task, task_names
from memrnn.tasks.reversal import ReversalBatch, ReversalTask
from memrnn.tasks.stack_teacher import StackTeacher

__all__ = [
    "IGNORE_INDEX",
    "ReversalBatch",
    "ReversalTask",
    "StackTask",
    "StackTeacher",
    "Task",
    "TaskBatch",
    "make_task",
    "register_task",
    "task_names",
]
