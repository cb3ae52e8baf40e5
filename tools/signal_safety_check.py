#!/usr/bin/python3
"""Checks that code marked JVMKIT_SIGNAL_SAFE calls only what may run in a signal handler.

Usage: tools/signal_safety_check.py BUILD_DIR [--verbose] [--project DIR]

BUILD_DIR is a configured build tree (its compile_commands.json names the sources and flags).
--project names the source tree whose src/ and include/ are "the project" (default: the one this
script is in; the self-test points it at fixtures).
Every source file of src/ is parsed with libclang, where the marker (src/base/signal_safe.hpp)
becomes the annotation "jvmkit_signal_safe". The check fails (exit status 1) when

  - a marked function calls a function of the project that is not marked,
  - a marked function calls a library function that is not on SAFE_LIBRARY_CALLS below,
  - a function installed as a signal handler (assigned to sa_sigaction or sa_handler) is not
    marked.

Calls through a function pointer (AsyncGetCallTrace, JavaVM::GetEnv, an agent's callback) cannot
be resolved statically and are listed with --verbose; each such call is documented where it is
made. Compiler-generated functions (implicit constructors, operators of aggregates) are accepted.

Exit status: 0 clean, 1 violations found, 2 the check could not run (no libclang, no build tree).
"""

import json
import multiprocessing
import os
import shlex
import sys

try:
    import clang.cindex as ci
except ImportError:  # pragma: no cover - reported to the user
    print("signal_safety_check: python3-clang is missing (apt-get install python3-clang-14)", file=sys.stderr)
    sys.exit(2)

MARK = "jvmkit_signal_safe"

# Library functions a marked function may call: POSIX's async-signal-safe list as far as the
# project needs it, C string/memory functions that touch only their arguments, atomics, and pure
# helpers of the C++ library that neither allocate nor lock. Keyed by qualified name; an entry
# ending in "::" admits every member of that class or namespace.
SAFE_LIBRARY_CALLS = {
    # POSIX async-signal-safe system calls and C functions.
    "syscall", "write", "clock_gettime", "getpid", "sigemptyset", "sigaddset", "pthread_self",
    "pthread_sigmask", "sigprocmask", "abort", "_exit", "timer_settime",
    # Memory and string functions that touch only their arguments.
    "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp",
    "std::memcpy", "std::memmove", "std::memset", "std::memcmp", "std::strlen", "std::strcmp",
    "std::abort",
    # Thread-specific data: a read of the thread's own key array, no lock (not on POSIX's list, but
    # safe in glibc, and HotSpot's own signal handler relies on it).
    "pthread_getspecific",
    # errno (a thread-local) is read and restored by handlers.
    "__errno_location",
    # Atomics: lock-free on x86-64 for the sizes used (checked by static_asserts where it matters).
    "std::atomic::", "std::__atomic_base::", "std::__atomic_float::", "std::atomic_ref::",
    "std::atomic_signal_fence", "std::atomic_thread_fence",
    # Pure helpers: no allocation, no lock.
    "std::min", "std::max", "std::clamp", "std::array::", "std::numeric_limits::", "std::size",
    "std::begin", "std::end", "std::move", "std::forward", "std::swap", "std::exchange",
    "std::bit_cast", "std::countr_zero", "std::countl_zero", "std::has_single_bit", "std::bit_ceil",
    "std::optional::", "std::unique_ptr::operator[]", "std::unique_ptr::get", "std::nullopt_t::",
    # Reads of a vector nobody changes while signal code reads it (an immutable snapshot).
    "std::vector::size", "std::vector::empty", "std::vector::operator[]", "std::vector::data",
    # Implicit constructors of C structs (a copy of the ucontext).
    "ucontext_t::ucontext_t", "std::_Optional_base::", "std::_Optional_payload_base::",
    "std::operator==", "std::operator!=", "std::operator<", "std::operator>", "std::operator<=",
    "std::operator>=", "std::operator|", "std::operator&", "std::operator~",
    # JNI's invocation interface: HotSpot's GetEnv with a JNI version reads the thread's
    # thread-local and nothing else (its first read on a thread HotSpot is still starting can
    # malloc, which the capture rules out before it calls GetEnv).
    "JavaVM_::GetEnv",
    # The public stack-walk API documents RequestStackTrace(thread = NULL) as async-signal-safe; a
    # marked caller passes NULL (an agent's handler asking for the current thread).
    "RequestStackTrace",
    # Compiler builtins that read the current frame's registers (no call at all).
    "__builtin_frame_address", "__builtin_return_address",
}

