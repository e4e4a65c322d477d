"""Test scaffolding shipped for users' own tests and benchmarks, not used by the pipelines.

`ScriptedBackend` (a model that answers with a function), `chartproof.testing.loopback` (a
chat-completions server on 127.0.0.1 with scheduled faults; needs aiohttp) and
`chartproof.testing.tiny_vlm` (a ~60k-parameter Idefics3 built from configs; needs
transformers). Only the scripted backend is imported here: the other two load heavy
libraries.
"""

from __future__ import annotations

from chartproof.testing.scripted import ScriptedBackend

__all__ = ["ScriptedBackend"]
