// The snapshot contract, part 1: the format's name and versions, the names of the files the
// layer writes, and every enum of the format with its strings. The layer's writer and the CLI's
// reader both spell the format only through src/format/; the schema
// (src/schema/vkleak-snapshot.schema.json) is checked against it by tests/format.
//
// Header-only and constexpr: the layer includes it and has no C++ runtime dependencies beyond
// its own, and nothing here allocates or runs at static initialization. Every string_view here
// views a NUL-terminated literal, so .data() may be passed where a C string is wanted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vkleak::format {

// --- Format and versions -----------------------------------------------------------------------

inline constexpr std::string_view kFormatName = "vkleak-snapshot";
inline constexpr std::string_view kProducerName = "vkleak";
// The version the layer writes and the newest the reader accepts. Version 2 added the object
// graph (edges, bound memory), last use by a submission, queues, destroyed targets and events.
inline constexpr int kVersion = 2;
// The oldest version the reader accepts.
inline constexpr int kOldestVersion = 1;

// --- Limits ------------------------------------------------------------------------------------

// The most return addresses one call site holds ("frames" of an element of "callsites"): the
// layer records at most this many (callstack_depth's upper bound, shared/setting_ranges.h) and the
// reader keeps at most this many, the innermost, of a call site that has more.
inline constexpr uint32_t kMaxCallsiteFrames = 64;

// --- Enums and their strings -------------------------------------------------------------------
// Each enum's values index its kXxxNames array; name() and parse() convert.

// Why a snapshot was taken ("reason"; also the file name's last part and unwritten[].reason).
enum class Reason : uint8_t {
  kDeviceDestroy,
  kInstanceDestroy,
  kExit,
  kFrame,
  kSignal,
  kTrigger,
  kCrash,              // a fatal signal; label: the signal's name
  kOutOfDeviceMemory,  // a command returned the error; label: the command
  kOutOfHostMemory,
  kDeviceLost,
};
inline constexpr std::string_view kReasonNames[] = {"device_destroy",
                                                    "instance_destroy",
                                                    "exit",
                                                    "frame",
                                                    "signal",
                                                    "trigger",
                                                    "crash",
                                                    "out_of_device_memory",
                                                    "out_of_host_memory",
                                                    "device_lost"};

// How an object came to be ("origin" of an object).
enum class Origin : uint8_t { kCreated, kAllocated, kRetrieved, kSwapchainImage };
inline constexpr std::string_view kOriginNames[] = {"created", "allocated", "retrieved",
                                                    "swapchain_image"};

// Where frames end ("frame_boundary" of a snapshot and of a device).
enum class FrameBoundary : uint8_t { kPresent, kSubmit };
inline constexpr std::string_view kFrameBoundaryNames[] = {"present", "submit"};

// What the layer detected ("kind" of an event).
enum class EventKind : uint8_t { kDestroyedInFlight, kInvalidDestroy, kDuplicateHandle };
inline constexpr std::string_view kEventKindNames[] = {"destroyed_in_flight", "invalid_destroy",
                                                       "duplicate_handle"};

// Why a destroy was invalid ("reason" of an invalid_destroy event).
enum class InvalidDestroy : uint8_t { kAlreadyDestroyed, kUnknownHandle, kWrongDevice };
inline constexpr std::string_view kInvalidDestroyNames[] = {"already_destroyed", "unknown_handle",
                                                            "wrong_device"};

// Whether a device's "memory_budget" holds the driver's heap budget and usage ("status"), and
// if not, why: the driver lacks VK_EXT_memory_budget; the instance has neither Vulkan 1.1 nor
// VK_KHR_get_physical_device_properties2 (the query needs one); the layer setting
// memory_budget=false; or no sample yet (a crash before the device's first).
enum class HeapBudgetStatus : uint8_t {
  kSampled,
  kUnsupported,
  kNeedsProperties2,
  kOff,
  kNotSampled
};
inline constexpr std::string_view kHeapBudgetStatusNames[] = {
    "sampled", "unsupported", "needs_properties2", "off", "not_sampled"};

// Who enabled VK_EXT_memory_budget on the device ("enabled_by" of a "memory_budget").
enum class HeapBudgetEnabledBy : uint8_t { kApp, kLayer };
inline constexpr std::string_view kHeapBudgetEnabledByNames[] = {"app", "vkleak"};

// The edge kind of the memory bound to a buffer or image (other kinds are create-info members).
inline constexpr std::string_view kEdgeKindMemory = "memory";
// The edge kind from a descriptor set to its layout.
inline constexpr std::string_view kEdgeKindSetLayout = "pSetLayouts";
// A descriptor pool's "create_flags" bit VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT (the
// reader does not include Vulkan's headers): the pool may free its sets one by one.
inline constexpr uint32_t kPoolFreesSetsOneByOne = 0x1;

