"""`--help` wraps at the terminal's width, never where a docstring's source line ended."""

from __future__ import annotations

import os
import subprocess
import sys

from chartproof.cli._app import reflow


def _help(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "100", "TERM": "dumb"}
    out = subprocess.run(
        [sys.executable, "-m", "chartproof", *args, "--help"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return out.stdout


def test_command_list_does_not_break_mid_sentence() -> None:
    text = _help()
    derender = [line for line in text.splitlines() if "derender" in line or "redraw (SSIM" in line]
    # the summary wraps once, at the panel's edge, with the words in order
    joined = " ".join(" ".join(line.strip("│ ").split()) for line in derender)
    assert "score the redraw (SSIM, data agreement)" in joined.replace("  ", " ")
    for line in text.splitlines():
        assert not line.rstrip(" │").endswith((" the", " a", " and", " of", " to")), line


def test_every_command_help_is_reflowed() -> None:
    from chartproof.cli import _register
    from chartproof.cli._app import app
    from chartproof.cli.cache import cache_app

    _register()
    commands = [*app.registered_commands, *cache_app.registered_commands]
    assert len(commands) >= 11
    for cmd in commands:
        assert cmd.callback is not None and cmd.callback.__doc__, cmd
        for para in cmd.callback.__doc__.split("\n\n"):
            if not para.lstrip().startswith(("-", "*", "1.")):
                assert "\n" not in para, (cmd.callback.__name__, para)


def test_reflow_keeps_paragraphs_and_lists() -> None:
    doc = """First line
    continues here.

    - one item
    - another item

    Last paragraph
    on two lines."""
    assert reflow(doc) == (
        "First line continues here.\n\n- one item\n- another item\n\nLast paragraph on two lines."
    )


def test_generate_help_lists_every_registered_suite() -> None:
    from chartproof.charts.suites import SUITES

    text = " ".join(_help("generate").split())
    assert "bias" in SUITES
    for name in SUITES:
        assert name in text, name


def test_commands_are_listed_in_a_useful_order() -> None:
    listed = [
        line.strip("│ ").split()[0]
        for line in _help().splitlines()
        if line.startswith("│ ") and line.strip("│ ") and not line.strip("│ ").startswith("-")
        and line[2] != " "
    ]  # fmt: skip
    assert listed[:6] == ["demo", "generate", "eval", "explain", "audit", "derender"], listed


def test_every_command_help_ends_with_examples() -> None:
    from chartproof.cli import _register
    from chartproof.cli._app import app
    from chartproof.cli.cache import cache_app
    from chartproof.cli.finetune import finetune_app

    _register()
    for group in (app, cache_app, finetune_app):
        for cmd in group.registered_commands:
            assert cmd.epilog and cmd.epilog.startswith("Examples:"), cmd.callback
            assert "chartproof " in cmd.epilog
    text = " ".join(_help("eval").split())
    assert "Examples: chartproof eval -d data/chartr -o runs/reader" in text


def test_flags_show_no_value_placeholder() -> None:
    text = _help("eval")
    for line in text.splitlines():
        if "--no-cache" in line or "--quiet" in line or "--help" in line:
            assert "<bool>" not in line, line
    assert "<path>" in text  # options that take a value keep theirs
