#include "base/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <unordered_set>

#include "base/safe_file.h"

namespace vkleak {
namespace {

// Heap objects that are never destroyed: no static destructors run at dlclose or exit while
// another thread may still log.
spdlog::logger* g_logger = nullptr;
std::once_flag g_logger_once;

// The log file (safe_file.h: a regular file of this user's, no link, never blocking), appended
// to with write(2), up to kLogFileLimit bytes per process; then one line says so and the rest is
// dropped.
constexpr uint64_t kLogFileLimit = 64ull << 20;
class FdSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit FdSink(int fd) : fd_(fd) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (full_) return;
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    if (written_ + formatted.size() > kLogFileLimit) {
      full_ = true;
      static constexpr char kFull[] =
          "[vkleak] warn: log file limit reached; later lines dropped\n";
      put(kFull, sizeof(kFull) - 1);
      return;
    }
    put(formatted.data(), formatted.size());
  }
  void flush_() override {}

 private:
  void put(const char* data, size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // full disk, EAGAIN: the line is lost, the app goes on
      data += n;
      size -= static_cast<size_t>(n);
      written_ += static_cast<uint64_t>(n);
    }
  }
  int fd_;  // never closed: the logger lives until the process ends
  uint64_t written_ = 0;
  bool full_ = false;
};

spdlog::logger* make_logger(const std::string& file) {
  spdlog::sink_ptr sink;
  std::string why;
  if (!file.empty()) {
    try {
      const int fd = open_log_file(file, &why);
      if (fd >= 0) sink = std::make_shared<FdSink>(fd);
    } catch (...) {
      sink.reset();  // fall back to stderr below and say so
      if (why.empty()) why = "out of memory";
    }
  }
  bool file_failed = !file.empty() && !sink;
  if (!sink) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto* logger = new spdlog::logger("vkleak", sink);
  logger->set_pattern("[vkleak] %l: %v");
  logger->set_level(spdlog::level::warn);
  logger->flush_on(spdlog::level::warn);
  if (file_failed)
    logger->warn("cannot use log file '{}': {}; logging to stderr", shown(file), why);
  return logger;
}

}  // namespace

std::string shown(std::string_view text) {
  return printable(text, kDisplayChars);
}

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
