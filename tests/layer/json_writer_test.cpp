// JsonWriter::str: whatever bytes come in, the output is valid UTF-8 JSON; invalid sequences
// become U+FFFD per maximal subpart (as Python's errors="replace"), controls are escaped.
#include "snapshot/json_writer.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <unistd.h>

#include <string>

namespace vkleak {
namespace {

std::string written(const std::string& in) {
  FILE* f = tmpfile();
  EXPECT_NE(f, nullptr);
  {
    JsonWriter w(fileno(f));
    w.str(in);
    EXPECT_TRUE(w.flush());
  }
  std::string out(in.size() * 6 + 16, '\0');
  const ssize_t n = pread(fileno(f), &out[0], out.size(), 0);
  fclose(f);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

const std::string kFffd = "\xef\xbf\xbd";

TEST(JsonWriter, AsciiAndEscapes) {
  EXPECT_EQ(written("plain name"), "\"plain name\"");
  EXPECT_EQ(written("q\"b\\n\nt\tr\r"), "\"q\\\"b\\\\n\\nt\\tr\\r\"");
  EXPECT_EQ(written(std::string("a\0b\x01\x1f\x7f", 6)), "\"a\\u0000b\\u0001\\u001f\x7f\"");
}

TEST(JsonWriter, ValidUtf8Kept) {
  const std::string s = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xed\x9f\xbf \xf4\x8f\xbf\xbf";
  EXPECT_EQ(written(s), "\"" + s + "\"");
}

TEST(JsonWriter, InvalidUtf8Replaced) {
  // Overlongs (C0/C1 leads, E0 80.., F0 80..): every byte is its own maximal subpart.
  EXPECT_EQ(written("a\xc0\xaf"), "\"a" + kFffd + kFffd + "\"");
  EXPECT_EQ(written("\xe0\x80\xaf"), "\"" + kFffd + kFffd + kFffd + "\"");
  EXPECT_EQ(written("\xf0\x80\x80\xaf"), "\"" + kFffd + kFffd + kFffd + kFffd + "\"");
  // Surrogates (ED A0..BF ..).
  EXPECT_EQ(written("\xed\xa0\x80x"), "\"" + kFffd + kFffd + kFffd + "x\"");
  // Past U+10FFFF: F4 90.., F5..FF.
  EXPECT_EQ(written("\xf4\x90\x80\x80"), "\"" + kFffd + kFffd + kFffd + kFffd + "\"");
  EXPECT_EQ(written("\xff\xfe"), "\"" + kFffd + kFffd + "\"");
  // Truncated: a valid prefix is one subpart, at the end or before another byte.
  EXPECT_EQ(written("ab\xe2\x82"), "\"ab" + kFffd + "\"");
  EXPECT_EQ(written("\xf0\x9f\x98z"), "\"" + kFffd + "z\"");
  EXPECT_EQ(written("\xe2\x82\""), "\"" + kFffd + "\\\"\"");
  // A lone continuation byte.
  EXPECT_EQ(written("\x80"), "\"" + kFffd + "\"");
}

}  // namespace
}  // namespace vkleak
