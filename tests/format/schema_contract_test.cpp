// The schema (src/schema/vkleak-snapshot.schema.json) and the contract (src/format/) say the
// same: every object of the contract is an object of the schema at the same place, with the
// same keys and the same required keys, and every enum has the same strings.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "format/snapshot_fields.h"
#include "format/snapshot_format.h"

namespace vkleak::format {
namespace {

using nlohmann::json;

const json& schema() {
  static const json s = [] {
    std::ifstream in(VKLEAK_SNAPSHOT_SCHEMA);
    return json::parse(in);
  }();
  return s;
}

// Follows a local "$ref" ("#/$defs/edge").
const json& resolve(const json& node) {
  if (!node.contains("$ref")) return node;
  const std::string ref = node["$ref"];
  return schema().at(json::json_pointer(ref.substr(1)));
}

// The schema of the object at a contract place ("objects/*/edges/*"): "*" is an array's items
// or a map's additionalProperties.
const json& at_place(std::string_view path) {
  const json* node = &schema();
  while (!path.empty()) {
    const size_t slash = path.find('/');
    const std::string_view step = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
    if (step == "*") {
      node = node->contains("items") ? &(*node)["items"] : &(*node)["additionalProperties"];
    } else {
      node = &node->at("properties").at(std::string(step));
    }
    node = &resolve(*node);
  }
  return *node;
}

template <size_t N>
std::vector<std::string> strings(const std::string_view (&names)[N]) {
  return std::vector<std::string>(std::begin(names), std::end(names));
}

std::set<std::string> keys_of(const Fields& f, uint32_t mask) {
  std::set<std::string> keys;
  for (int i = 0; i < f.count; ++i)
    if (mask & bit(i)) keys.insert(std::string(f.names[i]));
  return keys;
}

TEST(SchemaContract, EveryPlaceHasTheSameKeysAndRequiredKeys) {
  for (const Place& place : kPlaces) {
    SCOPED_TRACE("at \"" + std::string(place.path) + "\"");
    const json& node = at_place(place.path);
    ASSERT_TRUE(node.contains("properties"));
    std::set<std::string> properties;
    for (const auto& [key, value] : node["properties"].items()) properties.insert(key);
    EXPECT_EQ(properties, keys_of(*place.fields, ~0u)) << "schema properties vs contract keys";
    std::set<std::string> required;
    for (const std::string& key : node.value("required", std::vector<std::string>{}))
      required.insert(key);
    EXPECT_EQ(required, keys_of(*place.fields, place.fields->required))
        << "schema required vs contract required";
  }
}

TEST(SchemaContract, EveryObjectOfTheSchemaIsAPlaceOfTheContract) {
  // Walks the schema: each object with "properties" must be one of kPlaces.
  std::set<std::string> places;
  for (const Place& place : kPlaces) places.insert(std::string(place.path));
  std::vector<std::pair<std::string, const json*>> todo{{"", &schema()}};
  int seen = 0;
  while (!todo.empty()) {
    auto [path, node] = todo.back();
    todo.pop_back();
    const json& n = resolve(*node);
    const std::string prefix = path.empty() ? "" : path + "/";
    if (n.contains("properties")) {
      ++seen;
      EXPECT_TRUE(places.count(path)) << "schema object \"" << path << "\" is not in the contract";
      for (const auto& [key, value] : n["properties"].items())
        todo.push_back({prefix + key, &value});
    }
    if (n.contains("items")) todo.push_back({prefix + "*", &n["items"]});
    if (n.contains("additionalProperties") && n["additionalProperties"].is_object())
      todo.push_back({prefix + "*", &n["additionalProperties"]});
  }
  EXPECT_EQ(seen, static_cast<int>(std::size(kPlaces)));
}

TEST(SchemaContract, EnumsAndConstantsAreTheContracts) {
  const json& top = schema()["properties"];
  EXPECT_EQ(top["format"]["const"], std::string(kFormatName));
  EXPECT_EQ(top["version"]["const"], kVersion);
  EXPECT_EQ(top["producer"]["properties"]["name"]["const"], std::string(kProducerName));
  EXPECT_EQ(top["reason"]["enum"], strings(kReasonNames));
  EXPECT_EQ(top["frame_boundary"]["enum"], strings(kFrameBoundaryNames));
  EXPECT_EQ(at_place("devices/*")["properties"]["frame_boundary"]["enum"],
            strings(kFrameBoundaryNames));
  EXPECT_EQ(at_place("objects/*")["properties"]["origin"]["enum"], strings(kOriginNames));
  EXPECT_EQ(at_place("events/*")["properties"]["kind"]["enum"], strings(kEventKindNames));
  EXPECT_EQ(at_place("events/*")["properties"]["reason"]["enum"], strings(kInvalidDestroyNames));
}

TEST(FileNames, BuildAndParse) {
  char buf[kMaxFileName];
  EXPECT_EQ(std::string_view(buf, file_name(buf, 4242, 0x0123456789abcdefull, 3,
                                            Reason::kDeviceDestroy)),
            "vkleak-4242-0123456789abcdef-0003-device_destroy.json");
  EXPECT_EQ(std::string_view(buf, file_name(buf, 7, 0xff, 123456, Reason::kExit, true)),
            ".vkleak-7-00000000000000ff-123456-exit.json.tmp");
  EXPECT_EQ(std::string_view(buf, file_name_without_run_id(buf, 4242, 3, Reason::kDeviceDestroy)),
            "vkleak-4242-0003-device_destroy.json");
  FileName parsed;
  ASSERT_TRUE(parse_file_name("vkleak-4242-0123456789abcdef-0003-device_destroy.json", &parsed));
  EXPECT_EQ(parsed.pid, 4242u);
  EXPECT_EQ(parsed.run_id, "0123456789abcdef");
  EXPECT_EQ(parsed.sequence, 3u);
  EXPECT_EQ(parsed.reason, "device_destroy");
  // A run id of decimal digits only is still a run id (16 digits, then a sequence number).
  ASSERT_TRUE(parse_file_name("vkleak-1-1234567890123456-0007-exit.json", &parsed));
  EXPECT_EQ(parsed.run_id, "1234567890123456");
  EXPECT_EQ(parsed.sequence, 7u);
  // Names of layers before run ids.
  ASSERT_TRUE(parse_file_name("vkleak-4242-0003-device_destroy.json", &parsed));
  EXPECT_EQ(parsed.pid, 4242u);
  EXPECT_EQ(parsed.run_id, "");
  EXPECT_EQ(parsed.sequence, 3u);
  EXPECT_EQ(parsed.reason, "device_destroy");
  // Every reason, the largest numbers: the buffer is large enough and the name parses back.
  for (size_t r = 0; r < std::size(kReasonNames); ++r) {
    const auto reason = static_cast<Reason>(r);
    const size_t n = file_name(buf, UINT64_MAX, UINT64_MAX, UINT64_MAX, reason, true);
    EXPECT_LT(n, kMaxFileName);
    const size_t m = file_name(buf, 99, UINT64_MAX, 1, reason);
    ASSERT_TRUE(parse_file_name(std::string_view(buf, m), &parsed));
    EXPECT_EQ(parsed.reason, name(reason));
    EXPECT_EQ(parsed.run_id, "ffffffffffffffff");
  }
  for (const char* bad : {"vkleak-1-2-.json", "vkleak-1-x-exit.json", "vkleak-1-2-Exit.json",
                          "vkleak--2-exit.json", "vkleak-1-2-exit.json.tmp",
                          ".vkleak-1-2-exit.json.tmp", "vkleak-12345678901234567890-1-exit.json",
                          "vkleak-1-0123456789abcde-2-exit.json",    // 15 digits
                          "vkleak-1-0123456789ABCDEF-2-exit.json",   // upper case
                          "vkleak-1-0123456789abcdef0-2-exit.json",  // 17 digits
                          "vkleak-1-0123456789abcdef--exit.json", "vkleak-1-0123456789abcdef-2-.json"})
    EXPECT_FALSE(parse_file_name(bad, &parsed)) << bad;
  char id[kRunIdDigits + 1];
  run_id_text(id, 0xabcull);
  EXPECT_STREQ(id, "0000000000000abc");
  EXPECT_TRUE(is_run_id(id));
  EXPECT_FALSE(is_run_id("0000000000000abg"));
}

TEST(Enums, NameAndParseRoundTrip) {
  for (size_t i = 0; i < std::size(kOriginNames); ++i) {
    Origin o{};
    ASSERT_TRUE(parse(kOriginNames[i], &o));
    EXPECT_EQ(name(o), kOriginNames[i]);
  }
  Origin o{};
  EXPECT_FALSE(parse("unknown", &o));
  EventKind k{};
  EXPECT_TRUE(parse("invalid_destroy", &k));
  EXPECT_EQ(k, EventKind::kInvalidDestroy);
}

}  // namespace
}  // namespace vkleak::format
