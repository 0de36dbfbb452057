#include "core/record_parser.h"

#include <cstring>
#include <limits>

#include "core/fast_json.h"
#include "core/hex.h"
#include "format/snapshot_fields.h"

namespace vkleak {
namespace {

// Bytes that may appear in a string as they are: printable ASCII but '"' and '\\'.
struct PlainTable {
  bool v[256];
  constexpr PlainTable() : v() {
    for (int c = 0x20; c < 0x80; ++c) v[c] = c != '"' && c != '\\';
  }
  constexpr bool operator[](unsigned char c) const { return v[c]; }
};
constexpr PlainTable kPlain;

// A cursor over [p, end); every reader returns false to decline.
struct Cursor {
  const char* p;
  const char* end;

  __attribute__((always_inline)) void ws() {
    while (p < end && fast_json_detail::is_ws(*p)) ++p;
  }
  bool peek(char c) {
    ws();
    return p < end && *p == c;
  }
  bool eat(char c) {
    ws();
    if (p >= end || *p != c) return false;
    ++p;
    return true;
  }

  // A string without escapes or control characters; non-ASCII must be valid UTF-8.
  __attribute__((always_inline)) bool str(std::string_view* out) {
    if (!eat('"')) return false;
    const char* s = p;
    bool non_ascii = false;
    for (;;) {
      while (p < end && kPlain[static_cast<unsigned char>(*p)]) ++p;
      if (p >= end) return false;
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"') break;
      if (c < 0x80) return false;  // an escape or a control character
      non_ascii = true;
      ++p;
    }
    *out = std::string_view(s, static_cast<size_t>(p - s));
    ++p;
    return !non_ascii ||
           fast_json_detail::valid_utf8(reinterpret_cast<const unsigned char*>(s), out->size());
  }

  // A non-negative integer in plain JSON form that fits in 64 bits.
  bool u64(uint64_t* out) {
    ws();
    if (p >= end || *p < '0' || *p > '9') return false;
    uint64_t v = 0;
    const char* s = p;
    while (p < end && *p >= '0' && *p <= '9') {
      const auto digit = static_cast<uint64_t>(*p - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
      v = v * 10 + digit;
      ++p;
    }
    if (p >= end) return false;
    if (*s == '0' && p - s > 1) return false;  // leading zero: not JSON
    if (*p == '.' || *p == 'e' || *p == 'E') return false;
    *out = v;
    return true;
  }
  bool i64(int64_t* out) {
    uint64_t v;
    if (!u64(&v) || v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(v);
    return true;
  }
  bool literal(const char* word) {
    ws();
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end - p) < n || std::memcmp(p, word, n) != 0) return false;
    p += n;
    return true;
  }
  // null -> false with *is_null; other values are left for the caller.
  bool null_or(bool* is_null) {
    *is_null = literal("null");
    return true;
  }
  bool handle(uint64_t* out) {
    std::string_view text;
    return str(&text) && parse_hex_u64(text, out);
  }
  bool boolean(bool* out) {
    if (literal("true")) {
      *out = true;
      return true;
    }
    if (literal("false")) {
      *out = false;
      return true;
    }
    return false;
  }
};

template <typename T>
T saturate(uint64_t v) {
  return static_cast<T>(std::min<uint64_t>(v, std::numeric_limits<T>::max()));
}

// Reads {"k": v, ...}: for each key, field(key) reads the value (false declines). Duplicate
// keys decline; required is the bit set of field numbers that must appear, where number(key)
// gives a key's bit (-1: unknown, declines).
template <typename Number, typename Field>
bool read_object(Cursor* c, uint32_t required, Number number, Field field) {
  if (!c->eat('{')) return false;
  uint32_t seen = 0;
  if (!c->peek('}')) {
    for (;;) {
      std::string_view key;
      if (!c->str(&key) || !c->eat(':')) return false;
      const int n = number(key);
      if (n < 0 || (seen & (uint32_t{1} << n))) return false;
      seen |= uint32_t{1} << n;
      if (!field(n)) return false;
      if (c->eat(',')) continue;
      break;
    }
  }
  return c->eat('}') && (seen & required) == required;
}

template <size_t N>
int index_of(std::string_view key, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == key) return static_cast<int>(i);
  }
  return -1;
}

bool read_last_use(Cursor* c, LastUse* out) {
  namespace f = format::last_use;
  return read_object(
      c, format::kLastUse.required, [](std::string_view k) { return index_of(k, f::kNames); },
      [&](int n) {
        return c->u64(n == f::kFrame ? &out->frame : n == f::kQueue ? &out->queue : &out->serial);
      });
}

