// The agent's commands (start, stop, dump, status), whichever way they come in: a load through
// HotSpot's attach mechanism (agent.cpp, Agent_OnAttach) or a call of the Java API
// (java_api.cpp, org.jvmkit.Profiler). Both carry them out with run_command, so an option list
// means the same and answers the same from the jvmkit tool and from Java.
#pragma once

#include <jni.h>

#include "profiler/run/profiler.hpp"

namespace jvmkit::prof {

// Who sends a command. The attach mechanism passes back only a number, so the tool names a reply=
// file for the text; Java gets the text back, and a reply= from it is a bad option.
enum class CommandSource { kAttach, kJava };

// Carries out the option list OPTIONS_TEXT in this copy of the library: parsed (a bad list answers
// kBadOption with a message that names the option), then executed by this copy's profiler, which
// is made now, in the live phase, when this copy has none yet.
Answer run_command(JavaVM* vm, const char* options_text, CommandSource source);

// A command from Java: carried out by the copy of the library that runs the profiler. That is this
// one unless it has none and another copy in the process has one (the library loaded twice, by two
// paths: -agentpath or an attach, and System.load); a copy of another version refuses it
// (kOtherVersion).
Answer command_from_java(JavaVM* vm, const char* options_text);

}  // namespace jvmkit::prof
