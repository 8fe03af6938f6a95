#!/usr/bin/env python3
"""Measures which strategy and budget kill the real-thread corpus's target mutants
(tests/fixtures/realthreads/*/targets.txt: mutants that fail with real threads and
survive the default schedule) and at what cost. Prints a Markdown table for
BENCHMARKS.md ("Default schedule budget").

usage: scripts/schedule_budget.py [SYNCMUT] [CONFIG...]   (CONFIG: "default", "mixed:24", ...)
"""
import json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests/fixtures/realthreads")
SYNCMUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/syncmut")
CONFIGS = sys.argv[2:] or ["default", "native:3", "random:24", "pct:24", "mixed:4", "mixed:8", "mixed:16", "mixed:24"]


def flags(config):
    name, _, n = config.partition(":")
    out = ["--strategy", name]
    if n:
        out += ["--schedules", n]
    return out


def main():
    designs = sorted(d for d in os.listdir(CORPUS) if os.path.isfile(os.path.join(CORPUS, d, "targets.txt")))
    targets = {d: [l.split()[0] for l in open(os.path.join(CORPUS, d, "targets.txt")) if l.strip() and not l.startswith("#")] for d in designs}
    total = sum(len(t) for t in targets.values())
    print(f"| strategy | target mutants killed (of {total}) | all mutants killed | wall time (s) | runs per killed target (mean) |")
    print("|---|---|---|---|---|")
    for config in CONFIGS:
        killed = everything = mutants = 0
        seconds = 0.0
        runs_to_kill = []
        missed = []
        for d in designs:
            with tempfile.TemporaryDirectory() as out:
                start = time.monotonic()
                subprocess.run([SYNCMUT, "run", os.path.join(CORPUS, d), "--gen", "none", "-j", "2", "-o", out] + flags(config),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                seconds += time.monotonic() - start
                outcomes = json.load(open(os.path.join(out, "outcomes.json")))
            for m in outcomes["mutants"]:
                mutants += 1
                dead = m["verdict"].startswith("killed")
                everything += dead
                if m["mutant"] in targets[d]:
                    if dead:
                        killed += 1
                        run = next(r for r in m["runs"] if r["verdict"] == m["verdict"])
                        runs_to_kill.append(run.get("schedules") or 1)
                    else:
                        missed.append(f"{d}:{m['mutant']}")
        mean = sum(runs_to_kill) / len(runs_to_kill) if runs_to_kill else 0
        print(f"| `{config}` | {killed} | {everything} of {mutants} | {seconds:.1f} | {mean:.1f} |" + (f" missed: {', '.join(missed)}" if missed else ""))
        sys.stdout.flush()


main()
