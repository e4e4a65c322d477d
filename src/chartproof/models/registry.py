"""Build a backend from a spec string or a config file: one registry for every kind of model.

``openai:MODEL@http://host:port/v1``, ``openai:MODEL``, ``hf:/path/to/checkpoint?dtype=bfloat16``,
``text:smollm2`` (a text LLM reading the chart's table), ``builtin:reader``, or the path of a
TOML/JSON file; built-ins register themselves by name.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import threading
import tomllib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TypeAlias, TypeVar
from urllib.parse import parse_qsl

from pydantic import BaseModel, Field, ValidationError

from chartproof.models.base import Backend
from chartproof.types import Record
from chartproof.types.names import unknown_name

__all__ = [
    "BackendFactory",
    "BackendSpec",
    "MissingDependencyError",
    "SpecError",
    "add_builtin_home",
    "builtin_names",
    "load_backend",
    "parse_spec",
    "register_builtin",
    "register_kind",
    "require",
    "run_identity",
]

TRANSPORT_OPTIONS = frozenset(
    {"concurrency", "timeout_s", "max_retries", "backoff_s", "backoff_max_s", "jitter_seed",
     "http", "api_key_env"}
)  # fmt: skip
"""Options that change how requests travel, never what a model answers: they are left out of
a run's identity, so a run resumes under another concurrency, timeout or retry budget."""

OptionValue: TypeAlias = str | int | float | bool
"""A backend option as written in a spec's query string or a config file."""


class SpecError(ValueError):
    """A model spec string or config file that cannot be understood."""


class MissingDependencyError(ImportError):
    """An optional dependency is missing; the message holds the exact install command."""


def require(module: str, extra: str, *, what: str) -> None:
    """Import `module` or raise `MissingDependencyError` telling how to install `extra`."""
    try:
        importlib.import_module(module)
    except ImportError as e:
        raise MissingDependencyError(
            f"{what} needs the Python package {module!r} ({e}); install it with: "
            f"pip install 'chartproof[{extra}]'"
        ) from e


class BackendSpec(Record):
    """A parsed model spec: which kind of backend, which model, and its options."""

    kind: str = Field(min_length=1)
    """Backend kind: "openai", "hf", "builtin", or a kind registered with `register_kind`."""
    target: str = Field(min_length=1)
    """Model name (openai), checkpoint path (hf) or built-in name (builtin)."""
    base_url: str | None = None
    """Server URL of an API backend, None to use the environment (OPENAI_BASE_URL)."""
    options: dict[str, OptionValue] = Field(default_factory=dict)
    """Backend options, validated by the backend's own settings record."""
    source: str = ""
    """Where the spec came from: the spec text or the config file path."""

    def spec_string(self) -> str:
        """The canonical spec string (without options), used as the backend's name."""
        url = f"@{self.base_url}" if self.base_url else ""
        return f"{self.kind}:{self.target}{url}"


BackendFactory: TypeAlias = Callable[[BackendSpec], Backend]
"""Builds a backend from its parsed spec."""

_LOCK = threading.Lock()
_KINDS: dict[str, BackendFactory] = {}
_BUILTINS: dict[str, BackendFactory] = {}

# modules that register built-ins when imported, tried when an unknown built-in is asked for;
# third-party packages can add theirs through the "chartproof.builtins" entry-point group
_BUILTIN_HOMES: dict[str, str] = {"reader": "chartproof.reader"}
_ENTRY_POINT_GROUP = "chartproof.builtins"


SettingsT = TypeVar("SettingsT", bound=BaseModel)


def spec_settings(spec: BackendSpec, settings: type[SettingsT]) -> SettingsT:
    """A backend's settings record from a spec's options; a bad or misspelt option is a
    SpecError naming the spec (every backend's `from_spec` reads its options this way)."""
    try:
        return settings.model_validate(spec.options)
    except ValidationError as e:
        raise SpecError(f"model spec {spec.source or spec.spec_string()!r}: {e}") from None


