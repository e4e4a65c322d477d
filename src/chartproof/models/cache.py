"""Response cache: never pay twice for the same deterministic model call.

SQLite in WAL mode (several processes may read and write at once) with an audit log. The
key hashes backend kind, model, revision, messages (images by content hash), generation
settings and prompt version. Only greedy calls are stored; errors and empty outputs never.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import Field

from chartproof._cachedir import cache_home
from chartproof.models.base import Backend, BackendIdentity, answered, backend_identity
from chartproof.types import ImagePart, ModelRequest, ModelResponse, Record, Usage

__all__ = [
    "CACHE_ENV",
    "CacheStats",
    "CachedBackend",
    "ModelCacheStats",
    "ResponseCache",
    "cache_key",
    "default_cache_path",
    "with_cache",
]

CACHE_ENV = "CHARTPROOF_CACHE"
"""Environment variable naming the cache file (overrides the default location)."""

_KEY_VERSION = 1
_CHUNK = 500  # SQLite's bound-parameter limit is 999 on old builds
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    revision TEXT NOT NULL,
    prompt TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    latency_s REAL NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS responses_model ON responses (model);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    pid INTEGER NOT NULL,
    event TEXT NOT NULL,
    model TEXT,
    key TEXT,
    request_id TEXT,
    detail TEXT
);
"""


