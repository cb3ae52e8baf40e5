// The code of HotSpot's template interpreter, codelet by codelet, as the JVM itself describes it:
// the StubQueue behind AbstractInterpreter::_code and each InterpreterCodelet's size and
// description, all found through gHotSpotVMStructs (the same entries the Serviceability Agent
// reads to print "method entry point (kind = zerolocals)").
//
// Not signal context. Read once the interpreter exists (it is generated before the JVM reports its
// "Interpreter" code blob, and never changes afterwards).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jvmkit::hotspot {

struct InterpreterCodelet {
  uintptr_t code_begin;     // the first byte after the codelet's header (alignment padding may follow)
  uintptr_t code_end;       // exclusive
  std::string description;  // "method entry point (kind = zerolocals)", "iload", ...
};

// Every codelet of the running JVM's interpreter, in address order; empty when the JVM does not
// describe its interpreter (an entry missing from gHotSpotVMStructs) or has not generated it yet.
std::vector<InterpreterCodelet> interpreter_codelets();

}  // namespace jvmkit::hotspot
