"""Tasks for memory-augmented recurrent networks, on one contract (:mod:`memrnn.tasks.base`)
and by name (:mod:`memrnn.tasks.registry`).

Importing this package registers every task of memrnn: the five transduction tasks of
Grefenstette et al. (2015), the tutorial's reversal (Trask 2016), Dyck-(k,m) next-token
prediction (Hewitt et al. 2020), associative retrieval (Ba et al. 2016) and the nine
benchmarks of the reservoir stack machine (Paassen, Schulz, Hammer 2021) and the fifteen
tasks of Delétang et al. (2023) across the Chomsky hierarchy (:mod:`memrnn.tasks.chomsky`).
``TextPairsTask`` is made from a file of your own pairs (:mod:`memrnn.tasks.text_pairs`),
not by name; ``score_pairs`` and ``decode_texts`` decode with a model trained on it
(:mod:`memrnn.tasks.text_pairs_decoding`).
"""

from memrnn.tasks.base import IGNORE_INDEX, StackTask, Task, TaskBatch
from memrnn.tasks.bit_copy_task import BitCopyTask, BitRepeatCopyTask
from memrnn.tasks.chomsky import ChomskyTask
from memrnn.tasks.dyck_lm_task import DyckLMTask
from memrnn.tasks.lr1_task import LR1LanguageTask
from memrnn.tasks.registry import make_task, register_task, task_names
from memrnn.tasks.retrieval_task import RetrievalTask
from memrnn.tasks.reversal import ReversalBatch, ReversalTask
from memrnn.tasks.stack_teacher import StackTeacher
from memrnn.tasks.text_pairs import TextPairsTask, read_pairs
from memrnn.tasks.text_pairs_decoding import decode_texts, score_pairs
from memrnn.tasks.transduction import TransductionTask

__all__ = [
    "IGNORE_INDEX",
    "BitCopyTask",
    "BitRepeatCopyTask",
    "ChomskyTask",
    "DyckLMTask",
    "LR1LanguageTask",
    "RetrievalTask",
    "ReversalBatch",
    "ReversalTask",
    "StackTask",
    "StackTeacher",
    "Task",
    "TaskBatch",
    "TextPairsTask",
    "TransductionTask",
    "decode_texts",
    "make_task",
    "read_pairs",
    "register_task",
    "score_pairs",
    "task_names",
]
