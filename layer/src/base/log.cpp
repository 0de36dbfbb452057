#include "base/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <mutex>
#include <unordered_set>

namespace vkleak {
namespace {

// Heap objects that are never destroyed: no static destructors run at dlclose or exit while
// another thread may still log.
spdlog::logger* g_logger = nullptr;
std::once_flag g_logger_once;

spdlog::logger* make_logger(const std::string& file) {
  spdlog::sink_ptr sink;
  if (!file.empty()) {
    try {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, /*truncate=*/false);
    } catch (...) {
      sink.reset();  // unwritable: fall back to stderr below and say so
    }
  }
  bool file_failed = !file.empty() && !sink;
  if (!sink) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto* logger = new spdlog::logger("vkleak", sink);
  logger->set_pattern("[vkleak] %l: %v");
  logger->set_level(spdlog::level::warn);
  logger->flush_on(spdlog::level::warn);
  if (file_failed) logger->warn("cannot open log file '{}'; logging to stderr", file);
  return logger;
}

}  // namespace

void configure_log(const std::string& level, const std::string& file) noexcept {
  try {
    std::call_once(g_logger_once, [&] { g_logger = make_logger(file); });
    if (!level.empty()) g_logger->set_level(spdlog::level::from_str(level));
  } catch (...) {
  }
}

spdlog::logger& log() noexcept {
  try {
    std::call_once(g_logger_once, [] { g_logger = make_logger(""); });
  } catch (...) {
  }
  return *g_logger;
}

void warn_once(const std::string& key, const std::string& message) noexcept {
  static std::mutex* mutex = new std::mutex;
  static auto* seen = new std::unordered_set<std::string>;
  try {
    std::lock_guard<std::mutex> lock(*mutex);
    if (!seen->insert(key).second) return;
    log().warn("{}", message);
  } catch (...) {
  }
}

}  // namespace vkleak
