// The reader's state machine: nlohmann's SAX events (or the fast parser's, fast_json.h) in,
// contexts and keys checked against the contract (snapshot_contexts.h), values handed to the
// SnapshotBuilder, errors reported with the JSON path and byte offset where they are.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/record_parser.h"
#include "core/snapshot.h"
#include "core/snapshot_builder.h"
#include "core/snapshot_contexts.h"
#include "core/snapshot_reader.h"
#include "core/snapshot_scalar.h"
#include "format/snapshot_fields.h"
#include "shared/text.h"

namespace vkleak::reader_detail {

// The SAX handler: a state machine that fills a Snapshot and checks every value against the
// schema. On the first content error it stops caring about the content but keeps scanning the
// top level for "format" and "version" (unless the input itself is broken), because "not a
// vkleak snapshot" and "too new" explain a type error better than the type error does.
// Source tells byte offsets for messages (ByteSource for nlohmann's parser; the fast parser's
// errors are never shown, see parse_snapshot).
template <typename Source>
class SnapshotHandler final : public ContentErrors {
 public:
  enum class ErrorKind { kForeign, kVersion, kContent, kSyntax };
  struct Error {
    ErrorKind kind;
    std::string message;
    std::optional<uint64_t> offset;
  };

  SnapshotHandler(Snapshot* snapshot, Source* source, const ReadOptions& options,
                  uint64_t size_hint)
      : snap_(*snapshot),
        src_(*source),
        options_(options),
        builder_(snapshot, this, options, size_hint) {
    stack_.reserve(16);
    stack_.push_back({Ctx::kRoot, nullptr, 0, 0});
  }

  // The error to report, or nullopt when the snapshot is complete and valid.
  std::optional<Error> finish(bool parsed_to_end) {
    if (format_seen_ && !format_ok_) {
      return Error{ErrorKind::kForeign,
                   "not a vkleak snapshot (\"format\" is " + format_text_ + ", expected \"" +
                       std::string(format::kFormatName) + "\")",
                   std::nullopt};
    }
    if (root_not_object_) {
      return Error{ErrorKind::kForeign,
                   "not a vkleak snapshot (the JSON document is not an object)", std::nullopt};
    }
    if (version_seen_ && version_ > format::kVersion) {
      return Error{ErrorKind::kVersion,
                   "snapshot version " + std::to_string(version_) +
                       " is newer than this vkleak supports (" + std::to_string(format::kVersion) +
                       "); upgrade vkleak",
                   std::nullopt};
    }
    if (!format_seen_ && parsed_to_end && (!error_ || error_->kind != ErrorKind::kSyntax)) {
      return Error{ErrorKind::kForeign, "not a vkleak snapshot (no \"format\" key)", std::nullopt};
    }
    if (error_) return error_;
    if (!parsed_to_end) {
      return Error{ErrorKind::kSyntax, "the JSON parser stopped early", src_.offset()};
    }
    if (auto message = builder_.validate_references()) {
      return Error{ErrorKind::kContent, std::move(*message), std::nullopt};
    }
    return std::nullopt;
  }

  // Records a syntax error (or the limit that made the input end early).
  void set_input_error(std::string message, std::optional<uint64_t> offset) {
    if (!error_) error_ = Error{ErrorKind::kSyntax, std::move(message), offset};
  }

  // The fast parser's shortcut for elements of "objects" (see fast_json.h): the general path
  // below stays the reference, this one only takes records it can file exactly as it would.
  bool wants_fast_element() const {
    // An element opens 3 more levels at most (last_use, edges, an edge).
    return !draining_ && skip_ == 0 && !error_ && stack_.back().ctx == Ctx::kObjects &&
           version_seen_ && version_ == 2 && depth_ + 3 <= options_.max_depth;
  }
  const char* fast_element(const char* p, const char* end) {
    const char* next = parse_object_record(p, end, &raw_);
    if (next == nullptr || !builder_.commit_record(&raw_)) return nullptr;
    ++stack_.back().count;
    src_.mark_event();
    return next;
  }

  const std::string& parse_error_text() const { return parse_error_text_; }
  // Bytes read up to and including the one the parser choked on.
  uint64_t parse_error_position() const { return parse_error_position_; }

  // --- nlohmann SAX interface ---------------------------------------------------------------

