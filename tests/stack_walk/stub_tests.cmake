# Included by tests/stack_walk/CMakeLists.txt (its variables: _walk_classes, _walk_native, ...):
# the JVM tests of stubs and prologues, on the host's CPU shapes and on those of other CPUs.

# Stub code and prologues depend on the CPU. Besides the host's own shapes, the recovery tests run
# the stub-heavy programs with the shapes of other CPUs: SSE only (UseAVX=0, CPUs without AVX), and
# AVX1 without the fast-string and unaligned-copy variants; on a host with AVX-512 (whose default is
# UseAVX=3) also the AVX2 shapes. AVX-512 shapes themselves need such a CPU: HotSpot lowers UseAVX
# to what the CPU has. docs/testing.md says which host ran what.
set(_stub_shape_variants sse avx1)
set(_stub_shape_flags_sse -XX:UseAVX=0)
set(_stub_shape_flags_avx1 -XX:UseAVX=1 -XX:-UseFastStosb -XX:-UseUnalignedLoadStores)
set(_stub_shape_flags_avx2 -XX:UseAVX=2)
set(_cpu_flags "")
if(EXISTS /proc/cpuinfo)
  file(STRINGS /proc/cpuinfo _cpu_flags REGEX "^flags" LIMIT_COUNT 1)
endif()
if(_cpu_flags MATCHES " avx512f( |$)")
  list(APPEND _stub_shape_variants avx2)
  message(STATUS "Stack-walk stub shapes: AVX-512 host; AVX2, AVX1 and SSE shapes tested by flags")
else()
  message(STATUS "Stack-walk stub shapes: no AVX-512 on this host, so AVX-512 shapes are not tested; AVX1 and SSE shapes tested by flags")
endif()

# Samples in intrinsic/arraycopy/hash stubs, itable and vtable stubs (megamorphic interface and
# virtual calls) and prologues/epilogues are recovered: at most 1% of the walks fail, at most 0.5%
# of the interface and virtual call workers' walks through Java code (not_walkable, cut_short),
# >= 99% of worker traces contain their hotLoop frame (the rest are samples in the caller between
# calls), and the recovery counters (printed by kind) show the recovery actually ran.
# Failures are judged per moment: on a busy host a thread waits for a CPU while the sampler (real-time
# priority) keeps signalling it, and handles the queued signals back to back at one PC, so one
# moment (say, a prologue the thread was descheduled in) made up to dozens of samples; up to 70% of
# the samples repeated their thread's previous moment at load 18 (measured 2026-12-04), none idle.
# Each shape runs until every worker was sampled at 4,000 moments (about 5 s idle: 4 s were mostly
# JIT warm-up on JDK 25, where one short burst of unrecovered interpreter samples could decide the
# rate), at most 60 s; the strict workers' rates need >= 2,000.
set(_recovery_options "mode=accounting,rate=5000,track=worker-,check_main=no,min_per_thread=300,require_method=hotLoop,max_missing_permille=10,max_failed_permille=10,strict=worker-iface/worker-vcall,max_strict_failed_permille=5,run_moments=4000,min_strict_moments=2000")
jvmkit_add_jvm_test(NAME stack_walk.recovery MAIN jvmkit.test.walk.StubsMain CLASSES ${_walk_classes}
                    AGENT stack_walk_test_agent AGENT_OPTIONS "${_recovery_options},min_traces=4500,min_recovered=450"
                    ${_walk_native} JVM_ARGS -XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,*::hotLoop"
                    ARGS sampled:60 TIMEOUT 240)
foreach(variant IN LISTS _stub_shape_variants)
  jvmkit_add_jvm_test(NAME stack_walk.recovery_${variant} MAIN jvmkit.test.walk.StubsMain CLASSES ${_walk_classes}
                      AGENT stack_walk_test_agent AGENT_OPTIONS "${_recovery_options},min_traces=4500,min_recovered=450"
                      ${_walk_native} JVM_ARGS ${_stub_shape_flags_${variant}} -XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,*::hotLoop"
                      ARGS sampled:60 TIMEOUT 240)
endforeach()

