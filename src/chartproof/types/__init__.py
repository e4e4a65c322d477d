"""Core records of chartproof: tables, chart specs, samples, model I/O, scores and runs.

Every stage (charts, questions, variants, models, metrics, runs) exchanges these frozen
pydantic records; nothing else crosses a module boundary. They live in one module per concern
(`data`, `model_io`, `results`) and are all importable from here.
"""

from __future__ import annotations

from chartproof.types.data import (
    Answer,
    AnswerKind,
    AnswerValue,
    Cell,
    ChartSpec,
    ChartType,
    Column,
    ColumnKind,
    DataTable,
    Encoding,
    ImageRef,
    Premise,
    PremiseKind,
    Record,
    Sample,
    Step,
    Style,
    TaskType,
    Transform,
)
from chartproof.types.model_io import (
    GenerationConfig,
    ImagePart,
    Message,
    ModelRequest,
    ModelResponse,
    ParsedOutput,
    TextPart,
    Usage,
)
from chartproof.types.results import (
    ChainStepRecord,
    DatasetInfo,
    FailureNote,
    PremiseStepRecord,
    RunCounts,
    RunRecord,
    RunSummary,
    SampleResult,
    Score,
    StepRecord,
)

__all__ = [
    "Answer",
    "AnswerKind",
    "AnswerValue",
    "Cell",
    "ChainStepRecord",
    "ChartSpec",
    "ChartType",
    "Column",
    "ColumnKind",
    "DataTable",
    "DatasetInfo",
    "Encoding",
    "FailureNote",
    "GenerationConfig",
    "ImagePart",
    "ImageRef",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "ParsedOutput",
    "Premise",
    "PremiseKind",
    "PremiseStepRecord",
    "Record",
    "RunCounts",
    "RunRecord",
    "RunSummary",
    "Sample",
    "SampleResult",
    "Score",
    "Step",
    "StepRecord",
    "Style",
    "TaskType",
    "TextPart",
    "Transform",
    "Usage",
]
