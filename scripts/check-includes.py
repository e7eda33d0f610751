#!/usr/bin/env python3
"""check-includes.py — checks that every #include in src/ and python/ points down Kiln's declared folder order.

The order (docs/architecture.md, "Include directions"), top to bottom:

    api → builder → runtime → backends → network → plugin → engine → core

A file may include its own folder and any folder below it. Inside backends/, each backend's folder (cpu, cuda,
null, ...) sits above backends/common, which sits above the interface headers backends/*.h; no backend includes
another backend, and nothing outside a backend's folder includes it (the builder, the runtime and the API reach a
backend through backends/*.h). src/onnx is a client of the public API: it includes the public headers (include/), its own
files and src/core (the few internal helpers the parser links a copy of). python/ includes only the public
headers and its own files. A folder of src/ that is not in the order is an error too, so that a new folder is
placed on purpose.

Usage: scripts/check-includes.py [--root DIR] [--no-allow-list] [--self-test]
Exit status 0 when every include is allowed, 1 on a violation (each is printed as FILE:LINE: message naming the
rule), 2 on bad usage.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# The declared folder order of src/, top (may include everything below) to bottom (includes only itself).
ORDER = ["api", "builder", "runtime", "backends", "network", "plugin", "engine", "core"]

# Inside backends/: a backend folder (any name but "common") → backends/common → backends/*.h.
BACKENDS_SHARED = "common"

# Clients of the public API: the only internal folders each may include besides its own files.
CLIENT_ALLOWED = {
    "onnx": ["core"],
    "python": [],
}
# Single internal headers a client may include besides: python/ generates its LayerType enum and its ILayer
# downcasts from the header-only list of layer kinds, and asks the type of user objects (plugins, creators,
# resources that may come from code compiled without RTTI) through the header-only safeDynamicCast.
CLIENT_HEADERS = {
    "python": ["core/layerKinds.h", "core/runtimeTypeInfo.h"],
}

# Known violations left for the owners of the files to fix (issue #13). Each entry names the including file
# (relative to the repository root) and the included path as written. Keep it empty: an entry here is a debt, and
# an entry that no longer matches any include is reported, so fixed violations leave the list.
ALLOW_LIST = []


def folderUnit(relPath):
    """The unit a path below src/ belongs to: a top folder of ORDER, or "backends/<name>" inside backends/."""
    parts = relPath.split("/")
    if parts[0] == "backends" and len(parts) > 2:
        return "backends/" + parts[1]
    return parts[0]


def unitRank(unit):
    """Position of a src/ unit in the order: (index of its top folder, depth inside backends/); None if unknown."""
    top = unit.split("/")[0]
    if top not in ORDER:
        return None
    if top != "backends":
        return (ORDER.index(top), 0)
    if unit == "backends":
        return (ORDER.index(top), 2)
    if unit == "backends/" + BACKENDS_SHARED:
        return (ORDER.index(top), 1)
    return (ORDER.index(top), 0)


def isBackendFolder(unit):
    return unit.startswith("backends/") and unit != "backends/" + BACKENDS_SHARED


def orderText():
    return " → ".join(ORDER)


def srcRule(fromUnit, toUnit):
    """Why src/<fromUnit> may not include src/<toUnit>, or None when it may."""
    if fromUnit == toUnit:
        return None
    if fromUnit in CLIENT_ALLOWED:
        allowed = CLIENT_ALLOWED[fromUnit]
        if toUnit.split("/")[0] in allowed:
            return None
        extra = " and src/" + ", src/".join(allowed) if allowed else ""
        name = "python/" if fromUnit == "python" else "src/" + fromUnit
        return ("%s is a client of the public API: it may include only include/, its own files%s (not src/%s)"
                % (name, extra, toUnit))
    fromRank = unitRank(fromUnit)
    toRank = unitRank(toUnit)
    for unit, rank in ((fromUnit, fromRank), (toUnit, toRank)):
        if rank is None:
            return ("folder src/%s is not in the declared order (%s); place it in ORDER in scripts/check-includes.py"
                    % (unit.split("/")[0], orderText()))
    if isBackendFolder(fromUnit) and isBackendFolder(toUnit):
        return "no backend includes another backend (src/%s must not include src/%s)" % (fromUnit, toUnit)
    if isBackendFolder(toUnit):
        return ("a backend's folder is private to that backend: the rest of Kiln reaches it through "
                "backends/*.h (src/%s must not include src/%s)" % (fromUnit, toUnit))
    if toRank > fromRank:
        return None
    if fromRank[0] == toRank[0]:
        return ("inside backends/, a backend's folder may include backends/%s and backends/*.h, backends/%s only "
                "backends/*.h, and backends/*.h neither (src/%s must not include src/%s)"
                % (BACKENDS_SHARED, BACKENDS_SHARED, fromUnit, toUnit))
    return "includes point down %s: src/%s must not include src/%s" % (orderText(), fromUnit, toUnit)


INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
SOURCE_SUFFIXES = (".h", ".hpp", ".hh", ".inl", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh")


def sourceFiles(top):
    for dirPath, dirNames, fileNames in os.walk(top):
        dirNames.sort()
        for name in sorted(fileNames):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirPath, name)


def resolve(root, filePath, written, quoted):
    """Where an include lands: ("src", path below src/), ("public", ...), ("local", ...) or None (system, third
    party or generated). Quoted includes search the including file's folder first, as the compiler does."""
    candidates = []
    if quoted:
        candidates.append(("local", os.path.dirname(filePath)))
    candidates.append(("src", os.path.join(root, "src")))
    candidates.append(("public", os.path.join(root, "include")))
    for kind, base in candidates:
        full = os.path.normpath(os.path.join(base, written))
        if os.path.isfile(full):
            rel = os.path.relpath(full, os.path.join(root, "src"))
            if not rel.startswith(".."):
                return ("src", rel.replace(os.sep, "/"))
            return (kind, full)
    return None


