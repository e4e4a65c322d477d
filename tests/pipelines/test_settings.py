"""The typed run configuration `evaluate` and `chartproof eval` share rejects what it does not
know, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from chartproof.pipelines.evaluate import EvalSettings


def test_unknown_field_is_named() -> None:
    with pytest.raises(ValidationError, match="protocl"):
        EvalSettings.model_validate({"data": "d", "protocl": "chain"})


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("protocol", "chains", "unknown protocol 'chains'"),
        ("batch_size", 0, "batch_size must be at least 1"),
        ("metrics", ("roscoe", "bleu"), "unknown metrics \\['bleu'\\]"),
    ],
)
def test_bad_values_are_explained(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EvalSettings.model_validate({"data": "d", field: value})


def test_defaults_are_the_api_defaults() -> None:
    s = EvalSettings(data="d")
    assert (s.model, s.out, s.protocol, s.prompt, s.max_tokens, s.cache) == (
        "builtin:reader",
        Path("runs/latest"),
        "direct",
        "chartqax",
        256,
        True,
    )
