#include "core/snapshot_reader.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <utility>

#include "core/input_file.h"
#include "core/snapshot_parser.h"
#include "format/snapshot_format.h"
#include "shared/text.h"

namespace vkleak {

Snapshot read_snapshot(const std::string& path, const ReadOptions& options) {
  // Regular files, and pipes (vkleak show <(zcat x.json.gz)); never a named FIFO or a device.
  OpenedInput in;
  std::string error;
  if (!open_input_file(path, &in, &error)) throw SnapshotError(path, error);
  // A size of 0 is not proof of emptiness: /proc files say 0 and have content. The parser reads
  // to the end (bounded by max_file_bytes) and says "file is empty" when it was.
  if (!in.is_pipe) {
    if (in.size > options.max_file_bytes) {
      throw SnapshotError(path, "file is " + std::to_string(in.size) +
                                    " bytes, more than the limit of " +
                                    std::to_string(options.max_file_bytes));
    }
  }

  Snapshot snapshot;
  snapshot.path = path;
  parse_snapshot(in.fd.get(), path, in.size, options, &snapshot);
  return snapshot;
}

bool parse_snapshot_file_name(const std::string& name, SnapshotFile* out) {
  format::FileName parts;
  if (!format::parse_file_name(name, &parts)) return false;
  out->pid = parts.pid;
  out->run_id = std::string(parts.run_id);
  out->sequence = parts.sequence;
  out->reason = std::string(parts.reason);
  return true;
}

std::vector<SnapshotFile> read_snapshot_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw SnapshotError(dir, ec ? "cannot read directory: " + ec.message() : "is not a directory");
  }
  std::vector<SnapshotFile> files;
  fs::directory_iterator it(dir, ec);
  if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
    SnapshotFile file;
    if (!parse_snapshot_file_name(it->path().filename().string(), &file)) continue;
    std::error_code type_ec;
    // A link named like a snapshot whose target is gone is a snapshot that cannot be read, not
    // a file to pass over in silence (the run would look complete without it).
    if (it->is_symlink(type_ec) && !it->exists(type_ec)) {
      std::error_code link_ec;
      const fs::path target = fs::read_symlink(it->path(), link_ec);
      throw SnapshotError(it->path().string(),
                          "is a dangling symbolic link" +
                              (link_ec ? std::string()
                                       : " (its target " + quote_printable(target.string(), 200) +
                                             " does not exist)"));
    }
    if (!it->is_regular_file(type_ec)) continue;
    file.path = it->path().string();
    files.push_back(std::move(file));
  }
  if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
  std::sort(files.begin(), files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.run_id != b.run_id) return a.run_id < b.run_id;
    if (a.sequence != b.sequence) return a.sequence < b.sequence;
    return a.path < b.path;
  });
  return files;
}

}  // namespace vkleak
