"""Issue 29 (second round): ingest of text with any vocabulary, one failed file never poisons
the next, and a directory walk's files cannot be swapped for symlinks before they are read."""

from __future__ import annotations

import random
import string
from pathlib import Path

import httpx2
import numpy as np
import pytest

from forge_cli.engine import Engine, EngineConfig
from forge_cli.engine.server import BackgroundServer
from forge_cli.knowledge import KnowledgeStore, ingest
from forge_cli.knowledge.embed import local as le
from forge_cli.knowledge.embed.local import LocalEmbedder, local_model_available

needs_model = pytest.mark.skipif(not local_model_available(), reason="wordllama is not installed")


def _words(rng: random.Random, count: int) -> list[str]:
    """Log-file tokens (request ids, hashes): ``count`` words no vocabulary has."""
    alphabet = string.ascii_lowercase + string.digits
    return ["".join(rng.choices(alphabet, k=rng.randint(6, 12))) for _ in range(count)]


def _log(rng: random.Random, lines: int, shared: list[str]) -> str:
    """A log file: every line has fresh ids and a few of the ``shared`` words."""
    return "".join(
        f"2024-05-01 INFO request {' '.join(_words(rng, 6))} {' '.join(rng.sample(shared, 2))}\n"
        for _ in range(lines)
    )


@pytest.fixture
def small_cache(monkeypatch: pytest.MonkeyPatch) -> int:
    """The word cache cut to 400 words, so its eviction runs on inputs that take milliseconds."""
    monkeypatch.setattr(le, "_WORD_CACHE", 400)
    return 400


@needs_model
def test_word_cache_eviction_never_looks_up_an_evicted_word(small_cache: int) -> None:
    """The cache was cleared when full, then looked up for words seen before: KeyError."""
    rng = random.Random(1)
    shared = _words(rng, 50)
    embedder = LocalEmbedder()
    batches = [[_log(rng, 3, shared) for _ in range(10)] for _ in range(6)]
    batches.append([_log(rng, 200, shared)])  # one call with more words than the cache holds
    for texts in batches:
        got = embedder.embed_array(texts)
        fresh = LocalEmbedder().embed_array(texts)
        assert got.tobytes() == fresh.tobytes()  # bit for bit what an empty cache gives
        assert len(embedder._word_rows_cache) <= small_cache
        assert len(embedder._word_vectors) == len(embedder._word_rows_cache)


