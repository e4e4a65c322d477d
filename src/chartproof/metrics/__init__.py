"""Metrics: answer accuracy (relaxed, exact, ANLS), breakdowns by group label, explanation
quality, premises, chains, robustness and bias. Import the submodule you need."""
