#include "core/snapshot_parser.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/byte_source.h"
#include "core/fast_json.h"
#include "core/format.h"
#include "core/hex.h"
#include "core/record_parser.h"
#include "core/string_interner.h"
#include "format/snapshot_fields.h"

namespace vkleak {
namespace {

constexpr char kScalarExpected[] = "a string, number, boolean or null";
constexpr char kHandleExpected[] = "a hex string like \"0x1f\" (at most 16 digits)";

// Where the parser is: one entry per open JSON container.
enum class Ctx : uint8_t {
  kRoot,
  kTop,
  kProducer,
  kScope,
  kErrorResults,
  kInstances,
  kInstance,
  kDevices,
  kDevice,
  kQueues,
  kQueue,
  kUnwrittenList,
  kUnwritten,
  kObjects,
  kObject,
  kLastUse,
  kMemory,
  kEdges,
  kEdge,
  kDestroyedList,
  kDestroyed,
  kEvents,
  kEvent,
  kSubmission,
  kEventCreated,
  kEventFirstDestroy,
  kPath,
  kPathStep,
  kCallsites,
  kCallsite,
  kFrames,
  kModules,
  kModule,
  kCounts,
  kCount,
};

// The element context of an array context; kRoot when ctx is not an array.
Ctx element_of(Ctx ctx) {
  switch (ctx) {
    case Ctx::kInstances:
      return Ctx::kInstance;
    case Ctx::kDevices:
      return Ctx::kDevice;
    case Ctx::kQueues:
      return Ctx::kQueue;
    case Ctx::kUnwrittenList:
      return Ctx::kUnwritten;
    case Ctx::kObjects:
      return Ctx::kObject;
    case Ctx::kEdges:
      return Ctx::kEdge;
    case Ctx::kDestroyedList:
      return Ctx::kDestroyed;
    case Ctx::kEvents:
      return Ctx::kEvent;
    case Ctx::kPath:
      return Ctx::kPathStep;
    case Ctx::kCallsites:
      return Ctx::kCallsite;
    case Ctx::kFrames:
      return Ctx::kFrames;  // scalar elements
    case Ctx::kModules:
      return Ctx::kModule;
    default:
      return Ctx::kRoot;
  }
}

bool is_array(Ctx ctx) {
  return element_of(ctx) != Ctx::kRoot;
}

template <size_t N>
constexpr int field_index(const std::string_view (&names)[N], std::string_view key) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// --- The keys of each object context: the contract's field lists (src/format/). -------------

using ObjectSpec = format::Fields;
using namespace format;  // the field namespaces: top::kFormat, object::kId, ...

constexpr ObjectSpec kNoSpec{};

// A table, not a function with statics: this is called for every key.
constexpr const ObjectSpec& spec_of(Ctx ctx) {
  switch (ctx) {
    case Ctx::kTop:
      return format::kTop;
    case Ctx::kProducer:
      return format::kProducer;
    case Ctx::kScope:
      return format::kScope;
    case Ctx::kErrorResults:
      return format::kErrorResults;
    case Ctx::kInstance:
      return format::kInstance;
    case Ctx::kDevice:
      return format::kDevice;
    case Ctx::kQueue:
      return format::kQueue;
    case Ctx::kUnwritten:
      return format::kUnwritten;
    case Ctx::kObject:
      return format::kObject;
    case Ctx::kLastUse:
      return format::kLastUse;
    case Ctx::kMemory:
      return format::kMemory;
    case Ctx::kEdge:
      return format::kEdge;
    case Ctx::kDestroyed:
      return format::kDestroyed;
    case Ctx::kEvent:
      return format::kEvent;
    case Ctx::kSubmission:
      return format::kSubmission;
    case Ctx::kEventCreated:
    case Ctx::kEventFirstDestroy:
      return format::kWhen;
    case Ctx::kPathStep:
      return format::kPathStep;
    case Ctx::kCallsite:
      return format::kCallsite;
    case Ctx::kModule:
      return format::kModule;
    case Ctx::kCount:
      return format::kCountFields;
    default:
      return kNoSpec;
  }
}

int lookup_field(const ObjectSpec& spec, std::string_view key) {
  if (key.empty()) return -1;
  // Size and first byte rule out almost every other key without a memcmp call.
  for (int i = 0; i < spec.count; ++i) {
    const std::string_view name = spec.names[i];
    if (name.size() == key.size() && name[0] == key[0] && name == key) {
      return spec.opaque & bit(i) ? -1 : i;  // opaque: ignored as an unknown key is
    }
  }
  return -1;
}

// The container a key of an object context holds, if it holds one.
struct ChildSpec {
  Ctx ctx;
  bool object;  // else an array
};
std::optional<ChildSpec> child_of(Ctx ctx, int field) {
  switch (ctx) {
    case Ctx::kTop:
      switch (field) {
        case top::kProducer:
          return ChildSpec{Ctx::kProducer, true};
        case top::kScope:
          return ChildSpec{Ctx::kScope, true};
        case top::kErrorResults:
          return ChildSpec{Ctx::kErrorResults, true};
        case top::kCounts:
          return ChildSpec{Ctx::kCounts, true};
        case top::kInstances:
          return ChildSpec{Ctx::kInstances, false};
        case top::kDevices:
          return ChildSpec{Ctx::kDevices, false};
        case top::kObjects:
          return ChildSpec{Ctx::kObjects, false};
        case top::kCallsites:
          return ChildSpec{Ctx::kCallsites, false};
        case top::kModules:
          return ChildSpec{Ctx::kModules, false};
        case top::kDestroyed:
          return ChildSpec{Ctx::kDestroyedList, false};
        case top::kEvents:
          return ChildSpec{Ctx::kEvents, false};
        case top::kUnwritten:
          return ChildSpec{Ctx::kUnwrittenList, false};
      }
      break;
    case Ctx::kDevice:
      if (field == device::kQueues) return ChildSpec{Ctx::kQueues, false};
      break;
    case Ctx::kObject:
      if (field == object::kLastUse) return ChildSpec{Ctx::kLastUse, true};
      if (field == object::kMemory) return ChildSpec{Ctx::kMemory, true};
      if (field == object::kEdges) return ChildSpec{Ctx::kEdges, false};
      break;
    case Ctx::kEvent:
      if (field == event::kSubmission) return ChildSpec{Ctx::kSubmission, true};
      if (field == event::kPath) return ChildSpec{Ctx::kPath, false};
      if (field == event::kCreated) return ChildSpec{Ctx::kEventCreated, true};
      if (field == event::kFirstDestroy) return ChildSpec{Ctx::kEventFirstDestroy, true};
      break;
    case Ctx::kCallsite:
      if (field == callsite::kFrames) return ChildSpec{Ctx::kFrames, false};
      break;
    default:
      break;
  }
  return std::nullopt;
}

// A JSON scalar as the SAX parser reported it.
struct Scalar {
  enum Kind : uint8_t { kNull, kBool, kInt, kUint, kFloat, kString } kind = kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  std::string* s = nullptr;
};

std::string describe(const Scalar& v) {
  switch (v.kind) {
    case Scalar::kNull:
      return "null";
    case Scalar::kBool:
      return v.b ? "true" : "false";
    case Scalar::kInt:
      return std::to_string(v.i);
    case Scalar::kUint:
      return std::to_string(v.u);
    case Scalar::kFloat:
      return "a non-integer number";
    case Scalar::kString:
      return "the string " + quote_printable(*v.s, 40);
  }
  return "?";
}

// "one of a, b, c": what an enum's value may be.
template <size_t N>
std::string one_of(const std::string_view (&names)[N]) {
  std::string text = "one of ";
  for (size_t i = 0; i < N; ++i) {
    if (i) text += ", ";
    text += names[i];
  }
  return text;
}

template <typename T>
T saturate(uint64_t v) {
  return static_cast<T>(std::min<uint64_t>(v, std::numeric_limits<T>::max()));
}

bool valid_vk_type_name(std::string_view type) {
  if (type.size() < 3 || type[0] != 'V' || type[1] != 'k') return false;
  return std::all_of(type.begin() + 2, type.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

// The SAX handler: a state machine that fills a Snapshot and checks every value against the
// schema. On the first content error it stops caring about the content but keeps scanning the
// top level for "format" and "version" (unless the input itself is broken), because "not a
// vkleak snapshot" and "too new" explain a type error better than the type error does.
// Source tells byte offsets for messages (ByteSource for nlohmann's parser; the fast parser's
// errors are never shown, see parse_snapshot).
template <typename Source>
class SnapshotHandler {
 public:
  enum class ErrorKind { kForeign, kVersion, kContent, kSyntax };
  struct Error {
    ErrorKind kind;
    std::string message;
    std::optional<uint64_t> offset;
  };

  SnapshotHandler(Snapshot* snapshot, Source* source, const ReadOptions& options,
                  uint64_t size_hint)
      : snap_(*snapshot), src_(*source), options_(options) {
    stack_.reserve(16);
    // Debug names are sparse; this only saves the first rehashes.
    names_.reserve(std::min<uint64_t>(size_hint / 2048, uint64_t{1} << 20));
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
    return validate_references();
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
    return next != nullptr && commit_record(&raw_) ? next : nullptr;
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
      count_key_ = key;
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
        p += stack_[i].ctx == Ctx::kCount ? quote_printable(count_key_, 40) : stack_[i].name;
      }
    }
    const Level& top = stack_.back();
    if (with_field) {
      if (is_array(top.ctx)) {
        p += "[" + std::to_string(top.count - 1) + "]";
      } else if (top.ctx == Ctx::kCounts) {
        p += "." + quote_printable(count_key_, 40);
      } else if (field_ >= 0 && field_ < spec_of(top.ctx).count) {
        if (!p.empty()) p += '.';
        p += spec_of(top.ctx).names[field_];
      }
    }
    return p;
  }

  // A content error: recorded, then the rest is only scanned (see the class comment).
  bool fail(const std::string& message, bool with_field = true) {
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
  bool type_error(const char* expected, const Scalar& v) {
    return fail("expected " + std::string(expected) + ", got " + describe(v));
  }
  bool type_error(const char* expected, bool is_object) {
    return fail("expected " + std::string(expected) + ", got " +
                (is_object ? "an object" : "an array"));
  }

  // Typed accessors: true with *out set, or the error recorded and false.
  bool get_u64(const Scalar& v, uint64_t* out) {
    if (v.kind == Scalar::kUint) {
      *out = v.u;
      return true;
    }
    type_error("a non-negative integer", v);
    return false;
  }
  bool get_i64(const Scalar& v, int64_t* out) {
    if (v.kind == Scalar::kInt) {
      *out = v.i;
      return true;
    }
    if (v.kind == Scalar::kUint && v.u <= uint64_t{std::numeric_limits<int64_t>::max()}) {
      *out = static_cast<int64_t>(v.u);
      return true;
    }
    type_error(v.kind == Scalar::kUint ? "an integer that fits in 64 signed bits" : "an integer",
               v);
    return false;
  }
  bool get_opt_i64(const Scalar& v, int64_t* out) {
    if (v.kind == Scalar::kNull) {
      *out = kNullId;
      return true;
    }
    return get_i64(v, out);
  }
  bool get_bool(const Scalar& v, bool* out) {
    if (v.kind == Scalar::kBool) {
      *out = v.b;
      return true;
    }
    type_error("true or false", v);
    return false;
  }
  bool get_string(const Scalar& v, std::string* out) {
    if (v.kind == Scalar::kString) {
      *out = std::move(*v.s);
      return true;
    }
    type_error("a string", v);
    return false;
  }
  bool get_opt_string(const Scalar& v, std::optional<std::string>* out) {
    if (v.kind == Scalar::kNull) {
      out->reset();
      return true;
    }
    if (v.kind == Scalar::kString) {
      *out = std::move(*v.s);
      return true;
    }
    type_error("a string or null", v);
    return false;
  }
  bool get_handle(const Scalar& v, uint64_t* out) {
    if (v.kind == Scalar::kString && parse_hex_u64(*v.s, out)) return true;
    type_error(kHandleExpected, v);
    return false;
  }
  // A call-site index or null; the range is checked once all call sites are read.
  bool get_callsite(const Scalar& v, int32_t* out) {
    if (v.kind == Scalar::kNull) {
      *out = kNoCallsite;
      return true;
    }
    uint64_t u;
    if (!get_u64(v, &u)) return false;
    if (u > uint64_t{std::numeric_limits<int32_t>::max()}) {
      fail("call site index " + std::to_string(u) + " is out of range");
      return false;
    }
    *out = static_cast<int32_t>(u);
    return true;
  }

  // --- interning ------------------------------------------------------------------------------

  // strict: the Vk[A-Za-z0-9]+ pattern the schema demands of object types.
  bool intern_type(const std::string& type, bool strict, uint16_t* out) {
    // Objects of one type tend to come in runs: try the last one first.
    if (last_type_ >= 0 && snap_.type_names[static_cast<size_t>(last_type_)] == type) {
      *out = static_cast<uint16_t>(last_type_);
      return true;
    }
    auto it = type_index_.find(type);
    if (it == type_index_.end()) {
      if (strict && !valid_vk_type_name(type)) {
        fail("expected a Vulkan type name like VkBuffer, got " + quote_printable(type, 40));
        return false;
      }
      if (snap_.type_names.size() > 0xffff) {
        fail("more than 65536 distinct object types");
        return false;
      }
      it = type_index_.emplace(type, static_cast<uint16_t>(snap_.type_names.size())).first;
      snap_.type_names.push_back(type);
    }
    last_type_ = it->second;
    *out = it->second;
    return true;
  }

  bool intern_name(std::string& name, int32_t* out) {
    if (names_.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      fail("too many distinct debug names");
      return false;
    }
    *out = names_.intern(std::move(name));
    return true;
  }

  bool intern_opt_name(const Scalar& v, int32_t* out) {
    if (v.kind == Scalar::kNull) {
      *out = kNoName;
      return true;
    }
    if (v.kind != Scalar::kString) return type_error("a string or null", v);
    intern_name(*v.s, out);
    return true;
  }

  bool intern_edge_kind(const std::string& kind, uint16_t* out) {
    for (size_t i = 0; i < snap_.edge_kinds.size(); ++i) {
      if (snap_.edge_kinds[i] == kind) {
        *out = static_cast<uint16_t>(i);
        return true;
      }
    }
    // Kinds are create-info member names: a few dozen at most in a real snapshot.
    if (snap_.edge_kinds.size() >= 4096) return fail("more than 4096 distinct edge kinds");
    *out = static_cast<uint16_t>(snap_.edge_kinds.size());
    snap_.edge_kinds.push_back(kind);
    return true;
  }

  // Files a record read by parse_object_record; false, with nothing kept, when it would not be
  // filed as is (a limit is reached or a type name is invalid).
  bool commit_record(RawRecord* r) {
    const size_t extra = 1 + r->edges.size();
    if (snap_.objects.size() >= std::numeric_limits<uint32_t>::max() ||
        !valid_vk_type_name(r->type) || snap_.type_names.size() + extra > 0x10000 ||
        snap_.edge_kinds.size() + r->edges.size() > 4096 ||
        names_.size() + extra >= static_cast<size_t>(std::numeric_limits<int32_t>::max()) ||
        r->name.size() > options_.max_token_bytes) {
      return false;
    }
    for (const RawEdge& e : r->edges) {
      if (e.name.size() > options_.max_token_bytes) return false;
    }
    Object& o = r->object;
    const auto index = static_cast<uint32_t>(snap_.objects.size());
    if (last_type_ >= 0 && snap_.type_names[static_cast<size_t>(last_type_)] == r->type) {
      o.type = static_cast<uint16_t>(last_type_);
    } else {
      scratch_.assign(r->type);
      intern_type(scratch_, /*strict=*/true, &o.type);
    }
    if (r->has_name) o.name = names_.intern(r->name);
    if (r->has_last_use) {
      r->last_use.object = index;
      snap_.last_uses.push_back(r->last_use);
    }
    if (r->has_memory) {
      r->memory.object = index;
      snap_.memory_bindings.push_back(r->memory);
    }
    for (RawEdge& e : r->edges) {
      e.edge.from = index;
      scratch_.assign(e.kind);
      intern_edge_kind(scratch_, &e.edge.kind);
      scratch_.assign(e.type);
      intern_type(scratch_, /*strict=*/false, &e.edge.type);
      if (e.has_name) e.edge.name = names_.intern(e.name);
      snap_.edges.push_back(e.edge);
    }
    snap_.objects.push_back(o);
    ++stack_.back().count;
    src_.mark_event();
    return true;
  }

  // --- structure ------------------------------------------------------------------------------

  bool push(Ctx ctx, const char* name) {
    stack_.push_back({ctx, name, 0, 0});
    return true;
  }

  // Starts the record an array element holds.
  void begin_element(Ctx ctx) {
    switch (ctx) {
      case Ctx::kInstance:
        instance_ = Instance{};
        break;
      case Ctx::kDevice:
        device_ = Device{};
        break;
      case Ctx::kQueue:
        queue_ = Queue{};
        break;
      case Ctx::kUnwritten:
        unwritten_ = UnwrittenSnapshot{};
        break;
      case Ctx::kObject:
        object_ = Object{};
        break;
      case Ctx::kEdge:
        edge_ = Edge{};
        edge_.from = static_cast<uint32_t>(snap_.objects.size());
        break;
      case Ctx::kDestroyed:
        destroyed_ = DestroyedObject{};
        break;
      case Ctx::kEvent:
        event_ = Event{};
        break;
      case Ctx::kPathStep:
        step_ = EventPathStep{};
        break;
      case Ctx::kCallsite:
        callsite_id_ = 0;
        frames_.clear();
        break;
      case Ctx::kModule:
        module_ = Module{};
        break;
      default:
        break;
    }
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
      begin_element(element);
      return push(element, nullptr);
    }
    if (top.ctx == Ctx::kCounts) {
      if (!is_object) return type_error("an object", false);
      count_ = TypeCount{};
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
    switch (child->ctx) {
      case Ctx::kLastUse:
        last_use_ = LastUse{};
        last_use_.object = static_cast<uint32_t>(snap_.objects.size());
        break;
      case Ctx::kMemory:
        memory_ = MemoryBinding{};
        memory_.object = static_cast<uint32_t>(snap_.objects.size());
        break;
      case Ctx::kSubmission:
        event_.has_submission = true;
        break;
      case Ctx::kEventCreated:
        event_.has_created = true;
        break;
      case Ctx::kEventFirstDestroy:
        event_.has_first_destroy = true;
        break;
      default:
        break;
    }
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
    if (!finish_record(top.ctx)) return true;  // the error is recorded
    stack_.pop_back();
    field_ = -1;
    return true;
  }

  // Files a complete record where it belongs; false when it is invalid.
  bool finish_record(Ctx ctx) {
    switch (ctx) {
      case Ctx::kInstance:
        snap_.instances.push_back(std::move(instance_));
        break;
      case Ctx::kDevice:
        snap_.devices.push_back(std::move(device_));
        break;
      case Ctx::kQueue:
        device_.queues.push_back(queue_);
        break;
      case Ctx::kUnwritten:
        // The layer keeps the last 32; a hostile file may list millions.
        if (snap_.unwritten.size() < 1024) snap_.unwritten.push_back(std::move(unwritten_));
        break;
      case Ctx::kObject:
        if (snap_.objects.size() >= std::numeric_limits<uint32_t>::max()) {
          fail("more than 2^32 objects", false);
          return false;
        }
        snap_.objects.push_back(object_);
        break;
      case Ctx::kLastUse:
        snap_.last_uses.push_back(last_use_);
        break;
      case Ctx::kMemory:
        snap_.memory_bindings.push_back(memory_);
        break;
      case Ctx::kEdge:
        snap_.edges.push_back(edge_);
        break;
      case Ctx::kDestroyed:
        snap_.destroyed.push_back(destroyed_);
        break;
      case Ctx::kEvent:
        snap_.events.push_back(std::move(event_));
        break;
      case Ctx::kPathStep:
        event_.path.push_back(std::move(step_));
        break;
      case Ctx::kCallsite: {
        const uint64_t index = stack_[stack_.size() - 2].count - 1;
        if (callsite_id_ != index) {
          fail("call site id is " + std::to_string(callsite_id_) + " but entry i must have id i (" +
                   std::to_string(index) + ")",
               false);
          return false;
        }
        snap_.callsites.push_back(frames_);
        break;
      }
      case Ctx::kModule:
        snap_.modules.push_back(std::move(module_));
        break;
      case Ctx::kCount:
        snap_.counts[count_key_] = count_;
        break;
      default:
        break;
    }
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
    if (top.ctx == Ctx::kObject && field_ >= 0) return object_scalar(v);  // the hot path
    if (is_array(top.ctx)) {
      ++top.count;
      if (top.ctx != Ctx::kFrames) return type_error("an object", v);
      uint64_t address;
      if (get_handle(v, &address)) frames_.push_back(address);
      return true;
    }
    if (top.ctx == Ctx::kRoot) {
      root_not_object_ = true;
      return false;
    }
    if (top.ctx == Ctx::kCounts) return type_error("an object with \"live\" and \"bytes\"", v);
    if (field_ < 0) return true;  // an unknown key
    switch (top.ctx) {
      case Ctx::kObject:
        return object_scalar(v);
      case Ctx::kEdge:
        return edge_scalar(v);
      case Ctx::kLastUse:
        get_u64(v, field_ == last_use::kFrame   ? &last_use_.frame
                   : field_ == last_use::kQueue ? &last_use_.queue
                                                : &last_use_.serial);
        return true;
      case Ctx::kMemory:
        if (field_ == memory::kId) {
          get_i64(v, &memory_.memory);
        } else {
          get_u64(v, field_ == memory::kOffset ? &memory_.offset : &memory_.size);
        }
        return true;
      case Ctx::kTop:
        return top_scalar(v);
      case Ctx::kProducer:
        get_string(v, field_ == producer::kName ? &snap_.producer_name : &snap_.producer_version);
        return true;
      case Ctx::kScope: {
        int64_t id;
        if (get_i64(v, &id)) {
          (field_ == scope::kDevice ? snap_.scope_device : snap_.scope_instance) = id;
        }
        return true;
      }
      case Ctx::kInstance:
        return instance_scalar(v);
      case Ctx::kDevice:
        return device_scalar(v);
      case Ctx::kQueue:
        return queue_scalar(v);
      case Ctx::kUnwritten:
        return unwritten_scalar(v);
      case Ctx::kDestroyed:
        return destroyed_scalar(v);
      case Ctx::kEvent:
        return event_scalar(v);
      case Ctx::kSubmission:
        get_i64(v, field_ == submission::kQueue    ? &event_.submission_queue
                   : field_ == submission::kSerial ? &event_.submission_serial
                                                   : &event_.submission_frame);
        return true;
      case Ctx::kPathStep:
        return path_step_scalar(v);
      case Ctx::kEventCreated:
        if (field_ == when::kFrame) return get_i64(v, &event_.created_frame), true;
        return get_callsite(v, &event_.created_callsite), true;
      case Ctx::kEventFirstDestroy:
        if (field_ == when::kFrame) return get_i64(v, &event_.first_destroy_frame), true;
        return get_callsite(v, &event_.first_destroy_callsite), true;
      case Ctx::kCallsite:
        if (field_ == callsite::kId) {
          get_u64(v, &callsite_id_);
          return true;
        }
        return type_error("an array", v);
      case Ctx::kModule:
        return module_scalar(v);
      case Ctx::kCount:
        get_u64(v, field_ == count::kLive ? &count_.live : &count_.bytes);
        return true;
      case Ctx::kErrorResults:
        get_u64(v, field_ == error_results::kOutOfDeviceMemory
                       ? &snap_.error_results.out_of_device_memory
                   : field_ == error_results::kOutOfHostMemory
                       ? &snap_.error_results.out_of_host_memory
                       : &snap_.error_results.device_lost);
        return true;
      default:
        return true;
    }
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

  bool top_scalar(const Scalar& v) {
    switch (field_) {
      case top::kFormat:
        return note_format(&v);
      case top::kVersion:
        return note_version(v);
      case top::kPid:
        get_u64(v, &snap_.pid);
        return true;
      case top::kExecutable:
        get_string(v, &snap_.executable);
        return true;
      case top::kSequence:
        get_u64(v, &snap_.sequence);
        return true;
      case top::kReason:
        get_string(v, &snap_.reason);
        return true;
      case top::kScope:
        if (v.kind != Scalar::kNull) return type_error("an object or null", v);
        return true;
      case top::kFrame:
        get_u64(v, &snap_.frame);
        return true;
      case top::kFrameBoundary:
        get_string(v, &snap_.frame_boundary);
        return true;
      case top::kTimeMs:
        get_u64(v, &snap_.time_ms);
        return true;
      case top::kDegraded:
        get_bool(v, &snap_.degraded);
        return true;
      case top::kLabel:
        get_opt_string(v, &snap_.label);
        return true;
      case top::kEventsDropped:
        get_u64(v, &snap_.events_dropped);
        return true;
      case top::kFinal: {
        bool b = false;
        if (get_bool(v, &b)) snap_.final_snapshot = b;
        return true;
      }
      case top::kUnwrittenCount:
        get_u64(v, &snap_.unwritten_count);
        return true;
      case top::kCoalescedSignals:
        get_u64(v, &snap_.coalesced_signals);
        return true;
      case top::kProducer:
      case top::kCounts:
      case top::kErrorResults:
        return type_error("an object", v);
      default:
        return type_error("an array", v);
    }
  }

  bool object_scalar(const Scalar& v) {
    uint64_t u;
    switch (field_) {
      case object::kId:
        if (get_u64(v, &object_.id) && object_.id == 0) return fail("ids start at 1, got 0");
        return true;
      case object::kType:
        if (v.kind != Scalar::kString) return type_error("a Vulkan type name", v);
        intern_type(*v.s, /*strict=*/true, &object_.type);
        return true;
      case object::kHandle:
        get_handle(v, &object_.handle);
        return true;
      case object::kName:
        return intern_opt_name(v, &object_.name);
      case object::kOwner:
        get_i64(v, &object_.owner);
        return true;
      case object::kParent:
        get_opt_i64(v, &object_.parent);
        return true;
      case object::kOrigin:
        return set_origin(v);
      case object::kFrame:
        if (get_u64(v, &u)) object_.frame = saturate<uint32_t>(u);
        return true;
      case object::kTimeMs:
        if (get_u64(v, &u)) object_.time_ms = saturate<uint32_t>(u);
        return true;
      case object::kSize:
        get_u64(v, &object_.size);
        return true;
      case object::kCallsite:
        get_callsite(v, &object_.callsite);
        return true;
      case object::kRefs:
        if (get_u64(v, &u)) object_.refs = saturate<uint16_t>(u);
        return true;
      case object::kLastUse:
        if (v.kind != Scalar::kNull) return type_error("an object or null", v);
        return true;
      case object::kInFlight:
        get_bool(v, &object_.in_flight);
        return true;
      case object::kMemory:
        return type_error("an object", v);
      case object::kEdges:
        return type_error("an array", v);
      default:
        return true;
    }
  }

  bool set_origin(const Scalar& v) {
    if (v.kind == Scalar::kString && format::parse(*v.s, &object_.origin)) return true;
    return type_error(one_of(format::kOriginNames).c_str(), v);
  }

  bool edge_scalar(const Scalar& v) {
    uint64_t u;
    switch (field_) {
      case edge::kKind:
        if (v.kind != Scalar::kString) return type_error("a string", v);
        return intern_edge_kind(*v.s, &edge_.kind);
      case edge::kTo:
        get_opt_i64(v, &edge_.to);
        return true;
      case edge::kType:
        if (v.kind != Scalar::kString) return type_error("a string", v);
        intern_type(*v.s, /*strict=*/false, &edge_.type);
        return true;
      case edge::kHandle:
        get_handle(v, &edge_.handle);
        return true;
      case edge::kName:
        if (v.kind != Scalar::kString) return type_error("a string", v);
        intern_name(*v.s, &edge_.name);
        return true;
      case edge::kSlot:
        if (get_u64(v, &u)) edge_.slot = saturate<uint32_t>(u);
        return true;
      case edge::kOffset:
        get_u64(v, &edge_.offset);
        return true;
      case edge::kSize:
        get_u64(v, &edge_.size);
        return true;
      default:
        return true;
    }
  }

  bool instance_scalar(const Scalar& v) {
    switch (field_) {
      case instance::kId:
        get_i64(v, &instance_.id);
        return true;
      case instance::kHandle:
        get_handle(v, &instance_.handle);
        return true;
      case instance::kApplication:
        get_opt_string(v, &instance_.application);
        return true;
      case instance::kEngine:
        get_opt_string(v, &instance_.engine);
        return true;
      case instance::kApiVersion:
        get_string(v, &instance_.api_version);
        return true;
      default:
        return true;
    }
  }

  bool device_scalar(const Scalar& v) {
    switch (field_) {
      case device::kId:
        get_i64(v, &device_.id);
        return true;
      case device::kHandle:
        get_handle(v, &device_.handle);
        return true;
      case device::kInstance:
        get_i64(v, &device_.instance);
        return true;
      case device::kPhysicalDevice:
        get_string(v, &device_.physical_device);
        return true;
      case device::kFrame:
        get_u64(v, &device_.frame);
        return true;
      case device::kSubmits:
        get_u64(v, &device_.submits);
        return true;
      case device::kPresents:
        get_u64(v, &device_.presents);
        return true;
      case device::kDegraded:
        get_bool(v, &device_.degraded);
        return true;
      case device::kFrameBoundary:
        get_string(v, &device_.frame_boundary);
        return true;
      case device::kFrameBoundaryAuto:
        get_bool(v, &device_.frame_boundary_auto);
        return true;
      case device::kQueues:
        return type_error("an array", v);
      default:
        return true;
    }
  }

  bool queue_scalar(const Scalar& v) {
    switch (field_) {
      case queue::kIndex:
        get_i64(v, &queue_.index);
        return true;
      case queue::kHandle:
        get_handle(v, &queue_.handle);
        return true;
      case queue::kSubmitted:
        get_u64(v, &queue_.submitted);
        return true;
      case queue::kRetired:
        get_u64(v, &queue_.retired);
        return true;
      default:
        return true;
    }
  }

  bool unwritten_scalar(const Scalar& v) {
    switch (field_) {
      case unwritten::kSequence:
        if (v.kind != Scalar::kNull) {
          uint64_t u;
          if (get_u64(v, &u)) unwritten_.sequence = u;
        }
        return true;
      case unwritten::kReason:
        get_string(v, &unwritten_.reason);
        return true;
      case unwritten::kError:
        get_string(v, &unwritten_.error);
        return true;
      default:
        return true;
    }
  }

  bool destroyed_scalar(const Scalar& v) {
    switch (field_) {
      case destroyed::kId:
        get_i64(v, &destroyed_.id);
        return true;
      case destroyed::kType:
        if (v.kind != Scalar::kString) return type_error("a string", v);
        intern_type(*v.s, /*strict=*/false, &destroyed_.type);
        return true;
      case destroyed::kHandle:
        get_handle(v, &destroyed_.handle);
        return true;
      case destroyed::kName:
        return intern_opt_name(v, &destroyed_.name);
      case destroyed::kOwner:
        get_i64(v, &destroyed_.owner);
        return true;
      case destroyed::kFrame:
        get_i64(v, &destroyed_.frame);
        return true;
      case destroyed::kDestroyedFrame:
        get_i64(v, &destroyed_.destroyed_frame);
        return true;
      case destroyed::kSize:
        get_i64(v, &destroyed_.size);
        return true;
      case destroyed::kCallsite:
        get_callsite(v, &destroyed_.callsite);
        return true;
      case destroyed::kDestroyCallsite:
        get_callsite(v, &destroyed_.destroy_callsite);
        return true;
      default:
        return true;
    }
  }

  bool event_scalar(const Scalar& v) {
    switch (field_) {
      case event::kKind:
        get_string(v, &event_.kind);
        return true;
      case event::kOwner:
        get_i64(v, &event_.owner);
        return true;
      case event::kType:
        get_string(v, &event_.type);
        return true;
      case event::kHandle:
        get_handle(v, &event_.handle);
        return true;
      case event::kObject:
        get_opt_i64(v, &event_.object);
        return true;
      case event::kName:
        get_opt_string(v, &event_.name);
        return true;
      case event::kFrame:
        get_i64(v, &event_.frame);
        return true;
      case event::kTimeMs:
        get_i64(v, &event_.time_ms);
        return true;
      case event::kMessage:
        get_string(v, &event_.message);
        return true;
      case event::kCallsite:
        get_callsite(v, &event_.callsite);
        return true;
      case event::kReason:
        get_string(v, &event_.reason);
        return true;
      case event::kBelongsTo:
        get_i64(v, &event_.belongs_to);
        return true;
      case event::kSubmission:
      case event::kCreated:
      case event::kFirstDestroy:
        return type_error("an object", v);
      case event::kPath:
        return type_error("an array", v);
      default:
        return true;
    }
  }

  bool path_step_scalar(const Scalar& v) {
    switch (field_) {
      case path_step::kId:
        get_i64(v, &step_.id);
        return true;
      case path_step::kType:
        get_string(v, &step_.type);
        return true;
      case path_step::kName:
        get_opt_string(v, &step_.name);
        return true;
      case path_step::kRelation:
        get_string(v, &step_.relation);
        return true;
      default:
        return true;
    }
  }

  bool module_scalar(const Scalar& v) {
    switch (field_) {
      case module::kPath:
        get_string(v, &module_.path);
        return true;
      case module::kBase:
        get_handle(v, &module_.base);
        return true;
      case module::kSize:
        get_u64(v, &module_.size);
        return true;
      case module::kBias:
        get_handle(v, &module_.bias);
        return true;
      case module::kBuildId: {
        std::optional<std::string> id;
        if (!get_opt_string(v, &id)) return true;
        module_.build_id = id.value_or("");
        std::transform(module_.build_id.begin(), module_.build_id.end(), module_.build_id.begin(),
                       [](char c) { return c >= 'A' && c <= 'F' ? char(c - 'A' + 'a') : c; });
        return true;
      }
      default:
        return true;
    }
  }

  // Cross-references that the schema cannot express, checked once everything is read.
  std::optional<Error> validate_references() const {
    const size_t callsites = snap_.callsites.size();
    auto dangling = [&](const char* list, size_t i, int64_t id, int32_t callsite) {
      return Error{ErrorKind::kContent,
                   std::string(list) + "[" + std::to_string(i) + "] (id " + std::to_string(id) +
                       "): call site " + std::to_string(callsite) + " does not exist (" +
                       std::to_string(callsites) + " call sites)",
                   std::nullopt};
    };
    for (size_t i = 0; i < snap_.objects.size(); ++i) {
      const Object& o = snap_.objects[i];
      if (o.callsite != kNoCallsite && static_cast<size_t>(o.callsite) >= callsites) {
        return dangling("objects", i, static_cast<int64_t>(o.id), o.callsite);
      }
    }
    for (size_t i = 0; i < snap_.destroyed.size(); ++i) {
      const DestroyedObject& d = snap_.destroyed[i];
      for (int32_t callsite : {d.callsite, d.destroy_callsite}) {
        if (callsite != kNoCallsite && static_cast<size_t>(callsite) >= callsites)
          return dangling("destroyed", i, d.id, callsite);
      }
    }
    for (size_t i = 0; i < snap_.events.size(); ++i) {
      const Event& e = snap_.events[i];
      for (int32_t callsite : {e.callsite, e.created_callsite, e.first_destroy_callsite}) {
        if (callsite != kNoCallsite && static_cast<size_t>(callsite) >= callsites)
          return dangling("events", i, e.object, callsite);
      }
    }
    return std::nullopt;
  }

  Snapshot& snap_;
  Source& src_;
  const ReadOptions& options_;

  std::vector<Level> stack_;
  int field_ = -1;     // the current key's field id in the innermost object, -1 if unknown
  uint32_t skip_ = 0;  // > 0 while inside a value that is ignored (its nesting depth)
  uint32_t depth_ = 0;
  bool draining_ = false;

  // The records being read.
  Object object_;
  LastUse last_use_;
  MemoryBinding memory_;
  Edge edge_;
  Instance instance_;
  Device device_;
  Queue queue_;
  UnwrittenSnapshot unwritten_;
  DestroyedObject destroyed_;
  Event event_;
  EventPathStep step_;
  uint64_t callsite_id_ = 0;
  std::vector<uint64_t> frames_;
  Module module_;
  TypeCount count_;
  RawRecord raw_;        // the fast path's record
  std::string scratch_;  // the fast path's interning key
  std::string count_key_;

  std::unordered_map<std::string, uint16_t> type_index_;
  int last_type_ = -1;
  StringInterner names_{&snap_.names};

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
