#include "analysis/vuids.h"

#include <string_view>

#include "format/snapshot_format.h"
#include "vuids_generated.h"

namespace vkleak::analysis {

namespace {

const vuids::Destroy* destroy_of(const std::string& object_type) {
  for (const vuids::Destroy& d : vuids::kDestroys)
    if (object_type == d.type) return &d;
  return nullptr;
}

void add(std::vector<std::string>* out, const char* vuid) {
  if (vuid) out->push_back(vuid);
}

}  // namespace

std::vector<std::string> vuids_for(FindingKind kind, const std::string& object_type,
                                   const std::string& where) {
  std::vector<std::string> out;
  if (kind == FindingKind::kLeakAtExit) {
    // VVL sees children alive when their parent is destroyed; an exit without teardown, never.
    if (where == format::name(format::Reason::kDeviceDestroy)) add(&out, vuids::kDeviceChildren);
    if (where == format::name(format::Reason::kInstanceDestroy))
      add(&out, vuids::kInstanceChildren);
  } else if (kind == FindingKind::kDestroyedInFlight) {
    if (const vuids::Destroy* d = destroy_of(object_type)) add(&out, d->in_flight);
  } else if (kind == FindingKind::kInvalidDestroy) {
    if (const vuids::Destroy* d = destroy_of(object_type)) {
      if (where == format::name(format::InvalidDestroy::kWrongDevice))
        add(&out, d->parent);
      else
        add(&out, d->invalid);  // already destroyed, or a handle never seen
    }
  }
  return out;
}

}  // namespace vkleak::analysis
