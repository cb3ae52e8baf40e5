// Finds the process's JavaVM without being given it.
#pragma once

#include <jni.h>

#include <optional>
#include <string>

#include "hotspot/elf_symbols.hpp"

namespace jvmkit::hotspot {

// The JavaVM, at any time from Agent_OnLoad on. HotSpot's JNI_GetCreatedJavaVMs reports no VM
// until JNI_CreateJavaVM has returned, after VMInit and a Java agent's premain have run; until then
// the VM is found as libjvm.so's `main_vm` (every JavaVM pointer HotSpot hands out is that one),
// through the library's ELF symbol table, and checked to hold HotSpot's invocation interface.
// nullptr with the reason in *why when neither way finds it.
JavaVM* find_java_vm(std::string* why);

// The loaded libjvm.so (the object that defines JNI_GetCreatedJavaVMs), or nothing outside a JVM.
std::optional<elf::LoadedObject> libjvm();

// The JavaVM once JNI_CreateJavaVM has returned (JNI_GetCreatedJavaVMs reports it), else nullptr.
JavaVM* created_java_vm();

}  // namespace jvmkit::hotspot
