// Conventions every vkleak command shares: exit codes, --format, --color, error messages.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "shared/text.h"

namespace vkleak::cli {

// Exit codes. kExitFindings is for `gate`: findings over policy.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;  // bad flags or unusable input
// `gate`: a run its snapshots do not cover whole (crashed, killed, a snapshot missing or not
// written): nothing may pass that was not checked. Wins over kExitFindings.
inline constexpr int kExitIncomplete = 3;
// `gate` and `baseline --update`: the baseline is of another program (no executable's file name
// in common with the runs'); --baseline-any-program accepts it.
inline constexpr int kExitOtherProgram = 4;

enum class OutputFormat { kText, kJson };

void add_format_option(CLI::App* command, OutputFormat* format);
void add_color_option(CLI::App* command, ColorMode* color);

// "vkleak: error: <message>" on stderr.
void print_error(const std::string& message);
// "vkleak: warning: <message>" on stderr.
void print_warning(const std::string& message);
// "vkleak: <message>" on stderr.
void print_note(const std::string& message);

}  // namespace vkleak::cli
