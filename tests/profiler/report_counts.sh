# Sourced by the profiler's JVM tests: the signal event's counts from a report on stderr.
#
# report_counts LOG: sets requested, delivered, failed, dropped, not_java and no_java_code from
# LOG's line "samples requested R, delivered D, failed F, dropped X (signals S, on non-Java
# threads N, without Java code W, ...)". Every request has one outcome, so it returns 0 when
# R = D + F + X + N + W, and else 1 with counts_error saying why.
report_counts() {
  local line
  line=$(sed -n -E 's/.*samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+) \(signals [0-9]+, on non-Java threads ([0-9]+), without Java code ([0-9]+).*/\1 \2 \3 \4 \5 \6/p' "$1" | tail -1)
  requested='' delivered='' failed='' dropped='' not_java='' no_java_code=''
  read -r requested delivered failed dropped not_java no_java_code <<<"$line"
  if [ -z "$line" ]; then
    counts_error="$1: no line of samples requested, delivered, failed, dropped"
    return 1
  fi
  if [ "$requested" -ne $((delivered + failed + dropped + not_java + no_java_code)) ]; then
    counts_error="$1: requested $requested != delivered $delivered + failed $failed + dropped $dropped + non-Java $not_java + without Java code $no_java_code"
    return 1
  fi
}
