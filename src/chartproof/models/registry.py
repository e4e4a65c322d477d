"""Build a backend from a spec string or a config file: one registry for every kind of model.

``openai:MODEL@http://host:port/v1``, ``openai:MODEL``, ``hf:/path/to/checkpoint?dtype=bfloat16``,
``text:smollm2`` (a text LLM reading the chart's table), ``builtin:reader``, or the path of a
TOML/JSON file; built-ins register themselves by name.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias, TypeVar
from urllib.parse import parse_qsl

from pydantic import BaseModel, Field, ValidationError

from chartproof.models.base import Backend
from chartproof.types import Record
from chartproof.types.registry import Registry

__all__ = [
    "BUILTINS",
    "KINDS",
    "BackendFactory",
    "BackendKind",
    "BackendNeeds",
    "BackendSpec",
    "BuiltinModel",
    "Compute",
    "MissingDependencyError",
    "SpecError",
    "add_builtin_home",
    "backend_home",
    "backend_kind",
    "backend_needs",
    "builtin_has_home",
    "builtin_names",
    "load_backend",
    "looks_like_spec",
    "parse_spec",
    "register_builtin",
    "register_kind",
    "require",
    "resolve_spec",
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

Compute: TypeAlias = Literal["cpu", "gpu", "auto", "remote"]
"""Where a backend's work runs: this machine's CPU, an accelerator, the accelerator when
there is one else the CPU ("auto"), or elsewhere (an API server)."""


@dataclass(frozen=True)
class BackendNeeds:
    """What a backend needs of the machine, declared where its kind (or built-in) is
    registered; executors read it to decide where the backend runs, never the spec's text."""

    compute: Compute = "remote"
    """Where its work runs: a CPU-bound model ("cpu", or "auto" on a machine without an
    accelerator) is worth one copy per worker; a GPU or remote one stays one copy."""
    process_local: bool = False
    """It exists in this process only (registered at run time by a script or a test): a
    worker process cannot build it by name."""


NeedsRule: TypeAlias = "BackendNeeds | Callable[[BackendSpec], BackendNeeds]"
"""A kind's needs: one record, or one per parsed spec (e.g. from its device option)."""


@dataclass(frozen=True)
class BackendKind:
    """A registered backend kind: how it builds a backend and what that backend needs."""

    factory: BackendFactory
    """Builds a backend from its parsed spec."""
    needs: NeedsRule = field(default_factory=BackendNeeds)
    """What its backends need (`backend_needs`)."""
    reads: Literal["image", "table"] | None = None
    """What a local checkpoint of this kind reads: the chart image (a VLM) or its table (a
    text LLM); None for kinds that are not local checkpoints (API, built-in)."""


@dataclass(frozen=True)
class BuiltinModel:
    """A registered built-in model (``builtin:NAME``)."""

    factory: BackendFactory
    """Builds it from its parsed spec."""
    needs: BackendNeeds = field(default_factory=lambda: BackendNeeds(compute="cpu"))
    """What it needs (a built-in runs in this process: CPU-bound by default)."""


def _origin(entry: BackendKind | BuiltinModel) -> str | None:
    # the module that registered it (a worker imports it to rebuild the backend)
    return getattr(entry.factory, "__module__", None)


KINDS: Registry[BackendKind] = Registry(
    "backend kind",
    modules=("chartproof.models.registry",),
    group="chartproof.backends",
    origin=_origin,
)
"""Backend kinds by spec prefix (``kind:...``); `register_kind` registers here."""

BUILTINS: Registry[BuiltinModel] = Registry(
    "built-in model",
    homes={"reader": "chartproof.reader"},
    group="chartproof.builtins",
    origin=_origin,
)
"""Built-in models by name (``builtin:NAME``); a module that registers one when imported is
recorded with `add_builtin_home`, another package's through the ``chartproof.builtins``
entry-point group."""


SettingsT = TypeVar("SettingsT", bound=BaseModel)


def spec_settings(spec: BackendSpec, settings: type[SettingsT]) -> SettingsT:
    """A backend's settings record from a spec's options; a bad or misspelt option is a
    SpecError naming the spec (every backend's `from_spec` reads its options this way)."""
    try:
        return settings.model_validate(spec.options)
    except ValidationError as e:
        raise SpecError(f"model spec {spec.source or spec.spec_string()!r}: {e}") from None


def register_kind(
    kind: str,
    factory: BackendFactory,
    *,
    needs: NeedsRule | None = None,
    reads: Literal["image", "table"] | None = None,
) -> None:
    """Make ``kind:...`` spec strings build backends with `factory` (replaces an earlier one).

    `needs` declares what its backends need of the machine (default: remote, one copy),
    either one `BackendNeeds` or a function of the parsed spec; `reads` what a local
    checkpoint of the kind reads ("image" or "table").
    """
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", kind):
        raise ValueError(f"backend kind {kind!r} must be lower-case letters, digits, - or _")
    entry = BackendKind(factory, needs if needs is not None else BackendNeeds(), reads)
    KINDS.register(kind, entry, replace=True)