namespace detail {
template <size_t N>
constexpr std::string_view name_at(size_t i, const std::string_view (&names)[N]) {
  return i < N ? names[i] : names[0];  // never out of range for a value of the enum
}
template <typename E, size_t N>
constexpr bool parse_in(std::string_view s, const std::string_view (&names)[N], E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == s) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}
}  // namespace detail

constexpr std::string_view name(Reason v) {
  return detail::name_at(static_cast<size_t>(v), kReasonNames);
}
constexpr std::string_view name(Origin v) {
  return detail::name_at(static_cast<size_t>(v), kOriginNames);
}
constexpr std::string_view name(FrameBoundary v) {
  return detail::name_at(static_cast<size_t>(v), kFrameBoundaryNames);
}
constexpr std::string_view name(EventKind v) {
  return detail::name_at(static_cast<size_t>(v), kEventKindNames);
}
constexpr std::string_view name(InvalidDestroy v) {
  return detail::name_at(static_cast<size_t>(v), kInvalidDestroyNames);
}
constexpr std::string_view name(HeapBudgetStatus v) {
  return detail::name_at(static_cast<size_t>(v), kHeapBudgetStatusNames);
}
constexpr std::string_view name(HeapBudgetEnabledBy v) {
  return detail::name_at(static_cast<size_t>(v), kHeapBudgetEnabledByNames);
}
constexpr bool parse(std::string_view s, Reason* out) {
  return detail::parse_in(s, kReasonNames, out);
}
constexpr bool parse(std::string_view s, Origin* out) {
  return detail::parse_in(s, kOriginNames, out);
}
constexpr bool parse(std::string_view s, FrameBoundary* out) {
  return detail::parse_in(s, kFrameBoundaryNames, out);
}
constexpr bool parse(std::string_view s, EventKind* out) {
  return detail::parse_in(s, kEventKindNames, out);
}
constexpr bool parse(std::string_view s, InvalidDestroy* out) {
  return detail::parse_in(s, kInvalidDestroyNames, out);
}

constexpr bool parse(std::string_view s, HeapBudgetStatus* out) {
  return detail::parse_in(s, kHeapBudgetStatusNames, out);
}
constexpr bool parse(std::string_view s, HeapBudgetEnabledBy* out) {
  return detail::parse_in(s, kHeapBudgetEnabledByNames, out);
}

static_assert(std::size(kReasonNames) == size_t(Reason::kDeviceLost) + 1);
static_assert(std::size(kHeapBudgetStatusNames) == size_t(HeapBudgetStatus::kNotSampled) + 1);
static_assert(std::size(kHeapBudgetEnabledByNames) == size_t(HeapBudgetEnabledBy::kLayer) + 1);
static_assert(std::size(kOriginNames) == size_t(Origin::kSwapchainImage) + 1);
static_assert(std::size(kFrameBoundaryNames) == size_t(FrameBoundary::kSubmit) + 1);
static_assert(std::size(kEventKindNames) == size_t(EventKind::kDuplicateHandle) + 1);
static_assert(std::size(kInvalidDestroyNames) == size_t(InvalidDestroy::kWrongDevice) + 1);

// The three error results the layer counts ("error_results") are the three error reasons.
inline constexpr Reason kErrorReasons[] = {Reason::kOutOfDeviceMemory, Reason::kOutOfHostMemory,
                                           Reason::kDeviceLost};

// --- File names --------------------------------------------------------------------------------
// A snapshot is written to "<dir>/.vkleak-<pid>-<runid>-<seq>-<reason>.json.tmp", then renamed to
// "<dir>/vkleak-<pid>-<runid>-<seq>-<reason>.json"; runid is kRunIdDigits lowercase hex digits
// (the "run_id" field of the content), seq has at least 4 digits. Layers before run ids wrote
// "vkleak-<pid>-<seq>-<reason>.json"; the reader still takes those (no run id).
//
// A run is one process's tracking: pid and run id together. The run id is random, drawn once
// per process (and again in a forked child), so reruns, containers and pid namespaces that give
// the same pid in the same directory never mix or overwrite each other's files.

inline constexpr std::string_view kFilePrefix = "vkleak-";
inline constexpr std::string_view kFileSuffix = ".json";
inline constexpr std::string_view kTempPrefix = ".vkleak-";   // a temporary's name starts so
inline constexpr std::string_view kTempSuffix = ".json.tmp";  // and ends so
inline constexpr int kSequenceDigits = 4;
inline constexpr int kRunIdDigits = 16;
// Longest name: prefix, 20-digit pid, run id and sequence, the longest reason, suffix, NUL.
inline constexpr size_t kMaxFileName = 1 + 7 + 20 + 1 + kRunIdDigits + 1 + 20 + 1 + 20 + 9 + 1;

namespace detail {
inline size_t put(char* out, size_t at, std::string_view s) {
  for (char c : s) out[at++] = c;
  return at;
}
inline size_t put_number(char* out, size_t at, uint64_t v, int min_digits) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = n; i < min_digits; ++i) out[at++] = '0';
  while (n > 0) out[at++] = digits[--n];
  return at;
}
constexpr bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}
}  // namespace detail

