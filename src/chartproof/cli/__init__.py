"""Command-line interface: thin wrappers that parse arguments and call pipelines.

Each command lives in its own module and registers itself on `app`; add a command by adding
a module and one import line below.
"""

from __future__ import annotations

from chartproof.cli._app import app

__all__ = ["app", "main"]


def _register() -> None:
    # one line per command module; imported for their @app.command side effects
    import chartproof.cli.audit
    import chartproof.cli.cache
    import chartproof.cli.demo
    import chartproof.cli.derender
    import chartproof.cli.evaluate
    import chartproof.cli.explain
    import chartproof.cli.export
    import chartproof.cli.finetune
    import chartproof.cli.generate
    import chartproof.cli.pairs
    import chartproof.cli.report
    import chartproof.cli.version
    import chartproof.cli.view  # noqa: F401


def main() -> None:
    """Entry point of the `chartproof` console script."""
    _register()
    app()
