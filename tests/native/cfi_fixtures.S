/* Functions that exist for their CFI: each one gives the unwind-table compiler one kind of row,
 * written with the assembler's .cfi_* directives (and .cfi_escape for the DWARF expressions GCC
 * and glibc emit by hand). None of them is ever called. Every label the tests look at is global,
 * so that dlsym finds it.
 *
 * Built twice: as is (CFI in .eh_frame, indexed by .eh_frame_hdr), and with
 * JVMKIT_CFI_DEBUG_FRAME_ONLY, where the CFI goes to .debug_frame only. */
#ifdef JVMKIT_CFI_DEBUG_FRAME_ONLY
  .cfi_sections .debug_frame
#endif

#define FUNCTION(name) .globl name; .type name, @function; .p2align 4; name:
#define LABEL(name) .globl name; name:
#define END(name) .size name, .-name

  .text

/* CFA = rsp + 8, + 16 after a push, + 40 after sub $24. */
FUNCTION(jvmkit_cfi_rsp)
  .cfi_startproc
  push %rbx
  .cfi_adjust_cfa_offset 8
  .cfi_offset %rbx, -16
LABEL(jvmkit_cfi_rsp_pushed)
  sub $24, %rsp
  .cfi_adjust_cfa_offset 24
LABEL(jvmkit_cfi_rsp_body)
  nop
  add $24, %rsp
  .cfi_adjust_cfa_offset -24
  pop %rbx
  .cfi_adjust_cfa_offset -8
  ret
  .cfi_endproc
END(jvmkit_cfi_rsp)

/* A frame-pointer frame: CFA = rbp + 16, the caller's rbp at CFA - 16. */
FUNCTION(jvmkit_cfi_rbp)
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
LABEL(jvmkit_cfi_rbp_body)
  nop
  pop %rbp
  .cfi_def_cfa %rsp, 8
  .cfi_restore %rbp
LABEL(jvmkit_cfi_rbp_popped)
  ret
  .cfi_endproc
END(jvmkit_cfi_rbp)

/* GCC's DRAP realignment: the CFA first in r10, then saved below rbp and found through it
 * (def_cfa_expression: breg6 -8; deref), the caller's rbp at [rbp] (expression: breg6 0). */
FUNCTION(jvmkit_cfi_drap)
  .cfi_startproc
  lea 8(%rsp), %r10
  .cfi_def_cfa %r10, 0
LABEL(jvmkit_cfi_drap_r10)
  and $-32, %rsp
  pushq -8(%r10)
  push %rbp
  mov %rsp, %rbp
  .cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
LABEL(jvmkit_cfi_drap_rbp_saved)
  push %r10
  .cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
LABEL(jvmkit_cfi_drap_body)
  nop
  pop %r10
  .cfi_def_cfa %r10, 0
  pop %rbp
  .cfi_restore %rbp
  lea -8(%r10), %rsp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
END(jvmkit_cfi_drap)

/* binutils' PLT rule over two 16-byte entries: CFA = rsp + 8, + 8 from byte 11 of an entry on:
 * breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus. */
FUNCTION(jvmkit_cfi_plt)
  .cfi_startproc
  .cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
  .skip 32, 0x90
  .cfi_endproc
END(jvmkit_cfi_plt)

/* The same with lit10 (the IBT/bnd PLT layouts). */
FUNCTION(jvmkit_cfi_plt10)
  .cfi_startproc
  .cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3a, 0x2a, 0x33, 0x24, 0x22
  .skip 32, 0x90
  .cfi_endproc
END(jvmkit_cfi_plt10)

/* A signal trampoline in glibc's shape (__restore_rt): the ucontext_t lies at rsp, so the CFA is
 * its saved rsp (breg7 160; deref), the return address its rip (breg7 168), rbp its rbp
 * (breg7 120). */
  nop
FUNCTION(jvmkit_cfi_sigreturn)
  .cfi_startproc
  .cfi_signal_frame
  .cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06
  .cfi_escape 0x10, 0x10, 0x03, 0x77, 0xa8, 0x01
  .cfi_escape 0x10, 0x06, 0x03, 0x77, 0xf8, 0x00
  mov $15, %eax
  syscall
  .cfi_endproc
END(jvmkit_cfi_sigreturn)

/* A signal frame with ordinary rules: not the ucontext shape, so not held. */
FUNCTION(jvmkit_cfi_signal_plain)
  .cfi_startproc
  .cfi_signal_frame
  nop
  ret
  .cfi_endproc
END(jvmkit_cfi_signal_plain)

/* A thread's first frame: the return address is undefined. */
FUNCTION(jvmkit_cfi_outermost)
  .cfi_startproc
  .cfi_undefined %rip
  xor %ebp, %ebp
  hlt
  .cfi_endproc
END(jvmkit_cfi_outermost)

/* An early return inside a frame-pointer frame: remember_state/restore_state bring the rbp rule
 * back after it. */
FUNCTION(jvmkit_cfi_remember)
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  test %edi, %edi
  jz 1f
  .cfi_remember_state
  pop %rbp
  .cfi_def_cfa %rsp, 8
  .cfi_restore %rbp
LABEL(jvmkit_cfi_remember_early_return)
  ret
1:
  .cfi_restore_state
LABEL(jvmkit_cfi_remember_restored)
  nop
  pop %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
END(jvmkit_cfi_remember)

/* A function without CFI between two with: its PCs are in no FDE. */
FUNCTION(jvmkit_cfi_before_gap)
  .cfi_startproc
  nop
  ret
  .cfi_endproc
END(jvmkit_cfi_before_gap)

FUNCTION(jvmkit_cfi_gap)
  nop
  ret
END(jvmkit_cfi_gap)

FUNCTION(jvmkit_cfi_after_gap)
  .cfi_startproc
  nop
  ret
  .cfi_endproc
END(jvmkit_cfi_after_gap)

/* A frame too large for the row's 16-bit offset. */
FUNCTION(jvmkit_cfi_big_frame)
  .cfi_startproc
  sub $40000, %rsp
  .cfi_adjust_cfa_offset 40000
LABEL(jvmkit_cfi_big_frame_body)
  nop
  add $40000, %rsp
  .cfi_adjust_cfa_offset -40000
  ret
  .cfi_endproc
END(jvmkit_cfi_big_frame)

/* The return address moved to a register: not at CFA - 8. */
FUNCTION(jvmkit_cfi_ra_in_register)
  .cfi_startproc
  pop %rax
  .cfi_adjust_cfa_offset -8
  .cfi_register %rip, %rax
LABEL(jvmkit_cfi_ra_in_register_body)
  jmp *%rax
  .cfi_endproc
END(jvmkit_cfi_ra_in_register)

/* An FDE whose program advances past its own end (DW_CFA_advance_loc1 255 by .cfi_escape): libdw
 * reports its last row as longer than the FDE, yet the code after the FDE is in none. Last in the
 * file, so that no other FDE follows within those 255 bytes. */
FUNCTION(jvmkit_cfi_runaway)
  .cfi_startproc
  nop
  .cfi_escape 0x02, 0xff
  .cfi_adjust_cfa_offset 8
  ret
  .cfi_endproc
END(jvmkit_cfi_runaway)

FUNCTION(jvmkit_cfi_after_runaway)
  nop
  ret
END(jvmkit_cfi_after_runaway)

  .section .note.GNU-stack, "", @progbits