def check(root, allowList):
    """Every violation as (file, line, included, rule), plus the allow-list entries that matched nothing."""
    violations = []
    allowed = set(allowList)
    used = set()
    scanned = [("src", os.path.join(root, "src")), ("python", os.path.join(root, "python"))]
    for area, top in scanned:
        if not os.path.isdir(top):
            continue
        for path in sourceFiles(top):
            relFile = os.path.relpath(path, root).replace(os.sep, "/")
            if area == "src":
                fromUnit = folderUnit(os.path.relpath(path, top).replace(os.sep, "/"))
            else:
                fromUnit = "python"
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineNo, line in enumerate(f, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    written = m.group(2).strip()
                    target = resolve(root, path, written, m.group(1) == '"')
                    if target is None or target[0] != "src":
                        continue
                    if target[1] in CLIENT_HEADERS.get(fromUnit, []):
                        continue
                    rule = srcRule(fromUnit, folderUnit(target[1]))
                    if rule is None:
                        continue
                    key = (relFile, written)
                    if key in allowed:
                        used.add(key)
                        continue
                    violations.append((relFile, lineNo, written, rule))
    stale = [entry for entry in allowList if entry not in used]
    return violations, stale


def report(violations, stale):
    for relFile, lineNo, written, rule in violations:
        print('%s:%d: #include "%s": %s' % (relFile, lineNo, written, rule))
    for relFile, written in stale:
        print('scripts/check-includes.py: ALLOW_LIST entry (%s, %s) matches no include any more; remove it'
              % (relFile, written))
    if violations or stale:
        print("check-includes: %d violation(s), %d stale allow-list entr%s"
              % (len(violations), len(stale), "y" if len(stale) == 1 else "ies"))
        return 1
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Self-test: small fake trees, each checked by running this script on it.
# ---------------------------------------------------------------------------------------------------------------

def writeTree(root, files):
    for rel, text in files.items():
        full = os.path.join(root, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


CLEAN_TREE = {
    "include/NvInfer.h": "#pragma once\n",
    "src/core/status.h": "#pragma once\n#include <string>\n",
    "src/engine/plan.h": '#pragma once\n#include "core/status.h"\n',
    "src/plugin/adapter.h": '#pragma once\n#include "engine/plan.h"\n#include "NvInfer.h"\n',
    "src/network/layer.h": '#pragma once\n#include "plugin/adapter.h"\n#include "layerHelper.h"\n',
    "src/network/layerHelper.h": "#pragma once\n",
    "src/backends/kernel.h": '#pragma once\n#include "engine/plan.h"\n',
    "src/backends/common/params.h": '#pragma once\n#include "backends/kernel.h"\n#include "network/layer.h"\n',
    "src/backends/cpu/conv.cpp": '#include "backends/common/params.h"\n#include "backends/cpu/conv.h"\n',
    "src/backends/cpu/conv.h": "#pragma once\n",
    "src/backends/cuda/conv.cu": '#include "../common/params.h"\n#include <cuda_runtime.h>\n',
    "src/runtime/context.cpp": '#include "backends/kernel.h"\n#include "core/status.h"\n',
    "src/builder/pass.cpp": '#include "runtime/context.h"\n#include "backends/common/params.h"\n',
    "src/runtime/context.h": "#pragma once\n",
    "src/api/entry.cpp": '#include "builder/pass.h"\n#include "runtime/context.h"\n',
    "src/builder/pass.h": "#pragma once\n",
    "src/onnx/parser.cpp": '#include "NvInfer.h"\n#include "core/status.h"\n#include "onnx/onnx_pb.h"\n',
    "python/src/module.cpp": '#include "NvInfer.h"\n#include "bindings.h"\n',
    "python/src/bindings.h": "#pragma once\n",
}

# (name, extra files, text the output must contain); each case adds one violation to the clean tree.
BAD_CASES = [
    ("core includes network", {"src/core/bad.h": '#pragma once\n#include <vector>\n#include "network/layer.h"\n'},
     'src/core/bad.h:3: #include "network/layer.h": includes point down'),
    ("engine includes plugin", {"src/engine/bad.cpp": '#include "plugin/adapter.h"\n'},
     "src/engine must not include src/plugin"),
    ("cuda includes cpu", {"src/backends/cuda/bad.cu": '#include "backends/cpu/conv.h"\n'},
     "no backend includes another backend"),
    ("common includes cpu", {"src/backends/common/bad.h": '#include "../cpu/conv.h"\n'},
     "src/backends/common must not include src/backends/cpu"),
    ("builder includes cpu", {"src/builder/bad.cpp": '#include "backends/cpu/conv.h"\n'},
     "a backend's folder is private to that backend"),
    ("interface includes common", {"src/backends/bad.h": '#include "backends/common/params.h"\n'},
     "src/backends must not include src/backends/common"),
    ("backends include runtime", {"src/backends/cpu/bad.cpp": '#include "runtime/context.h"\n'},
     "src/backends/cpu must not include src/runtime"),
    ("onnx includes network", {"src/onnx/bad.cpp": '#include "network/layer.h"\n'},
     "src/onnx is a client of the public API"),
    ("python includes core", {"python/src/bad.cpp": '#include "core/status.h"\n'},
     'python/src/bad.cpp:1: #include "core/status.h": python/ is a client of the public API'),
    ("unknown folder", {"src/extras/x.cpp": '#include "core/status.h"\n'},
     "folder src/extras is not in the declared order"),
    ("angle-bracket include", {"src/plugin/bad.cpp": "#include <builder/pass.h>\n"},
     "src/plugin must not include src/builder"),
]


def runOn(root, extraArgs=()):
    result = subprocess.run([sys.executable, os.path.abspath(__file__), "--root", root, "--no-allow-list",
                             *extraArgs], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def selfTest():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = os.path.join(tmp, "clean")
        writeTree(clean, CLEAN_TREE)
        code, out = runOn(clean)
        if code != 0:
            failures.append("the clean tree failed (exit %d):\n%s" % (code, out))
        for i, (name, extra, expected) in enumerate(BAD_CASES):
            tree = os.path.join(tmp, "case%d" % i)
            writeTree(tree, CLEAN_TREE)
            writeTree(tree, extra)
            code, out = runOn(tree)
            if code != 1 or expected not in out:
                failures.append("case '%s': expected exit 1 and %r, got exit %d:\n%s" % (name, expected, code, out))
        # The allow-list: a listed violation passes, an entry that matches nothing fails.
        listed = os.path.join(tmp, "listed")
        writeTree(listed, CLEAN_TREE)
        writeTree(listed, {"src/core/bad.h": '#include "network/layer.h"\n'})
        violations, stale = check(listed, [("src/core/bad.h", "network/layer.h")])
        if violations or stale:
            failures.append("an allow-listed violation was reported: %r %r" % (violations, stale))
        violations, stale = check(clean, [("src/core/gone.h", "network/layer.h")])
        if stale != [("src/core/gone.h", "network/layer.h")]:
            failures.append("a stale allow-list entry was not reported: %r" % (stale,))
    if failures:
        print("check-includes self-test FAILED:\n" + "\n".join(failures))
        return 1
    print("check-includes self-test: %d violation cases, the clean tree and the allow-list behave as expected"
          % len(BAD_CASES))
    return 0


def main():
    parser = argparse.ArgumentParser(description="Check include directions in src/ and python/.")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="repository root to check (default: this script's repository)")
    parser.add_argument("--no-allow-list", action="store_true", help="report the allow-listed violations too")
    parser.add_argument("--self-test", action="store_true", help="check fake trees with known violations")
    args = parser.parse_args()
    if args.self_test:
        return selfTest()
    if not os.path.isdir(os.path.join(args.root, "src")):
        print("check-includes: %s has no src/ folder" % args.root)
        return 2
    violations, stale = check(args.root, [] if args.no_allow_list else ALLOW_LIST)
    code = report(violations, stale)
    if code == 0:
        print("check-includes: every include in src/ and python/ follows %s" % orderText())
    return code


if __name__ == "__main__":
    sys.exit(main())