@needs_model
def test_a_failing_embedding_leaves_the_cache_consistent(
    small_cache: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(2)
    shared = _words(rng, 50)
    embedder = LocalEmbedder()
    embedder.embed_array([_log(rng, 30, shared)])
    real = LocalEmbedder._tokenize

    def broken(self: LocalEmbedder, words: list[str]) -> object:
        raise RuntimeError("tokenizer failed")

    monkeypatch.setattr(LocalEmbedder, "_tokenize", broken)
    with pytest.raises(RuntimeError):
        embedder.embed_array([_log(rng, 30, shared)])
    monkeypatch.setattr(LocalEmbedder, "_tokenize", real)
    texts = [_log(rng, 30, shared)]
    assert embedder.embed_array(texts).tobytes() == LocalEmbedder().embed_array(texts).tobytes()


@needs_model
def test_grouped_word_sums_match_the_sum_of_each_word_bit_for_bit() -> None:
    """Words are summed a group at a time; each must equal numpy's sum of its own rows (the
    query path, ``local_query``, reproduces that order of additions without numpy)."""
    rng = random.Random(3)
    words = [
        "".join(rng.choices(string.ascii_lowercase + "_é0", k=rng.randint(2, 24)))
        for _ in range(300)
    ]
    embedder = LocalEmbedder()
    weights = embedder._load()
    got = embedder._new_word_vectors(weights, sorted(set(words)))
    ids, starts = embedder._tokenize(sorted(set(words)))
    ends = [*starts[1:].tolist(), len(ids)]
    for n, (start, end) in enumerate(zip(starts.tolist(), ends, strict=True)):
        if sorted(set(words))[n].lower() in le.STOPWORDS:
            continue
        expected = weights[ids[start:end]].sum(axis=0, dtype=np.float32)
        assert got[n].tobytes() == expected.tobytes()
    query = " ".join(words[:40])
    assert embedder.embed_one_packed(query) in (None, LocalEmbedder().embed_one_packed(query))
    assert LocalEmbedder().embed_one_packed(query) == embedder.embed_array([query])[0].tobytes()


@needs_model
def test_four_log_files_of_many_distinct_words_are_all_kept(tmp_path: Path) -> None:
    """The reported case at its real size: ~64,000 distinct tokens over four files (the cache's
    size), and `vs create` died with `internal error: KeyError` keeping no file."""
    rng = random.Random(4)
    shared = _words(rng, 200)
    logs = tmp_path / "logs"
    logs.mkdir()
    for n in range(4):
        (logs / f"app{n}.log").write_text(_log(rng, 2_800, shared))
    with KnowledgeStore(tmp_path / "k.db", embedder=LocalEmbedder()) as store:
        vs = store.create_vector_store("logs")
        report = store.ingest_paths([logs], vector_store_id=vs.id)
        assert [r.status for r in report.results] == ["ok"] * 4
        assert store.search([vs.id], shared[0], max_num_results=3)


class _PoisonEmbedder:
    """The local model, except that a text containing "poison" makes it raise."""

    name = le.LOCAL_MODEL_NAME

    def __init__(self) -> None:
        self.inner = LocalEmbedder()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if any("poison" in text for text in texts):
            raise RuntimeError("the embedding failed")
        return self.inner.embed(texts)


@needs_model
def test_one_failed_file_never_poisons_the_next(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "1-bad.md").write_text("# Bad\n\npoison in the well")
    (docs / "2-good.md").write_text("# Good\n\nclean water from the spring")
    with KnowledgeStore(tmp_path / "k.db", embedder=_PoisonEmbedder()) as store:
        report = store.ingest_paths([docs])
        bad, good = report.results
        assert bad.status == "rejected"
        assert bad.reason == "internal error: RuntimeError: the embedding failed"
        assert good.status == "ok"
        assert [f.filename for f in store.list_files()] == ["2-good.md"]


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FORGE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FORGE_CONFIG", str(tmp_path / "config.toml"))
    for name in ("FORGE_API", "FORGE_BASE_URL", "FORGE_PROFILE", "KNOWLEDGE_FORGE_URL"):
        monkeypatch.delenv(name, raising=False)
    real = LocalEmbedder.embed_array

    def poisoned(self: LocalEmbedder, texts: list[str]) -> object:
        if any("poison" in text for text in texts):
            raise KeyError("evicted")
        return real(self, texts)

    monkeypatch.setattr(LocalEmbedder, "embed_array", poisoned)
    return tmp_path


def _counts(data: Path, names: set[str]) -> tuple[int, int, int]:
    """How many files named ``names``, and chunks and vectors of them, the local store holds."""
    (path,) = list(data.rglob("*.db"))
    marks = ",".join("?" * len(names))
    with KnowledgeStore(path) as store, store._db.read() as conn:
        ids = [
            r[0]
            for r in conn.execute(f"SELECT id FROM files WHERE filename IN ({marks})", [*names])
        ]
        chunks = (
            [
                r[0]
                for r in conn.execute(
                    f"SELECT id FROM chunks WHERE file_id IN ({','.join('?' * len(ids))})", ids
                )
            ]
            if ids
            else []
        )
        vectors = (
            conn.execute(
                "SELECT count(*) FROM embeddings WHERE chunk_id IN "
                f"({','.join('?' * len(chunks))})",
                chunks,
            ).fetchone()[0]
            if chunks
            else 0
        )
        orphans = conn.execute(
            "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
    assert orphans == 0
    return len(ids), len(chunks), int(vectors)


@needs_model
def test_cli_keeps_the_good_file_after_a_failed_one(
    cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from forge_cli.cli.main import run

    docs = cli_env / "docs"
    docs.mkdir()
    (docs / "1-bad.md").write_text("# Bad\n\npoison in the well")
    (docs / "2-good.md").write_text("# Good\n\nclean water from the spring")
    run(["vs", "create", "notes", str(docs)])
    err = capsys.readouterr().err
    assert "rejected" in err
    assert "1-bad.md: internal error: KeyError" in err
    assert "Traceback" not in err
    assert _counts(cli_env / "data", {"1-bad.md", "2-good.md"})[0] == 1


@needs_model
def test_cli_create_where_every_file_fails_leaves_no_half_made_files(
    cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from forge_cli.cli.main import run

    docs = cli_env / "docs"
    docs.mkdir()
    for n in range(2):
        (docs / f"{n}.md").write_text(f"# Bad {n}\n\npoison number {n}")
    assert run(["vs", "create", "notes", str(docs)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "internal error: KeyError" in err
    assert _counts(cli_env / "data", {"0.md", "1.md"}) == (0, 0, 0)


@needs_model
def test_serve_keeps_answering_large_uploads_after_the_cache_fills(
    tmp_path: Path, small_cache: int
) -> None:
    """In `forge serve` every large upload after the first cache overflow was a 500."""
    rng = random.Random(5)
    shared = _words(rng, 100)
    store = KnowledgeStore(tmp_path / "k.db", embedder=LocalEmbedder())
    with (
        BackgroundServer(Engine(store, EngineConfig(seed=False)), token="t") as srv,
        httpx2.Client(
            base_url=srv.base_url + "/", headers={"Authorization": "Bearer t"}, timeout=60
        ) as http,
    ):
        for n in range(4):
            content = _log(rng, 40, shared).encode()
            response = http.post("files", files={"file": (f"app{n}.log", content)})
            assert response.status_code == 200, response.text
    store.close()


def _swap_after_walk(monkeypatch: pytest.MonkeyPatch, swap: dict[Path, Path]) -> None:
    """Between the walk and the reads, replace each key by a symlink to its value."""
    real = ingest.walk_files

    def walk_then_swap(paths: object) -> list[ingest.WalkedFile | Path]:
        found = real(paths)  # type: ignore[arg-type]
        for victim, target in swap.items():
            if victim.is_dir():
                for child in victim.iterdir():
                    child.unlink()
                victim.rmdir()
            else:
                victim.unlink()
            victim.symlink_to(target, target_is_directory=target.is_dir())
        return found

    monkeypatch.setattr(ingest, "walk_files", walk_then_swap)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "passwd.md").write_text("root:x:0:0 SECRET outside the tree")
    return secret


def test_a_file_swapped_for_a_symlink_after_the_walk_is_not_read(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "notes"
    tree.mkdir()
    (tree / "a.md").write_text("# A\n\nan ordinary note")
    (tree / "passwd.md").write_text("# harmless at walk time")
    _swap_after_walk(monkeypatch, {tree / "passwd.md": outside / "passwd.md"})
    with KnowledgeStore(tmp_path / "k.db") as store:
        by_name = {r.filename: r for r in store.ingest_paths([tree]).results}
        assert by_name["a.md"].status == "ok"
        assert by_name["passwd.md"].status == "rejected"
        assert by_name["passwd.md"].reason == ingest.SWAPPED
        texts = b" ".join(store.get_file_content(f.id) for f in store.list_files())
    assert b"SECRET" not in texts


def test_a_directory_swapped_for_a_symlink_after_the_walk_is_not_entered(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "notes"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "passwd.md").write_text("# harmless at walk time")
    _swap_after_walk(monkeypatch, {tree / "sub": outside})
    with KnowledgeStore(tmp_path / "k.db") as store:
        (result,) = store.ingest_paths([tree]).results
        assert result.status == "rejected"
        assert result.reason == ingest.SWAPPED
        assert store.list_files() == []


def test_an_in_tree_symlink_is_read_at_its_target_and_a_fifo_is_refused(tmp_path: Path) -> None:
    import os

    tree = tmp_path / "notes"
    (tree / "real").mkdir(parents=True)
    (tree / "real" / "a.md").write_text("# A\n\nthe note itself")
    (tree / "alias.md").symlink_to(tree / "real" / "a.md")
    os.mkfifo(tree / "pipe.md")  # would block a plain open() forever
    with KnowledgeStore(tmp_path / "k.db") as store:
        by_name = {r.filename: r for r in store.ingest_paths([tree]).results}
    assert by_name["alias.md"].status == "ok"
    assert by_name["a.md"].status == "duplicate"
    assert by_name["pipe.md"].status == "rejected"
    assert by_name["pipe.md"].reason == "not a regular file"
