"""The command line as users run it: `python -m footprint_locomotion ...` in a process of its own."""

import hashlib
import importlib.util
import subprocess
import sys

import pytest

from conftest import ROOT

needs_module_install = pytest.mark.skipif(
    importlib.util.find_spec("footprint_locomotion") is None,
    reason="python -m footprint_locomotion needs the development install (./dev sets it up)",
)


def cli_command(*args):
    return [sys.executable, "-m", "footprint_locomotion", *map(str, args)]


def run_cli(*args, cwd=ROOT):
    return subprocess.run(cli_command(*args), cwd=cwd, capture_output=True, text=True, timeout=600)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()
