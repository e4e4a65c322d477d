"""`python -m chartproof` runs the command-line interface."""

from chartproof.cli import main

main()
