// Opening files named by users or by untrusted inputs (a snapshot's module paths) for reading,
// without ever blocking: open() on a FIFO waits for a writer forever, and reading a device such as
// /dev/zero never ends. Only regular files and anonymous pipes (`<(zcat x.json.gz)`, /dev/stdin
// on a pipe) are accepted; named FIFOs, devices, sockets and directories are refused unopened
// where stat() can tell, and again after the non-blocking open (the path may have changed).
#pragma once

#include <cstdint>
#include <string>

namespace vkleak {

// An open file descriptor, closed on destruction.
class InputFd {
 public:
  InputFd() = default;
  explicit InputFd(int fd) : fd_(fd) {}
  ~InputFd();
  InputFd(InputFd&& other) noexcept : fd_(other.release()) {}
  InputFd& operator=(InputFd&& other) noexcept;
  InputFd(const InputFd&) = delete;
  InputFd& operator=(const InputFd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct OpenedInput {
  InputFd fd;            // blocking mode again, so a pipe's writer may take its time
  bool is_pipe = false;  // an anonymous pipe: no size known in advance
  uint64_t size = 0;     // a regular file's size
};

// Opens path for reading. False, with *error set to what is wrong (without the path, e.g.
// "is a named pipe (FIFO), not a regular file" or "cannot open: No such file or directory"),
// when it is not a regular file or anonymous pipe or cannot be opened.
bool open_input_file(const std::string& path, OpenedInput* out, std::string* error,
                     bool allow_pipe = true);

// Reads a whole input file of at most max_bytes. False with *error set (without the path) when
// open_input_file refuses it, it is larger ("is N bytes, more than the limit of M (L)"), or a
// read fails.
bool read_input_file(const std::string& path, uint64_t max_bytes, std::string* content,
                     std::string* error);

// For paths from untrusted data: a regular file's descriptor (close-on-exec), or -1 for anything
// else, never blocking.
int open_regular_file(const std::string& path);

// "64 MiB" for whole mebibytes, else the byte count.
std::string describe_byte_limit(uint64_t bytes);

}  // namespace vkleak
