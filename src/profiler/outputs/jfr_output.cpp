#include "profiler/outputs/jfr_output.hpp"

#include <unistd.h>

#include <set>

#include "profiler/outputs/file_pattern.hpp"
#include "profiler/outputs/jfr_chunk.hpp"

namespace jvmkit::prof {

JfrOutput::JfrOutput(const Options& options, std::string fallback_dir, int64_t anchor_wall_ns, int64_t anchor_mono_ns)
    : options_(options),
      fallback_dir_(std::move(fallback_dir)),
      anchor_wall_ns_(anchor_wall_ns),
      anchor_mono_ns_(anchor_mono_ns),
      chunk_start_mono_ns_(anchor_mono_ns) {}

std::string JfrOutput::chunk_of(const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                                const std::vector<SampleThread>& threads, int64_t end_mono_ns, bool final) {
  JfrChunkSpan span;
  span.anchor_wall_ns = anchor_wall_ns_;
  span.anchor_mono_ns = anchor_mono_ns_;
  span.start_mono_ns = chunk_start_mono_ns_;
  span.end_mono_ns = end_mono_ns;
  span.recording_start_wall_ns = anchor_wall_ns_;
  span.final = final;
  span.next_key = &next_key_;
  // The recording's destination is the file asked for, wherever the chunk ends up.
  return jfr_chunk(options_, asked_path_, span, profiles, samples, threads);
}

// A recording file begins at its first chunk: its path is the pattern expanded for its start.
void JfrOutput::begin_file_if_needed() {
  if (file_begun_) return;
  file_begun_ = true;
  const int64_t start_wall = anchor_wall_ns_ + (chunk_start_mono_ns_ - anchor_mono_ns_);
  asked_path_ = expand_file_pattern(options_.file, static_cast<int>(getpid()), start_wall);
  outcomes_[file_].start_wall_ns = start_wall;
}

void JfrOutput::write_chunk(Recording& recording, int64_t now_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  begin_file_if_needed();
  Chunk chunk;
  chunk.file = file_;
  recording.take_chunk([&](const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& taken,
                           const std::vector<SampleThread>& threads) {
    chunk.bytes = chunk_of(profiles, taken, threads, now_mono_ns, false);
    chunk.samples = static_cast<int64_t>(taken.size());
  });
  chunk_start_mono_ns_ = now_mono_ns;
  deliver(std::move(chunk));
}

void JfrOutput::end_file(const Recording::Window& window, int64_t end_mono_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  begin_file_if_needed();
  std::vector<const Profile*> profiles;
  for (const auto& p : window.profiles) profiles.push_back(p.get());
  Chunk chunk;
  chunk.file = file_;
  chunk.bytes = chunk_of(profiles, window.samples, window.threads, end_mono_ns, true);
  chunk.samples = static_cast<int64_t>(window.samples.size());
  chunk_start_mono_ns_ = end_mono_ns;
  deliver(std::move(chunk));
  // The recording file is complete; chunks of it still waiting get a fallback file of their own.
  asked_.close();
  if (fallback_of_ == file_) fallback_.close();
  file_++;
  file_begun_ = false;
  asked_failed_ = false;
  next_key_ = 1;
}

// Queues CHUNK behind the chunks still waiting (a file's chunks stay in order) and writes what can
// be written. Past the bound on waiting bytes, the oldest chunks are given up.
void JfrOutput::deliver(Chunk chunk) {
  waiting_bytes_ += chunk.bytes.size();
  waiting_.push_back(std::move(chunk));
  while (waiting_bytes_ > kMaxWaitingBytes && waiting_.size() > 1) {
    lost_samples_ += waiting_.front().samples;
    lost_why_ = "more than " + std::to_string(kMaxWaitingBytes >> 20) + " MiB of chunks waited for a file";
    waiting_bytes_ -= waiting_.front().bytes.size();
    waiting_.pop_front();
  }
  write_waiting();
}

// Writes the waiting chunks, oldest first: a chunk of the current recording file to the file
// asked for while that takes them, else to its recording file's fallback. A recording file whose
// chunk no file takes keeps its later chunks waiting too (their order in a file is the
// recording's); other recording files' chunks are still written.
void JfrOutput::write_waiting() {
  std::set<uint64_t> blocked;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Chunk& chunk = *it;
    if (blocked.count(chunk.file) != 0) {
      ++it;
      continue;
    }
    Outcome& outcome = outcomes_[chunk.file];
    const bool asked = chunk.file == file_ && !asked_failed_;
    if ((asked && to_asked(chunk, outcome)) || to_fallback(chunk, outcome)) {
      waiting_bytes_ -= chunk.bytes.size();
      it = waiting_.erase(it);
      continue;
    }
    blocked.insert(chunk.file);
    ++it;
  }
}

