"""The typer application every command module registers on."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from chartproof.cli._errors import guarded, set_debug

__all__ = ["App", "app", "examples", "reflow"]

F = TypeVar("F", bound=Callable[..., Any])

_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")


def reflow(doc: str) -> str:
    """A docstring as help text: the lines of each paragraph joined into one, so the help
    wraps at the terminal's width instead of breaking where the source line did (typer's
    rich output keeps single newlines). Paragraphs and list items keep their breaks."""
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(doc))
    out = []
    for para in paragraphs:
        lines = para.splitlines()
        if any(_LIST_ITEM.match(line) for line in lines):
            out.append("\n".join(lines))
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def examples(*commands: str) -> str:
    """A command's help epilog: its examples, one per line."""
    return "Examples:\n\n" + "\n\n".join(f"  {c}" for c in commands)


class App(typer.Typer):
    """A `typer.Typer` whose commands take their help from their reflowed docstrings and run
    under `guarded` (an ordinary mistake is one line, not a traceback)."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        register = super().command(*args, **kwargs)

        def decorator(f: F) -> F:
            if kwargs.get("help") is None and f.__doc__:
                f.__doc__ = reflow(f.__doc__)
            register(guarded(f))
            return f

        return decorator


app = App(
    name="chartproof",
    help="Trustworthy chart question answering: generate, evaluate, explain, report.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from chartproof import __version__

        typer.echo(f"chartproof {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help="Show the traceback of an error instead of one line (also CHARTPROOF_DEBUG=1).",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="Let other libraries print their progress bars, warnings and logs.",
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Trustworthy chart question answering: generate, evaluate, explain, report."""
    set_debug(debug)
    from chartproof.cli._progress import set_verbose

    set_verbose(verbose)
