"""The numbers of Paassen, Schulz, Hammer (2021), Tables 2-7, as printed.

Mean and standard deviation over 10 repeats: the test mean absolute error (Tables 2 and
3: all nine models; Table 6, Appendix A: the three ESNs with 1024 neurons) and the
runtime of training and evaluation in seconds on a 2017 laptop (Tables 4, 5 and 7).
A cell the paper prints in bold ("mean and standard deviation below 10^-2") is marked
``*`` below; the flags are kept as printed because the rounded numbers cannot recover
them (Table 3 bolds rand-ESN's JSON "0.01 ± 0.00" but not CRJ-ESN's).
"""

from __future__ import annotations

from collections.abc import Sequence

from memrnn.tasks.rsm_benchmarks import LANGUAGE_TASKS, NTM_TASKS, TASKS

MODELS = (
    "rand-ESN",
    "CRJ-ESN",
    "LDN-ESN",
    "GRU",
    "SRNN",
    "DSM",
    "rand-RSM",
    "CRJ-RSM",
    "LDN-RSM",
)
ESN_MODELS = MODELS[:3]

# Tables 2-5: one row per model in MODELS order, "mean std" per task
_TABLE_2 = """
0.43 0.02 | 0.23 0.00 | 0.36 0.01
0.40 0.02 | 0.20 0.01 | 0.34 0.01
0.42 0.01 | 0.22 0.00 | 0.30 0.01
*0.00 0.00 | 0.22 0.00 | 0.32 0.01
0.30 0.03 | 0.21 0.01 | 0.36 0.01
*0.00 0.00 | 0.23 0.01 | 0.33 0.02
*0.00 0.00 | 0.36 0.03 | 0.40 0.01
0.35 0.02 | 0.22 0.00 | 0.08 0.01
*0.00 0.00 | *0.00 0.00 | *0.00 0.00
"""
_TABLE_3 = """
0.13 0.02 | 0.23 0.05 | 0.28 0.06 | *0.00 0.00 | *0.00 0.00 | *0.01 0.00
0.11 0.01 | 0.12 0.02 | 0.14 0.03 | *0.00 0.00 | *0.01 0.00 | 0.01 0.00
0.17 0.02 | 0.23 0.02 | 0.26 0.03 | *0.00 0.00 | 0.07 0.01 | 0.10 0.01
0.04 0.01 | 0.05 0.01 | 0.06 0.01 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00
0.02 0.03 | *0.00 0.00 | 0.03 0.03 | *0.00 0.00 | 0.05 0.14 | 0.08 0.16
*0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00
*0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00
*0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00
*0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00 | *0.00 0.00
"""
_TABLE_4 = """
1.17 0.12 | 0.48 0.01 | 0.32 0.01
0.76 0.11 | 0.11 0.01 | 0.18 0.01
1.71 0.19 | 0.19 0.01 | 0.23 0.01
97.1 4.1 | 108.3 12.2 | 191.5 74.4
295.0 12.4 | 314.5 24.4 | 536.3 113.5
619.3 20.3 | 548.9 30.3 | 1045.4 211.6
10.25 0.62 | 5.20 0.14 | 9.61 0.65
51.27 5.16 | 4.11 0.14 | 7.78 0.38
26.74 2.04 | 3.36 0.13 | 10.25 0.46
"""
_TABLE_5 = """
1.68 0.30 | 1.78 0.13 | 1.93 0.40 | 0.89 0.04 | 1.29 0.29 | 1.01 0.06
1.27 0.32 | 0.88 0.13 | 0.98 0.21 | 0.38 0.02 | 0.61 0.16 | 0.80 0.05
2.27 0.29 | 1.28 0.10 | 1.22 0.26 | 0.92 0.12 | 1.04 0.32 | 0.95 0.15
45.6 3.1 | 45.5 3.0 | 42.3 2.0 | 52.6 8.9 | 47.9 2.5 | 37.8 1.8
114.8 10.7 | 114.0 10.3 | 102.5 6.2 | 131.0 24.7 | 122.0 9.5 | 88.0 5.9
285.0 31.3 | 282.1 30.8 | 249.1 17.7 | 270.3 37.5 | 290.3 27.0 | 217.6 17.3
11.52 0.72 | 16.64 1.40 | 17.80 1.78 | 4.01 0.08 | 6.09 0.42 | 13.16 1.18
11.08 0.69 | 15.06 1.14 | 17.08 1.61 | 4.15 0.07 | 7.06 0.50 | 11.42 0.99
13.71 0.97 | 14.34 1.40 | 14.22 0.84 | 5.06 0.22 | 6.49 0.42 | 11.90 0.79
"""
# Tables 6 and 7 as the appendix prints them: one row per data set in TASKS order, one
# column per ESN (rand, CRJ, LDN)
_TABLE_6 = """
0.42 0.03 | 0.39 0.01 | 0.43 0.01
0.24 0.01 | 0.21 0.00 | 0.22 0.00
0.53 0.04 | 0.33 0.01 | 0.31 0.01
0.14 0.02 | 0.14 0.02 | 0.18 0.02
0.58 0.64 | 0.15 0.02 | 0.23 0.02
0.34 0.08 | 0.16 0.03 | 0.27 0.03
*0.00 0.00 | *0.00 0.00 | *0.00 0.00
*0.00 0.00 | *0.00 0.00 | 0.07 0.01
*0.00 0.00 | *0.00 0.00 | 0.10 0.01
"""
_TABLE_7 = """
6.00 0.22 | 1.43 0.06 | 12.85 0.44
0.93 0.04 | 0.20 0.03 | 0.38 0.03
20.88 1.35 | 1.61 0.22 | 3.83 0.18
15.34 0.67 | 1.71 0.10 | 13.33 0.84
15.66 0.53 | 1.81 0.15 | 8.15 0.41
9.28 0.55 | 1.76 0.11 | 6.29 0.54
10.54 0.10 | 0.89 0.01 | 8.73 0.08
11.28 0.82 | 1.15 0.31 | 6.48 0.42
6.59 0.63 | 1.78 0.26 | 4.03 0.26
"""

