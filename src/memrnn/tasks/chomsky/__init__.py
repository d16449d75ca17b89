"""The fifteen tasks of Delétang et al. (2023), *Neural Networks and the Chomsky
Hierarchy* (section 4 and Appendix A), on the Task contract in the layout of
:mod:`memrnn.tasks.chomsky.layout`, by the paper's groups:

- regular: ``even_pairs``, ``modular_arithmetic``, ``parity_check``, ``cycle_navigation``;
- deterministic context-free: ``stack_manipulation``, ``reverse_string``,
  ``modular_arithmetic_brackets``, ``solve_equation``;
- context-sensitive: ``duplicate_string``, ``missing_duplicate``, ``odds_first``,
  ``binary_addition``, ``binary_multiplication``, ``compute_sqrt``, ``bucket_sort``.

Each class names its group in ``chomsky_level``. Importing this package registers them.
"""

from memrnn.tasks.chomsky.binary_addition import BinaryAdditionTask
from memrnn.tasks.chomsky.binary_multiplication import BinaryMultiplicationTask
from memrnn.tasks.chomsky.bucket_sort import BucketSortTask
from memrnn.tasks.chomsky.compute_sqrt import ComputeSqrtTask
from memrnn.tasks.chomsky.cycle_navigation import CycleNavigationTask
from memrnn.tasks.chomsky.duplicate_string import DuplicateStringTask
from memrnn.tasks.chomsky.even_pairs import EvenPairsTask
from memrnn.tasks.chomsky.layout import ChomskyLevel, ChomskyTask, Strings
from memrnn.tasks.chomsky.missing_duplicate import MissingDuplicateTask
from memrnn.tasks.chomsky.modular_arithmetic import ModularArithmeticTask
from memrnn.tasks.chomsky.modular_arithmetic_brackets import ModularArithmeticBracketsTask
from memrnn.tasks.chomsky.odds_first import OddsFirstTask
from memrnn.tasks.chomsky.parity_check import ParityCheckTask
from memrnn.tasks.chomsky.reverse_string import ReverseStringTask
from memrnn.tasks.chomsky.solve_equation import SolveEquationTask
from memrnn.tasks.chomsky.stack_manipulation import StackManipulationTask

__all__ = [
    "BinaryAdditionTask",
    "BinaryMultiplicationTask",
    "BucketSortTask",
    "ChomskyLevel",
    "ChomskyTask",
    "ComputeSqrtTask",
    "CycleNavigationTask",
    "DuplicateStringTask",
    "EvenPairsTask",
    "MissingDuplicateTask",
    "ModularArithmeticBracketsTask",
    "ModularArithmeticTask",
    "OddsFirstTask",
    "ParityCheckTask",
    "ReverseStringTask",
    "SolveEquationTask",
    "StackManipulationTask",
    "Strings",
]
