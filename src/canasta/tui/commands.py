"""The ``play`` and ``replay`` commands' arguments and entry points.

Imported by :mod:`canasta.cli` whatever is installed: Textual is imported only
when a command runs."""

from __future__ import annotations

import argparse

from canasta.errors import CanastaError


def configure_play(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--resume", metavar="FILE", help="continue a saved game")


def configure_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a record file (.cgn)")


def run_play(args: argparse.Namespace) -> int:
    raise CanastaError("canasta play is not built yet")


def run_replay(args: argparse.Namespace) -> int:
    raise CanastaError("canasta replay is not built yet")