  bool null() { return scalar(Scalar{}); }
  bool boolean(bool value) {
    Scalar v;
    v.kind = Scalar::kBool;
    v.b = value;
    return scalar(v);
  }
  bool number_integer(int64_t value) {
    Scalar v;
    v.kind = Scalar::kInt;
    v.i = value;
    return scalar(v);
  }
  bool number_unsigned(uint64_t value) {
    Scalar v;
    v.kind = Scalar::kUint;
    v.u = value;
    return scalar(v);
  }
  bool number_float(double /*value*/, const std::string& /*raw*/) {
    Scalar v;
    v.kind = Scalar::kFloat;
    return scalar(v);
  }
  bool string(std::string& value) {
    Scalar v;
    v.kind = Scalar::kString;
    v.s = &value;
    return scalar(v);
  }
  bool binary(nlohmann::json::binary_t& /*value*/) { return true; }  // not produced by JSON
  bool start_object(std::size_t /*elements*/) { return start(/*is_object=*/true); }
  bool start_array(std::size_t /*elements*/) { return start(/*is_object=*/false); }
  bool end_object() { return end(); }
  bool end_array() { return end(); }

  bool key(std::string& key) {
    src_.mark_event();
    if (draining_) {
      if (depth_ == 1) field_ = field_index(top::kNames, key);
      return true;
    }
    if (skip_ > 0) return true;
    Level& top = stack_.back();
    if (top.ctx == Ctx::kCounts) {
      builder_.set_count_key(key);
      field_ = 0;
      return true;
    }
    field_ = lookup_field(spec_of(top.ctx), key);
    if (field_ >= 0) {
      if (top.seen & bit(field_)) {
        return fail("duplicate key " + quote_printable(key, 40), /*with_field=*/false);
      }
      top.seen |= bit(field_);
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    parse_error_text_ = ex.what();
    parse_error_position_ = position;
    return false;
  }

 private:
  struct Level {
    Ctx ctx;
    const char* name;  // the key this container is the value of
    uint64_t count;    // elements seen so far (arrays)
    uint32_t seen;     // fields seen so far (objects)
  };

  // --- errors ---------------------------------------------------------------------------------

  // The JSON path of the value being read, e.g. objects[12].size.
  std::string path(bool with_field) const {
    std::string p;
    for (size_t i = 2; i < stack_.size(); ++i) {
      const Level& parent = stack_[i - 1];
      if (is_array(parent.ctx)) {
        p += "[" + std::to_string(parent.count - 1) + "]";
      } else {
        if (!p.empty()) p += '.';
        p += stack_[i].ctx == Ctx::kCount ? quote_printable(builder_.count_key(), 40)
                                          : stack_[i].name;
      }
    }
    const Level& top = stack_.back();
    if (with_field) {
      if (is_array(top.ctx)) {
        p += "[" + std::to_string(top.count - 1) + "]";
      } else if (top.ctx == Ctx::kCounts) {
        p += "." + quote_printable(builder_.count_key(), 40);
      } else if (field_ >= 0 && field_ < spec_of(top.ctx).count) {
        if (!p.empty()) p += '.';
        p += spec_of(top.ctx).names[field_];
      }
    }
    return p;
  }

  // A content error: recorded, then the rest is only scanned (see the class comment).
  bool fail(const std::string& message, bool with_field = true) override {
    if (!error_) {
      std::string where = path(with_field);
      error_ = Error{ErrorKind::kContent, where.empty() ? message : where + ": " + message,
                     src_.offset()};
    }
    draining_ = true;
    return true;
  }
  // An error that ends the parse at once.
  bool stop(ErrorKind kind, const std::string& message) {
    if (!error_) error_ = Error{kind, message, src_.offset()};
    return false;
  }
  // --- structure ------------------------------------------------------------------------------

  bool push(Ctx ctx, const char* name) {
    stack_.push_back({ctx, name, 0, 0});
    return true;
  }

  bool start(bool is_object) {
    src_.mark_event();
    if (++depth_ > options_.max_depth) {
      return stop(ErrorKind::kSyntax,
                  "JSON nested deeper than " + std::to_string(options_.max_depth) + " levels");
    }
    if (draining_) return true;
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    Level& top = stack_.back();
    if (top.ctx == Ctx::kRoot) {
      if (!is_object) {
        root_not_object_ = true;
        return false;
      }
      return push(Ctx::kTop, nullptr);
    }
    if (is_array(top.ctx)) {
      ++top.count;
      const Ctx element = element_of(top.ctx);
      if (element == Ctx::kFrames) return type_error(kHandleExpected, is_object);
      if (!is_object) return type_error("an object", false);
      builder_.begin_element(element);
      return push(element, nullptr);
    }
    if (top.ctx == Ctx::kCounts) {
      if (!is_object) return type_error("an object", false);
      builder_.begin_element(Ctx::kCount);
      return push(Ctx::kCount, nullptr);
    }
    if (field_ < 0) {  // an unknown key: ignored whatever it holds ("settings" among them)
      skip_ = 1;
      return true;
    }
    if (top.ctx == Ctx::kTop && field_ == top::kFormat) return note_format(nullptr);
    const std::optional<ChildSpec> child = child_of(top.ctx, field_);
    if (!child) return type_error(kScalarExpected, is_object);
    if (child->object != is_object) {
      return type_error(child->object ? "an object" : "an array", is_object);
    }
    builder_.begin_child(child->ctx);
    return push(child->ctx, spec_of(top.ctx).names[field_].data());
  }

  bool end() {
    src_.mark_event();
    --depth_;
    if (draining_) return true;
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    const Level& top = stack_.back();
    const ObjectSpec& spec = spec_of(top.ctx);
    uint32_t required = spec.required;
    if (version_seen_ && version_ < 2) required &= ~spec.since_v2;
    const uint32_t missing = required & ~top.seen;
    if (missing != 0) {
      const int field = __builtin_ctz(missing);
      if (top.ctx == Ctx::kTop && field == top::kFormat) {
        return stop(ErrorKind::kForeign, "not a vkleak snapshot (no \"format\" key)");
      }
      return fail("missing required key \"" + std::string(spec.names[field]) + "\"",
                  /*with_field=*/false);
    }
    const uint64_t index = stack_.size() >= 2 ? stack_[stack_.size() - 2].count - 1 : 0;
    if (!builder_.finish_record(top.ctx, index)) return true;  // the error is recorded
    stack_.pop_back();
    field_ = -1;
    return true;
  }

  bool scalar(const Scalar& v) {
    src_.mark_event();
    if (draining_) {
      if (depth_ == 1 && field_ == top::kFormat) return note_format(&v);
      if (depth_ == 1 && field_ == top::kVersion) return note_version(v);
      return true;
    }
    if (skip_ > 0) return true;
    Level& top = stack_.back();
    if (top.ctx == Ctx::kObject && field_ >= 0) return builder_.scalar(Ctx::kObject, field_, v);
    if (is_array(top.ctx)) {
      ++top.count;
      if (top.ctx != Ctx::kFrames) return type_error("an object", v);
      builder_.frame(v);
      return true;
    }
    if (top.ctx == Ctx::kRoot) {
      root_not_object_ = true;
      return false;
    }
    if (top.ctx == Ctx::kCounts) return type_error("an object with \"live\" and \"bytes\"", v);
    if (field_ < 0) return true;  // an unknown key
    if (top.ctx == Ctx::kTop && field_ == top::kFormat) return note_format(&v);
    if (top.ctx == Ctx::kTop && field_ == top::kVersion) return note_version(v);
    return builder_.scalar(top.ctx, field_, v);
  }

  // Format and version decide how everything else is read, so they are checked at once.
  // v == nullptr: the value was a container.
  bool note_format(const Scalar* v) {
    format_seen_ = true;
    format_ok_ = v && v->kind == Scalar::kString && *v->s == format::kFormatName;
    if (format_ok_) return true;
    format_text_ = v ? describe(*v) : "not a string";
    return stop(ErrorKind::kForeign, "not a vkleak snapshot");
  }

  bool note_version(const Scalar& v) {
    if (v.kind != Scalar::kUint && v.kind != Scalar::kInt) {
      return draining_ ? true : type_error("an integer", v);
    }
    version_seen_ = true;
    version_ =
        v.kind == Scalar::kUint ? static_cast<int64_t>(std::min<uint64_t>(v.u, INT64_MAX)) : v.i;
    if (version_ > format::kVersion) {
      // With the format known there is nothing more to learn; otherwise look on for it, so a
      // foreign document with a "version" key is called foreign.
      if (format_seen_) return stop(ErrorKind::kVersion, "newer version");
      if (!error_) error_ = Error{ErrorKind::kVersion, "newer version", src_.offset()};
      draining_ = true;
      return true;
    }
    if (draining_) return true;
    if (version_ < format::kOldestVersion) {
      return fail("unsupported snapshot version " + std::to_string(version_));
    }
    snap_.version = static_cast<int>(version_);
    return true;
  }

  Snapshot& snap_;
  Source& src_;
  const ReadOptions& options_;

  std::vector<Level> stack_;
  int field_ = -1;     // the current key's field id in the innermost object, -1 if unknown
  uint32_t skip_ = 0;  // > 0 while inside a value that is ignored (its nesting depth)
  uint32_t depth_ = 0;
  bool draining_ = false;

  SnapshotBuilder builder_;
  RawRecord raw_;  // the fast path's record

  bool format_seen_ = false;
  bool format_ok_ = false;
  std::string format_text_;
  bool version_seen_ = false;
  int64_t version_ = 0;
  bool root_not_object_ = false;

  std::optional<Error> error_;
  std::string parse_error_text_;
  uint64_t parse_error_position_ = 0;
};

}  // namespace vkleak::reader_detail
