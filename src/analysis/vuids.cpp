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

std::string vuid_help(FindingKind kind) {
  const vuids::Destroy* buffer = destroy_of("VkBuffer");
  switch (kind) {
    case FindingKind::kLeakAtExit:
      return std::string("The validation layer reports objects alive at vkDestroyDevice as ") +
             vuids::kDeviceChildren + " and at vkDestroyInstance as " + vuids::kInstanceChildren +
             "; a leak at process exit without teardown has no VUID (the validation layer sees "
             "no destroy). Each result's properties.vuids names its own.";
    case FindingKind::kDestroyedInFlight:
      return std::string(
                 "The validation layer reports this as the destroy or free command's in-use VUID, "
                 "per object type (for a VkBuffer ") +
             (buffer && buffer->in_flight ? buffer->in_flight : "") +
             "). Each result's properties.vuids names its own.";
    case FindingKind::kInvalidDestroy:
      return std::string(
                 "The validation layer reports a handle that is not valid (destroyed already, or "
                 "never made) as the command's parameter VUID, and one of another device as its "
                 "parent VUID (for a VkBuffer ") +
             (buffer && buffer->invalid ? buffer->invalid : "") + ", " +
             (buffer && buffer->parent ? buffer->parent : "") +
             "). Each result's properties.vuids names its own.";
    default:
      return "No VUID: the validation layer cannot see this kind (it is judged from what happens "
             "over the run, not from one invalid call).";
  }
}

}  // namespace vkleak::analysis
