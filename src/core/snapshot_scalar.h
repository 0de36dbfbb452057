// Scalars as the SAX parser reports them, converted to the model's types; a value of the wrong
// type is a content error, reported through ContentErrors (the handler knows where it is).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "core/hex.h"
#include "core/snapshot.h"
#include "shared/text.h"

namespace vkleak::reader_detail {

inline constexpr char kScalarExpected[] = "a string, number, boolean or null";
inline constexpr char kHandleExpected[] = "a hex string like \"0x1f\" (at most 16 digits)";

// A JSON scalar as the SAX parser reported it.
struct Scalar {
  enum Kind : uint8_t { kNull, kBool, kInt, kUint, kFloat, kString } kind = kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  std::string* s = nullptr;
};

inline std::string describe(const Scalar& v) {
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

inline bool valid_vk_type_name(std::string_view type) {
  if (type.size() < 3 || type[0] != 'V' || type[1] != 'k') return false;
  return std::all_of(type.begin() + 2, type.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

// Where content errors go, and the typed accessors that report them.
class ContentErrors {
 public:
  // A content error at the value being read (with_field: the path ends in its key). Always
  // returns true: the parse goes on, scanning only (see SnapshotHandler).
  virtual bool fail(const std::string& message, bool with_field = true) = 0;

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

 protected:
  ~ContentErrors() = default;
};

}  // namespace vkleak::reader_detail
