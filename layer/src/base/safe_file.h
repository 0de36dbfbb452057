// Files the layer opens from inside every process that loads it (issue 26): nothing blocks (no
// FIFO or device is ever opened for long, O_NONBLOCK everywhere), no link is followed where the
// layer writes or deletes (O_NOFOLLOW, and every file in the snapshot directory is reached
// through one checked directory handle: openat/renameat2/unlinkat), files are created
// exclusively (O_EXCL) and only regular files are read or appended to, within a size limit.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace vkleak {

// The mode of snapshot files unless the file_mode setting says otherwise.
constexpr mode_t kDefaultFileMode = 0600;
// Directories the layer makes: rwx for the owner, r-x for those the file mode lets read.
mode_t directory_mode(mode_t file_mode) noexcept;

// What a file is, for messages: "is a directory", "is a named pipe (FIFO)", ...
const char* file_kind(mode_t mode) noexcept;

// Opens `dir` (never through a link at its last component) for openat() & co and checks it is a
// directory the layer may write and delete in: owned by this user or root, and not writable by
// other users (group or others) unless it is sticky and this user's. Returns the descriptor, or
// -1 with *error saying why.
int open_checked_dir(const std::string& dir, std::string* error) noexcept;

// Creates `name` in `dir_fd` exclusively (O_EXCL: an existing file, FIFO or link there is an
// error, EEXIST) and never through a link, with exactly `mode`. -1 and errno on failure.
int create_exclusive(int dir_fd, const char* name, mode_t mode) noexcept;

// Opens a log file for appending: created 0600 if missing; refused unless it is a regular file
// with one link, owned by this user, reached without a link at its last component. Never
// blocks. -1 with *error saying why.
int open_log_file(const std::string& path, std::string* error) noexcept;

// Reads a small regular file (a settings file): never blocks on a FIFO, never reads a device,
// refuses more than `limit` bytes. Returns false with *error empty when the file does not exist,
// with *error saying why when it cannot be used.
bool read_small_file(const std::string& path, size_t limit, std::string* out,
                     std::string* error) noexcept;

}  // namespace vkleak
