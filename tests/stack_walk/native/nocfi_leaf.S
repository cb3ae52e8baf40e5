/* Hand-written leaf functions without call-frame information, like libjvm's SpinPause and _Copy_*
 * routines: no .cfi directive, so no FDE covers them, and no .size, so their symbols cover
 * nothing either (as HotSpot's). Hidden, so that the C callers' calls are direct (E8 rel32), not
 * through the PLT. nocfi_chain.c comes first in the link: the C functions (with CFI) lie below. */
#define FUNCTION(name) .globl name; .hidden name; .type name, @function; .p2align 4; name:
#define LABEL(name) .globl name; .hidden name; name:

  .text

/* Frameless: spins until *rdi != 0; [rsp] is the return address throughout. */
FUNCTION(nocfi_spin)
1:
  pause
  movl (%rdi), %eax
  testl %eax, %eax
  je 1b
  ret

/* Pushes rsi (a word the caller chooses), then spins as nocfi_spin does: [rsp] is that word. */
FUNCTION(nocfi_spin_pushed)
  push %rsi
1:
  pause
  movl (%rdi), %eax
  testl %eax, %eax
  je 1b
  pop %rsi
  ret

/* Never run: return addresses of direct calls, as decoys for nocfi_spin_pushed to push. */
FUNCTION(nocfi_decoys)
  call nocfi_after
LABEL(nocfi_decoy_after)  /* returns from a direct call to code above the leaf */
  call nocfi_with_cfi
LABEL(nocfi_decoy_cfi)    /* returns from a direct call to a C function (with CFI) below the leaf */
  ret

FUNCTION(nocfi_after)
  ret

  .section .note.GNU-stack, "", @progbits
