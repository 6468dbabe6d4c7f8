#!/usr/bin/python3
"""Runs the ONNX backend conformance tests (Debian's libonnx-testdata) through
int21-compile and int21-run, and tracks which of them pass.

Each test is compiled once for the CPU (or --target, e.g. sm_90 for the GPU:
the tests of the CPU's pass list are then expected to pass on the GPU too);
every test_data_set_K is then run with
its input_J.pb files (matched by position to the graph inputs that are not
initializers) and compared with its output_J.pb files at ONNX's backend-test
tolerances. A test passes when every data set matches, is 'unsupported' when
int21-compile rejects an op or a type it does not support, and fails otherwise.

Needs Debian's /usr/bin/python3 (python3-onnx, python3-numpy).
"""

import argparse
import collections
import concurrent.futures
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_ROOT = "/usr/share/libonnx-testdata/data"
SETS = ["node", "pytorch-converted", "pytorch-operator", "simple"]

# onnx/backend/test/loader: every test uses these unless its data.json says
# otherwise (only the downloadable 'real' models have one).
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-7

# How a compile error is classified, first match wins: (regex, status, group).
# 'unsupported' means int21 rejects an op or a type it does not support yet
# (the importer's message for an unknown op, an op naming an unsupported type,
# attribute value or mode of its own); anything else is a failure.
COMPILE_ERRORS = [
    # One op, or a list of them: the test counts under the first.
    (r"unsupported ONNX ops?: ([\w.]+)", "unsupported", "unsupported op {0}"),
    # libonnx rejecting the model is not int21 lacking a feature.
    (r"ONNX shape inference failed", "fail", "compile: ONNX shape inference failed"),
    (r"element type (\w+), which int21 does not support", "unsupported",
     "unsupported element type {0}"),
    (r"is not a tensor; int21 imports tensor inputs only", "unsupported",
     "unsupported non-tensor input (sequence, optional)"),
    # Models whose ops all live in another domain (ai.onnx.preview.training).
    (r"imports no opset of the default ONNX domain", "unsupported",
     "unsupported: no opset of the default ONNX domain"),
    (r"\b(not supported|unsupported|does not support)\b", "unsupported", None),
]

Test = collections.namedtuple("Test", "set name dir")
Result = collections.namedtuple("Result", "test status reason group seconds")


def test_id(test):
    return f"{test.set}/{test.name}"


def is_expanded(test):
    return test.name.endswith("_expanded")


def one_line(text, limit=300):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def tool_error(output, tool):
    """The tool's own error line ('int21-compile: error: ...') or, failing
    that, the last non-empty line of its output."""
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    prefix = f"{tool}: error: "
    for line in lines:
        if line.startswith(prefix):
            return line[len(prefix):]
    return lines[-1] if lines else "(no output)"


def strip_path(message, path):
    """Drops the leading 'FILE: ' that int21-compile puts before a message."""
    for p in (path, os.path.basename(path)):
        if message.startswith(p + ": "):
            return message[len(p) + 2:]
    return message


def normalise(message):
    """A message with its test-specific parts (node names, quoted names, file
    names, numbers, shapes) replaced, so that like errors group together."""
    message = re.sub(r"\(?node '[^']*'\)?:?\s*", "", message)
    message = re.sub(r"\S*/(\S+\.pb)", r"\1", message)
    message = re.sub(r"\b(input|output)_\d+\.pb", r"\1_K.pb", message)
    message = re.sub(r"'[^']*'", "'_'", message)
    message = re.sub(r"\s*\([^()]*\)", "", message)
    message = re.sub(r"\[[\dx, ]*\]", "[...]", message)
    message = re.sub(r"\b\d+(\.\d+)?(e[+-]?\d+)?\b", "N", message)
    return one_line(message, 120)


def classify_compile_error(message):
    """(status, group) of a compile error message."""
    for pattern, status, group in COMPILE_ERRORS:
        m = re.search(pattern, message)
        if m:
            if group is None:
                return status, f"{status}: {normalise(message)}"
            return status, group.format(*m.groups())
    # Group failures by what went wrong, not by the op it went wrong in.
    return "fail", "compile: " + re.sub(r"^[A-Z]\w*: ", "", normalise(message))


def signal_name(returncode):
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


class Timeout(Exception):
    pass


