"""A fanned-out backend says what its workers' model sees (`label`, "text over table"), as
the model loaded in one process does: reports read it, not the spec string."""

from __future__ import annotations

from chartproof.executors import FanOutBackend, open_executor
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest


def _reply(request: ModelRequest) -> str:
    return "ok"


class TableReader(ScriptedBackend):
    """A scripted model that declares it reads the chart's table."""

    label = "text over table"

    def __init__(self) -> None:
        super().__init__(_reply, name="scripted:table")


def test_the_workers_label_reaches_the_driver() -> None:
    backend = FanOutBackend(TableReader, open_executor("local:2"), owns_executor=True)
    try:
        assert backend.label == "text over table" and backend.name == "scripted:table"
    finally:
        backend.close()
    plain = FanOutBackend(lambda: ScriptedBackend(_reply), open_executor("local:1"),
                          owns_executor=True)  # fmt: skip
    try:
        assert plain.label is None
    finally:
        plain.close()