// Writes a run id as kRunIdDigits lowercase hex digits and a NUL into out.
inline void run_id_text(char (&out)[kRunIdDigits + 1], uint64_t run_id) noexcept {
  for (int i = kRunIdDigits - 1; i >= 0; --i) {
    out[i] = "0123456789abcdef"[run_id & 0xf];
    run_id >>= 4;
  }
  out[kRunIdDigits] = '\0';
}

// Whether s is a run id as written: exactly kRunIdDigits lowercase hex digits.
constexpr bool is_run_id(std::string_view s) {
  if (s.size() != static_cast<size_t>(kRunIdDigits)) return false;
  for (char c : s) {
    if (!detail::is_hex_digit(c)) return false;
  }
  return true;
}

// Writes "vkleak-<pid>-<runid>-<seq>-<reason>.json" (temporary: ".vkleak-...json.tmp") and a NUL
// into out[kMaxFileName]; returns its length. No allocation: safe on any thread.
inline size_t file_name(char (&out)[kMaxFileName], uint64_t pid, uint64_t run_id, uint64_t sequence,
                        Reason reason, bool temporary = false) noexcept {
  size_t at = detail::put(out, 0, temporary ? kTempPrefix : kFilePrefix);
  at = detail::put_number(out, at, pid, 1);
  out[at++] = '-';
  char id[kRunIdDigits + 1];
  run_id_text(id, run_id);
  at = detail::put(out, at, std::string_view(id, kRunIdDigits));
  out[at++] = '-';
  at = detail::put_number(out, at, sequence, kSequenceDigits);
  out[at++] = '-';
  at = detail::put(out, at, name(reason));
  at = detail::put(out, at, temporary ? kTempSuffix : kFileSuffix);
  out[at] = '\0';
  return at;
}

// The name layers before run ids wrote, "vkleak-<pid>-<seq>-<reason>.json": for tests and tools
// that make files of older layers.
inline size_t file_name_without_run_id(char (&out)[kMaxFileName], uint64_t pid, uint64_t sequence,
                                       Reason reason) noexcept {
  size_t at = detail::put(out, 0, kFilePrefix);
  at = detail::put_number(out, at, pid, 1);
  out[at++] = '-';
  at = detail::put_number(out, at, sequence, kSequenceDigits);
  out[at++] = '-';
  at = detail::put(out, at, name(reason));
  at = detail::put(out, at, kFileSuffix);
  out[at] = '\0';
  return at;
}

// The parts of a snapshot's file name. reason is any [a-z_]+ word (newer layers may add
// reasons); run_id is empty in names of layers before run ids. Both view the parsed name.
struct FileName {
  uint64_t pid = 0;
  std::string_view run_id;
  uint64_t sequence = 0;
  std::string_view reason;
};

namespace detail {
// A decimal number up to the next '-' of rest, which it consumes with the '-'.
constexpr bool take_number(std::string_view* rest, uint64_t* number) {
  size_t digits = 0;
  *number = 0;
  while (digits < rest->size() && (*rest)[digits] >= '0' && (*rest)[digits] <= '9') {
    if (digits >= 19) return false;  // would overflow
    *number = *number * 10 + static_cast<uint64_t>((*rest)[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits >= rest->size() || (*rest)[digits] != '-') return false;
  rest->remove_prefix(digits + 1);
  return true;
}
}  // namespace detail

// Parses "vkleak-<pid>-<runid>-<seq>-<reason>.json" and the older
// "vkleak-<pid>-<seq>-<reason>.json"; false for any other name. (A reason never starts with a
// digit, so a part after the second '-' that does is a sequence number: the name has a run id.)
constexpr bool parse_file_name(std::string_view name, FileName* out) {
  if (name.size() <= kFilePrefix.size() + kFileSuffix.size() ||
      name.substr(0, kFilePrefix.size()) != kFilePrefix ||
      name.substr(name.size() - kFileSuffix.size()) != kFileSuffix) {
    return false;
  }
  std::string_view rest =
      name.substr(kFilePrefix.size(), name.size() - kFilePrefix.size() - kFileSuffix.size());
  uint64_t pid = 0;
  if (!detail::take_number(&rest, &pid)) return false;
  std::string_view run_id;
  const size_t dash = rest.find('-');
  if (dash != std::string_view::npos && dash + 1 < rest.size() && rest[dash + 1] >= '0' &&
      rest[dash + 1] <= '9') {
    run_id = rest.substr(0, dash);
    if (!is_run_id(run_id)) return false;
    rest.remove_prefix(dash + 1);
  }
  uint64_t sequence = 0;
  if (!detail::take_number(&rest, &sequence)) return false;
  if (rest.empty()) return false;
  for (char c : rest) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  out->pid = pid;
  out->run_id = run_id;
  out->sequence = sequence;
  out->reason = rest;
  return true;
}

}  // namespace vkleak::format