def run_tool(cmd, deadline):
    """Runs cmd in its own process group; returns (returncode, output). Kills
    the whole group and raises Timeout when the deadline passes."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise Timeout()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=remaining)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise Timeout()
    return proc.returncode, out.decode("utf-8", errors="replace")


def data_sets(test_dir):
    sets = []
    for entry in os.listdir(test_dir):
        m = re.fullmatch(r"test_data_set_(\d+)", entry)
        if m and os.path.isdir(os.path.join(test_dir, entry)):
            sets.append((int(m.group(1)), entry))
    return [os.path.join(test_dir, e) for _, e in sorted(sets)]


def numbered_files(directory, stem):
    """{J: path} for DIR/STEM_J.pb."""
    files = {}
    for entry in os.listdir(directory):
        m = re.fullmatch(stem + r"_(\d+)\.pb", entry)
        if m:
            files[int(m.group(1))] = os.path.join(directory, entry)
    return files


def tolerances(test_dir):
    rtol, atol = DEFAULT_RTOL, DEFAULT_ATOL
    path = os.path.join(test_dir, "data.json")
    if os.path.exists(path):
        try:
            with open(path) as f:
                data = json.load(f)
            rtol = float(data.get("rtol", rtol))
            atol = float(data.get("atol", atol))
        except (OSError, ValueError, TypeError, AttributeError):
            pass
    return rtol, atol


def input_sources(model_path, value, inputs):
    """The graph inputs among `inputs` that `value` is computed from (itself
    when it is one), in graph order."""
    if value in inputs:
        return [value]
    import onnx

    try:
        graph = onnx.load(model_path, load_external_data=False).graph
    except Exception:
        return []
    producer = {out: node for node in graph.node for out in node.output}
    found, seen, stack = set(), set(), [value]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in inputs:
            found.add(v)
        elif v in producer:
            stack.extend(i for i in producer[v].input if i)
    return [i for i in inputs if i in found]


def model_signature(model_path):
    """(input names, output count) of the model, or raises ValueError."""
    import onnx

    try:
        model = onnx.load(model_path, load_external_data=False)
    except Exception as e:  # onnx raises DecodeError, OSError, ...
        raise ValueError(f"cannot read the model: {one_line(str(e), 120)}")
    initializers = {init.name for init in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    return inputs, len(model.graph.output)


def run_test(test, args, scratch):
    start = time.monotonic()
    deadline = start + args.timeout

    def result(status, reason="", group=""):
        return Result(test, status, reason, group, time.monotonic() - start)

    engine = os.path.join(scratch, f"{test.set}__{test.name}.int21")
    try:
        return _run_test(test, args, engine, deadline, result)
    except Timeout:
        return result("fail", f"timeout after {args.timeout:g} s", "timeout")
    except Exception as e:  # the runner itself must never stop on one test
        return result("fail", f"runner error: {type(e).__name__}: {one_line(str(e))}",
                      "runner error")
    finally:
        try:
            os.remove(engine)
        except OSError:
            pass


CONSTANT_INPUT = re.compile(r"input '[^']*' \((.+?)\) must be a constant")
# A GPU engine refuses outputs shaped by input values (parameters the CPU
# reads at run time): those parameters, the inputs of rank 0 or 1, are frozen.
RUNTIME_SHAPED = re.compile(r"has a shape computed at run time")


def parameter_inputs(model_path, inputs):
    """The inputs of `inputs` of rank 0 or 1 (shapes, scales, axes, K)."""
    import onnx

    model = onnx.load(model_path, load_external_data=False)
    ranks = {i.name: len(i.type.tensor_type.shape.dim)
             for i in model.graph.input if i.type.HasField("tensor_type")}
    return [n for n in inputs if ranks.get(n, 2) <= 1]


def compile_model(args, model, engine, deadline, frozen=()):
    """Compiles model; returns (None, None) or (error message, rc)."""
    cmd = [args.compile, model, f"--target={args.target}", "-o", engine]
    for name, path in frozen:
        cmd += ["--freeze-input", f"{name}={path}"]
    rc, out = run_tool(cmd, deadline)
    if rc == 0:
        return None, 0
    if rc < 0:
        return None, rc
    return strip_path(tool_error(out, "int21-compile"), model), rc


def _run_test(test, args, engine, deadline, result):
    model = os.path.join(test.dir, "model.onnx")
    if not os.path.isfile(model):
        return result("fail", "no model.onnx", "bad test data")
    try:
        inputs, num_outputs = model_signature(model)
    except ValueError as e:
        inputs, num_outputs = None, None
        signature_error = str(e)
    sets = data_sets(test.dir)

    def compile_error(message, rc):
        if rc < 0:
            return result("fail", f"compile: crashed ({signal_name(rc)})",
                          f"compile crash ({signal_name(rc)})")
        status, group = classify_compile_error(message)
        return result(status, message if status == "unsupported" else "compile: " + message,
                      group)

    message, rc = compile_model(args, model, engine, deadline)
    # int21 compiles for static shapes. A test whose shapes, axes or bounds
    # come from graph inputs is compiled once per data set with those inputs
    # frozen to the data set's values (int21-compile --freeze-input), and
    # counts as passing "specialised".
    # A value computed from graph inputs freezes those inputs.
    sources = lambda value: input_sources(model, value, inputs)
    parameters = (parameter_inputs(model, inputs)
                  if rc > 0 and inputs is not None and
                  RUNTIME_SHAPED.search(message or "") else [])
    specialise = (rc > 0 and inputs is not None and sets and
                  (((m := CONSTANT_INPUT.search(message)) and
                    sources(m.group(1))) or parameters))
    if rc != 0 and not specialise:
        return compile_error(message, rc)
    if not specialise and not os.path.isfile(engine):
        return result("fail", "compile: exited 0 without writing the engine",
                      "compile: no engine")
    if inputs is None:
        return result("fail", signature_error, "bad test data")
    if not sets:
        return result("fail", "no test_data_set_K", "bad test data")
    rtol, atol = tolerances(test.dir)
    frozen_names = []
    for data_dir in sets:
        name = os.path.basename(data_dir)
        files = numbered_files(data_dir, "input")
        if sorted(files) != list(range(len(inputs))):
            return result("fail", f"{name}: input files {sorted(files)} do not match "
                          f"the {len(inputs)} graph inputs", "bad test data")
        outputs = numbered_files(data_dir, "output")
        missing = [k for k in range(num_outputs) if k not in outputs]
        if missing:
            return result("fail", f"{name}: no output_{missing[0]}.pb", "bad test data")
        frozen = {}
        if specialise:
            constant = CONSTANT_INPUT.search(message)
            names = frozen_names or (sources(constant.group(1)) if constant
                                     else parameters)
            frozen = {n: files[inputs.index(n)] for n in names}
            while True:
                message, rc = compile_model(args, model, engine, deadline,
                                            sorted(frozen.items()))
                if rc == 0:
                    break
                m = CONSTANT_INPUT.search(message or "")
                more = [v for v in sources(m.group(1)) if v not in frozen] if m and rc > 0 else []
                if not more:
                    return compile_error(message, rc)
                frozen.update((v, files[inputs.index(v)]) for v in more)
            frozen_names = sorted(frozen)
        cmd = [args.run, engine]
        for j, input_name in enumerate(inputs):
            if input_name not in frozen:
                cmd += ["--input", f"{input_name}={files[j]}"]
        cmd += ["--expect", data_dir, "--rtol", repr(rtol), "--atol", repr(atol),
                "--threads", str(args.threads)]
        rc_run, out = run_tool(cmd, deadline)
        if rc_run < 0:
            return result("fail", f"{name}: run crashed ({signal_name(rc_run)})",
                          f"run crash ({signal_name(rc_run)})")
        if rc_run != 0:
            beyond = [l.strip() for l in out.splitlines()
                      if l.startswith("output ") and " beyond " in l]
            if beyond:
                return result("fail", f"{name}: {beyond[0]}", "mismatch")
            message = tool_error(out, "int21-run").replace(data_dir + "/", "")
            return result("fail", f"{name}: run: {message}", "run: " + normalise(message))
    if specialise:
        return result("pass", "specialised: frozen input(s) " + ", ".join(frozen_names),
                      "specialised")
    return result("pass")


def discover(data_root, sets, pattern):
    tests = []
    for s in sets:
        set_dir = os.path.join(data_root, s)
        if not os.path.isdir(set_dir):
            continue
        for name in sorted(os.listdir(set_dir)):
            test = Test(s, name, os.path.join(set_dir, name))
            if not os.path.isdir(test.dir):
                continue
            if pattern and not pattern.search(test_id(test)):
                continue
            tests.append(test)
    return tests


SPECIALISED = "specialised"


def read_pass_list(path):
    """The tests a pass list names, each mapped to whether it may pass
    specialised on frozen inputs (an entry marked "specialised"); any other
    must pass as compiled, its parameters read at run time."""
    if not os.path.exists(path):
        return {}
    entries = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            entries[fields[0]] = fields[1:] == [SPECIALISED]
    return entries


def selected(entry, sets, pattern):
    """Whether a pass-list entry falls inside this run's --sets/--filter."""
    s = entry.split("/", 1)[0]
    return s in sets and (not pattern or pattern.search(entry))


