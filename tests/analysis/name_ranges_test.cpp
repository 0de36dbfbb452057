// Debug names in a series print as ranges ("thumb.{0..299}"), gaps shown, in linear time.
#include "analysis/name_ranges.h"

#include <gtest/gtest.h>

#include <chrono>

namespace vkleak {
namespace {

using analysis::name_ranges;

std::vector<std::string> texts(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const analysis::NameEntry& e : name_ranges(names)) out.push_back(e.text);
  return out;
}

std::vector<std::string> series(const std::string& prefix, int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

TEST(NameRangesTest, ASeriesIsOneEntry) {
  const std::vector<analysis::NameEntry> e = name_ranges(series("thumb.", 0, 299));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].text, "thumb.{0..299}");
  EXPECT_EQ(e[0].names, 300u);
}

TEST(NameRangesTest, GapsShow) {
  std::vector<std::string> names = series("thumb.", 0, 9);
  for (const std::string& n : series("thumb.", 12, 20)) names.push_back(n);
  names.push_back("thumb.25");
  names.push_back("thumb.30");
  names.push_back("thumb.31");
  EXPECT_EQ(texts(names), (std::vector<std::string>{"thumb.{0..9,12..20,25,30,31}"}));
}

TEST(NameRangesTest, LoneNamesAndNamesWithoutNumbersStayAsTheyAre) {
  EXPECT_EQ(texts({"camera", "shadow.3", "ui", "ui.7b"}),
            (std::vector<std::string>{"camera", "shadow.3", "ui", "ui.7b"}));
  EXPECT_TRUE(name_ranges({}).empty());
}

TEST(NameRangesTest, MixedPrefixesAreSeriesOfTheirOwnInOrderOfTheirFirstName) {
  EXPECT_EQ(texts({"a.1", "b.1", "a.2", "b.2", "a.3", "x", "b.3"}),
            (std::vector<std::string>{"a.{1..3}", "b.{1..3}", "x"}));
  // Out of order and repeated: still one sorted series.
  EXPECT_EQ(texts({"a.5", "a.3", "a.4", "a.3"}), (std::vector<std::string>{"a.{3..5}"}));
}

TEST(NameRangesTest, LeadingZerosKeepTheirWidth) {
  EXPECT_EQ(texts({"f.007", "f.008", "f.009", "f.010", "f.100"}),
            (std::vector<std::string>{"f.{007..010,100}"}));
  // "f.7" is another name than "f.07": a series of its own.
  EXPECT_EQ(texts({"f.07", "f.08", "f.7"}), (std::vector<std::string>{"f.{07,08}", "f.7"}));
  EXPECT_EQ(texts({"0", "1", "2"}), (std::vector<std::string>{"{0..2}"}));
}

TEST(NameRangesTest, NumbersTooLongForAnIntegerStayNames) {
  const std::string big = "n.12345678901234567890";
  EXPECT_EQ(texts({big, "n.1", "n.2"}), (std::vector<std::string>{big, "n.{1,2}"}));
  EXPECT_EQ(texts({"n.999999999999999998", "n.999999999999999999"}),
            (std::vector<std::string>{"n.{999999999999999998,999999999999999999}"}));
}

TEST(NameRangesTest, AMillionHostileNamesInLinearTime) {
  // One series, then a million distinct prefixes, then a million padded numbers: each pass
  // must stay within seconds, sanitizers included (a quadratic one would take hours).
  const auto timed = [](const std::vector<std::string>& names, size_t entries) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(name_ranges(names).size(), entries);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<std::string> names = series("thumb.", 0, 999'999);
  EXPECT_LT(timed(names, 1), 30.0);
  for (size_t i = 0; i < names.size(); ++i) names[i] = std::to_string(i) + "x.1";
  EXPECT_LT(timed(names, names.size()), 30.0);
  for (size_t i = 0; i < names.size(); ++i) {
    std::string n = std::to_string(i * 2);
    names[i] = "p." + std::string(7 - std::min<size_t>(n.size(), 7), '0') + n;
  }
  EXPECT_LT(timed(names, 1), 30.0);
  EXPECT_EQ(name_ranges({"p.0000000", "p.0000002"}).front().text, "p.{0000000,0000002}");
}

}  // namespace
}  // namespace vkleak
