// The layer's private logger: stderr or a file, never stdout, never the app's spdlog registry.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace vkleak {

// Configures the logger (first caller wins for the sink; the level may change later).
void configure_log(const std::string& level, const std::string& file) noexcept;

spdlog::logger& log() noexcept;

// Logs a warning only the first time `key` is seen (per process), for conditions that would
// otherwise repeat every frame.
void warn_once(const std::string& key, const std::string& message) noexcept;

}  // namespace vkleak
