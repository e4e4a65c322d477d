"""Bias audits (seed 003, ChartBias): narrative shift, group hallucination, preference
polarity, a causal trend-flip test, the demographic-cue setting and the multi-agent
mitigation, run by `audit` into a resumable run folder."""

from chartproof.pipelines.audit.lexicon import (
    DEFAULT_LEXICON,
    Attribute,
    Group,
    Lexicon,
    load_lexicon,
)
from chartproof.pipelines.audit.run import SETTINGS, AuditSettings, audit

__all__ = [
    "DEFAULT_LEXICON",
    "SETTINGS",
    "Attribute",
    "AuditSettings",
    "Group",
    "Lexicon",
    "audit",
    "load_lexicon",
]
