#include "profiler/engines/perf_events.hpp"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include <cstring>
#include <fstream>
#include <string>

#include "profiler/engines/kernel_chains.hpp"

namespace jvmkit::prof {
namespace {

std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  return std::getline(in, line) ? line : "unknown";
}

}  // namespace

int open_thread_perf_event(uint32_t type, uint64_t config, uint64_t period, pid_t tid, int signal, int* errno_out,
                           bool kernel_chain) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.sample_period = period;
  attr.disabled = 1;
  // Only the thread's own user+kernel time or events; no ring buffer is needed: with an owner set
  // by F_SETOWN_EX the kernel signals every overflow (perf_event_overflow -> fasync), and the stack
  // is taken from the signal's ucontext by the stack-walk library.
  attr.exclude_idle = 1;
  attr.wakeup_events = 1;
  if (kernel_chain) {
    // The kernel part of the chain only (the stack-walk library unwinds user space itself), and
    // the user registers that tie a sample to its signal.
    attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER;
    attr.exclude_callchain_user = 1;
    attr.sample_regs_user = (uint64_t{1} << PERF_REG_X86_SP) | (uint64_t{1} << PERF_REG_X86_IP);
  }
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    *errno_out = errno;
    return -1;
  }
  f_owner_ex owner;
  owner.type = F_OWNER_TID;
  owner.pid = tid;
  if (kernel_chain && !attach_kernel_ring(tid, fd, errno_out)) {
    // No ring for this thread (the locked-memory limit of perf_event_mlock_kb for a user without
    // CAP_IPC_LOCK, or the table full): its samples go on without kernel frames, counted.
    close(fd);
    count_thread_without_ring();
    return open_thread_perf_event(type, config, period, tid, signal, errno_out, false);
  }
  if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, signal) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    *errno_out = errno;
    close_thread_perf_event(fd);
    return -1;
  }
  return fd;
}

void close_thread_perf_event(int fd) {
  // First no signal reads the ring, then the event goes (it may still raise a signal, which then
  // finds no ring: counted as unmatched, harmless).
  detach_kernel_ring(fd);
  close(fd);
}

std::string kernel_chains_refusal(uint32_t type, uint64_t config, uint64_t period, int signal) {
  int err = 0;
  const int fd =
      open_thread_perf_event(type, config, period, static_cast<pid_t>(syscall(SYS_gettid)), signal, &err, true);
  if (fd >= 0) {
    close_thread_perf_event(fd);
    return "";
  }
  std::string why = strerror(err);
  if (err == EACCES || err == EPERM) {
    why = "perf_event_paranoid is " + read_first_line("/proc/sys/kernel/perf_event_paranoid") +
          ": kernel call chains need root, CAP_PERFMON or perf_event_paranoid <= 1";
  }
  return why;
}

const char* perf_error_hint(uint32_t type, int err) {
  if (err == EACCES || err == EPERM) {
    return "permission denied: run as root or lower /proc/sys/kernel/perf_event_paranoid";
  }
  if (type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL)) {
    return "hardware event not supported on this machine (no hardware PMU, e.g. a VM without perf counters); "
           "software events still work: cpu, cpu-clock, task-clock, page-faults, context-switches";
  }
  if (err == ENOSYS) return "perf_event_open is not available in this kernel";
  return "perf_event_open failed";
}

}  // namespace jvmkit::prof
