"""How the claim check's time grows on long hostile text: a passage that repeats a denial
("no", "not", "zero", 没有) or a number (years, "12 million", 三十) thousands of times, against
ordinary prose of the same length measured in the same run (the baseline). Linear growth: time
× 4 when the length is × 4.

    python bench/bench_check_scaling.py [--sizes 250 1000 4000]
    PYTHONPATH=<older tree> python bench/bench_check_scaling.py --sizes 250 1000   # before/after

Prints, per shape and size, the seconds `verify.check` took, the ratio to prose of the same
length, and the growth from the size before (4.0 is linear for sizes × 4).
"""

from __future__ import annotations

import argparse
import time

from reflectcli.sources.verify import check

CLAIM_EN, CLAIM_ZH = "The studio made films.", "他去了北京"
CLAIM_NUM = "The studio made 12 films in 1990."
SHAPES: dict = {
    "prose (baseline)": (CLAIM_EN, lambda n: "The studio made many films in the old city. " * (n // 8)),
    "no no no …": (CLAIM_EN, lambda n: "The studio made " + "no " * n + "films."),
    "not not not …": (CLAIM_EN, lambda n: "The studio made " + "not " * n + "films."),
    "zero zero …": (CLAIM_EN, lambda n: "The studio made " + "zero " * n + "films."),
    "没有没有 …": (CLAIM_ZH, lambda n: "他" + "没有" * n + "去北京"),
    "1900 and 1901 …": (
        CLAIM_NUM,
        lambda n: "It made films in " + " and ".join(str(1900 + i % 100) for i in range(n)),
    ),
    "12 million …": (CLAIM_NUM, lambda n: "The studio made " + "12 million " * n + "films."),
    "三十 三十 …": (CLAIM_ZH, lambda n: "他" + "三十次，" * n + "去北京"),
    # ninth pass: a transcript of n turns, each a speaker's own denial (sources/turns.py)
    "Ann: I don't … / Bo: …": (
        "Ann made films.",
        lambda n: "".join(f"{('Ann', 'Bo')[i % 2]}: I don't make films.\n" for i in range(n // 4)),
    ),
    # tenth pass: Chinese labels; an idiom whose negation asserts, repeated; a claim joining n
    # statements (each compared with its own carrier), against prose
    "张三：我没 … / 李四：…": (
        "张三去了北京",
        lambda n: "".join(f"{('张三', '李四')[i % 2]}：我没去北京。\n" for i in range(n // 4)),
    ),
    "at no cost at no cost …": (CLAIM_EN, lambda n: "The studio made films " + "at no cost " * (n // 3)),
    "claim: …, and it is red": (  # the claim grows (n // 5 statements), the passage is 500 sentences
        lambda n: "The studio made films" + ", and the film is red" * (n // 5),
        lambda n: "The studio made many films in the old city. The film was blue. " * 250,
    ),
    # eleventh pass: a claim of n requests and topics (each a span to its clause's end), a passage
    # of n wishes and imperatives, n amounts each tied to a year (pairs compared both ways)
    "claim: asks Bo to … about …": (
        lambda n: "Ann asks Bo to make films and talks about " * (n // 8) + "films.",
        lambda n: "Bo did not make films. Ann did not talk. " * 50,
    ),
    "I'd like to not … / Keep …": (
        "Ann asks Bo to make films.",
        lambda n: "I'd like to not make films. Keep making films. " * (n // 10),
    ),
    "$12 in 1990 and $13 in 1991 …": (
        "The studio made $12 in 1991.",
        lambda n: "The studio made " + " and ".join(f"${i % 97} in {1900 + i % 99}" for i in range(n // 4)),
    ),
    # twelfth pass: a claim of n denials against a passage of n denials of other things (each of
    # the claim's compared with what the passage denies with the same word); orders to the reader
    "claim: not read a{i}, … / …": (
        lambda n: "The tool does " + ", ".join(f"not read file{i}" for i in range(n // 4)) + ".",
        lambda n: "The tool reads files. " + " ".join(f"It does not read folder{i}." for i in range(n // 5)),
    ),
    "Do not read files. …": (
        "The tool never reads your files.",
        lambda n: "Do not read files. Never share keys. " * (n // 7) + "The tool reads your files.",
    ),
    "他不去北京和上海看 … (one clause)": (
        "他没去北京",
        lambda n: "他不去北京和上海看" * (n // 9) + "。他去了北京。",
    ),
    "不读取文件夹 …": (
        "该工具从不读取你的文件",
        lambda n: "它不读取文件夹。" * (n // 4) + "该工具读取你的文件。",
    ),
    # thirteenth pass: questions that open on an auxiliary, rules ("should not"), denials of
    # "other" things, curly apostrophes, and a claim of n numbers against n sentences that
    # give numbers in other places (`quantities._Placed`)
    "Is it … , is it? / should not / other …": (
        "The tool doesn\u2019t read your files.",
        lambda n: (
            "Is it true that it never reads files, is it? Users should not read files. "
            "It does not read other files. " * (n // 20) + "The tool reads your files."
        ),
    ),
    "claim: Ann Lee in Town1, … / …": (  # n names the passage lacks, n others in their places
        lambda n: "They met " + ", ".join(f"Xq{i} Zed in Town{i}" for i in range(n // 5)) + ".",
        lambda n: "They met " + ", ".join(f"Bob Yar in Town{i}" for i in range(n // 5)) + ".",
    ),
    # nineteenth pass: words that open with a negation (不幸, 不利), double and emphatic denials,
    # repeated, against a claim holding their opposites
    "并非不利，不是没有任何不幸 …": (
        "他很幸运，这对他有利",
        lambda n: "他并非不利，不是没有任何不幸，" * (n // 14) + "这对他有利。",
    ),
    # twentieth pass: Markdown emphasis marks that never close ("*a " repeated took 5 s at
    # 16,000 before their span was bounded), and 违法 / 并不否认 repeated
    "*a *a *a … / _a _a …": (CLAIM_EN, lambda n: "The studio made " + "*a _a " * (n // 2) + "films."),
    "违法，并不否认 …": ("他承认这是合法行为", lambda n: "他并不否认这是违法行为，" * (n // 11) + "他承认。"),
    # (its review: a claim of many denials against a passage of their words in a negative word
    # read each carrier once per denial: 50 against 2,000 took 7.8 s, 400 minutes)
    "claim: 不法行为 … / 违法行为 …": (lambda n: "不法行为" * (n // 40), lambda n: "违法行为" * (n // 2)),
    # twenty-first pass: denials that cancel ("never failed to"), negated doubts ("cannot deny
    # that", 无法否认) repeated, and a claim of n denied refusals against n refusals
    "never failed to … / cannot deny that …": (
        "He did not work hard.",
        lambda n: "He never failed to fail to work. No one can deny that he works. " * (n // 12),
    ),
    "无法否认 …": ("他不努力", lambda n: "无法否认他很努力，" * (n // 9) + "他很努力。"),
    "claim: did not refuse to sign a{i}, … / …": (
        lambda n: "He did " + ", ".join(f"not refuse to sign deal{i}" for i in range(n // 5)) + ".",
        lambda n: " ".join(f"He refused to sign deal{i}." for i in range(n // 5)),
    ),
    "claim: 12 films in 1990, … / …": (
        lambda n: "The studio made " + ", ".join(f"{i} films in {1900 + i % 99}" for i in range(n // 5)),
        lambda n: " ".join(f"The studio sold {i} films in {1900 + i % 99}." for i in range(n // 6)),
    ),
}


def timed(claim: str, passage: str) -> float:
    start = time.perf_counter()
    check(claim, passage)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 1000, 4000])
    sizes = parser.parse_args().sizes
    timed(CLAIM_EN, "The studio made films.")  # imports and caches outside the timings
    base = {n: timed(CLAIM_EN, SHAPES["prose (baseline)"][1](n)) for n in sizes}
    print(f"{'shape':<18} {'repeats':>8} {'seconds':>8} {'× prose':>8} {'growth':>7}")
    for name, (claim, make) in SHAPES.items():
        before = None
        for n in sizes:
            took = (
                base[n]
                if name.startswith("prose")
                else timed(claim(n) if callable(claim) else claim, make(n))
            )
            growth = f"{took / before:7.1f}" if before else "      -"
            print(f"{name:<18} {n:>8} {took:8.2f} {took / base[n]:8.1f} {growth}")
            before = took


if __name__ == "__main__":
    main()
