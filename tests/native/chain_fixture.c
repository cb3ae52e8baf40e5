/* A call chain a -> b -> c of static functions that nothing inlines or clones (noipa), built
 * without frame pointers, then stripped: their names survive only in a separate debug file
 * (tests/native/split_debug.cmake). The exported functions are what .dynsym keeps.
 * CHAIN_VARIANT builds another library from the same source, whose debug file has another
 * build-id: the file a mismatched debug root offers. */
#ifndef CHAIN_VARIANT
#define CHAIN_VARIANT 1
#endif

static volatile long chain_sink;

static __attribute__((noipa)) long chain_c(long x) {
  long sum = 0;
  for (long i = 0; i < x; i++) sum += (i * CHAIN_VARIANT) ^ (sum >> 3);
  chain_sink = sum;
  return sum;
}

static __attribute__((noipa)) long chain_b(long x) { return chain_c(x * 3) + 1; }

static __attribute__((noipa)) long chain_a(long x) { return chain_b(x + 7) * 2; }

__attribute__((visibility("default"))) long chain_run(long x) { return chain_a(x); }

/* The static functions' addresses, so that a test has a PC inside each. */
__attribute__((visibility("default"))) void chain_static_functions(void** a, void** b, void** c) {
  *a = (void*)&chain_a;
  *b = (void*)&chain_b;
  *c = (void*)&chain_c;
}
