// The findings document's contract (analysis/findings_format.h): every enum converts to its
// string and back, and the schema lists exactly those strings, as tests/format checks the
// snapshot's.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/findings_format.h"

namespace vkleak {
namespace {

using analysis::ChainState;
using analysis::GateResult;
using analysis::GateStatus;
using nlohmann::json;

template <typename E, size_t N>
std::vector<std::string> round_trip(const std::string_view (&names)[N]) {
  std::vector<std::string> out;
  for (size_t i = 0; i < N; ++i) {
    const auto value = static_cast<E>(i);
    EXPECT_EQ(analysis::name(value), names[i]);
    E back{};
    EXPECT_TRUE(analysis::parse(names[i], &back)) << names[i];
    EXPECT_EQ(back, value) << names[i];
    if (!names[i].empty()) out.emplace_back(names[i]);  // kNone: no string in the document
  }
  E unknown{};
  EXPECT_FALSE(analysis::parse("no-such-word", &unknown));
  return out;
}

json schema() {
  std::ifstream in(VKLEAK_SOURCE_DIR "/src/schema/vkleak-findings.schema.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

std::vector<std::string> schema_enum(const json& s, const char* pointer) {
  return s.at(json::json_pointer(pointer)).get<std::vector<std::string>>();
}

TEST(FindingsFormat, EveryEnumRoundTripsAndTheSchemaListsItsStrings) {
  const json s = schema();
  const std::vector<std::string> statuses = round_trip<GateStatus>(analysis::kGateStatusNames);
  EXPECT_EQ(statuses, schema_enum(s, "/$defs/finding/properties/status/enum"));
  EXPECT_EQ(statuses, schema_enum(s, "/properties/problems/items/properties/status/enum"));
  EXPECT_EQ(round_trip<ChainState>(analysis::kChainStateNames),
            schema_enum(s, "/$defs/chain/properties/links/items/properties/state/enum"));
  EXPECT_EQ(round_trip<GateResult>(analysis::kGateResultNames),
            schema_enum(s, "/properties/gate/properties/result/enum"));
  EXPECT_EQ(analysis::name(GateStatus::kNone), "");
  EXPECT_EQ(analysis::name(GateResult::kNone), "");
}

TEST(FindingsFormat, NameAndVersionAreTheSchemas) {
  const json s = schema();
  EXPECT_EQ(s.at(json::json_pointer("/properties/format/const")).get<std::string>(),
            analysis::kFindingsFormat);
  EXPECT_EQ(s.at(json::json_pointer("/properties/version/const")).get<int>(),
            analysis::kFindingsVersion);
}

}  // namespace
}  // namespace vkleak
