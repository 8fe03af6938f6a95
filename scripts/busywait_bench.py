#!/usr/bin/env python3
"""Runs `syncmut explore` on every program of tests/corpus/busywait with each strategy at
both interleave settings and prints a Markdown table for BENCHMARKS.md ("Busy-waiting
code and drawn inputs"): per cell the run that first showed a bug and its kind
(`#12 assertion`), or `-` when the budget found none.

usage: scripts/busywait_bench.py [SYNCMUT] [BUDGET_CORRECT] [BUDGET_BROKEN] [PROGRAM...]
"""
import os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests/corpus/busywait")
SYNCMUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/syncmut")
CORRECT_BUDGET = sys.argv[2] if len(sys.argv) > 2 else "200"
BROKEN_BUDGET = sys.argv[3] if len(sys.argv) > 3 else "1000"
ONLY = sys.argv[4:]
# Programs whose every report is a false alarm; the rest have a bug to find.
CORRECT = {"peterson", "dekker", "bakery", "szymanski", "ticket_lock", "flag_handoff"}


def cell(program, strategy, interleave, budget):
    with tempfile.TemporaryDirectory() as out:
        cmd = [SYNCMUT, "explore", os.path.join(CORPUS, program + ".c"), "--strategy", strategy,
               "--interleave", interleave, "--schedules", budget, "-o", out]
        text = subprocess.run(cmd, capture_output=True, text=True).stdout
    runs = re.search(r"^explored (\d+) run", text, re.M)
    bug = re.search(r"^BUG ([a-z ]+?)(?: \(timeout\))?:", text, re.M)
    if bug is None:
        return f"- ({runs.group(1) if runs else '?'})", False
    first = re.search(r"^found by run (\d+)", text, re.M)
    return f"#{first.group(1) if first else '?'} {bug.group(1)}", True


def main():
    programs = ONLY or sorted(f[:-2] for f in os.listdir(CORPUS) if f.endswith(".c"))
    print("| program | expected | dfs sync | dfs memory | random sync | random memory | pct sync | pct memory |")
    print("|---|---|---|---|---|---|---|---|")
    false_alarms = 0
    for p in programs:
        correct = p in CORRECT
        budget = CORRECT_BUDGET if correct else BROKEN_BUDGET
        cells = []
        for strategy in ["dfs", "random", "pct"]:
            for interleave in ["sync", "memory"]:
                text, found = cell(p, strategy, interleave, budget)
                false_alarms += correct and found
                cells.append(text)
        print(f"| {p} | {'no bug' if correct else 'bug'} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nfalse alarms on correct programs: {false_alarms}")


main()
