// JVMKIT_SIGNAL_SAFE: the one marker of a function that may run in signal context.
//
// A signal can interrupt a thread anywhere, also inside malloc or while it holds a lock, so code
// reachable from a signal handler may only call async-signal-safe functions: other marked
// functions, atomics, and the few system calls and C functions that POSIX lists as safe (see
// tools/signal_safety_check.py for the exact list). No allocation, no locks, no JNI or JVMTI, no
// stdio, no exceptions.
//
// Put the marker in front of the declaration (and the definition, where they are apart) of every
// function that a handler can reach. The test command runs tools/signal_safety_check.py, which
// parses the sources with libclang (where the marker becomes an annotation) and fails when a
// marked function calls a function of the project that is not marked, or a library function that
// is not on its list. For g++ the marker is empty.
#pragma once

#if defined(__clang__)
#define JVMKIT_SIGNAL_SAFE __attribute__((annotate("jvmkit_signal_safe")))
#else
#define JVMKIT_SIGNAL_SAFE
#endif
