"""The ``serve`` command's arguments and entry point.

Imported by :mod:`canasta.cli` whatever is installed: the web stack is imported
only when the command runs."""

from __future__ import annotations

import argparse

from canasta.errors import CanastaError


def configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8000)


def run_serve(args: argparse.Namespace) -> int:
    raise CanastaError("canasta serve is not built yet")
