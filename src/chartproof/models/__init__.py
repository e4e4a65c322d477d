"""Models: one backend protocol for API, local Hugging Face and built-in models.

Also the named prompts every model shares, the parser of their replies, and the response
cache. Heavy backends (openai client, torch) load only when their spec is used.
"""

from __future__ import annotations

import importlib
from typing import Any

from chartproof.models.base import Backend, BackendIdentity, answered, backend_identity, failed
from chartproof.models.parsing import parse_output
from chartproof.models.prompts import (
    PromptSet,
    PromptTemplate,
    build_request,
    default_prompts,
    load_prompts,
)
from chartproof.models.registry import (
    BackendSpec,
    MissingDependencyError,
    SpecError,
    add_builtin_home,
    builtin_names,
    load_backend,
    parse_spec,
    register_builtin,
    register_kind,
)

__all__ = [
    "Backend",
    "BackendIdentity",
    "BackendSpec",
    "CachedBackend",
    "HFBackend",
    "MissingDependencyError",
    "OpenAIBackend",
    "PromptSet",
    "PromptTemplate",
    "ResponseCache",
    "SpecError",
    "TextLLMBackend",
    "add_builtin_home",
    "answered",
    "backend_identity",
    "build_request",
    "builtin_names",
    "default_prompts",
    "failed",
    "load_backend",
    "load_prompts",
    "parse_output",
    "parse_spec",
    "register_builtin",
    "register_kind",
]

# loaded on first use: the openai client and torch are slow or optional imports
_LAZY = {
    "CachedBackend": "chartproof.models.cache",
    "ResponseCache": "chartproof.models.cache",
    "OpenAIBackend": "chartproof.models.openai_compat",
    "HFBackend": "chartproof.models.hf",
    "TextLLMBackend": "chartproof.models.text_llm",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chartproof.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
