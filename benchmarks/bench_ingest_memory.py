"""Peak memory and speed of ingesting one large file of many distinct words (issue 29).

Generates a log file (default 49.9 MiB, just under the default 50 MiB limit) whose lines carry
fresh request ids, so its vocabulary is huge (most tokens are no vocabulary entry and need the
tokenizer), then ingests it into a new local store with the embedded model, in a child process
per tree, and prints the child's maximum RSS, the time taken, MB/s and whether the file was
kept. Issue 29 reported ``internal error: KeyError`` and 3.6 GB of RSS for such a file.

``--baseline SRC`` measures another tree (a ``src`` directory holding ``forge_cli``, e.g. a
worktree of ``main``) in the same run, on the same file, and prints both rows.

Run: ``.venv/bin/python benchmarks/bench_ingest_memory.py [--mb 49.9] [--baseline SRC]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """\
import json, resource, sys, time
from forge_cli.knowledge import KnowledgeStore
try:
    from forge_cli.knowledge.embed.local import LocalEmbedder
except ImportError:  # a baseline tree from before issue 28's grouping
    from forge_cli.knowledge.local_embedding import LocalEmbedder

start = time.perf_counter()
try:
    with KnowledgeStore(sys.argv[2], embedder=LocalEmbedder()) as store:
        results = store.ingest_paths([sys.argv[1]]).results
    outcome = ", ".join(r.status + (": " + r.reason if r.reason else "") for r in results)
except Exception as exc:
    outcome = "failed: " + type(exc).__name__
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"outcome": outcome[:80], "seconds": seconds, "rss_mb": rss}))
"""


def make_log(path: Path, megabytes: float, seed: int = 29) -> int:
    """Write a log of about ``megabytes`` MB whose every line has fresh ids; returns its size."""
    rng = random.Random(seed)
    alphabet = string.ascii_lowercase + string.digits
    target = int(megabytes * 1024 * 1024)
    size = 0
    with path.open("w", encoding="ascii") as out:
        line_no = 0
        while size < target:
            ids = " ".join("".join(rng.choices(alphabet, k=rng.randint(5, 10))) for _ in range(8))
            line = f"2024-05-01 12:{line_no % 60:02d} INFO request {ids} finished\n"
            if line_no % 40 == 39:
                line += "\n"  # paragraphs, as a log's blank lines between bursts
            out.write(line)
            size += len(line)
            line_no += 1
    return size


def measure(src: str | None, log: Path, tmp: str, label: str) -> dict[str, object]:
    """Ingest ``log`` in a child process running the tree at ``src`` (``None``: this one)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.path.abspath(src)
    db = os.path.join(tmp, f"{label}.db")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(log), db],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"outcome": f"child died ({proc.returncode}): {tail[:60]}"}
    result: dict[str, object] = json.loads(lines[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--mb", type=float, default=49.9, help="MiB of log to generate (the limit is 50 MiB)"
    )
    parser.add_argument("--baseline", help="another tree's src directory, measured too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "app.log"
        size = make_log(log, args.mb)
        print(f"file: {size / 1e6:.1f} MB of log lines with fresh ids")
        trees = [("this tree", None)]
        if args.baseline:
            trees.append(("baseline", args.baseline))
        print(f"{'tree':<10} {'max RSS':>9} {'seconds':>8} {'MB/s':>6}  outcome")
        for label, src in trees:
            row = measure(src, log, tmp, label.replace(" ", "_"))
            if "rss_mb" not in row:
                print(f"{label:<10} {'-':>9} {'-':>8} {'-':>6}  {row['outcome']}")
                continue
            seconds = float(str(row["seconds"]))
            rate = size / 1e6 / seconds if seconds else 0.0
            print(
                f"{label:<10} {float(str(row['rss_mb'])):>6.0f} MB {seconds:>8.1f} {rate:>6.2f}"
                f"  {row['outcome']}"
            )


if __name__ == "__main__":
    main()