def default_cache_path() -> Path:
    """``$CHARTPROOF_CACHE``, else ``$XDG_CACHE_HOME/chartproof/responses.sqlite`` (~/.cache)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    return cache_home() / "responses.sqlite"


def cache_key(identity: BackendIdentity, request: ModelRequest, context: str = "") -> str:
    """Hex SHA-256 of everything that determines a deterministic model's reply.

    Backend kind, model, revision, the messages (an image by its content hash, not its
    path), the generation settings and the prompt id. The request id and metadata are left
    out, so the same question on the same chart hits across runs and datasets. `context`
    is what a backend reads besides the messages (the text backend: which table stands in
    for the image); "" adds nothing, so keys of other backends do not change.
    """
    messages = [
        {
            "role": m.role,
            "content": [
                {"type": "image", "sha256": p.sha256}
                if isinstance(p, ImagePart)
                else {"type": "text", "text": p.text}
                for p in m.content
            ],
        }
        for m in request.messages
    ]
    payload = {
        "v": _KEY_VERSION,
        "kind": identity.kind,
        "model": identity.model,
        "revision": identity.revision,
        "prompt": request.prompt,
        "config": request.config.model_dump(mode="json"),
        "messages": messages,
    }
    if context:
        payload["context"] = context
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ModelCacheStats(Record):
    """Cache figures for one model."""

    entries: int = 0
    """Responses stored for the model."""
    hits: int = 0
    """Lookups answered from the cache by this process."""
    misses: int = 0
    """Cacheable lookups this process had to send to the model."""


class CacheStats(Record):
    """What `ResponseCache.stats` reports."""

    path: str
    """The SQLite file."""
    entries: int
    """Stored responses."""
    size_bytes: int
    """Size of the database file plus its WAL."""
    hits: int
    """Hits in this process."""
    misses: int
    """Misses in this process (cacheable requests only)."""
    stores: int
    """Responses this process stored."""
    uncacheable: int
    """Requests this process passed through uncached (sampling, temperature > 0)."""
    per_model: dict[str, ModelCacheStats] = Field(default_factory=dict)
    """Figures per model name."""
    logged_hits: int = 0
    """Hits over every process that logged to this file (from the audit log)."""
    logged_misses: int = 0
    """Misses over every process that logged to this file (from the audit log)."""


class _Entry(NamedTuple):
    text: str
    input_tokens: int | None
    output_tokens: int | None


class ResponseCache:
    """A SQLite response store shared by threads and processes (WAL, busy timeout).

    ``ResponseCache()`` opens the default location (`default_cache_path`); pass a path to
    use another file. Connections are opened lazily and reopened after a fork.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, audit: bool = True) -> None:
        self.path = Path(path).expanduser() if path is not None else default_cache_path()
        self.audit = audit
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._hits: Counter[str] = Counter()
        self._misses: Counter[str] = Counter()
        self._stores: Counter[str] = Counter()
        self._uncacheable = 0

    # ------------------------------------------------------------------ connection

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path, timeout=60.0, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA busy_timeout = 60000")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            conn.close()
            raise RuntimeError(f"response cache {self.path}: cannot enable WAL mode (got {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
        with _transaction(conn):
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
        self._conn, self._pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        """Close this process's connection (the file stays)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # ------------------------------------------------------------------ entries

    @staticmethod
    def _present(conn: sqlite3.Connection, keys: Sequence[str]) -> list[str]:
        out: list[str] = []
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT key FROM responses WHERE key IN ({marks})"
            out.extend(k for (k,) in conn.execute(sql, chunk))
        return out

    def get_many(self, keys: Sequence[str]) -> dict[str, _Entry]:
        """Stored entries for the keys found (missing keys are absent from the result)."""
        found: dict[str, _Entry] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            conn = self._connect()
            for i in range(0, len(unique), _CHUNK):
                chunk = unique[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    "SELECT key, text, input_tokens, output_tokens FROM responses "
                    f"WHERE key IN ({marks})",
                    chunk,
                ).fetchall()
                for key, text, n_in, n_out in rows:
                    found[key] = _Entry(text, n_in, n_out)
        return found

    def put_many(
        self,
        identity: BackendIdentity,
        items: Iterable[tuple[str, ModelRequest, ModelResponse]],
    ) -> int:
        """Store successful, non-empty, deterministic responses; returns how many were new."""
        rows: list[tuple[Any, ...]] = []
        audit: list[tuple[Any, ...]] = []
        now = time.time()
        pid = os.getpid()
        seen: set[str] = set()
        for key, request, response in items:
            if key in seen or not _storable(request, response):
                continue
            seen.add(key)
            rows.append(
                (
                    key,
                    identity.kind,
                    identity.model,
                    identity.revision,
                    request.prompt,
                    response.text,
                    response.usage.input_tokens,
                    response.usage.output_tokens,
                    response.latency_s,
                    now,
                )
            )
            audit.append((now, pid, "store", identity.model, key, request.id, None))
        if not rows:
            return 0
        with self._lock:
            conn = self._connect()
            with _transaction(conn):
                # first writer wins (a deterministic call gives the same text either way);
                # inside the write lock, so the audit log names only rows really added
                present = set(self._present(conn, [r[0] for r in rows]))
                new = [i for i, r in enumerate(rows) if r[0] not in present]
                conn.executemany(
                    "INSERT OR IGNORE INTO responses VALUES (?,?,?,?,?,?,?,?,?,?)",
                    [rows[i] for i in new],
                )
                added = len(new)
                if self.audit:
                    _log(conn, [audit[i] for i in new])
            self._stores[identity.model] += added
        return added

    def note_lookups(self, model: str, hits: int, misses: int, uncacheable: int = 0) -> None:
        """Count a batch's lookups (and log them, one audit row per batch)."""
        with self._lock:
            self._hits[model] += hits
            self._misses[model] += misses
            self._uncacheable += uncacheable
            if self.audit and (hits or misses):
                conn = self._connect()
                detail = json.dumps({"hits": hits, "misses": misses, "uncacheable": uncacheable})
                with _transaction(conn):
                    _log(conn, [(time.time(), os.getpid(), "lookup", model, None, None, detail)])

    def stats(self) -> CacheStats:
        """Entries, file size, this process's hits/misses/stores (also per model), and the
        hits and misses the audit log holds for all processes."""
        with self._lock:
            conn = self._connect()
            per_model_rows = conn.execute(
                "SELECT model, COUNT(*) FROM responses GROUP BY model"
            ).fetchall()
            models = {m for m, _ in per_model_rows} | set(self._hits) | set(self._misses)
            counts = dict(per_model_rows)
            per_model = {
                m: ModelCacheStats(
                    entries=counts.get(m, 0), hits=self._hits[m], misses=self._misses[m]
                )
                for m in sorted(models)
            }
            logged: Counter[str] = Counter()
            for (detail,) in conn.execute("SELECT detail FROM audit WHERE event = 'lookup'"):
                logged.update(json.loads(detail))
            size = sum(
                p.stat().st_size
                for p in (self.path, self.path.with_name(self.path.name + "-wal"))
                if p.exists()
            )
            return CacheStats(
                path=str(self.path),
                entries=sum(counts.values()),
                size_bytes=size,
                hits=sum(self._hits.values()),
                misses=sum(self._misses.values()),
                stores=sum(self._stores.values()),
                uncacheable=self._uncacheable,
                per_model=per_model,
                logged_hits=logged["hits"],
                logged_misses=logged["misses"],
            )

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or one model's); returns how many were deleted."""
        with self._lock:
            conn = self._connect()
            with _transaction(conn):
                if model is None:
                    n = conn.execute("DELETE FROM responses").rowcount
                else:
                    n = conn.execute("DELETE FROM responses WHERE model = ?", (model,)).rowcount
                if self.audit:
                    detail = json.dumps({"deleted": n})
                    _log(conn, [(time.time(), os.getpid(), "clear", model, None, None, detail)])
        return int(n)

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest audit rows, newest first."""
        with self._lock:
            conn = self._connect()
            rows = conn.execute(
                "SELECT at, pid, event, model, key, request_id, detail FROM audit "
                "ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        names = ("at", "pid", "event", "model", "key", "request_id", "detail")
        return [dict(zip(names, r, strict=True)) for r in rows]


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): writers queue on the busy timeout."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _log(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    conn.executemany(
        "INSERT INTO audit (at, pid, event, model, key, request_id, detail) VALUES (?,?,?,?,?,?,?)",
        rows,
    )


def _storable(request: ModelRequest, response: ModelResponse) -> bool:
    return (
        request.config.deterministic
        and response.error is None
        and not response.cached
        and bool(response.text.strip())
    )


class CachedBackend:
    """Wraps a backend: answers cache hits itself and sends only the misses, in one batch.

    Hits come back with ``cached=True`` and the text re-parsed for the request's prompt.
    Identical deterministic requests within a batch are sent once. Owns (and closes) the
    cache only when it opened it.
    """

    def __init__(self, backend: Backend, cache: ResponseCache | None = None) -> None:
        self.inner = backend
        self._owns_cache = cache is None
        self.cache = cache if cache is not None else ResponseCache()
        self.identity = backend_identity(backend)
        # a backend that reads more than the messages (request metadata) says what, per request
        found = getattr(backend, "cache_context", None)
        self._context: Callable[[ModelRequest], str] | None = found if callable(found) else None

    def _key(self, request: ModelRequest) -> str | None:
        if not request.config.deterministic:
            return None
        context = self._context(request) if self._context is not None else ""
        return cache_key(self.identity, request, context)

    @property
    def name(self) -> str:
        """The wrapped backend's name."""
        return self.inner.name

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Cached responses for hits, the inner backend's for the rest, in request order."""
        keys = [self._key(r) for r in requests]
        found = self.cache.get_many([k for k in keys if k is not None])
        out: list[ModelResponse | None] = [None] * len(requests)
        to_send: list[ModelRequest] = []
        send_keys: list[str | None] = []
        first_for_key: dict[str, int] = {}
        copies: list[tuple[int, int]] = []  # (position in requests, position in to_send)
        hits = 0
        for i, (request, key) in enumerate(zip(requests, keys, strict=True)):
            entry = found.get(key) if key is not None else None
            if entry is not None:
                hits += 1
                usage = Usage(input_tokens=entry.input_tokens, output_tokens=entry.output_tokens)
                out[i] = answered(request, self.name, entry.text, usage=usage, cached=True)
                continue
            if key is not None and key in first_for_key:
                copies.append((i, first_for_key[key]))
                continue
            if key is not None:
                first_for_key[key] = len(to_send)
            copies.append((i, len(to_send)))
            to_send.append(request)
            send_keys.append(key)
        cacheable_misses = sum(1 for k in send_keys if k is not None)
        self.cache.note_lookups(
            self.identity.model, hits, cacheable_misses, uncacheable=keys.count(None)
        )
        if to_send:
            fresh = self.inner.generate(to_send)
            if len(fresh) != len(to_send) or any(
                r.request_id != q.id for r, q in zip(fresh, to_send, strict=False)
            ):
                raise RuntimeError(
                    f"backend {self.name} broke the protocol: {len(to_send)} requests, "
                    f"{len(fresh)} responses or ids out of order"
                )
            self.cache.put_many(
                self.identity,
                ((k, q, r) for k, q, r in zip(send_keys, to_send, fresh, strict=True) if k),
            )
            for i, j in copies:
                response = fresh[j]
                if requests[i].id != response.request_id:
                    response = response.model_copy(update={"request_id": requests[i].id})
                out[i] = response
        assert all(r is not None for r in out)
        return [r for r in out if r is not None]

    def close(self) -> None:
        """Close the inner backend (and the cache when this wrapper opened it)."""
        self.inner.close()
        if self._owns_cache:
            self.cache.close()


def with_cache(
    backend: Backend, cache: bool | str | os.PathLike[str]
) -> tuple[Backend, ResponseCache | None]:
    """`backend` behind the response cache, and the cache for the caller to close (True: the
    default file; a path: that file); `cache=False` gives the backend as it is and None.
    Closing the wrapper closes `backend` too."""
    if cache is False:
        return backend, None
    store = ResponseCache(None if cache is True else Path(cache))
    return CachedBackend(backend, store), store
