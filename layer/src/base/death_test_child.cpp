#include "base/death_test_child.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

namespace vkleak {
namespace {

// An argument that marks a death-test child, as a prefix of one of its arguments.
constexpr std::string_view kDeathTestChildArguments[] = {"--gtest_internal_run_death_test"};

}  // namespace

bool is_death_test_child() noexcept {
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // Enough for the arguments of a test binary; a longer command line is read up to here.
  char buffer[16384];
  size_t size = 0;
  for (ssize_t n;
       size < sizeof buffer && (n = read(fd, buffer + size, sizeof buffer - size)) != 0;) {
    if (n < 0) break;
    size += static_cast<size_t>(n);
  }
  close(fd);
  // NUL-separated arguments.
  for (size_t start = 0; start < size;) {
    const char* arg = buffer + start;
    const size_t length = strnlen(arg, size - start);
    for (std::string_view marker : kDeathTestChildArguments) {
      if (std::string_view(arg, length).substr(0, marker.size()) == marker) return true;
    }
    start += length + 1;
  }
  return false;
}

}  // namespace vkleak
