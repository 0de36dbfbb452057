#include "base/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace vkleak {

mode_t directory_mode(mode_t file_mode) noexcept {
  mode_t mode = 0700;
  if (file_mode & 0040) mode |= 0050;
  if (file_mode & 0004) mode |= 0005;
  return mode;
}

const char* file_kind(mode_t mode) noexcept {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "is a regular file";
    case S_IFDIR:
      return "is a directory";
    case S_IFIFO:
      return "is a named pipe (FIFO)";
    case S_IFCHR:
      return "is a character device";
    case S_IFBLK:
      return "is a block device";
    case S_IFSOCK:
      return "is a socket";
    case S_IFLNK:
      return "is a symbolic link";
  }
  return "is not a regular file";
}

int open_checked_dir(const std::string& dir, std::string* error) noexcept {
  try {
    const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      struct stat st;
      if ((err == ELOOP || err == ENOTDIR) && lstat(dir.c_str(), &st) == 0)
        *error = std::string("refused: it ") + file_kind(st.st_mode) + ", not a directory";
      else
        *error = std::strerror(err);
      return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      *error = std::strerror(errno);
      close(fd);
      return -1;
    }
    const uid_t me = geteuid();
    if (st.st_uid != me && st.st_uid != 0) {
      *error =
          "refused: the directory belongs to another user (uid " + std::to_string(st.st_uid) + ")";
      close(fd);
      return -1;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !((st.st_mode & S_ISVTX) && st.st_uid == me)) {
      // Group-writable too: a umask of 002 makes directories so, and the layer cannot tell a
      // private group from a shared one without a user database lookup (which may block).
      *error = std::string("refused: the directory is writable by other users (") +
               ((st.st_mode & S_IWOTH) ? "everyone" : "its group") +
               "), and not a sticky directory of this user's; make it private (chmod go-w) or "
               "choose another (output_dir, VKLEAK_OUTPUT_DIR)";
      close(fd);
      return -1;
    }
    return fd;
  } catch (...) {
    *error = "out of memory";
    return -1;
  }
}

int create_exclusive(int dir_fd, const char* name, mode_t mode) noexcept {
  const int fd =
      openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  if (fd < 0) return -1;
  // Exactly the mode asked for, whatever the umask (it may only have taken bits away).
  if (fchmod(fd, mode) != 0) {
    const int err = errno;
    unlinkat(dir_fd, name, 0);  // made just now, by this call
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

int open_log_file(const std::string& path, std::string* error) noexcept {
  try {
    const int fd = open(path.c_str(),
                        O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int err = errno;
      struct stat st;
      if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))  // ELOOP, ENXIO (a FIFO)
        *error = std::string("refused: it ") + file_kind(st.st_mode) + ", not a regular file";
      else
        *error = std::strerror(err);
      return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      *error = std::strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
      *error = std::string("refused: it ") + file_kind(st.st_mode) + ", not a regular file";
    } else if (st.st_nlink != 1) {
      *error = "refused: the file has more than one link";
    } else if (st.st_uid != geteuid()) {
      *error = "refused: the file belongs to another user (uid " + std::to_string(st.st_uid) + ")";
    } else {
      return fd;
    }
    close(fd);
    return -1;
  } catch (...) {
    *error = "out of memory";
    return -1;
  }
}

bool read_small_file(const std::string& path, size_t limit, std::string* out,
                     std::string* error) noexcept {
  try {
    error->clear();
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      if (errno != ENOENT) *error = std::strerror(errno);
      return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      *error = std::strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
      *error = std::string("refused: it ") + file_kind(st.st_mode) + ", not a regular file";
    } else if (static_cast<uint64_t>(st.st_size) > limit) {
      *error = "refused: it is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
               std::to_string(limit) + " bytes";
    } else {
      out->clear();
      char buf[4096];
      while (true) {
        const ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          *error = std::strerror(errno);
          break;
        }
        if (n == 0) break;
        if (out->size() + static_cast<size_t>(n) > limit) {  // grew while being read
          *error = "refused: it is more than the limit of " + std::to_string(limit) + " bytes";
          break;
        }
        out->append(buf, static_cast<size_t>(n));
      }
    }
    close(fd);
    return error->empty();
  } catch (...) {
    *error = "out of memory";
    return false;
  }
}

}  // namespace vkleak