# Calls that a marked function makes only on a path that never runs in signal context, with the
# reason. Keyed by (caller, callee) qualified names.
OUTSIDE_SIGNAL_CONTEXT = {
    ("RequestStackTrace", "jvmkit::walk::Library::instance"):
        "only for a thread other than the current one (thread != NULL), which the API does not "
        "allow in a signal handler",
    ("RequestStackTrace", "jvmkit::walk::Library::request_thread"):
        "the same: thread != NULL",
    ("JvmkitRequestStackTraceNative", "jvmkit::walk::Library::instance"):
        "as RequestStackTrace: only for thread != NULL",
    ("JvmkitRequestStackTraceNative", "jvmkit::walk::Library::request_thread"):
        "the same: thread != NULL",
}

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCTION_KINDS = {
    ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD, ci.CursorKind.CONSTRUCTOR,
    ci.CursorKind.DESTRUCTOR, ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.CONVERSION_FUNCTION,
}


def in_project(cursor):
    location = cursor.location.file
    if location is None:
        return False
    path = os.path.abspath(location.name)
    return path.startswith(os.path.join(PROJECT, "src") + os.sep) or path.startswith(
        os.path.join(PROJECT, "include") + os.sep)


def is_marked(cursor):
    return any(kind_of(c) == ci.CursorKind.ANNOTATE_ATTR and c.spelling == MARK for c in cursor.get_children())


def qualified_name(cursor):
    parts = []
    c = cursor
    while c is not None and kind_of(c) != ci.CursorKind.TRANSLATION_UNIT:
        if kind_of(c) in (ci.CursorKind.NAMESPACE, ci.CursorKind.CLASS_DECL, ci.CursorKind.STRUCT_DECL,
                      ci.CursorKind.CLASS_TEMPLATE, ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
                      ci.CursorKind.UNION_DECL) or kind_of(c) in FUNCTION_KINDS:
            if c.spelling and not c.spelling.startswith("__cxx"):
                parts.append(c.spelling.split("<")[0])
        c = c.semantic_parent
    return "::".join(reversed(parts))


def library_call_is_safe(name):
    if name in SAFE_LIBRARY_CALLS:
        return True
    for entry in SAFE_LIBRARY_CALLS:
        if entry.endswith("::") and name.startswith(entry):
            return True
    return False


def load_compile_commands(build_dir):
    path = os.path.join(build_dir, "compile_commands.json")
    if not os.path.exists(path):
        print(f"signal_safety_check: {path} not found (configure the build tree first)", file=sys.stderr)
        sys.exit(2)
    with open(path) as f:
        entries = json.load(f)
    seen = {}
    for e in entries:
        source = os.path.abspath(os.path.join(e["directory"], e["file"]))
        if not source.startswith(os.path.join(PROJECT, "src") + os.sep) or source in seen:
            continue
        args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
        keep = []
        skip = False
        for a in args[1:]:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c"):
                skip = a == "-o"
                continue
            if a == source or a == e["file"] or a.startswith("-fsanitize") or a.startswith("-W"):
                continue
            keep.append(a)
        seen[source] = (e["directory"], keep)
    return seen


def relevant(source):
    """Whether SOURCE can define a marked function or install a handler: it mentions the marker or
    sigaction, or includes a project header that mentions the marker."""
    with open(source, errors="replace") as f:
        text = f.read()
    if "JVMKIT_SIGNAL_SAFE" in text or "sa_sigaction" in text or "sa_handler" in text:
        return True
    for line in text.splitlines():
        if line.startswith('#include "'):
            header = os.path.join(PROJECT, "src", line.split('"')[1])
            if os.path.exists(header):
                with open(header, errors="replace") as h:
                    if "JVMKIT_SIGNAL_SAFE" in h.read():
                        return True
    return False


def kind_of(cursor):
    """The cursor's kind, or None for kinds newer than these Python bindings."""
    try:
        return cursor.kind
    except ValueError:
        return None


def walk(cursor):
    """Every cursor below CURSOR; at the top level only declarations in project files."""
    yield cursor
    top = kind_of(cursor) == ci.CursorKind.TRANSLATION_UNIT
    for child in cursor.get_children():
        if top and not in_project(child):
            continue
        yield from walk(child)


def location_key(cursor):
    return (os.path.abspath(cursor.location.file.name), cursor.location.line) if cursor.location.file else None


def is_lambda_of(callee, caller):
    """A call of a lambda defined inside CALLER: its body is part of CALLER's, checked with it."""
    if callee.spelling != "operator()" or callee.location.file is None or caller.location.file is None:
        return False
    return callee.location.file.name == caller.location.file.name and \
        caller.extent.start.line <= callee.location.line <= caller.extent.end.line


def usr_of(cursor):
    return cursor.canonical.get_usr() or cursor.get_usr()


