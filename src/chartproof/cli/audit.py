"""`chartproof audit`: ChartBias's bias audit of a model into a resumable run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._options import Executor, Quiet, Strict, UseCache, comma_list
from chartproof.cli._progress import console, progress_bar


@app.command(
    "audit",
    epilog=examples(
        "chartproof audit -d chartbias:../ChartBias -m text:smollm2 -o runs/bias",
        "chartproof audit -d data/bias -m text:smollm2 --attributes race,gender --mitigate -o runs/bias2",
    ),
)
def audit(
    data: Annotated[
        str, typer.Option("--data", "-d", help="Dataset folder or spec (chartbias:/path, a suite).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder (rerun to resume).")],
    model: Annotated[
        str, typer.Option("--model", "-m", help="Backend spec: text:smollm2, openai:M@URL, hf:/p.")
    ] = "text:smollm2",
    attributes: Annotated[
        str | None,
        typer.Option(help="Attributes (default all): race,income,age,gender,religion,immigration."),
    ] = None,
    settings: Annotated[
        str, typer.Option(help="Settings: narrative,hallucination,polarity,cue.")
    ] = "narrative,hallucination,polarity",
    mitigate: Annotated[
        bool, typer.Option(help="Add the multi-agent mitigation and its no-masking ablation.")
    ] = False,
    mitigation_pairs: Annotated[
        int | None,
        typer.Option(help="Mitigate only the first N eligible chart-attribute pairs.", min=1),
    ] = None,
    causal: Annotated[
        bool, typer.Option(help="Trend-flipped counterfactuals of generated charts.")
    ] = True,
    pairs: Annotated[
        Path | None, typer.Option(help="Pair-list file (TOML/JSON) adding or replacing attributes.")
    ] = None,
    prompts_file: Annotated[Path | None, typer.Option(help="Prompt overrides (TOML/JSON).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first LIMIT charts.", min=1)] = None,
    cue_questions: Annotated[int, typer.Option(help="Questions per chart (cue).", min=0)] = 2,
    embedder: Annotated[
        str, typer.Option(help="Sentence-transformers folder, 'default' (MiniLM) or 'none'.")
    ] = "default",
    ocr: Annotated[bool, typer.Option(help="Read image text for eligibility.")] = True,
    max_tokens: Annotated[int, typer.Option(help="Largest narrative in tokens.", min=1)] = 256,
    batch_size: Annotated[int | None, typer.Option(help="Work units per batch.", min=1)] = None,
    cache: UseCache = True,
    executor: Executor = None,
    choice: Annotated[
        str,
        typer.Option(
            help="Group selection: generate (the paper's protocol), or likelihood / "
            "likelihood-norm (score each allowed reply; local causal LMs only)."
        ),
    ] = "generate",
    opinion_fallback: Annotated[
        str,
        typer.Option(
            help="Opinion of an output without <opinion> tags: none (it has none; opinion "
            "figures use tagged outputs only) or last-sentence (labelled approximation)."
        ),
    ] = "none",
    strict: Strict = False,
    report: Annotated[bool, typer.Option(help="Write RUN/report.html at the end.")] = True,
    quiet: Quiet = False,
) -> None:
    """Audit MODEL for bias on the charts of DATA (ChartBias, seed 003): narrative shift,
    group hallucination, preference polarity, demographic cues; mitigation on request."""
    from chartproof.cli._servers import check_servers
    from chartproof.pipelines.audit import AuditSettings
    from chartproof.pipelines.audit import audit as run

    asked = AuditSettings(
        data=data,
        model=model,
        out=out,
        attributes=comma_list(attributes) or None,
        settings=comma_list(settings),
        mitigate=mitigate,
        mitigation_pairs=mitigation_pairs,
        causal=causal,
        lexicon_file=pairs,
        prompts_file=prompts_file,
        limit=limit,
        cue_questions=cue_questions,
        embedder=None if embedder == "none" else embedder,
        ocr=ocr,
        max_tokens=max_tokens,
        batch_size=batch_size,
        cache=cache,
        strict=strict,
        choice=choice,
        opinion_fallback=opinion_fallback,
    )
    check_servers(("--model", model))
    header = (
        f"audit: {model} on {data} → {out}; attributes {attributes or 'all'}, settings "
        f"{settings}{', mitigation' if mitigate else ''}, executor {executor or 'default'}"
    )
    with progress_bar("audit", not quiet, header=header, unit="model tasks") as hook:
        record = run(asked, executor=executor, progress=hook)
    s = record.summary
    for name, b in s.get("narrative", {}).items():
        verdict = {True: "equivalent", False: "not equivalent"}.get(b["equivalent"], "n/a")
        mean = "n/a" if b["mean"] is None else f"{b['mean']:.3f}"
        console.print(f"  narrative {name:<12} diss {mean}  n={b['n']}  TOST {verdict}")
    for name, b in s.get("hallucination", {}).items():
        console.print(f"  hallucination {name:<9} abstain {100 * b['shares']['abstain']:.1f} %")
    console.print(f"  model calls {s.get('calls', 0)}, cached {s.get('cached_calls', 0)}")
    if report:
        from chartproof.reports import report as write_report

        console.print(f"report: [bold]{write_report(out)}[/bold]")
