#include "core/snapshot_parser.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "core/byte_source.h"
#include "core/fast_json.h"
#include "core/snapshot_handler.h"

namespace vkleak {
namespace {

using reader_detail::SnapshotHandler;

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1,
// column 5: "; the byte offset printed instead says where.
std::string parser_message(const std::string& what) {
  std::string text = what;
  if (auto pos = text.find("] "); pos != std::string::npos && text[0] == '[') {
    text = text.substr(pos + 2);
  }
  if (auto pos = text.find(": "); pos != std::string::npos && text.rfind("parse error", 0) == 0) {
    text = text.substr(pos + 2);
  }
  return text;
}

// Byte offsets for the fast parser's handler: its errors are never shown (see below).
struct NoOffsets {
  uint64_t offset() const { return 0; }
  void mark_event() {}
};

// No object takes less than 128 bytes of JSON, so this never has to grow; the pages past the
// real count are never touched and cost no memory.
void reserve_objects(uint64_t size_hint, Snapshot* out) {
  out->objects.reserve(std::min<uint64_t>(size_hint / 128, uint64_t{16} << 20));
}

// The fast path: true when the snapshot was read completely and is valid.
bool parse_fast(int fd, uint64_t size_hint, const ReadOptions& options, Snapshot* out) {
  reserve_objects(size_hint, out);
  NoOffsets offsets;
  SnapshotHandler<NoOffsets> handler(out, &offsets, options, size_hint);
  const FastJsonResult result = fast_json_parse(fd, &handler, options.max_file_bytes,
                                                options.max_token_bytes, options.progress_bytes);
  if (result != FastJsonResult::kOk || handler.finish(true)) return false;
  return true;
}

}  // namespace

void parse_snapshot(int fd, const std::string& path, uint64_t size_hint, const ReadOptions& options,
                    Snapshot* out) {
  // The fast parser first, for seekable files; whatever it cannot settle (any error among them)
  // is read again by nlohmann's parser, whose messages are the reference.
  if (options.parser == ParserChoice::kAuto && size_hint > 0 && ::lseek(fd, 0, SEEK_CUR) == 0) {
    if (parse_fast(fd, size_hint, options, out)) return;
    if (::lseek(fd, 0, SEEK_SET) != 0) {
      const int err = errno;
      throw SnapshotError(path, std::string("cannot seek: ") + std::strerror(err));
    }
    std::string kept_path = std::move(out->path);
    *out = Snapshot{};
    out->path = std::move(kept_path);
  }
  reserve_objects(size_hint, out);
  ByteSource source(fd, options.max_file_bytes, options.max_token_bytes, options.progress_bytes);
  SnapshotHandler<ByteSource> handler(out, &source, options, size_hint);
  const bool ok = nlohmann::json::sax_parse(ByteIterator(&source), ByteIterator(), &handler,
                                            nlohmann::json::input_format_t::json,
                                            /*strict=*/true, /*ignore_comments=*/false);
  source.detach();
  if (!ok) {
    const uint64_t at = source.offset();
    switch (source.stop()) {
      case ByteSource::Stop::kReadError:
        handler.set_input_error(std::string("read error: ") + std::strerror(source.read_errno()),
                                at);
        break;
      case ByteSource::Stop::kTooLarge:
        handler.set_input_error("input is larger than the limit of " +
                                    std::to_string(options.max_file_bytes) + " bytes",
                                at);
        break;
      case ByteSource::Stop::kTokenTooLong:
        handler.set_input_error("a single JSON token is longer than the limit of " +
                                    std::to_string(options.max_token_bytes) + " bytes",
                                at);
        break;
      case ByteSource::Stop::kEof:
        if (at == 0) {
          handler.set_input_error("file is empty", std::nullopt);
        } else if (!handler.parse_error_text().empty()) {
          handler.set_input_error("truncated JSON: the file ends in the middle of the document (" +
                                      std::to_string(at) + " bytes)",
                                  std::nullopt);
        }
        break;
      case ByteSource::Stop::kNone:
        if (!handler.parse_error_text().empty()) {
          const uint64_t position = handler.parse_error_position();
          handler.set_input_error("invalid JSON: " + parser_message(handler.parse_error_text()),
                                  position > 0 ? position - 1 : 0);
        }
        break;
    }
  }
  if (auto error = handler.finish(ok)) throw SnapshotError(path, error->message, error->offset);
}

}  // namespace vkleak
