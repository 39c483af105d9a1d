"""Two processes ingesting into, or seeding, one store at once: nothing lost, nothing doubled."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from forge_cli.knowledge import SEED_STORE_NAME, KnowledgeStore, bundled_docs, ensure_seed_store

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


_SEEDER = textwrap.dedent(
    """
    import sys
    from forge_cli.knowledge import KnowledgeStore, ensure_seed_store

    with KnowledgeStore(sys.argv[1]) as store:
        print(ensure_seed_store(store).id)
    """
)


def test_two_processes_seeding_at_once_make_one_store(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _SEEDER, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    ids = set()
    for proc in procs:
        out, err = proc.communicate(timeout=50)
        assert proc.returncode == 0, err
        ids.add(out.strip())
    with KnowledgeStore(path) as store:
        stores = [vs for vs in store.list_vector_stores() if vs.name == SEED_STORE_NAME]
        assert [vs.id for vs in stores] == sorted(ids)
        assert stores[0].file_counts.total == len(bundled_docs())


def test_seeding_after_a_stale_lookup_reuses_the_other_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race, made deterministic: this process looked before the other one created it."""
    path = tmp_path / "k.db"
    with KnowledgeStore(path) as other, KnowledgeStore(path) as mine:
        created_by_other = ensure_seed_store(other)
        monkeypatch.setattr(mine, "find_vector_store", lambda name: None)
        seeded = ensure_seed_store(mine)
        assert seeded.id == created_by_other.id
        assert [vs.name for vs in mine.list_vector_stores()] == [SEED_STORE_NAME]
        assert len(mine.list_files()) == len(bundled_docs())


def test_find_or_create_vector_store(tmp_path: Path) -> None:
    with KnowledgeStore(tmp_path / "k.db") as store:
        first = store.find_or_create_vector_store("notes", description="mine")
        again = store.find_or_create_vector_store("notes")
        assert again.id == first.id
        assert again.description == "mine"
        assert len(store.list_vector_stores()) == 1
