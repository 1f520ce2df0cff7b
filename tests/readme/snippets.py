#!/usr/bin/env python3
"""Extracts, builds and runs the C snippets of README.md.

Every ```c block in the README is preceded by an HTML comment (invisible
when rendered) that says how it is tested:

  <!-- snippet: program NAME -->    a complete program
  <!-- snippet: main-body NAME ...-> statements, run inside
        int main(void) { int rc = 0; ... return rc != 0; }
        (a failure: rc nonzero, with irm_last_error() printed)
  <!-- snippet: file-scope NAME ...-> declarations, with an empty main()
  <!-- snippet: plugin NAME -->     a plugin, built as a shared object and
                                    loaded with irm_plugin_load
Text after NAME is free (it tells the reader the wrapper) and ignored,
except "same-as PATH": the snippet must equal that file of the repository
(relative to the README's folder), so an example shown whole in the README
and kept in the tree cannot drift apart.

A block without such a comment is an error, so no snippet goes untested.

  snippets.py program README NAME
      prints snippet NAME as the complete program the checks build
  snippets.py check README --cc CC --include DIR --lib LIBIRM --workdir DIR
                    [--flags=FLAGS]
      builds every snippet with -Wall -Wextra -Wpedantic -Werror against
      LIBIRM and runs it (a plugin: loads it), failing on the first error.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

KINDS = ("program", "main-body", "file-scope", "plugin")
MARKER = re.compile(r"<!--\s*snippet:\s*(\S+)\s+([\w.-]+)(.*)")
SAME_AS = re.compile(r"\bsame-as\s+(\S+)")
FENCE = re.compile(r"^(```+|~~~+)\s*(\S*)")

PRELUDE = "#include <irm/irm.h>\n#include <stdio.h>\n\n"

# A fragment sets rc when a call fails, as code after it would check.
MAIN_BODY = PRELUDE + """int main(void) {
  int rc = 0;
%s
  if (rc) fprintf(stderr, "%%s\\n", irm_last_error());
  return rc != 0;
}
"""

FILE_SCOPE = PRELUDE + """%s
int main(void) { return 0; }
"""

PLUGIN_LOADER = PRELUDE + """int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (irm_plugin_load(argv[1])) {
    fprintf(stderr, "%s\\n", irm_last_error());
    return 1;
  }
  return 0;
}
"""


def parse(readme):
    """The README's C snippets as (line, kind, name, text), in order."""
    snippets, marker, fence, block, start = [], None, None, [], 0
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, 1):
        if fence is not None:
            if line.startswith(fence[0]) and line.strip() == fence[0]:
                if fence[1] == "c":
                    if marker is None:
                        sys.exit("%s:%d: a ```c block without a <!-- snippet: KIND NAME --> "
                                 "comment before it" % (readme, start))
                    text = "\n".join(block) + "\n"
                    same = SAME_AS.search(marker[2])
                    if same:
                        path = os.path.join(os.path.dirname(os.path.abspath(readme)), same.group(1))
                        with open(path, encoding="utf-8") as f:
                            if f.read() != text:
                                sys.exit("%s:%d: snippet '%s' differs from %s: keep them the same"
                                         % (readme, start, marker[1], same.group(1)))
                    snippets.append((start, marker[0], marker[1], text))
                fence, block, marker = None, [], None
            else:
                block.append(line)
            continue
        found = FENCE.match(line)
        if found:
            fence, start = (found.group(1), found.group(2)), number
            continue
        found = MARKER.search(line)
        if found:
            if found.group(1) not in KINDS:
                sys.exit("%s:%d: unknown snippet kind '%s' (one of %s)"
                         % (readme, number, found.group(1), ", ".join(KINDS)))
            marker = (found.group(1), found.group(2), found.group(3))
        elif line.strip():
            marker = None  # the comment must come right before its block
    if fence is not None:
        sys.exit("%s:%d: unclosed code block" % (readme, start))
    names = [s[2] for s in snippets]
    for name in names:
        if names.count(name) > 1:
            sys.exit("%s: two snippets named '%s'" % (readme, name))
    return snippets


def source(kind, text):
    """The complete C file a snippet is built as."""
    if kind == "main-body":
        return MAIN_BODY % "\n".join("  " + l if l else l for l in text.splitlines())
    if kind == "file-scope":
        return FILE_SCOPE % text
    return text


def run(what, argv):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.stderr.write("%s failed (exit %d): %s\n%s" % (what, done.returncode,
                                                           " ".join(argv), done.stdout))
        return False
    return True


def check(args):
    snippets = parse(args.readme)
    os.makedirs(args.workdir, exist_ok=True)
    lib = os.path.abspath(args.lib)
    cc = [args.cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
          "-I", args.include] + shlex.split(args.flags)
    link = [lib, "-Wl,-rpath," + os.path.dirname(lib)]
    loader = os.path.join(args.workdir, "load")
    with open(loader + ".c", "w", encoding="utf-8") as f:
        f.write(PLUGIN_LOADER)
    failed = 0 if run("plugin loader: build", cc + [loader + ".c", "-o", loader] + link) else 1
    for line, kind, name, text in snippets:
        what = "README.md:%d: snippet '%s' (%s)" % (line, name, kind)
        base = os.path.join(args.workdir, name)
        with open(base + ".c", "w", encoding="utf-8") as f:
            f.write(source(kind, text))
        if kind == "plugin":
            ok = (run(what + ": build", cc + ["-shared", "-fPIC", base + ".c", "-o", base + ".so"] + link)
                  and run(what + ": load", [loader, base + ".so"]))
        else:
            ok = (run(what + ": build", cc + [base + ".c", "-o", base] + link)
                  and run(what + ": run", [base]))
        print("%s: %s" % (what, "ok" if ok else "FAILED"))
        failed += not ok
    print("%d of %d README snippets passed" % (len(snippets) - failed, len(snippets)))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("program")
    p.add_argument("readme")
    p.add_argument("name")
    c = sub.add_parser("check")
    c.add_argument("readme")
    c.add_argument("--cc", required=True)
    c.add_argument("--include", required=True)
    c.add_argument("--lib", required=True)
    c.add_argument("--workdir", required=True)
    c.add_argument("--flags", default="")
    args = parser.parse_args()
    if args.command == "check":
        return check(args)
    for _, kind, name, text in parse(args.readme):
        if name == args.name:
            sys.stdout.write(source(kind, text))
            return 0
    sys.exit("%s: no snippet named '%s'" % (args.readme, args.name))


if __name__ == "__main__":
    sys.exit(main())
