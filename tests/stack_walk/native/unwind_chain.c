/* Known native call chains for the unwinder's tests: chain_a -> chain_b -> chain_c, where chain_c
 * spins until *stop is set, and the same chain under libc's qsort (chain_qsort's comparator calls
 * chain_b once). Built twice: with frame pointers, and without (CHAIN_NOFP), where chain_c also
 * uses rbp as a general register while it spins, so that a frame-pointer walk would go wrong and
 * only the CFI tells the way. */
#include <stdlib.h>

#define CHAIN_EXPORT __attribute__((noinline, visibility("default")))

static volatile int sink;

CHAIN_EXPORT int chain_c(volatile int* stop) {
  unsigned x = 1;
#ifdef CHAIN_NOFP
  /* rbp holds a counter, not a frame: the compiler saves the caller's rbp and says so in CFI. */
  __asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
  while (!*stop) {
    __asm__ volatile("add $3, %%rbp" ::: "rbp");
    x = x * 1103515245u + 12345u;
    sink = (int)x;
  }
#else
  while (!*stop) {
    x = x * 1103515245u + 12345u;
    sink = (int)x;
  }
#endif
  return (int)(x & 1);
}

CHAIN_EXPORT int chain_b(volatile int* stop) {
  int r = chain_c(stop);
  sink += r; /* work after the call: no tail call */
  return r + 1;
}

CHAIN_EXPORT int chain_a(volatile int* stop) {
  int r = chain_b(stop);
  sink += r;
  return r + 2;
}

static volatile int* qsort_stop;
static int first_compare;

static int compare(const void* l, const void* r) {
  if (first_compare) {
    first_compare = 0;
    sink += chain_b(qsort_stop);
  }
  return *(const int*)l - *(const int*)r;
}

CHAIN_EXPORT int chain_qsort(volatile int* stop) {
  int values[64];
  for (int i = 0; i < 64; i++) values[i] = (i * 37) % 64;
  qsort_stop = stop;
  first_compare = 1;
  qsort(values, 64, sizeof(values[0]), compare);
  sink += values[0];
  return values[63];
}
