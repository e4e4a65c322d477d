"""Model I/O records: chat messages with text and image parts, decoding settings, requests,
parsed replies and responses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from chartproof.types.data import Record

__all__ = [
    "GenerationConfig",
    "ImagePart",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "ParsedOutput",
    "TextPart",
    "Usage",
]


class TextPart(Record):
    """Text inside a chat message."""

    type: Literal["text"] = "text"
    """Discriminator."""
    text: str
    """The text."""


class ImagePart(Record):
    """An image inside a chat message."""

    type: Literal["image"] = "image"
    """Discriminator."""
    path: str
    """Absolute path of the image file."""
    sha256: str
    """Hex SHA-256 of the image bytes (part of the cache key)."""


class Message(Record):
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    """Who speaks."""
    content: tuple[TextPart | ImagePart, ...]
    """Text and image parts, in order."""


class GenerationConfig(Record):
    """Decoding settings."""

    max_tokens: int = Field(default=256, ge=1)
    """Largest number of new tokens."""
    temperature: float = Field(default=0.0, ge=0)
    """Sampling temperature; 0 means greedy."""
    top_p: float = Field(default=1.0, gt=0, le=1)
    """Nucleus sampling mass."""
    seed: int | None = None
    """Sampling seed, when the backend honours one."""
    stop: tuple[str, ...] = ()
    """Stop strings."""

    @property
    def deterministic(self) -> bool:
        """Greedy decoding: the only requests the response cache may store."""
        return self.temperature == 0.0


class ModelRequest(Record):
    """One call to a model."""

    id: str
    """Request id: the sample id plus the protocol step, unique within a run."""
    messages: tuple[Message, ...]
    """The conversation."""
    config: GenerationConfig = GenerationConfig()
    """Decoding settings."""
    prompt: str
    """Prompt template as name@version."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Extra context a built-in model may use (never the gold answer)."""


class Usage(Record):
    """Token counts of one call."""

    input_tokens: int | None = None
    """Prompt tokens."""
    output_tokens: int | None = None
    """Generated tokens."""


class ParsedOutput(Record):
    """What the parser found in a model's text."""

    answer: str | None = None
    """Extracted final answer, None when none could be found."""
    explanation: str | None = None
    """Extracted explanation."""
    truth: bool | None = None
    """Extracted true/false verdict (premise protocol)."""
    items: tuple[str, ...] | None = None
    """Extracted list items."""
    code: str | None = None
    """Extracted program (prompts whose output is code)."""
    choice: int | None = None
    """Index of the option the reply picked (multiple-choice requests), None when it named
    none or several."""


class ModelResponse(Record):
    """A model's reply to one request (or the error that replaced it)."""

    request_id: str
    """Id of the request answered."""
    model: str
    """Backend spec string of the model."""
    text: str = ""
    """Raw generated text."""
    parsed: ParsedOutput | None = None
    """Parsed fields."""
    usage: Usage = Usage()
    """Token counts."""
    latency_s: float = 0.0
    """Wall time of the call."""
    cached: bool = False
    """Served from the response cache."""
    error: str | None = None
    """Why the call failed after its last retry; None on success."""

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.error is None