def handler_assignments(tu):
    """Functions assigned to sa_sigaction / sa_handler in project code."""
    for c in walk(tu.cursor):
        if kind_of(c) != ci.CursorKind.BINARY_OPERATOR or not in_project(c):
            continue
        children = list(c.get_children())
        if len(children) != 2:
            continue
        lhs, rhs = children
        if kind_of(lhs) == ci.CursorKind.MEMBER_REF_EXPR and lhs.spelling in ("sa_sigaction", "sa_handler"):
            for r in walk(rhs):
                if kind_of(r) == ci.CursorKind.DECL_REF_EXPR and r.referenced is not None and \
                        kind_of(r.referenced) in FUNCTION_KINDS:
                    yield c, r.referenced


def analyse(job):
    """Parses one source file and returns plain data (cursors do not cross processes): the marked
    declarations it sees, and the calls of its marked definitions and the handlers it installs
    that it cannot settle alone (the callee may be marked in another file)."""
    source, directory, args, project = job
    global PROJECT
    PROJECT = project
    os.chdir(directory)
    tu = ci.Index.create().parse(source, args=args + ["-Wno-unknown-attributes"])
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        return {"error": f"cannot parse {source}: {errors[0]}"}
    marked = set()
    for c in walk(tu.cursor):
        if kind_of(c) in FUNCTION_KINDS and in_project(c) and is_marked(c):
            marked.add(usr_of(c))
            marked.add(location_key(c))
    pending = []  # (callee usr, callee location, message)
    indirect = []
    checked = set()
    for c in walk(tu.cursor):
        if kind_of(c) not in FUNCTION_KINDS or not c.is_definition() or not in_project(c):
            continue
        if usr_of(c) not in marked and location_key(c) not in marked:
            continue
        checked.add((usr_of(c), c.location.file.name))
        where = f"{os.path.relpath(c.location.file.name, PROJECT)}:{c.location.line}"
        for call in walk(c):
            if kind_of(call) != ci.CursorKind.CALL_EXPR:
                continue
            callee = call.referenced
            at = f"{os.path.relpath(call.location.file.name, PROJECT)}:{call.location.line}"
            if callee is None:
                indirect.append(f"{at}: indirect call in {qualified_name(c)}")
                continue
            if kind_of(callee) not in FUNCTION_KINDS:
                continue  # e.g. a call through a variable of class type with operator()
            if usr_of(callee) in marked or location_key(callee) in marked or is_marked(callee) or \
                    is_lambda_of(callee, c):
                continue
            name = qualified_name(callee)
            if (qualified_name(c), name) in OUTSIDE_SIGNAL_CONTEXT:
                continue
            if name.startswith("__builtin_"):
                # Compiler builtins have no declaration of their own (libclang places them at the call).
                if library_call_is_safe(name):
                    continue
                message = (f"{at}: {qualified_name(c)} (marked, {where}) calls {name}, "
                           "which is not on the list of signal-safe library calls")
            elif in_project(callee):
                if callee.is_default_method():
                    continue  # compiler-generated
                message = f"{at}: {qualified_name(c)} (marked, {where}) calls {name}, which is not marked"
            elif library_call_is_safe(name):
                continue
            else:
                message = (f"{at}: {qualified_name(c)} (marked, {where}) calls {name}, "
                           "which is not on the list of signal-safe library calls")
            pending.append((usr_of(callee), location_key(callee), message))
    for assignment, handler in handler_assignments(tu):
        at = f"{os.path.relpath(assignment.location.file.name, PROJECT)}:{assignment.location.line}"
        pending.append((usr_of(handler), location_key(handler),
                        f"{at}: {qualified_name(handler)} is installed as a signal handler but not marked"))
    return {"marked": marked, "pending": pending, "indirect": indirect, "checked": checked}


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    global PROJECT
    build_dir = os.path.abspath(sys.argv[1])
    verbose = "--verbose" in sys.argv[2:]
    if "--project" in sys.argv[2:]:
        PROJECT = os.path.abspath(sys.argv[sys.argv.index("--project") + 1])
    jobs = [(source, directory, args, PROJECT)
            for source, (directory, args) in sorted(load_compile_commands(build_dir).items()) if relevant(source)]
    with multiprocessing.Pool(min(len(jobs), os.cpu_count() or 1) or 1) as pool:
        results = pool.map(analyse, jobs)
    errors = [r["error"] for r in results if "error" in r]
    if errors:
        print(f"signal_safety_check: {errors[0]}", file=sys.stderr)
        sys.exit(2)
    marked = set().union(*(r["marked"] for r in results)) if results else set()
    checked = set().union(*(r["checked"] for r in results)) if results else set()
    problems = sorted({message for r in results for usr, location, message in r["pending"]
                       if usr not in marked and location not in marked})
    if verbose:
        for line in sorted({n for r in results for n in r["indirect"]}):
            print(f"note: {line}")
    for p in problems:
        print(f"signal safety: {p}")
    functions = sum(1 for m in marked if isinstance(m, str))
    print(f"signal_safety_check: {len(jobs)} files, {functions} marked functions, "
          f"{len(checked)} marked definitions checked, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