bool read_memory(Cursor* c, MemoryBinding* out) {
  namespace f = format::memory;
  return read_object(
      c, format::kMemory.required, [](std::string_view k) { return index_of(k, f::kNames); },
      [&](int n) {
        return n == f::kId ? c->i64(&out->memory)
                           : c->u64(n == f::kOffset ? &out->offset : &out->size);
      });
}

bool read_edge(Cursor* c, RawEdge* out) {
  using namespace format::edge;
  return read_object(
      c, format::kEdge.required, [](std::string_view k) { return index_of(k, kNames); },
      [&](int n) {
        uint64_t u;
        bool is_null;
        switch (n) {
          case kKind:
            return c->str(&out->kind);
          case kTo:
            c->null_or(&is_null);
            return is_null || c->i64(&out->edge.to);
          case kType:
            return c->str(&out->type);
          case kHandle:
            return c->handle(&out->edge.handle);
          case kName:
            out->has_name = true;
            return c->str(&out->name);
          case kSlot:
            if (!c->u64(&u)) return false;
            out->edge.slot = saturate<uint32_t>(u);
            return true;
          case kOffset:
            return c->u64(&out->edge.offset);
          default:
            return c->u64(&out->edge.size);
        }
      });
}

using namespace format::object;

// By length first: one comparison for most keys (the contract's names, looked up once).
struct ObjectKeys {
  static constexpr size_t kLongest = 16;
  int8_t by_length[kLongest + 1][4];  // field ids of each length, -1 after the last
  constexpr ObjectKeys() : by_length() {
    for (auto& row : by_length)
      for (int8_t& id : row) id = -1;
    for (int i = 0; i < kCount; ++i) {
      int8_t* row = by_length[kNames[i].size()];
      int k = 0;
      while (row[k] >= 0) ++k;
      row[k] = static_cast<int8_t>(i);
    }
  }
};
constexpr ObjectKeys kObjectKeys;

int object_key(std::string_view k) {
  if (k.size() > ObjectKeys::kLongest) return -1;
  for (int8_t id : kObjectKeys.by_length[k.size()]) {
    if (id < 0) return -1;
    if (kNames[id] == k) return id;
  }
  return -1;
}

bool read_origin(Cursor* c, Origin* out) {
  std::string_view s;
  return c->str(&s) && format::parse(s, out);
}

}  // namespace

const char* parse_object_record(const char* p, const char* end, RawRecord* out) {
  Cursor c{p, end};
  std::vector<RawEdge> edges = std::move(out->edges);  // keeps its capacity
  edges.clear();
  *out = RawRecord{};
  out->edges = std::move(edges);
  Object& o = out->object;
  // Version 2: every required key.
  const bool ok = read_object(&c, format::kObject.required, object_key, [&](int n) {
    uint64_t u;
    bool is_null;
    switch (n) {
      case kId:
        return c.u64(&o.id) && o.id != 0;
      case kType:
        return c.str(&out->type);
      case kHandle:
        return c.handle(&o.handle);
      case kName:
        c.null_or(&is_null);
        if (is_null) return true;
        out->has_name = true;
        return c.str(&out->name);
      case kOwner:
        return c.i64(&o.owner);
      case kParent:
        c.null_or(&is_null);
        return is_null || c.i64(&o.parent);
      case kOrigin:
        return read_origin(&c, &o.origin);
      case kFrame:
        if (!c.u64(&u)) return false;
        o.frame = saturate<uint32_t>(u);
        return true;
      case kTimeMs:
        if (!c.u64(&u)) return false;
        o.time_ms = saturate<uint32_t>(u);
        return true;
      case kSize:
        return c.u64(&o.size);
      case kCallsite:
        c.null_or(&is_null);
        if (is_null) return true;
        if (!c.u64(&u) || u > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          return false;
        }
        o.callsite = static_cast<int32_t>(u);
        return true;
      case kRefs:
        if (!c.u64(&u)) return false;
        o.refs = saturate<uint16_t>(u);
        return true;
      case kLastUse:
        c.null_or(&is_null);
        if (is_null) return true;
        out->has_last_use = true;
        return read_last_use(&c, &out->last_use);
      case kInFlight:
        return c.boolean(&o.in_flight);
      case kMemory:
        out->has_memory = true;
        return read_memory(&c, &out->memory);
      case kCreateFlags:
        if (!c.u64(&u)) return false;
        o.create_flags = static_cast<uint16_t>(u);
        return true;
      default: {  // kEdges
        if (!c.eat('[')) return false;
        if (c.eat(']')) return true;
        do {
          out->edges.emplace_back();
          if (!read_edge(&c, &out->edges.back())) return false;
        } while (c.eat(','));
        return c.eat(']');
      }
    }
  });
  return ok ? c.p : nullptr;
}

}  // namespace vkleak
