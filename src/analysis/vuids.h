// The validation layer's words for what vkleak finds: the VUIDs VVL reports for the same bug
// (generated from the registry's validusage.json: codegen/gen_vuids.py). Kinds VVL cannot see
// (growth, retained, stale_view, orphaned_memory, a leak at exit without teardown) have none.
#pragma once

#include <string>
#include <vector>

#include "analysis/finding.h"

namespace vkleak::analysis {

// object_type: "VkBuffer"; where: for leak_at_exit the reason of
// the snapshot that showed the leak (device_destroy, instance_destroy, exit), for
// invalid_destroy the event's reason (already_destroyed, unknown_handle, wrong_device).
std::vector<std::string> vuids_for(FindingKind kind, const std::string& object_type,
                                   const std::string& where);

// A kind's rule help (SARIF): which VUIDs the validation layer reports for it, or why it has
// none.
std::string vuid_help(FindingKind kind);

}  // namespace vkleak::analysis