Numbers = dict[str, dict[str, tuple[float, float]]]


def _cells(text: str, rows: Sequence[str]) -> list[list[tuple[float, float, bool]]]:
    """(mean, std, bold) per cell of a table of one line per entry of ``rows``."""
    lines = text.strip().splitlines()
    if len(lines) != len(rows):
        raise ValueError(f"a table has {len(lines)} rows for {len(rows)} entries")
    parsed = []
    for line in lines:
        row = []
        for cell in line.split("|"):
            mean, std = cell.split()
            row.append((float(mean.lstrip("*")), float(std), mean.startswith("*")))
        parsed.append(row)
    return parsed


def _parse(
    *tables: tuple[str, Sequence[str]], models: Sequence[str] = MODELS, by_task: bool = False
) -> tuple[Numbers, frozenset[tuple[str, str]]]:
    """{model: {task: (mean, std)}} and the bold (model, task) cells of tables with one
    line per model and one column per task, or (``by_task``) the other way round."""
    parsed: Numbers = {model: {} for model in models}
    bold = set()
    for text, tasks in tables:
        lines, columns = (tasks, models) if by_task else (models, tasks)
        for line_name, cells in zip(lines, _cells(text, lines), strict=True):
            if len(cells) != len(columns):
                raise ValueError(f"row {line_name}: {len(cells)} cells for {len(columns)}")
            for column, (mean, std, is_bold) in zip(columns, cells, strict=True):
                model, task = (column, line_name) if by_task else (line_name, column)
                parsed[model][task] = (mean, std)
                if is_bold:
                    bold.add((model, task))
    return parsed, frozenset(bold)


PAPER_MAE, PAPER_BOLD = _parse((_TABLE_2, NTM_TASKS), (_TABLE_3, LANGUAGE_TASKS))
"""PAPER_MAE[model][task] = (mean, std) of the test MAE (Tables 2 and 3); PAPER_BOLD the
(model, task) cells printed in bold there."""
PAPER_SECONDS, _ = _parse((_TABLE_4, NTM_TASKS), (_TABLE_5, LANGUAGE_TASKS))
"""PAPER_SECONDS[model][task] = (mean, std) of the runtime in seconds (Tables 4 and 5)."""
PAPER_MAE_1024, PAPER_BOLD_1024 = _parse((_TABLE_6, TASKS), models=ESN_MODELS, by_task=True)
"""The ESNs with 1024 neurons (Appendix A, Table 6): PAPER_MAE_1024[model][task] = (mean,
std) of the test MAE; PAPER_BOLD_1024 the cells printed in bold."""
PAPER_SECONDS_1024, _ = _parse((_TABLE_7, TASKS), models=ESN_MODELS, by_task=True)
"""PAPER_SECONDS_1024[model][task] = (mean, std) of the runtime in seconds (Table 7)."""
