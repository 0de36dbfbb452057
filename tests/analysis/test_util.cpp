#include "test_util.h"

#include <gtest/gtest.h>

namespace vkleak::test {

const analysis::Finding* only(const analysis::RunReport& report, analysis::FindingKind kind,
                              const std::string& type) {
  const analysis::Finding* found = nullptr;
  int n = 0;
  for (const analysis::Finding& f : report.findings) {
    if (f.kind == kind && f.object_type == type) {
      found = &f;
      ++n;
    }
  }
  EXPECT_EQ(n, 1) << "findings of " << analysis::kind_name(kind) << " about " << type;
  return n == 1 ? found : nullptr;
}

}  // namespace vkleak::test
