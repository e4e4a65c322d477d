"""`chartproof explain`: build a ChartQA-X explanation dataset from several models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._options import (
    DataSpec,
    Executor,
    PromptsFile,
    Quiet,
    Strict,
    UseCache,
    comma_list,
)
from chartproof.cli._progress import console, progress_bar


def _specs(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    specs = comma_list(text)
    if not specs:
        raise typer.BadParameter("give at least one model spec", param_hint=option)
    return specs


def _scorer(embedder: str | None, lm: str | None, nli: Path | None, grammar: str | None) -> Any:
    """A RoscoeScorer from the scorer options ("default" and "none" keep or drop a family)."""
    from chartproof.metrics.roscoe import (
        DEFAULT,
        CausalLMPerplexity,
        CoLAGrammar,
        LinkGrammar,
        NLIContradiction,
        RoscoeScorer,
        SentenceEmbedder,
    )

    def pick(value: str | None, build: Any, default: Any = DEFAULT) -> Any:
        if value is None or value == "default":
            return default
        if value == "none":
            return None
        return build(value)

    grammar_scorer: Any = DEFAULT
    if grammar == "none":
        grammar_scorer = None
    elif grammar == "link":
        grammar_scorer = LinkGrammar()
    elif grammar not in (None, "default"):
        grammar_scorer = CoLAGrammar(grammar)
    return RoscoeScorer(
        embedder=pick(embedder, SentenceEmbedder),
        lm=pick(lm, CausalLMPerplexity),
        nli=NLIContradiction(nli) if nli is not None else None,
        grammar=grammar_scorer,
    )


@app.command(
    "explain",
    epilog=examples(
        "chartproof explain -d data/qax -m builtin:reader,text:smollm2 -o data/explained",
    ),
)
def explain(
    data: DataSpec,
    models: Annotated[
        str,
        typer.Option(
            "--models",
            "-m",
            help="Comma-separated backend specs that write candidates (and verify each other).",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output dataset folder (rerun to resume).")
    ],
    verifiers: Annotated[
        str | None,
        typer.Option(help="Comma-separated verifier specs (default: the --models, leave-one-out)."),
    ] = None,
    majority: Annotated[
        int | None,
        typer.Option(
            help="Correct votes needed (default: more than half of the verifiers asked).", min=1
        ),
    ] = None,
    rounds: Annotated[
        int, typer.Option(help="Generation rounds at most (regenerations + 1).", min=1)
    ] = 2,
    limit: Annotated[int | None, typer.Option(help="Only the first LIMIT samples.", min=0)] = None,
    weights: Annotated[
        str,
        typer.Option(
            help="AS weight set: original, uniform, fluency, faithfulness, informativeness, "
            "perturbed, random_uniform, random_gaussian."
        ),
    ] = "original",
    missing: Annotated[
        str,
        typer.Option(
            help="When a ROSCOE score is missing (no NLI model offline): renormalise the "
            "weights, or not_computed."
        ),
    ] = "renormalise",
    embedder: Annotated[
        str | None, typer.Option(help="Sentence-embedding model path, 'default' or 'none'.")
    ] = None,
    lm: Annotated[
        str | None, typer.Option(help="Perplexity causal-LM path, 'default' or 'none'.")
    ] = None,
    nli: Annotated[
        Path | None, typer.Option(help="NLI checkpoint path for SRC/SFC (none offline).")
    ] = None,
    grammar: Annotated[
        str | None, typer.Option(help="Grammar scorer: 'link' (default), a CoLA path, or 'none'.")
    ] = None,
    regen_temperature: Annotated[
        float, typer.Option(help="Sampling temperature of regenerated rounds.", min=0.0)
    ] = 0.7,
    max_tokens: Annotated[int, typer.Option(help="Largest reply in tokens.", min=1)] = 256,
    batch_size: Annotated[int, typer.Option(help="Samples per step.", min=1)] = 16,
    prompts_file: PromptsFile = None,
    cache: UseCache = True,
    strict: Strict = False,
    executor: Executor = None,
    quiet: Quiet = False,
) -> None:
    """Candidates from MODELS → ROSCOE AS ranking → leave-one-out majority verification →
    next best → regeneration; writes an explanation dataset with full provenance to OUT."""
    from chartproof.cli._servers import check_servers
    from chartproof.pipelines.explain import ExplainSettings, run_explain

    if missing not in ("renormalise", "not_computed"):
        raise typer.BadParameter("use renormalise or not_computed", param_hint="--missing")
    model_specs = _specs(models, "--models") or []
    verifier_specs = _specs(verifiers, "--verifiers")
    check_servers(*[("--models", s) for s in model_specs])
    check_servers(*[("--verifiers", s) for s in verifier_specs or []])
    header = (
        f"explain: {', '.join(model_specs)} on {data} → {out}; majority {majority}, "
        f"up to {rounds} rounds, weights {weights}"
    )
    with progress_bar("explain", not quiet, header=header) as hook:
        settings = ExplainSettings(
            data=data,
            models=tuple(m.strip() for m in model_specs),
            out=out,
            verifiers=None if verifier_specs is None else tuple(v.strip() for v in verifier_specs),
            majority=majority,
            max_rounds=rounds,
            weights=weights,
            missing="renormalise" if missing == "renormalise" else "not_computed",
            regen_temperature=regen_temperature,
            max_tokens=max_tokens,
            batch_size=batch_size,
            prompts_file=prompts_file,
            cache=cache,
            limit=limit,
            strict=strict,
            executor=executor,
        )
        result = run_explain(settings, scorer=_scorer(embedder, lm, nli, grammar), progress=hook)
    counts = result.summary["counts"]
    console.print(
        f"  accepted {counts['accepted']}, rejected {counts['rejected']}, "
        f"failed {counts['failed']} of {counts['samples']} samples"
    )
    for row in result.summary["rounds"]:
        console.print(
            f"  round {row['round']}: {row['accepted']} of {row['samples']} accepted "
            f"({row['candidates']} candidates, {row['failed_candidates']} failed)"
        )
    wins = ", ".join(f"{m} {n}" for m, n in result.summary["wins"].items())
    console.print(f"  wins: {wins}")
    console.print(f"dataset: [bold]{result.samples}[/bold]")
