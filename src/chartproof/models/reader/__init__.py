"""The built-in offline chart reader: OCR and geometric derendering recover a chart's table,
and a solver maps the question onto chartproof's question programs and explains its steps."""

from __future__ import annotations
