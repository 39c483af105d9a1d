"""The :class:`KnowledgeClient` over HTTP: ``/v1/files`` and ``/v1/vector_stores`` (httpx2).

Works against ``forge serve``, Knowledge Forge and OpenAI-compatible servers. The one place where
httpx2 errors and HTTP statuses of knowledge calls become ours: 404 -> ``NotFoundError`` (the same
error the local client raises), 401/403 -> ``AuthError`` naming the key's variable, other
statuses -> ``BackendHTTPError`` with the server's message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx2

from forge_cli import jsonsafe
from forge_cli.api_keys import check_api_key, key_source
from forge_cli.backends.http.client import (
    ErrorContext,
    bound_bodies,
    display_url,
    map_transport_error,
    server_message,
    status_error,
)
from forge_cli.errors import (
    ForgeError,
    NotFoundError,
    ProtocolError,
)
from forge_cli.knowledge import (
    BatchReport,
    FileCounts,
    FileRecord,
    IngestResult,
    ProgressCallback,
    SearchHit,
    VectorStore,
    VectorStoreFile,
)
from forge_cli.knowledge.client import PathLike
from forge_cli.knowledge.ingest import expand_paths, sha256_hex, stop_on_interrupt
from forge_cli.knowledge.sources import (
    MAX_ATTRIBUTE_PATH,
    PATH_ATTRIBUTE,
    SourceFile,
    source_attributes,
    source_from_attributes,
    stat_source,
)
from forge_cli.limits import DEFAULT_LIMITS, Limits
from forge_cli.redact import register_secret
from forge_cli.wording import shorten

__all__ = ["HttpKnowledgeClient"]


class HttpKnowledgeClient:
    """Files and vector stores of a remote server. ``base_url`` ends in ``/v1``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx2.AsyncBaseTransport | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.name = base_url.rstrip("/")
        self._api_key_env = api_key_env
        key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
        check_api_key(key, key_source(api_key, api_key_env, "HttpKnowledgeClient"))
        register_secret(key)
        self._key_sent = bool(key)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        headers["OpenAI-Beta"] = "assistants=v2"
        hook = bound_bodies(limits.max_error_body_bytes, limits.max_response_bytes)
        self._client = httpx2.AsyncClient(
            base_url=self.name + "/",
            headers=headers,
            timeout=timeout,
            transport=transport,
            event_hooks={"response": [hook]},
        )

    async def _call(self, method: str, path: str, *, listing: bool = False, **kwargs: Any) -> Any:
        """The reply to ``method path``; failures worded as the backends word them (``_http``),
        except that an unknown id (HTTP 404) is a :class:`NotFoundError` with the server's
        message. ``listing``: ``path`` is a collection (``vector_stores``, ``files``), whose 404
        says the server does not serve it, not that an id is unknown."""
        path = path.lstrip("/")
        ctx = ErrorContext(
            url=display_url(f"{self.name}/{path}"),
            env_var=self._api_key_env,
            key_sent=self._key_sent,
        )
        try:
            reply = await self._client.request(method, path, **kwargs)
        except httpx2.HTTPError as exc:
            raise map_transport_error(exc, ctx, "connect") from exc
        if reply.status_code >= 400:
            if reply.status_code == 404 and not listing:
                message = server_message(reply.content, ctx)
                raise NotFoundError(message or f"{ctx.url} returned HTTP 404")
            error = status_error(
                reply.status_code, reply.content, ctx.with_reply(reply.status_code, reply.headers)
            )
            if reply.status_code == 404 and error.hint is None:
                error.hint = (
                    f"this server has no /{path} (forge serve and Knowledge Forge have it);"
                    " check --base-url (it usually ends in /v1)"
                )
            raise error
        if reply.headers.get("content-type", "").startswith("application/json"):
            try:
                return jsonsafe.loads(reply.content)
            except ValueError as exc:
                raise ProtocolError(f"{ctx.url} did not return valid JSON ({exc})") from exc
        return reply.content

    async def _list(self, path: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {"limit": 100, "order": "asc"}
        where = display_url(f"{self.name}/{path.lstrip('/')}")  # as _call names it
        for _ in range(1000):  # bounded: a server that always says has_more cannot loop us
            page = await self._call("GET", path, listing=True, params=params)
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list):
                raise ProtocolError(f"{where} did not answer a list page")
            found.extend(d for d in data if isinstance(d, dict))
            if not page.get("has_more") or not data:
                return found
            params["after"] = data[-1].get("id")
        raise ProtocolError(f"{where} kept paginating")

    # -- vector stores ---------------------------------------------------------------------

    async def create_vector_store(
        self,
        name: str,
        *,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Create an empty vector store."""
        body: dict[str, Any] = {"name": name}
        if description is not None:
            body["description"] = description
        if metadata:
            body["metadata"] = dict(metadata)
        return _vector_store(await self._call("POST", "vector_stores", json=body))

    async def list_vector_stores(self) -> list[VectorStore]:
        """Every vector store."""
        return [_vector_store(d) for d in await self._list("vector_stores")]

    async def get_vector_store(self, vector_store_id: str) -> VectorStore:
        """One vector store by id."""
        return _vector_store(await self._call("GET", f"vector_stores/{vector_store_id}"))

    async def update_vector_store(
        self,
        vector_store_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Rename or describe a vector store."""
        body = {"name": name, "description": description, "metadata": metadata}
        clean = {
            k: (dict(v) if isinstance(v, Mapping) else v) for k, v in body.items() if v is not None
        }
        return _vector_store(
            await self._call("POST", f"vector_stores/{vector_store_id}", json=clean)
        )

    async def delete_vector_store(self, vector_store_id: str) -> None:
        """Delete a vector store."""
        await self._call("DELETE", f"vector_stores/{vector_store_id}")

    # -- files -----------------------------------------------------------------------------

    async def upload_files(
        self,
        paths: Sequence[PathLike],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
        progress: ProgressCallback | None = None,
        by_path: bool = False,
    ) -> BatchReport:
        """Upload each file, then attach it; a failed file is reported and the batch goes on.

        With ``by_path``, into a vector store, each file's path, content hash, size and mtime
        go in its attributes (``sources.source_attributes``): a path the store holds already with
        the same content is not uploaded again, and an edited one replaces its old version (added
        first, then the old one detached: not one transaction, see docs/knowledge.md).
        """
        known: dict[str, SourceFile] | None = None
        if vector_store_id is not None:
            await self.get_vector_store(vector_store_id)
            if by_path:
                known = {s.path: s for s in await self.list_sources(vector_store_id)}
        files = expand_paths(paths)
        results: list[IngestResult] = []
        # Ctrl+C stops after the file being sent: what the server took is kept and reported.
        with stop_on_interrupt() as stop_requested:
            for done, path in enumerate(files, start=1):
                if known is not None and vector_store_id is not None:
                    result = await self._sync_one(path, vector_store_id, attributes, known)
                else:
                    result = await self._upload_one(path, vector_store_id, attributes)
                results.append(result)
                if progress is not None:
                    progress(done, len(files), path.name)
                if stop_requested() and done < len(files):
                    return BatchReport(
                        results=results, interrupted=True, not_started=len(files) - done
                    )
        return BatchReport(results=results)

    async def _sync_one(
        self,
        path: Path,
        vector_store_id: str,
        attributes: Mapping[str, object] | None,
        known: Mapping[str, SourceFile],
    ) -> IngestResult:
        """Upload ``path`` into a vector store that knows files by path (see upload_files)."""
        try:
            stat = stat_source(path)  # before reading: a write during the read shows next time
            if len(stat.path) > MAX_ATTRIBUTE_PATH:
                reason = (
                    f"path longer than {MAX_ATTRIBUTE_PATH} characters (a server keeps no more)"
                )
                return IngestResult(
                    filename=path.name, status="rejected", reason=reason, path=str(path)
                )
            held = known.get(stat.path)
            if held is not None and held.same_stat(stat):
                return IngestResult(filename=path.name, status="unchanged", path=str(path))
            content = path.read_bytes()
            sha = sha256_hex(content)
            identity = {**(attributes or {}), **source_attributes(stat, sha)}
            if held is not None and held.sha256 == sha:
                await self._call(
                    "POST",
                    f"vector_stores/{vector_store_id}/files/{held.file_id}",
                    json={"attributes": identity},
                )
                return IngestResult(filename=path.name, status="unchanged", path=str(path))
        except OSError as exc:
            reason = exc.strerror or str(exc)
            return IngestResult(
                filename=path.name, status="rejected", reason=reason, path=str(path)
            )
        except ForgeError as exc:
            reason = exc.one_line()
            return IngestResult(
                filename=path.name, status="rejected", reason=reason, path=str(path)
            )
        result = await self._upload_one(path, vector_store_id, identity, content=content)
        if held is None or not result.ok or result.file is None or result.file.id == held.file_id:
            return result
        # Gone already (another sync) is fine: the new version is in, which is what counts.
        with contextlib.suppress(NotFoundError):
            await self.remove_file(vector_store_id, held.file_id)
        return IngestResult(
            filename=result.filename,
            status="replaced",
            file=result.file,
            reason=f"replaces {held.file_id}",
            path=result.path,
        )

    async def list_sources(self, vector_store_id: str) -> list[SourceFile]:
        """The source paths the members' attributes carry (members without one are left out)."""
        found = []
        for member in await self.list_vector_store_files(vector_store_id):
            source = source_from_attributes(member.file_id, member.attributes)
            if source is not None:
                found.append(source)
        return found

    async def remove_sources(
        self, vector_store_id: str, paths: Sequence[str], file_ids: Sequence[str] = ()
    ) -> None:
        """Detach the members that hold these paths, and the members ``file_ids`` (their file
        objects stay uploaded: another store may hold them)."""
        gone = set(paths)
        doomed = [s.file_id for s in await self.list_sources(vector_store_id) if s.path in gone]
        for file_id in dict.fromkeys([*doomed, *file_ids]):
            with contextlib.suppress(NotFoundError):  # detached meanwhile: fine
                await self.remove_file(vector_store_id, file_id)

    async def _upload_one(
        self,
        path: Path,
        vector_store_id: str | None,
        attributes: Mapping[str, object] | None,
        *,
        content: bytes | None = None,
    ) -> IngestResult:
        try:
            if content is None:
                content = path.read_bytes()
            uploaded = await self._call(
                "POST",
                "files",
                files={"file": (path.name, content)},
                data={"purpose": "assistants"},
            )
            record = _file(uploaded)
            if vector_store_id is not None:
                await self.add_file(vector_store_id, record.id, attributes=attributes)
        except OSError as exc:
            return IngestResult(
                filename=path.name,
                status="rejected",
                reason=exc.strerror or str(exc),
                path=str(path),
            )
        except ForgeError as exc:
            return IngestResult(
                filename=path.name, status="rejected", reason=exc.one_line(), path=str(path)
            )
        return IngestResult(filename=path.name, status="ok", file=record, path=str(path))

    async def list_files(self) -> list[FileRecord]:
        """Every file."""
        return [_file(d) for d in await self._list("files")]

    async def get_file(self, file_id: str) -> FileRecord:
        """One file by id."""
        return _file(await self._call("GET", f"files/{file_id}"))

    async def delete_file(self, file_id: str) -> None:
        """Delete a file."""
        await self._call("DELETE", f"files/{file_id}")

    async def add_file(
        self,
        vector_store_id: str,
        file_id: str,
        *,
        attributes: Mapping[str, object] | None = None,
    ) -> VectorStoreFile:
        """Attach a file to a vector store."""
        body: dict[str, Any] = {"file_id": file_id}
        if attributes is not None:
            body["attributes"] = dict(attributes)
        data = await self._call("POST", f"vector_stores/{vector_store_id}/files", json=body)
        return _member(data, vector_store_id)

    async def remove_file(self, vector_store_id: str, file_id: str) -> None:
        """Detach a file from a vector store."""
        await self._call("DELETE", f"vector_stores/{vector_store_id}/files/{file_id}")

    async def list_vector_store_files(self, vector_store_id: str) -> list[VectorStoreFile]:
        """The files of a vector store."""
        data = await self._list(f"vector_stores/{vector_store_id}/files")
        return [_member(d, vector_store_id) for d in data]

    async def search(
        self,
        vector_store_id: str,
        query: str,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        filters: Mapping[str, object] | None = None,
    ) -> list[SearchHit]:
        """Search one vector store."""
        body: dict[str, Any] = {"query": query, "max_num_results": max_num_results}
        if score_threshold is not None:
            body["ranking_options"] = {"score_threshold": score_threshold}
        if filters is not None:
            body["filters"] = dict(filters)
        page = await self._call("POST", f"vector_stores/{vector_store_id}/search", json=body)
        data = page.get("data") if isinstance(page, dict) else None
        return [_hit(d, vector_store_id) for d in data or [] if isinstance(d, dict)]

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()


def _int(value: object, default: int = 0) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _str_map(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _vector_store(data: Any) -> VectorStore:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise ProtocolError("the server did not answer a vector store object")
    raw_counts = data.get("file_counts")
    counts: dict[str, Any] = raw_counts if isinstance(raw_counts, dict) else {}
    return VectorStore(
        id=data["id"],
        name=str(data.get("name") or ""),
        description=data.get("description") if isinstance(data.get("description"), str) else None,
        metadata=_str_map(data.get("metadata")),
        created_at=_int(data.get("created_at")),
        file_counts=FileCounts(
            **{f.name: _int(counts.get(f.name)) for f in dataclasses.fields(FileCounts)}
        ),
        usage_bytes=_int(data.get("usage_bytes")),
    )


def _file(data: Any) -> FileRecord:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise ProtocolError("the server did not answer a file object")
    page_count = data.get("page_count")
    return FileRecord(
        id=data["id"],
        filename=str(data.get("filename") or data["id"]),
        bytes=_int(data.get("bytes")),
        sha256=str(data.get("sha256") or ""),
        mime_type=str(data.get("mime_type") or "application/octet-stream"),
        created_at=_int(data.get("created_at")),
        page_count=page_count if isinstance(page_count, int) else None,
        chunk_count=_int(data.get("chunk_count")),
    )


def _member(data: Any, vector_store_id: str) -> VectorStoreFile:
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise ProtocolError("the server did not answer a vector store file object")
    raw = data.get("attributes")
    attributes: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return VectorStoreFile(
        vector_store_id=str(data.get("vector_store_id") or vector_store_id),
        file_id=data["id"],
        filename=str(data.get("filename") or data["id"]),
        attributes={k: v for k, v in attributes.items() if isinstance(v, str | int | float | bool)},
        created_at=_int(data.get("created_at")),
        bytes=_int(data.get("usage_bytes")),
        source_path=_source_path(attributes),
    )


def _source_path(attributes: Mapping[str, Any]) -> str | None:
    path = attributes.get(PATH_ATTRIBUTE)
    return path if isinstance(path, str) and path else None


def _hit(data: dict[str, Any], vector_store_id: str) -> SearchHit:
    raw_parts = data.get("content")
    parts: list[Any] = raw_parts if isinstance(raw_parts, list) else []
    text = "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
    score = data.get("score")
    page = data.get("page")
    raw = data.get("attributes")
    attributes: dict[str, Any] = raw if isinstance(raw, dict) else {}
    flat = " ".join(text.split())
    return SearchHit(
        file_id=str(data.get("file_id") or ""),
        filename=str(data.get("filename") or data.get("file_id") or ""),
        vector_store_id=str(data.get("vector_store_id") or vector_store_id),
        page=page if isinstance(page, int) else None,
        score=min(1.0, max(0.0, float(score))) if isinstance(score, int | float) else 0.0,
        text=text,
        snippet=shorten(flat, 241),
        ordinal=0,
        char_start=0,
        char_end=len(text),
        attributes={k: v for k, v in attributes.items() if isinstance(v, str | int | float | bool)},
    )
