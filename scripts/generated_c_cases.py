#!/usr/bin/python3
"""Extracts the IR-text models of irm's C codegen tests (tests/backend/check_codegen_c*.c:
{"name", "def @main..." ..., tol} entries and T4(name, dtype, body) cases) into NAME.irm files,
so scripts/generated-c-snapshot can build each with `irm build`. Usage: generated_c_cases.py REPO OUTDIR"""
import glob
import os
import re
import subprocess
import sys

repo, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
STR = r'"(?:[^"\\]|\\.)*"'
SEQ = r'((?:\s*' + STR + r')+)'


def join(seq):
    parts = re.findall(STR, seq)
    return "".join(bytes(p[1:-1], "utf-8").decode("unicode_escape") for p in parts)


seen = set()
for path in sorted(glob.glob(os.path.join(repo, "tests/backend/check_codegen_c*.c"))):
    # the C preprocessor expands the tests' macros (T4, CONV, POOL, D4, ...); includes dropped
    raw = "".join(line for line in open(path) if not line.lstrip().startswith("#include"))
    src = subprocess.run(["cc", "-E", "-P", "-"], input=raw, capture_output=True, text=True).stdout
    t4 = re.search(r'#define T4\(name, dt, body\) \{name, (' + STR + r')\s*dt\s*(' + STR + r')\s*body\s*(' + STR + r')',
                   src)
    cases = []
    for m in re.finditer(r'\{\s*"([a-zA-Z0-9_]+)",' + SEQ + r',\s*[0-9.e+-]+\s*[,}]', src):
        text = join(m.group(2))
        if "@main" in text:
            cases.append((m.group(1), text))
    if t4:
        for m in re.finditer(r'T4\(\s*"([a-zA-Z0-9_]+)",\s*"([a-z0-9]+)",' + SEQ + r'\)', src):
            text = join(t4.group(1)) + m.group(2) + join(t4.group(2)) + join(m.group(3)) + join(t4.group(3))
            cases.append((m.group(1), text))
    stem = os.path.basename(path)[len("check_"):-2]
    for name, text in cases:
        key = stem + "__" + name
        if key in seen:
            continue
        seen.add(key)
        with open(os.path.join(out, key + ".irm"), "w") as f:
            f.write('#[version = "irm-0.1"]\n' + text + "\n")
print(len(seen), "cases")
