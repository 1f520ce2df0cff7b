#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<name>/ from the test suite's inputs:
the C string literals of the suites that exercise each parser, plus a few
fixed byte strings for the harnesses that read their input as choices.
Run from anywhere; files are named by content hash, so rerunning adds
nothing twice."""
import hashlib
import pathlib
import random
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
LITERAL = re.compile(rb'"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {b'n': b'\n', b't': b'\t', b'\\': b'\\', b'"': b'"', b"'": b"'", b'0': b'\0'}

# harness -> (suites whose literals seed it, which literals to keep)
SOURCES = {
    'target_text': (['target', 'target_parse', 'target_scope', 'composite', 'json_globals'],
                    lambda s: re.match(rb'^[a-z{]', s) is not None),
    'convert_legacy': (['target_legacy'], lambda s: re.match(rb'^[a-z]', s) is not None),
    'pipeline_text': (['pipeline', 'pass_registry', 'pass_errors'],
                      lambda s: re.match(rb'^[A-Z]', s) is not None),
    'from_json': (['json', 'json_errors', 'json_globals'], lambda s: s[:1] in (b'{', b'[')),
}
MAX_FILES = 200


def unescape(raw):
    out, i = bytearray(), 0
    while i < len(raw):
        if raw[i:i + 1] == b'\\' and i + 1 < len(raw):
            out += ESCAPES.get(raw[i + 1:i + 2], raw[i:i + 2])
            i += 2
        else:
            out += raw[i:i + 1]
            i += 1
    return bytes(out)


def write(name, inputs):
    folder = ROOT / 'fuzz' / 'corpus' / name
    folder.mkdir(parents=True, exist_ok=True)
    for data in inputs[:MAX_FILES]:
        (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def main():
    for name, (suites, keep) in SOURCES.items():
        seen = []
        for suite in suites:
            text = (ROOT / 'tests' / f'check_{suite}.c').read_bytes()
            for m in LITERAL.finditer(text):
                s = unescape(m.group(1))
                if (s and len(s) < 512 and keep(s) and s not in seen
                        and not re.search(rb'Error|Warning|%', s)):
                    seen.append(s)
        write(name, seen)
    rng = random.Random(14)
    for name in ('config_map', 'module_ops'):
        write(name, [bytes(rng.randrange(256) for _ in range(rng.randrange(4, 48)))
                     for _ in range(24)])


if __name__ == '__main__':
    main()
