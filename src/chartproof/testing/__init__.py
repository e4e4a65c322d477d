"""Test scaffolding shipped for users' own tests and benchmarks, not used by the pipelines.

`ScriptedBackend` (a model that answers with a function), `chartproof.testing.hashed` (a
deterministic CPU-bound model to fan out over executors), `chartproof.testing.loopback` (a
chat-completions server on 127.0.0.1 with scheduled faults; needs aiohttp) and
`chartproof.testing.tiny_vlm` (a ~60k-parameter Idefics3 built from configs; needs
transformers). Only the scripted backend is imported here: loopback and tiny_vlm load heavy
libraries.
"""

from __future__ import annotations

from chartproof.testing.scripted import ScriptedBackend

__all__ = ["ScriptedBackend"]
