"""The ``reader`` extra's modules (rapidocr, OpenCV, onnx), imported on first use: a missing one
raises ImportError with the install command (`INSTALL_HINT`).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from typing import Any

INSTALL_HINT = "OCR needs rapidocr and OpenCV: pip install 'chartproof[reader]'"
"""The message of the ImportError raised when the OCR dependencies are missing."""


def _require(module: str) -> Any:
    """The module of the `reader` extra named, or ImportError with the install command."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e


def _cv2() -> Any:
    return _require("cv2")
