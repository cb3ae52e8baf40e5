// The output of a run: its profiles written in the run's format to its file pattern (or to the
// fallback file when that fails), window by window in continuous mode, and the JVM's facts the
// files carry (the program's name, java.io.tmpdir for the fallback).
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "profiler/options.hpp"
#include "profiler/outputs/output_fallback.hpp"
#include "profiler/recording/profile.hpp"
#include "profiler/recording/recording.hpp"
#include "profiler/run/run.hpp"

namespace jvmkit::prof {

// What the JVM runs, for pprof's Mapping: the main class, or the jar's file name
// (sun.java.command's first word); "java" when unknown.
std::string program_name(jvmtiEnv* jvmti);

// java.io.tmpdir ("" when unknown): where a profile goes that cannot be written where asked.
std::string java_tmpdir(jvmtiEnv* jvmti);

// Writes PROFILES (one per event of RUN) in OUTPUT's format to OUTPUT's file pattern, expanded for
// a profile that starts at START_WALL_NS and lasts DURATION_NS; to RUN's fallback when that fails.
OutputResult write_run_output(const Run& run, const Options& output, const std::vector<const Profile*>& profiles,
                              int64_t start_wall_ns, int64_t duration_ns);

// Writes a continuous-mode window to RUN's file pattern (or the fallback) and applies keep=,
// which counts fallback files as window files. RUN_ENDS: the window is the run's last (stop).
OutputResult write_run_window(Run& run, const Recording::Window& window, bool run_ends);

// Stop of a continuous run: when windows before LAST (the result of the last window) could not be
// written where asked, a line for them after LINE, and LAST's error is set (stop fails).
void add_window_errors(const Run& run, OutputResult* last, std::string* line);

// JFR output: RUN (format=jfr) gets its file, whose chunks start now.
void start_jfr_output(Run& run);
// Ends RUN's JFR file with WINDOW's rest (stop, or a window's end); the files written and the
// errors met. RUN_ENDS: the run's last file (stop): chunks no file took are lost.
OutputResult finish_jfr_output(Run& run, const Recording::Window& window, bool run_ends);
// Writes a chunk of RUN's JFR file now (dump).
OutputResult flush_jfr_output(Run& run);
// Whether OUTPUT (of a stop or dump) names RUN's own recording: JFR output to the file the run
// writes (the jvmkit tool names it again).
bool writes_run_recording(const Run& run, const Options& output);
// Why OUTPUT cannot be written by a stop or dump of RUN, when it is JFR output that RUN does not
// write as it goes ("" when it can be): a JFR file holds the samples with their times, which
// only a run started with JFR output keeps.
std::string jfr_output_refusal(const Run& run, const Options& output);

// Each event's samples, in the order of the run's events.
std::vector<int64_t> sample_counts(const std::vector<const Profile*>& profiles);

std::vector<const Profile*> profile_list(const std::vector<std::unique_ptr<Profile>>& profiles);

}  // namespace jvmkit::prof
