"""Two processes ingesting into one store at once lose nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from forge_cli.knowledge import KnowledgeStore

_WORKER = textwrap.dedent(
    """
    import sys
    from forge_cli.knowledge import KnowledgeStore

    path, vs_id, tag = sys.argv[1], sys.argv[2], sys.argv[3]
    with KnowledgeStore(path) as store:
        for i in range(25):
            text = f"# Doc {tag} {i}\\n\\nunique words {tag} number {i} " + "filler " * 200
            store.add_file(text.encode(), f"{tag}-{i}.md", vector_store_id=vs_id)
            # The same content from both processes: must end up stored exactly once.
            store.add_file(f"shared document {i}".encode(), f"shared-{i}.txt",
                           vector_store_id=vs_id)
    print("done")
    """
)


def test_two_processes_ingest_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    with KnowledgeStore(path) as store:
        vs_id = store.create_vector_store("shared").id
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(path), vs_id, tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=50)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    with KnowledgeStore(path) as store:
        names = sorted(f.filename for f in store.list_files())
        assert len(names) == 75
        assert {f"a-{i}.md" for i in range(25)} <= set(names)
        assert {f"b-{i}.md" for i in range(25)} <= set(names)
        assert store.get_vector_store(vs_id).file_counts.total == 75
        for tag in ("a", "b"):
            hits = store.search([vs_id], f"unique {tag} number 7", max_num_results=50)
            assert f"{tag}-7.md" in {h.filename for h in hits}
