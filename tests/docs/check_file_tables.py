#!/usr/bin/env python3
"""Checks that docs/architecture.md's tables of files list exactly the
source files of libirm.

usage: check_file_tables.py REPO DOC [--drop PATH] [--add PATH]

The libraries are the folders under registry/, ir/, passes/, backend/ and lib/ whose
CMakeLists.txt calls irm_add_layer; a file belongs to the deepest library
whose folder holds it (ir/dataflow/text/text_lex.c belongs to ir/dataflow).
runtime/ (the runtime headers and the graph runner) and tools/ (the irm
program) are no libraries of libirm but have a table each all the same.
DOC has one table per library, under a heading whose first `code` span is
the library's folder ("#### `ir/dataflow/`: ..."); a row's first cell names
its files relative to that folder (`text/text_lex.c`).

Fails, naming each file and the table it belongs in, when a .c or .h file
under registry/, ir/, passes/, backend/, lib/, runtime/ or tools/ is in no table, when a table names a
file that does not exist, and when a file is in another library's table
or listed twice.

--drop PATH and --add PATH (repo-relative) change DOC's text before the
check, to show that it catches a missing row and a row naming a file that
does not exist: --drop removes the row naming PATH, --add puts a row naming
PATH into the table of PATH's library.
"""
import argparse
import os
import re
import sys

ROOTS = ("registry", "ir", "passes", "backend", "lib", "runtime", "tools")
# Folders with a table of their own that are not irm_add_layer libraries.
OTHER_TABLES = ("runtime", "tools")
HEADING = re.compile(r"^#{2,6}\s.*?`([A-Za-z0-9_./-]+?)/?`")
ROW = re.compile(r"^\s*\|(.*)\|\s*$")
CODE = re.compile(r"`([^`]+)`")
SOURCE = re.compile(r"\.[ch]$")


def libraries(repo):
    """Repo-relative folders of the libraries, deepest first."""
    found = []
    for root in ROOTS:
        for folder, _, files in os.walk(os.path.join(repo, root)):
            if "CMakeLists.txt" not in files:
                continue
            with open(os.path.join(folder, "CMakeLists.txt"), encoding="utf-8") as f:
                if "irm_add_layer(" in f.read():
                    found.append(os.path.relpath(folder, repo).replace(os.sep, "/"))
    found += [t for t in OTHER_TABLES if os.path.isdir(os.path.join(repo, t))]
    return sorted(found, key=lambda p: (-p.count("/"), p))


def library_of(path, libs):
    for lib in libs:
        if path.startswith(lib + "/"):
            return lib
    return None


def sources(repo):
    out = []
    for root in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(repo, root)):
            dirs.sort()
            for name in sorted(files):
                if SOURCE.search(name):
                    out.append(os.path.relpath(os.path.join(folder, name), repo).replace(os.sep, "/"))
    return out


def tables(lines, libs):
    """(library, line number, repo-relative path) for every file a table
    under a library's heading names."""
    rows = []
    current = None
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            m = HEADING.match(line)
            current = m.group(1) if m and m.group(1) in libs else None
            continue
        m = ROW.match(line)
        if current is None or not m:
            continue
        first = m.group(1).split("|")[0]
        for name in CODE.findall(first):
            if SOURCE.search(name):
                rows.append((current, number, current + "/" + name))
    return rows


def plant(lines, libs, drop, add):
    """DOC's lines with the row naming drop removed and a row naming add
    put into its library's table."""
    lines = list(lines)
    if drop:
        lib = library_of(drop, libs)
        hits = [n for l, n, p in tables(lines, libs) if p == drop and l == lib]
        if not hits:
            sys.exit(f"--drop {drop}: no row of the table of `{lib}/` names it")
        del lines[hits[0] - 1]
    if add:
        lib = library_of(add, libs)
        hits = [n for l, n, p in tables(lines, libs) if l == lib]
        if not hits:
            sys.exit(f"--add {add}: there is no table of `{lib}/` to add it to")
        name = add[len(lib) + 1:]
        lines.insert(hits[-1], f"| `{name}` | planted by --add |")
    return lines


def check(repo, lines):
    libs = libraries(repo)
    if not libs:
        return [f"no library found under {', '.join(ROOTS)} of {repo} (no CMakeLists.txt calls irm_add_layer)"]
    problems = []
    listed = {}
    for lib, number, path in tables(lines, libs):
        owner = library_of(path, libs)
        if not os.path.isfile(os.path.join(repo, path)):
            problems.append(f"line {number}: the table of `{lib}/` names {path}, which does not exist "
                            f"(remove the row, or fix the name)")
        elif owner != lib:
            problems.append(f"line {number}: {path} is in the table of `{lib}/` but belongs in the table "
                            f"of `{owner}/`")
        elif path in listed:
            problems.append(f"line {number}: {path} is listed twice in the table of `{lib}/` "
                            f"(first on line {listed[path]})")
        else:
            listed[path] = number
    have_table = {lib for lib, _, _ in tables(lines, libs)}
    for path in sources(repo):
        if path in listed:
            continue
        owner = library_of(path, libs)
        if owner is None:
            problems.append(f"{path} belongs to no library (no CMakeLists.txt with irm_add_layer above it)")
            continue
        hint = "" if owner in have_table else f" (there is none yet: add a heading naming `{owner}/` and a table)"
        problems.append(f"{path} is in no table: add a row to the table of `{owner}/`{hint}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo")
    ap.add_argument("doc")
    ap.add_argument("--drop", help="remove the row naming this file before the check")
    ap.add_argument("--add", help="add a row naming this file before the check")
    args = ap.parse_args()
    with open(args.doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if args.drop or args.add:
        lines = plant(lines, libraries(args.repo), args.drop, args.add)
    problems = check(args.repo, lines)
    if problems:
        print(f"{args.doc}: the tables of files are out of date ({len(problems)} problem(s)):")
        for p in problems:
            print("  " + p)
        return 1
    print(f"{args.doc}: the tables of files list every source file of {', '.join(ROOTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