// Writes CHUNK to the file asked for; false when it failed (CHUNK then goes to the fallback).
bool JfrOutput::to_asked(Chunk& chunk, Outcome& outcome) {
  Error e;
  if (!asked_.is_open()) e = asked_.create(asked_path_);
  if (!e) e = put(asked_, chunk, outcome, false);
  if (!e) return true;
  if (!outcome.error) outcome.error = e;
  asked_failed_ = true;
  return false;
}

// Writes CHUNK to its recording file's fallback, reserved (a new file) when there is none yet or
// the last one failed; false when no file took it.
bool JfrOutput::to_fallback(Chunk& chunk, Outcome& outcome) {
  if (fallback_.is_open() && fallback_of_ != chunk.file) fallback_.close();
  if (!fallback_.is_open()) {
    Options reserved;
    if (Error e =
            reserve_fallback(options_, fallback_dir_, static_cast<int>(getpid()), outcome.start_wall_ns, &reserved)) {
      outcome.fallback_error = e;
      return false;
    }
    if (Error e = fallback_.open_reserved(reserved.file)) {
      unlink(reserved.file.c_str());
      outcome.fallback_error = e;
      return false;
    }
    fallback_of_ = chunk.file;
  }
  if (Error e = put(fallback_, chunk, outcome, true)) {
    outcome.fallback_error = e;
    return false;
  }
  return true;
}

// Appends CHUNK to FILE, and checks that FILE is still where it was created. When FILE was
// removed or replaced, its chunks (CHUNK among them) reach nobody there: they are read back into
// CHUNK, to be written elsewhere, and FILE is given up.
Error JfrOutput::put(ChunkFile& file, Chunk& chunk, Outcome& outcome, bool fallback) {
  Error e = file.append(chunk.bytes, chunk.samples);
  if (!e && file.at_path()) {
    note(outcome, file, fallback);
    return e;
  }
  if (!e) {
    e = Error("cannot write " + file.path() + ": the file was removed or replaced while the run wrote it");
    std::string bytes;
    if (Error read = file.read_back(&bytes)) {
      lost_samples_ += file.samples() - chunk.samples;
      lost_why_ = read.message();
    } else {
      chunk.bytes = std::move(bytes);
      chunk.samples = file.samples();
    }
    file.abandon();
  }
  // The file keeps its whole chunks, or is gone: the report names it only when it holds some.
  note(outcome, file, fallback);
  return e;
}

// Records FILE's samples in OUTCOME's files (it is dropped there when it holds no chunk).
void JfrOutput::note(Outcome& outcome, const ChunkFile& file, bool fallback) {
  outcome.touched = true;
  std::vector<WrittenFile>& files = outcome.files;
  std::erase_if(files, [&](const WrittenFile& f) { return f.path == file.path(); });
  if (file.chunks() == 0) return;
  WrittenFile written{file.path(), WrittenFile::kAllEvents};
  written.samples = file.samples();
  written.fallback = fallback;
  files.push_back(written);
}

OutputResult JfrOutput::take_result(bool run_ends) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (run_ends) {
    for (const Chunk& chunk : waiting_) lost_samples_ += chunk.samples;
    if (!waiting_.empty()) lost_why_ = "no file could take them";
    waiting_.clear();
    waiting_bytes_ = 0;
  }
  OutputResult out;
  for (auto& [file, outcome] : outcomes_) {
    if (file < reported_from_ && !outcome.touched) continue;
    if (outcome.error && !out.error) out.error = outcome.error;
    if (outcome.fallback_error) out.fallback_error = outcome.fallback_error;
    for (const WrittenFile& f : outcome.files) {
      out.files.push_back(f);
      out.fallback = out.fallback || f.fallback;
    }
    outcome.touched = false;
  }
  for (const Chunk& chunk : waiting_) out.waiting_samples += chunk.samples;
  out.lost_samples = lost_samples_;
  out.lost_why = lost_why_;
  lost_samples_ = 0;
  // The current recording file is reported again next time (its files grow); ended ones only
  // when written again (their waiting chunks).
  reported_from_ = file_;
  std::erase_if(outcomes_, [&](const auto& entry) {
    if (entry.first >= file_) return false;
    for (const Chunk& chunk : waiting_) {
      if (chunk.file == entry.first) return false;
    }
    return true;
  });
  return out;
}

}  // namespace jvmkit::prof
