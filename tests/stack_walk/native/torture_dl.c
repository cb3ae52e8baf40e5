/* A library the native torture test dlopens and dlcloses in a loop (native/torture_jni.c): samples
 * land in its code while it is loaded, and its address range is reused by the next dlopen. */
__attribute__((noinline, visibility("default"))) unsigned torture_dl_burn(unsigned n) {
  unsigned x = n;
  for (unsigned i = 0; i < n; i++) x = x * 1103515245u + 12345u;
  return x;
}
