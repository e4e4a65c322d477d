"""A run read back as data: its record, its results and pandas frames of both (pandas is
imported on use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from chartproof.types import RunRecord, RunSummary, SampleResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Run"]


class Run(NamedTuple):
    """A run folder's content (`chartproof.load_run`): unpacks as ``record, results``."""

    record: RunRecord
    """`run.json`: id, config, status, counts and summary."""
    results: list[SampleResult]
    """`results.jsonl`: one result per (sample, protocol, model), retries resolved."""

    @property
    def summary(self) -> RunSummary:
        """The typed summary, however old or partial (`RunRecord.read_summary`)."""
        return self.record.read_summary()

    def results_frame(self) -> pd.DataFrame:
        """One row per result. Every field of `results.jsonl` is a column in its JSON form
        (`scores` and `groups` dicts, `steps` lists of dicts, `choices` and `images`
        lists), so ``SampleResult.model_validate(row)`` restores each result exactly; for
        analysis, each score and group label is also a flat column (``scores.NAME``,
        ``groups.KEY``, the `pandas.json_normalize` naming), beside `run` (the run id).

        The flat score columns hold what was recorded: a failed result (``error`` set) has
        none (NaN), while `summary.json` counts it as wrong (0 on accuracy-type metrics), so
        ``frame["scores.M"].fillna(0).mean()`` is the summary's mean of an accuracy M."""
        import pandas as pd

        fields = list(SampleResult.model_fields)
        rows = [r.model_dump(mode="json") for r in self.results]
        numeric = {"cached": "int64", "calls": "int64", "latency_s": "float64"}
        # text and nested fields stay Python objects: a missing value is None, never NaN
        frame = pd.DataFrame(
            {f: pd.Series([row[f] for row in rows], dtype=numeric.get(f, object)) for f in fields}
        )
        score_names = sorted({m for r in self.results for m in r.scores})
        group_names = sorted({k for r in self.results for k in r.groups})
        flat: dict[str, list[Any]] = {"run": [self.record.id] * len(rows)}
        for m in score_names:
            flat[f"scores.{m}"] = [r.scores.get(m) for r in self.results]
        for k in group_names:
            flat[f"groups.{k}"] = [r.groups.get(k) for r in self.results]
        extra = pd.DataFrame(flat, index=frame.index)
        for m in score_names:
            extra[f"scores.{m}"] = extra[f"scores.{m}"].astype("float64")
        return pd.concat([frame, extra], axis=1)

    def summary_frame(self) -> pd.DataFrame:
        """One row per metric value of the summary: the overall means (``table`` =
        "overall"), every breakdown cell ("by KEY") and the chart type × question type grid
        ("grid"), with `metric`, `value`, `n`, `stderr`, `note`, one ``groups.KEY`` column
        per group label, and `run`."""
        import pandas as pd

        summary = self.summary
        tables: list[tuple[str, tuple[Any, ...]]] = [("overall", summary.metrics)]
        tables += [(f"by {k}", v) for k, v in summary.breakdowns.items()]
        tables.append(("grid", summary.grid))
        rows: list[dict[str, Any]] = []
        for table, scores in tables:
            for s in scores:
                row: dict[str, Any] = {
                    "run": self.record.id,
                    "table": table,
                    "metric": s.metric,
                    "value": s.value,
                    "n": s.n,
                    "stderr": s.stderr,
                    "note": s.note,
                }
                row.update({f"groups.{k}": v for k, v in s.group.items()})
                rows.append(row)
        base = ["run", "table", "metric", "value", "n", "stderr", "note"]
        frame = pd.DataFrame(rows, columns=base + sorted({c for r in rows for c in r} - set(base)))
        return frame.astype({"value": "float64", "stderr": "float64"})