def register_builtin(
    name: str, factory: BackendFactory, *, needs: BackendNeeds | None = None
) -> BackendFactory:
    """Make ``builtin:NAME`` build `factory(spec)`; returns `factory` so it can decorate.
    `needs` says what it needs of the machine (default: CPU-bound, as a model computed in
    this process is).

    ``register_builtin("reader", lambda spec: ReaderBackend(**spec.options))``
    """
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"built-in model name {name!r} must be letters, digits, '.', '-' or '_'")
    entry = BuiltinModel(factory) if needs is None else BuiltinModel(factory, needs)
    BUILTINS.register(name, entry, replace=True)
    return factory


def builtin_names() -> list[str]:
    """Names of the built-in models registered so far (without importing their homes)."""
    return sorted(name for name, _ in BUILTINS.registered())


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


def looks_like_spec(text: str) -> bool:
    """Whether `text` has a spec's ``kind:target`` shape (a path or a name has not)."""
    return _SPEC_RE.match(text.strip()) is not None


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
    parsed = resolve_spec(spec)
    return _kind(parsed.kind).factory(parsed)


def resolve_spec(spec: str | os.PathLike[str] | BackendSpec) -> BackendSpec:
    """The parsed spec of a spec string, a config file path, or a parsed spec."""
    if isinstance(spec, BackendSpec):
        return spec
    config = _looks_like_config(spec)
    return _read_config(config) if config else parse_spec(str(spec))


def _kind(kind: str) -> BackendKind:
    found = KINDS.get(kind)
    if found is None:
        raise SpecError(str(KINDS.unknown(kind)))
    return found


def backend_kind(kind: str) -> BackendKind:
    """A registered backend kind; SpecError naming the known ones otherwise."""
    return _kind(kind)


def backend_needs(spec: str | os.PathLike[str] | BackendSpec) -> BackendNeeds:
    """What the backend a spec names needs, as its kind declared it. A kind (or built-in)
    registered at run time only, with no module a worker could import, is process-local;
    an unknown one too (loading it fails with the message naming the known ones)."""
    parsed = resolve_spec(spec)
    entry = KINDS.get(parsed.kind)
    if entry is None:
        return BackendNeeds(process_local=True)
    needs = entry.needs(parsed) if callable(entry.needs) else entry.needs
    if not KINDS.has_home(parsed.kind):
        needs = dataclasses.replace(needs, process_local=True)
    return needs


def backend_home(spec: str | os.PathLike[str] | BackendSpec) -> tuple[str, ...]:
    """The modules a worker process imports before it builds the spec's backend (those of
    a plug-in kind or built-in; empty for the shipped ones)."""
    parsed = resolve_spec(spec)
    homes = [KINDS.home_of(parsed.kind)]
    if parsed.kind == "builtin":
        homes.append(BUILTINS.home_of(parsed.target))
    return tuple(h for h in homes if h is not None and h != __name__)


def _builtin_needs(spec: BackendSpec) -> BackendNeeds:
    # a worker rebuilds the model by name: a built-in registered only in this process
    # (a script's or a test's own) stays here
    entry = BUILTINS.get(spec.target)
    if entry is None or not BUILTINS.has_home(spec.target):
        return BackendNeeds(compute="cpu", process_local=True)
    return entry.needs


def _local_checkpoint_needs(spec: BackendSpec) -> BackendNeeds:
    # a local checkpoint runs where its device option puts it ("auto": the accelerator
    # when there is one, which the executor finds out)
    device = str(spec.options.get("device", "auto"))
    compute: Compute = "cpu" if device == "cpu" else "auto" if device == "auto" else "gpu"
    return BackendNeeds(compute=compute)


def _load_builtin(spec: BackendSpec) -> Backend:
    entry = BUILTINS.get(spec.target)
    if entry is None:
        raise SpecError(str(BUILTINS.unknown(spec.target)))
    return entry.factory(spec)


def builtin_has_home(name: str) -> bool:
    """Whether a fresh process can build ``builtin:NAME`` from its name alone: its module is
    recorded (`add_builtin_home`) or an entry point names it. A built-in registered at run
    time only (`register_builtin` in a script or test) exists in this process alone."""
    return BUILTINS.has_home(name)


def add_builtin_home(name: str, module: str) -> None:
    """Record that importing `module` registers ``builtin:NAME`` (imported on first use)."""
    BUILTINS.add_home(name, module)


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


register_kind("openai", _load_openai, needs=BackendNeeds(compute="remote"))
register_kind("hf", _load_hf, needs=_local_checkpoint_needs, reads="image")
register_kind("builtin", _load_builtin, needs=_builtin_needs)
register_kind("text", _load_text, needs=_local_checkpoint_needs, reads="table")
