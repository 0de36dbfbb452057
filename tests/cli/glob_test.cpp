// shared/glob.h: the same answers as fnmatch(3) without flags, in time bounded by pattern length x
// text length (fnmatch is exponential in the number of '*': a hostile suppression file would
// stall the gate).
#include "shared/glob.h"

#include <fnmatch.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace vkleak {
namespace {

TEST(GlobTest, AgreesWithFnmatch) {
  const std::vector<std::string> patterns = {
      "",      "*",       "?",         "a*",     "*a",      "a*b*c", "a?c",
      "[abc]", "[!abc]x", "[^a-c]*",   "[a-c]?", "[]]",     "[!]]",  "[",
      "a[",    "\\*",     "a\\?b",     "*.so*",  "lib*vk*", "**a**", "*[0-9]",
      "x[-]y", "[a-]z",   "*/lib*.so", "\\",     "a\\",     "[\\]]", "[a\\-z]"};
  const std::vector<std::string> texts = {"",
                                          "a",
                                          "b",
                                          "abc",
                                          "aXbYc",
                                          "ac",
                                          "x",
                                          "]",
                                          "]x",
                                          "dx",
                                          "*",
                                          "a?b",
                                          "axb",
                                          "[",
                                          "a[",
                                          "[a-",
                                          "libvulkan.so.1",
                                          "lib/libvk_swiftshader.so",
                                          "a9",
                                          "x-y",
                                          "-z",
                                          "az",
                                          "\\",
                                          "a\\",
                                          "/usr/lib/libGLX.so"};
  for (const std::string& p : patterns) {
    for (const std::string& t : texts) {
      EXPECT_EQ(glob_matches(p, t), ::fnmatch(p.c_str(), t.c_str(), 0) == 0)
          << "pattern '" << p << "' text '" << t << "'";
    }
  }
}

TEST(GlobTest, AnUnclosedSetIsLiteral) {
  // POSIX: a '[' that opens no set matches itself (glibc answers no for "[a-").
  EXPECT_TRUE(glob_matches("[a-", "[a-"));
  EXPECT_TRUE(glob_matches("x[*", "x[yz"));
  EXPECT_FALSE(glob_matches("[a-", "a"));
}

TEST(GlobTest, ManyStarsStayFast) {
  // fnmatch takes minutes on this; the matcher here a few million steps at most.
  std::string pattern;
  for (int i = 0; i < 40; ++i) pattern += "*a";
  pattern += "b";
  const std::string text(20000, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(glob_matches(pattern, text));
  EXPECT_TRUE(glob_matches(pattern, text + "b"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace vkleak