# Samples inside stubs and inline intrinsics belong to the Java method that called them, with the
# methods inlined into it: arraycopy of every element type (disjoint and overlapping), Arrays.fill,
# String indexOf/equals/compareTo, StringBuilder insert/delete (through the inlined shift). Each
# worker's top frame must be the method named for it in >= 95% of its samples; where the others
# went is printed. An intrinsic that replaces a call (StringLatin1.indexOf, compareTo) has no frame
# of its own: its code belongs to the method that made the call (String.indexOf, compareTo). While
# a caller (or shift) still runs in the interpreter, System.arraycopy is a native frame of its own.
# Arrays.fill is C2's own vectorised loop, or, where C2 replaces the loop by a call to a fill stub
# (OptimizeFill: on by default only with AVX-512), a leaf call that C2 gives no debug information
# of its own: the frame found for it is the one of the code after the call, which can be the caller
# (Fill.hotLoop) rather than the inlined Arrays.fill. Hosts without AVX-512 run the fill stubs too
# (variant optimize_fill, -XX:+OptimizeFill), so that their callers are found on every CPU.
# The host's stub shapes for 5 s, the other shapes for 4 s each.
set(_stub_tops "bytes:Bytes.hotLoop|System.arraycopy/chars:Chars.hotLoop|System.arraycopy/ints:Ints.hotLoop|System.arraycopy/longs:Longs.hotLoop|System.arraycopy/objects:Objects.hotLoop|System.arraycopy")
string(APPEND _stub_tops "/fill:Arrays.fill|Fill.hotLoop/indexof:StringLatin1.indexOf|String.indexOf/equals:StringLatin1.equals|String.equals")
string(APPEND _stub_tops "/compareto:StringLatin1.compareTo|String.compareTo|ArraysSupport.mismatch|ArraysSupport.vectorizedMismatch")
string(APPEND _stub_tops "/sbdelete:AbstractStringBuilder.shift|System.arraycopy/sbinsert:AbstractStringBuilder.shift|System.arraycopy")
# Traces without hotLoop: a thread's first samples, taken before it ran (11 workers on 2 cores).
# Failed walks: at most 2 %. Most are samples of a thread inside the VM (AsyncGetCallTrace -3/-4
# with the PC in libjvm, which no recovery can place: no_java_frames), and a loaded host has more
# of them: measured 0.2-0.5 % on an idle AVX-512 host, 1.1 % once in a full test run (2026-12-04).
# Shares and failures are judged per moment (see the recovery tests above): 11 workers on 2 cores
# wait for a CPU even on an idle host, and a busy one makes most samples repeat a moment. Each
# shape runs until every worker was sampled at run_moments moments, at most 60 s.
set(_stub_callers_options "mode=accounting,rate=11000,track=worker-,check_main=no,min_traces=5000,min_per_thread=300,require_method=hotLoop,max_missing_permille=20,max_failed_permille=20,expect_top=${_stub_tops},min_top_permille=950")
set(_stub_callers_variants default ${_stub_shape_variants})
set(_stub_shape_flags_optimize_fill -XX:+OptimizeFill)
if(NOT _cpu_flags MATCHES " avx512f( |$)")
  list(APPEND _stub_callers_variants optimize_fill)
endif()
# Known weakness (docs/stack_walk.md): where HotSpot inlines short array copies with AVX-512 masks
# (ArrayOperationPartialInlineSize > 0, its default on some AVX-512 CPUs, such as the Xeons with
# AVX512VL/BW that ran this on 2026-12-07), C2 calls the arraycopy stub for a long copy from an
# out-of-line block without a debug record of its own, and the record after the call describes the
# code laid out there: StringBuilder's shift was charged to ensureCapacityInternal in 60-97 % of
# the samples. The default shape runs without that inlining until the walker tells such calls
# apart; the other shapes never have it.
if(_cpu_flags MATCHES " avx512vl( |$)" AND _cpu_flags MATCHES " avx512bw( |$)")
  set(_stub_shape_flags_default -XX:+UnlockDiagnosticVMOptions -XX:ArrayOperationPartialInlineSize=0)
endif()
foreach(variant IN LISTS _stub_callers_variants)
  set(_name stack_walk.stub_callers_${variant})
  set(_moments 800)
  if(variant STREQUAL "default")
    set(_name stack_walk.stub_callers)
    set(_moments 1000)
  endif()
  jvmkit_add_jvm_test(NAME ${_name} MAIN jvmkit.test.walk.StubCallersMain CLASSES ${_walk_classes}
                      AGENT stack_walk_test_agent AGENT_OPTIONS "${_stub_callers_options},run_moments=${_moments}"
                      ${_walk_native} JVM_ARGS ${_stub_shape_flags_${variant}} -XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,*::hotLoop"
                      ARGS sampled:60 TIMEOUT 240 RUN_SERIAL)
endforeach()
