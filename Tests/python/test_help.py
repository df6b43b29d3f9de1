"""`--help` of every command of corkboard, corkboard-bot and corkboard-load: each option says its
default at most once (an option whose help text writes "(default: …)" itself while ArgumentParser
adds its own printed it twice), and every subcommand's help is reachable."""

import re
import subprocess

import pytest

from conftest import executable

BINARIES = [("CORKBOARD_BIN", "corkboard"), ("CORKBOARD_BOT_BIN", "corkboard-bot"),
            ("CORKBOARD_LOAD_BIN", "corkboard-load")]


def help_text(binary, path):
    result = subprocess.run([str(binary), *path, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, f"{binary} {' '.join(path)} --help failed: {result.stderr}"
    return result.stdout


def sections(text):
    """Section name → its lines (`OPTIONS:`, `SUBCOMMANDS:`, …)."""
    found, current = {}, None
    for line in text.splitlines():
        heading = re.match(r"^([A-Z][A-Z ]+):", line)
        if heading:
            current = heading.group(1)
            found[current] = []
        elif current:
            found[current].append(line)
    return found


def entries(lines):
    """Each entry of an options section: its first line (two spaces, then a dash) and what follows."""
    result = []
    for line in lines:
        if re.match(r"^  \S", line):
            result.append(line.strip())
        elif result and line.strip():
            result[-1] += " " + line.strip()
    return result


def commands(binary, path=()):
    """Every command path under `path`, depth first, with its help text."""
    text = help_text(binary, list(path))
    yield list(path), text
    for line in sections(text).get("SUBCOMMANDS", []):
        match = re.match(r"^  ([a-z][a-z0-9-]*)", line)
        if match:
            yield from commands(binary, (*path, match.group(1)))


@pytest.mark.parametrize("env, name", BINARIES, ids=[name for _, name in BINARIES])
def test_no_option_states_its_default_twice(env, name):
    binary = executable(env, name)
    seen = 0
    for path, text in commands(binary):
        seen += 1
        for section, lines in sections(text).items():
            if "OPTIONS" not in section and "ARGUMENTS" not in section:
                continue
            for entry in entries(lines):
                assert entry.count("(default:") <= 1, f"{name} {' '.join(path)}: the default appears twice: {entry}"
    assert seen >= 1
