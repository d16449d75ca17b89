"""Write the pairs files of the own-data example: words of the letters a-h and each word
reversed, one ``word<TAB>reversed`` a line. Training words have 1-10 letters, test words
11-20, so the test asks for longer words than any trained on.

    python examples/data/make_reverse.py
"""

import random
from pathlib import Path

HERE = Path(__file__).parent


def pairs(rng: random.Random, count: int, low: int, high: int) -> list[str]:
    """``count`` lines ``word<TAB>reversed`` of words of ``low`` to ``high`` letters."""
    words = [
        "".join(rng.choices("abcdefgh", k=rng.randint(low, high))) for _ in range(count)
    ]
    return [f"{w}\t{w[::-1]}" for w in words]


def write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(f"{line}\n" for line in lines))


if __name__ == "__main__":
    rng = random.Random(0)
    write(HERE / "reverse.tsv", pairs(rng, 1000, 1, 10))
    write(HERE / "reverse_test.tsv", pairs(rng, 200, 11, 20))
    write(HERE / "words.txt", ["cabbage", "deadbeef", "abcdefghhgfedcba"])
