// Proves the signal-safety trap fires: marks this thread as inside the capture path, then
// allocates. The test passes only if the trap's message is printed (and the process aborts).
#include <cstdio>
#include <cstdlib>

extern "C" void jvmkit_walk_capture_hook(int entering);

int main() {
  jvmkit_walk_capture_hook(1);
  void* volatile p = std::malloc(32);
  jvmkit_walk_capture_hook(0);
  std::printf("the trap did not fire (%p)\n", p);
  return 0;
}
