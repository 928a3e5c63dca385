"""Shared helpers for the end-to-end tests of the vernier tool."""
import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

VERNIER = os.environ.get("VERNIER", str(Path(__file__).resolve().parents[2] / "build" / "vernier"))
SOURCE = Path(os.environ.get("VN_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def run(*args, check=None, timeout=60, env=None, **kw):
    """Runs vernier with args; returns the CompletedProcess (text mode)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    p = subprocess.run([VERNIER, *args], capture_output=True, text=True, timeout=timeout, env=e, **kw)
    if check is not None:
        assert p.returncode == check, (p.returncode, p.stdout, p.stderr)
    return p


def schema(name):
    return json.loads((SOURCE / "docs" / "schema" / name).read_text())


def validate(doc, name):
    jsonschema.validate(doc, schema(name), cls=jsonschema.Draft202012Validator)


@pytest.fixture
def vernier():
    return run
