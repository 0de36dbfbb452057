#include "cli/common.h"

#include <iostream>
#include <map>

namespace vkleak::cli {

void add_format_option(CLI::App* command, OutputFormat* format) {
  const std::map<std::string, OutputFormat> names{{"text", OutputFormat::kText},
                                                  {"json", OutputFormat::kJson}};
  command->add_option("--format", *format, "Output format: text (default) or json")
      ->transform(CLI::CheckedTransformer(names))
      ->option_text("text|json")
      ->default_str("text");
}

void add_color_option(CLI::App* command, ColorMode* color) {
  const std::map<std::string, ColorMode> names{
      {"auto", ColorMode::kAuto}, {"always", ColorMode::kAlways}, {"never", ColorMode::kNever}};
  command
      ->add_option("--color", *color,
                   "Colour text output: auto (the default: when stdout is a terminal and "
                   "NO_COLOR is unset), always or never")
      ->transform(CLI::CheckedTransformer(names))
      ->option_text("auto|always|never")
      ->default_str("auto");
}

void print_error(const std::string& message) {
  std::cerr << "vkleak: error: " << message << std::endl;
}

void print_warning(const std::string& message) {
  std::cerr << "vkleak: warning: " << message << std::endl;
}

void print_note(const std::string& message) {
  std::cerr << "vkleak: " << message << std::endl;
}

}  // namespace vkleak::cli