def register_kind(kind: str, factory: BackendFactory) -> None:
    """Make ``kind:...`` spec strings build backends with `factory` (replaces an earlier one)."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", kind):
        raise ValueError(f"backend kind {kind!r} must be lower-case letters, digits, - or _")
    with _LOCK:
        _KINDS[kind] = factory


def register_builtin(name: str, factory: BackendFactory) -> BackendFactory:
    """Make ``builtin:NAME`` build `factory(spec)`; returns `factory` so it can decorate.

    ``register_builtin("reader", lambda spec: ReaderBackend(**spec.options))``
    """
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"built-in model name {name!r} must be letters, digits, '.', '-' or '_'")
    with _LOCK:
        _BUILTINS[name] = factory
    return factory


def builtin_names() -> list[str]:
    """Names of the built-in models registered so far."""
    with _LOCK:
        return sorted(_BUILTINS)


_SPEC_RE = re.compile(r"^(?P<kind>[a-z][a-z0-9_-]*):(?P<rest>.+)$", re.S)
_URL_SPLIT = re.compile(r"^(?P<model>.+?)@(?P<url>https?://\S+)$")


def _split_options(rest: str, spec: str) -> tuple[str, dict[str, OptionValue]]:
    if "?" not in rest:
        return rest, {}
    head, _, query = rest.rpartition("?")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise SpecError(
            f"model spec {spec!r}: cannot read options {query!r} (use a=1&b=2)"
        ) from None
    options: dict[str, OptionValue] = {}
    for key, value in pairs:
        if key in options:
            raise SpecError(f"model spec {spec!r}: option {key!r} given twice")
        options[key] = value
    return head, options


def parse_spec(spec: str) -> BackendSpec:
    """Parse ``kind:target[@url][?option=value&...]`` (no config files; see `load_backend`)."""
    text = spec.strip()
    m = _SPEC_RE.match(text)
    if not m:
        raise SpecError(
            f"model spec {spec!r} is not of the form kind:target, e.g. "
            "'openai:MODEL@http://localhost:8000/v1', 'hf:/path/to/checkpoint', "
            "'builtin:reader', or a path to a .toml/.json config file"
        )
    kind, rest = m.group("kind"), m.group("rest")
    rest, options = _split_options(rest, spec)
    base_url: str | None = None
    if kind == "openai":
        u = _URL_SPLIT.match(rest)
        if u:
            rest, base_url = u.group("model"), u.group("url").rstrip("/")
    if not rest:
        raise SpecError(f"model spec {spec!r} names no model")
    return BackendSpec(kind=kind, target=rest, base_url=base_url, options=options, source=text)


def run_identity(model: str) -> str:
    """The model as a run records it: the spec without its transport options (sorted
    otherwise), e.g. ``openai:m@http://h/v1?concurrency=4`` -> ``openai:m@http://h/v1``.
    A config-file path or a string that is not a spec comes back unchanged."""
    if not _SPEC_RE.match(model.strip()):
        return model
    try:
        spec = parse_spec(model)
    except SpecError:
        return model
    kept = sorted((k, v) for k, v in spec.options.items() if k not in TRANSPORT_OPTIONS)
    query = "&".join(f"{k}={v}" for k, v in kept)
    return spec.spec_string() + (f"?{query}" if query else "")


def _read_config(path: Path) -> BackendSpec:
    raw = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(raw) if path.suffix.lower() == ".toml" else json.loads(raw)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise SpecError(f"{path}: not valid {path.suffix.lstrip('.')}: {e}") from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected a table/object at the top level")
    data = dict(data)
    options = data.pop("options", {})
    if not isinstance(options, dict):
        raise SpecError(f"{path}: 'options' must be a table/object")
    spec_text = data.pop("backend", None)
    try:
        if spec_text is not None:
            if not isinstance(spec_text, str):
                raise SpecError("'backend' must be a spec string")
            base = parse_spec(spec_text)
            fields = base.model_dump()
            fields["options"] = {**base.options, **options}
            fields.update(data)
        else:
            fields = {**data, "options": options}
        fields["source"] = str(path)
        return BackendSpec.model_validate(fields)
    except (SpecError, ValueError) as e:
        raise SpecError(
            f"{path}: {e}\n(a config holds backend = 'kind:target[@url]' or kind/target/"
            "base_url keys, and an [options] table)"
        ) from None


def _looks_like_config(spec: str | os.PathLike[str]) -> Path | None:
    p = Path(spec)
    if p.suffix.lower() not in {".toml", ".json"}:
        return None
    if p.is_file():
        return p
    if isinstance(spec, str) and _SPEC_RE.match(spec.strip()):
        return None  # e.g. hf:/models/x.json is a spec whose target ends in .json
    raise SpecError(f"model config file not found: {p}")


def load_backend(spec: str | os.PathLike[str] | BackendSpec) -> Backend:
    """Build the backend a spec string, config file path or parsed spec names.

    Raises `SpecError` for an unknown kind, built-in or option, and `MissingDependencyError`
    (with the pip command) when the backend's optional dependency is not installed.
    """
    if isinstance(spec, BackendSpec):
        parsed = spec
    else:
        config = _looks_like_config(spec)
        parsed = _read_config(config) if config else parse_spec(str(spec))
    factory = _kind_factory(parsed.kind)
    return factory(parsed)


def _kind_factory(kind: str) -> BackendFactory:
    with _LOCK:
        found = _KINDS.get(kind)
    if found is None:
        raise SpecError(unknown_name("backend kind", kind, _KINDS))
    return found


def _load_builtin(spec: BackendSpec) -> Backend:
    name = spec.target
    with _LOCK:
        factory = _BUILTINS.get(name)
    if factory is None:
        _import_builtin_homes(name)
        with _LOCK:
            factory = _BUILTINS.get(name)
    if factory is None:
        raise SpecError(unknown_name("built-in model", name, _known_builtins()))
    return factory(spec)


def _known_builtins() -> set[str]:
    """Every built-in name this process can build: registered, or with a home to import."""
    with _LOCK:
        known = set(_BUILTINS) | set(_BUILTIN_HOMES)
    return known | {ep.name for ep in metadata.entry_points(group=_ENTRY_POINT_GROUP)}


def _import_builtin_homes(name: str) -> None:
    home = _BUILTIN_HOMES.get(name)
    if home is not None:
        importlib.import_module(home)
        return
    for ep in metadata.entry_points(group=_ENTRY_POINT_GROUP):
        if ep.name == name:
            ep.load()


def builtin_has_home(name: str) -> bool:
    """Whether a fresh process can build ``builtin:NAME`` from its name alone: its module is
    recorded (`add_builtin_home`) or an entry point names it. A built-in registered at run
    time only (`register_builtin` in a script or test) exists in this process alone."""
    with _LOCK:
        if name in _BUILTIN_HOMES:
            return True
    return any(ep.name == name for ep in metadata.entry_points(group=_ENTRY_POINT_GROUP))


def add_builtin_home(name: str, module: str) -> None:
    """Record that importing `module` registers ``builtin:NAME`` (imported on first use)."""
    with _LOCK:
        _BUILTIN_HOMES[name] = module


def _load_openai(spec: BackendSpec) -> Backend:
    if spec.base_url and "," in spec.base_url:  # several servers of one model
        from chartproof.models.balanced import BalancedBackend

        return BalancedBackend.from_spec(spec)
    from chartproof.models.openai_compat import OpenAIBackend

    return OpenAIBackend.from_spec(spec)


def _load_hf(spec: BackendSpec) -> Backend:
    from chartproof.models.hf import HFBackend

    return HFBackend.from_spec(spec)


def _load_text(spec: BackendSpec) -> Backend:
    from chartproof.models.text_llm import TextLLMBackend

    return TextLLMBackend.from_spec(spec)


register_kind("openai", _load_openai)
register_kind("hf", _load_hf)
register_kind("builtin", _load_builtin)
register_kind("text", _load_text)