def write_results(path, results):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    rows = sorted(results, key=lambda r: (r.test.set, r.test.name))
    with open(path, "w") as f:
        if path.endswith(".tsv"):
            f.write("test\tset\tstatus\treason\n")
            for r in rows:
                f.write(f"{r.test.name}\t{r.test.set}\t{r.status}\t"
                        f"{r.reason.replace(chr(9), ' ')}\n")
            return
        f.write("# int21 ONNX conformance results\n\n")
        f.write("| test | set | status | reason |\n|---|---|---|---|\n")
        for r in rows:
            reason = r.reason.replace("|", "\\|")
            f.write(f"| {r.test.name} | {r.test.set} | {r.status} | {reason} |\n")


def counts_line(label, results):
    c = collections.Counter(r.status for r in results)
    specialised = sum(1 for r in results if r.status == "pass" and r.group == "specialised")
    note = f" ({specialised} specialised on frozen inputs)" if specialised else ""
    return (f"{label}: {c['pass']} passed{note}, {c['fail']} failed, "
            f"{c['unsupported']} unsupported, {len(results)} total")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS),
                        help="comma-separated data sets (default: %(default)s)")
    parser.add_argument("--filter", help="run only tests whose SET/TEST matches this regex")
    parser.add_argument("--target", default="cpu",
                        help="int21-compile --target of every test: cpu, or an "
                             "NVIDIA chip such as sm_90 (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="tests run in parallel (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of each int21-run (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds for one test, compile and runs (default: %(default)s)")
    parser.add_argument("--tools", default=os.path.join(ROOT, "build", "bin"),
                        help="directory of int21-compile and int21-run (default: build/bin)")
    parser.add_argument("--data", default=DATA_ROOT,
                        help="libonnx-testdata's data directory (default: %(default)s)")
    parser.add_argument("--results",
                        help="result table, markdown or .tsv (default: "
                             "build/conformance/results.md, results-TARGET.md "
                             "for other targets than cpu)")
    parser.add_argument("--pass-list", default=os.path.join(ROOT, "test", "conformance",
                                                            "passing.txt"),
                        help="tests expected to pass (default: test/conformance/passing.txt)")
    parser.add_argument("--update-pass-list", action="store_true",
                        help="rewrite the pass list with the tests that pass now")
    parser.add_argument("--pass-list-only", action="store_true",
                        help="run only the tests of the pass list (with --target, "
                             "checks the GPU on what passes on the CPU)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a test in the pass list does not pass now")
    parser.add_argument("--top", type=int, default=10,
                        help="failure and unsupported groups to summarise (default: %(default)s)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every test that does not pass as it finishes")
    args = parser.parse_args()
    if args.results is None:
        name = "results.md" if args.target == "cpu" else f"results-{args.target}.md"
        args.results = os.path.join(ROOT, "build", "conformance", name)
    if args.update_pass_list and args.target != "cpu":
        parser.error("--update-pass-list: the pass list is the CPU's; run it "
                     "with --target=cpu")

    sets = [s for s in args.sets.split(",") if s]
    for s in sets:
        if not os.path.isdir(os.path.join(args.data, s)):
            parser.error(f"no data set '{s}' in {args.data}")
    try:
        pattern = re.compile(args.filter) if args.filter else None
    except re.error as e:
        parser.error(f"--filter: {e}")
    args.compile = os.path.join(args.tools, "int21-compile")
    args.run = os.path.join(args.tools, "int21-run")
    for tool in (args.compile, args.run):
        if not os.access(tool, os.X_OK):
            parser.error(f"no executable {tool} (build first, or pass --tools)")
    if importlib.util.find_spec("onnx") is None:
        parser.error("needs the onnx module: run with Debian's /usr/bin/python3 "
                     "(python3-onnx)")

    tests = discover(args.data, sets, pattern)
    if args.pass_list_only:
        if args.update_pass_list:
            parser.error("--pass-list-only and --update-pass-list exclude each other")
        wanted = set(read_pass_list(args.pass_list))
        tests = [t for t in tests if test_id(t) in wanted]
    start = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="int21-conformance-") as scratch:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(run_test, t, args, scratch) for t in tests]
            for future in concurrent.futures.as_completed(futures):
                r = future.result()
                results.append(r)
                if args.verbose and r.status != "pass":
                    print(f"{r.status.upper()}: {test_id(r.test)}: {r.reason}", flush=True)
    elapsed = time.monotonic() - start

    write_results(args.results, results)
    passing = sorted(test_id(r.test) for r in results if r.status == "pass")
    listed = read_pass_list(args.pass_list)
    status = 0

    # Groups of what does not pass, largest first.
    for kind in ("fail", "unsupported"):
        groups = collections.Counter(r.group for r in results if r.status == kind)
        if not groups:
            continue
        print(f"largest {kind} groups:")
        for group, n in groups.most_common(args.top):
            print(f"  {n:4d}  {group}")
    slowest = max(results, key=lambda r: r.seconds, default=None)
    print(f"{len(results)} tests in {elapsed:.1f} s with {args.jobs} jobs"
          + (f" (slowest: {test_id(slowest.test)}, {slowest.seconds:.1f} s)"
             if slowest else ""))
    print(f"results: {args.results}")

    if args.check:
        # Regressions go to stderr, where lit shows them when FileCheck
        # reads stdout.
        by_id = {test_id(r.test): r for r in results}

        # (The pass list is the CPU's: GPU engines take static shapes, so a
        # test whose parameters the CPU reads at run time passes there
        # specialised.)
        def regressed(e):
            r = by_id.get(e)
            return (r is None or r.status != "pass" or
                    (args.target == "cpu" and r.group == SPECIALISED and
                     not listed[e]))

        regressions = [e for e in listed if selected(e, sets, pattern)
                       and regressed(e)]
        for e in regressions:
            r = by_id.get(e)
            why = f"{r.status}: {r.reason}" if r else "no such test"
            if r and r.status == "pass":
                why = f"passes only {r.reason}, listed as passing without"
            print(f"REGRESSION: {e}: {why}", file=sys.stderr)
        for e in passing:
            if e not in listed:
                print(f"NOTICE: {e} passes now but is not in {args.pass_list} "
                      "(run with --update-pass-list)")
            elif (listed[e] and by_id[e].group != SPECIALISED and
                  args.target == "cpu"):
                print(f"NOTICE: {e} passes without specialisation now "
                      "(run with --update-pass-list)")
        if regressions:
            print(f"{len(regressions)} tests of {args.pass_list} do not pass",
                  file=sys.stderr)
            status = 1

    if args.update_pass_list:
        entries = {e: special for e, special in listed.items()
                   if not selected(e, sets, pattern)}
        for r in results:
            if r.status == "pass":
                entries[test_id(r.test)] = r.group == SPECIALISED
        header = []
        if os.path.exists(args.pass_list):
            with open(args.pass_list) as f:
                header = [l for l in f if l.startswith("#")]
        os.makedirs(os.path.dirname(os.path.abspath(args.pass_list)), exist_ok=True)
        with open(args.pass_list, "w") as f:
            f.writelines(header)
            f.writelines(e + (" " + SPECIALISED if entries[e] else "") + "\n"
                         for e in sorted(entries))
        print(f"wrote {len(entries)} tests to {args.pass_list}")

    for s in sets:
        in_set = [r for r in results if r.test.set == s]
        print(counts_line(s, [r for r in in_set if not is_expanded(r.test)]))
        expanded = [r for r in in_set if is_expanded(r.test)]
        if expanded:
            print(counts_line(f"{s} (_expanded)", expanded))
    return status


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
