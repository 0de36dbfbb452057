// The per-object half of the reader: fills a Snapshot's records from the scalars the handler
// (snapshot_handler.h) routes to it, one function per kind of object, interns type names, debug
// names and edge kinds, and files each record when its container ends. snapshot_builder.cpp:
// records, interning, cross-references; snapshot_fields_reader.cpp: the values of each object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/record_parser.h"
#include "core/snapshot.h"
#include "core/snapshot_contexts.h"
#include "core/snapshot_reader.h"
#include "core/snapshot_scalar.h"
#include "core/string_interner.h"
#include "format/snapshot_format.h"

namespace vkleak::reader_detail {

class SnapshotBuilder {
 public:
  SnapshotBuilder(Snapshot* snapshot, ContentErrors* errors, const ReadOptions& options,
                  uint64_t size_hint);

  // Starts the record an array element (or a value of "counts") holds.
  void begin_element(Ctx ctx);
  // Starts the object a key of the current record holds (last_use, memory, submission, ...).
  void begin_child(Ctx ctx);
  // The value of `field` in an object context; false when the parse must stop.
  bool scalar(Ctx ctx, int field, const Scalar& v);
  // An element of a call site's "frames". Every one is checked; only the first (innermost)
  // format::kMaxCallsiteFrames are kept, as many as the layer writes.
  void frame(const Scalar& v) {
    uint64_t address;
    if (errors_.get_handle(v, &address) && frames_.size() < format::kMaxCallsiteFrames)
      frames_.push_back(address);
  }
  // The key of the value of "counts" being read.
  void set_count_key(const std::string& key) { count_key_ = key; }
  const std::string& count_key() const { return count_key_; }

  // Files a complete record where it belongs (index: its place in its array); false when it is
  // invalid (the error is recorded).
  bool finish_record(Ctx ctx, uint64_t index);
  // Files a record read by parse_object_record; false, with nothing kept, when it would not be
  // filed as is (a limit is reached or a type name is invalid).
  bool commit_record(RawRecord* r);
  // Cross-references that the schema cannot express, checked once everything is read.
  std::optional<std::string> validate_references() const;

 private:
  bool intern_type(const std::string& type, bool strict, uint16_t* out);
  bool intern_name(std::string& name, int32_t* out);
  bool intern_opt_name(const Scalar& v, int32_t* out);
  bool intern_edge_kind(const std::string& kind, uint16_t* out);

  bool top_scalar(const Scalar& v);
  bool object_scalar(const Scalar& v);
  bool set_origin(const Scalar& v);
  bool edge_scalar(const Scalar& v);
  bool instance_scalar(const Scalar& v);
  bool device_scalar(const Scalar& v);
  bool queue_scalar(const Scalar& v);
  bool memory_budget_scalar(const Scalar& v);
  bool heap_scalar(const Scalar& v);
  bool unwritten_scalar(const Scalar& v);
  bool destroyed_scalar(const Scalar& v);
  bool event_scalar(const Scalar& v);
  bool path_step_scalar(const Scalar& v);
  bool module_scalar(const Scalar& v);

  Snapshot& snap_;
  ContentErrors& errors_;
  const ReadOptions& options_;
  int field_ = -1;  // the field being read, as scalar() was told

  // The records being read.
  Object object_;
  LastUse last_use_;
  MemoryBinding memory_;
  Edge edge_;
  Instance instance_;
  Device device_;
  Queue queue_;
  MemoryHeap heap_;
  UnwrittenSnapshot unwritten_;
  DestroyedObject destroyed_;
  Event event_;
  EventPathStep step_;
  uint64_t callsite_id_ = 0;
  std::vector<uint64_t> frames_;
  Module module_;
  TypeCount count_;
  std::string scratch_;  // the fast path's interning key
  std::string count_key_;

  std::unordered_map<std::string, uint16_t> type_index_;
  int last_type_ = -1;
  StringInterner names_{&snap_.names};
};

}  // namespace vkleak::reader_detail
