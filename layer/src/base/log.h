// The layer's private logger: stderr or a file, never stdout, never the app's spdlog registry.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

#include "shared/escape.h"  // the one escaping rule of the CLI's terminal output

namespace vkleak {

// Text from outside (settings values, paths, the environment) as a log line may show it: the
// CLI's printable() rule (controls and invalid UTF-8 as \xNN, bidi and invisible code points as
// <U+XXXX>, cut to kDisplayChars code points), so no ESC or OSC sequence reaches a terminal.
std::string shown(std::string_view text);

// Configures the logger (first caller wins for the sink; the level may change later).
void configure_log(const std::string& level, const std::string& file) noexcept;

spdlog::logger& log() noexcept;

// Logs a warning only the first time `key` is seen (per process), for conditions that would
// otherwise repeat every frame.
void warn_once(const std::string& key, const std::string& message) noexcept;

}  // namespace vkleak
