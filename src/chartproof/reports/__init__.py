"""HTML reports of runs: the papers' tables and plots, with every model output escaped."""

from chartproof.reports.build import report
from chartproof.reports.viewer import view

__all__ = ["report", "view"]
