"""Client CPU of `forge ask`, this tree against a baseline tree, interleaved run by run.

For a change that saves a few milliseconds, `bench_peers.py`'s medians of 3 runs are too coarse:
this runs only Forge, both trees taking turns (run 1 of each, then run 2, ...), many runs, and
prints per scenario the median client CPU (user + system of the `forge ask` process and its
children, from `wait4`'s resource usage, i.e. what RUSAGE_CHILDREN adds up), the spread
(min-max and the interquartile range) and the difference of the medians. The server, the
answers and the commands are bench_peers' (`MockServer`, `markdown_tokens`, `forge_client`, run
in a pty, `--plain` with stdout piped).

Byte-compile both trees first (`python -m compileall -q SRC`): the environment may set
PYTHONDONTWRITEBYTECODE=1, and a tree without .pyc files pays compiling on every run.

Run: `.venv/bin/python benchmarks/ab_cpu.py --baseline /tmp/base/src [--runs 15]
[--scenarios chat responses plain] [--tokens 2000]`
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_peers import MockServer, forge_client, markdown_tokens, run_in_pty


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 4:
        return min(values), max(values)
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, metavar="SRC")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tokens", type=int, default=2000)
    parser.add_argument(
        "--scenarios", nargs="*", default=["chat", "responses", "plain"], metavar="NAME"
    )
    args = parser.parse_args()
    server = MockServer()
    server.tokens = markdown_tokens(args.tokens)
    cpu: dict[tuple[str, str], list[float]] = {}
    failed: dict[tuple[str, str], int] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            new = forge_client(server.url, home)
            base = forge_client(server.url, home)
            base.env["PYTHONPATH"] = str(args.baseline.resolve())
            trees = {"base": base, "new": new}
            print(
                f"{args.tokens}-token answer, {args.runs} runs per tree and scenario, trees "
                f"interleaved; python {sys.version.split()[0]}",
                flush=True,
            )
            for scenario in args.scenarios:
                for run in range(args.runs):
                    # Alternate which tree goes first, so neither always follows the other.
                    order = ("base", "new") if run % 2 == 0 else ("new", "base")
                    for name in order:
                        client = trees[name]
                        argv = client.argv[scenario]
                        assert argv is not None
                        result = run_in_pty(argv, client.env, server, piped=scenario == "plain")
                        key = (scenario, name)
                        if result.ok:
                            cpu.setdefault(key, []).append(result.cpu * 1000)
                        else:
                            failed[key] = failed.get(key, 0) + 1
    finally:
        server.close()
    header = f"{'scenario':<10} {'tree':<5} {'runs':>4} {'median':>8} {'IQR':>15} {'min-max':>15}"
    print(header)
    for scenario in args.scenarios:
        medians = {}
        for name in ("base", "new"):
            values = cpu.get((scenario, name), [])
            if not values:
                print(f"{scenario:<10} {name:<5} failed ({failed.get((scenario, name), 0)})")
                continue
            med = medians[name] = statistics.median(values)
            q1, q3 = _quartiles(values)
            print(
                f"{scenario:<10} {name:<5} {len(values):>4} {med:>6.1f}ms "
                f"{q1:>6.1f}-{q3:<6.1f}ms {min(values):>6.1f}-{max(values):<6.1f}ms"
            )
        if len(medians) == 2:
            diff = medians["new"] - medians["base"]
            print(f"{scenario:<10} new - base: {diff:+.1f} ms ({diff / medians['base']:+.1%})")
    return 1 if failed else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    sys.exit(main())
