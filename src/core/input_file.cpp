#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace vkleak {

namespace {

constexpr long kPipefsMagic = 0x50495045;  // linux/magic.h PIPEFS_MAGIC

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "is a character device";
  if (S_ISBLK(mode)) return "is a block device";
  if (S_ISSOCK(mode)) return "is a socket";
  return "is not a regular file";
}

std::string refused(mode_t mode) {
  return std::string(kind_of(mode)) + ", not a regular file";
}

// An anonymous pipe lives on pipefs; a named FIFO lives on a real file system, and nobody may
// ever write to one found in an artifact.
bool is_anonymous_pipe(int fd) {
  struct statfs fs;
  return ::fstatfs(fd, &fs) == 0 && static_cast<long>(fs.f_type) == kPipefsMagic;
}

}  // namespace

InputFd::~InputFd() {
  if (fd_ >= 0) ::close(fd_);
}

InputFd& InputFd::operator=(InputFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

bool open_input_file(const std::string& path, OpenedInput* out, std::string* error,
                     bool allow_pipe) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  // Devices are never opened: opening one can have effects of its own (a tape rewinds).
  if (!S_ISREG(st.st_mode) && !(allow_pipe && S_ISFIFO(st.st_mode))) {
    *error = refused(st.st_mode);
    return false;
  }
  // O_NONBLOCK: open() of a FIFO returns at once instead of waiting for a writer.
  InputFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  if (::fstat(fd.get(), &st) != 0) {
    *error = std::string("cannot stat: ") + std::strerror(errno);
    return false;
  }
  const bool pipe = allow_pipe && S_ISFIFO(st.st_mode) && is_anonymous_pipe(fd.get());
  if (!S_ISREG(st.st_mode) && !pipe) {
    *error = refused(st.st_mode);
    return false;
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  out->fd = std::move(fd);
  out->is_pipe = pipe;
  out->size = pipe ? 0 : static_cast<uint64_t>(st.st_size);
  return true;
}

std::string describe_byte_limit(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

bool read_input_file(const std::string& path, uint64_t max_bytes, std::string* content,
                     std::string* error) {
  OpenedInput in;
  if (!open_input_file(path, &in, error)) return false;
  if (!in.is_pipe && in.size > max_bytes) {
    *error = "is " + std::to_string(in.size) + " bytes, more than the limit of " +
             describe_byte_limit(max_bytes);
    return false;
  }
  content->clear();
  if (!in.is_pipe) content->reserve(static_cast<size_t>(in.size));
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(in.fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("cannot read: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    // A file growing while it is read, or a pipe, is bounded here.
    if (content->size() + static_cast<size_t>(n) > max_bytes) {
      content->clear();
      content->shrink_to_fit();
      *error = "is larger than the limit of " + describe_byte_limit(max_bytes);
      return false;
    }
    content->append(buffer, static_cast<size_t>(n));
  }
}

int open_regular_file(const std::string& path) {
  OpenedInput in;
  std::string error;
  if (!open_input_file(path, &in, &error, /*allow_pipe=*/false)) return -1;
  return in.fd.release();
}

}  // namespace vkleak
