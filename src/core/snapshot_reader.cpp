#include "core/snapshot_reader.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <utility>

#include "core/input_file.h"
#include "core/snapshot_parser.h"

namespace vkleak {

Snapshot read_snapshot(const std::string& path, const ReadOptions& options) {
  // Regular files, and pipes (vkleak show <(zcat x.json.gz)); never a named FIFO or a device.
  OpenedInput in;
  std::string error;
  if (!open_input_file(path, &in, &error)) throw SnapshotError(path, error);
  if (!in.is_pipe) {
    if (in.size == 0) throw SnapshotError(path, "file is empty");
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
  // vkleak-<pid>-<sequence>-<reason>.json
  constexpr std::string_view kPrefix = "vkleak-";
  constexpr std::string_view kSuffix = ".json";
  if (name.size() <= kPrefix.size() + kSuffix.size() || name.rfind(kPrefix, 0) != 0 ||
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return false;
  }
  std::string_view rest(name);
  rest = rest.substr(kPrefix.size(), rest.size() - kPrefix.size() - kSuffix.size());
  uint64_t numbers[2];
  for (uint64_t& number : numbers) {
    size_t digits = 0;
    number = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      if (digits >= 19) return false;  // would overflow
      number = number * 10 + static_cast<uint64_t>(rest[digits] - '0');
      ++digits;
    }
    if (digits == 0 || digits >= rest.size() || rest[digits] != '-') return false;
    rest.remove_prefix(digits + 1);
  }
  if (rest.empty()) return false;
  for (char c : rest) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  out->pid = numbers[0];
  out->sequence = numbers[1];
  out->reason = std::string(rest);
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
    if (!it->is_regular_file(type_ec)) continue;
    file.path = it->path().string();
    files.push_back(std::move(file));
  }
  if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
  std::sort(files.begin(), files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.sequence != b.sequence) return a.sequence < b.sequence;
    return a.path < b.path;
  });
  return files;
}

}  // namespace vkleak
