/* Callers of the leaf functions without CFI of nocfi_leaf.S, for the unwinder's frameless-leaf
 * rule: a direct call (accepted: the run reaches the caller), an indirect one, and a leaf that
 * pushed a word (both refused: the run ends with no_unwind_info, never a wrong frame). Each
 * caller works after the call, so that it is no tail call. */
#define CHAIN_EXPORT __attribute__((noinline, visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN void nocfi_spin(volatile int* stop);
HIDDEN void nocfi_spin_pushed(volatile int* stop, const void* pushed);
HIDDEN extern const char nocfi_decoy_after[];
HIDDEN extern const char nocfi_decoy_cfi[];
HIDDEN void nocfi_decoys(void);
HIDDEN void nocfi_after(void);

static volatile int sink;

HIDDEN void nocfi_with_cfi(void);

CHAIN_EXPORT int nocfi_direct(volatile int* stop) {
  nocfi_spin(stop);
  sink++;
  return sink;
}

static void (*volatile indirect_target)(volatile int*) = nocfi_spin;

CHAIN_EXPORT int nocfi_indirect(volatile int* stop) {
  indirect_target(stop);
  sink++;
  return sink;
}

/* [rsp] in the leaf: a return address after a direct call to code above the leaf. */
CHAIN_EXPORT int nocfi_pushed_after(volatile int* stop) {
  nocfi_spin_pushed(stop, nocfi_decoy_after);
  sink++;
  return sink;
}

/* [rsp] in the leaf: a return address after a direct call to a C function below it. */
CHAIN_EXPORT int nocfi_pushed_cfi(volatile int* stop) {
  nocfi_spin_pushed(stop, nocfi_decoy_cfi);
  sink++;
  return sink;
}

/* [rsp] in the leaf: a data word. */
CHAIN_EXPORT int nocfi_pushed_data(volatile int* stop) {
  nocfi_spin_pushed(stop, (const void*)stop);
  sink++;
  return sink;
}

/* The assembly's addresses, for the test (their symbols are hidden): 0 nocfi_spin,
 * 1 nocfi_spin_pushed, 2 nocfi_decoys (where nocfi_spin_pushed ends), 3 nocfi_after,
 * 4 nocfi_with_cfi. */
CHAIN_EXPORT const void* nocfi_address(int which) {
  switch (which) {
    case 0:
      return (const void*)nocfi_spin;
    case 1:
      return (const void*)nocfi_spin_pushed;
    case 2:
      return (const void*)nocfi_decoys;
    case 3:
      return (const void*)nocfi_after;
    default:
      return (const void*)nocfi_with_cfi;
  }
}

/* The decoys' direct call target: a C function with CFI, the last one below the leaves (defined
 * last), so that no other FDE starts between it and them: only its FDE's end tells them apart. */
HIDDEN __attribute__((noinline)) void nocfi_with_cfi(void) { sink++; }
