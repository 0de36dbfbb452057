// Formatting helpers: sizes, counts, safe quoting of untrusted text, colour decisions, tables.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "core/hex.h"
#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak {
namespace {

TEST(FormatTest, Bytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1572864), "1.5 MiB");
  EXPECT_EQ(format_bytes((uint64_t{1} << 20) - 1), "1.0 MiB");  // not "1024.0 KiB"
  EXPECT_EQ(format_bytes(uint64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(format_bytes(UINT64_MAX), ">= 16.0 EiB");  // where saturating sums stop
}

TEST(FormatTest, Counts) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567), "1,234,567");
}

TEST(FormatTest, Durations) {
  EXPECT_EQ(format_duration_ms(850), "850 ms");
  EXPECT_EQ(format_duration_ms(12345), "12.3 s");
  EXPECT_EQ(format_duration_ms(245000), "4 min 05 s");
}

TEST(FormatTest, PrintableEscapesTerminalControls) {
  EXPECT_EQ(printable("plain name"), "plain name");
  EXPECT_EQ(printable("a\x1b[31mb"), "a\\x1b[31mb");
  EXPECT_EQ(printable("tab\tnl\n"), "tab\\x09nl\\x0a");
  EXPECT_EQ(printable("c1 \xc2\x9b end"), "c1 \\xc2\\x9b end");  // U+009B, a CSI
  EXPECT_EQ(printable("bad \xff utf8"), "bad \\xff utf8");
  EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
  EXPECT_EQ(printable("h\xc3\xa9llo w\xc3\xb6rld"), "h\xc3\xa9llo w\xc3\xb6rld");  // UTF-8 kept
  EXPECT_EQ(printable("abcdef", 3), "abc\xe2\x80\xa6 (6 bytes)");
  EXPECT_EQ(printable("abc", 3), "abc");
  // Whole code points.
  EXPECT_EQ(printable("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9\xe2\x80\xa6 (6 bytes)");
  EXPECT_EQ(printable(std::string(1'000'000, 'n'), 200),
            std::string(200, 'n') + "\xe2\x80\xa6 (1,000,000 bytes)");
  EXPECT_EQ(quote_printable("say \"hi\""), "\"say \\\"hi\\\"\"");
}

TEST(FormatTest, PrintableShowsBidiAndInvisibleCodePoints) {
  // Trojan Source: RLO, isolates, marks, line/paragraph separators, zero width, BOM, tags.
  EXPECT_EQ(printable("a\u202e\u2066\u2069b"), "a<U+202E><U+2066><U+2069>b");
  EXPECT_EQ(printable("\u200e\u200f\u061c"), "<U+200E><U+200F><U+061C>");
  EXPECT_EQ(printable("l\u2028p\u2029"), "l<U+2028>p<U+2029>");
  EXPECT_EQ(printable("z\u200bw\ufeff\U000e0041"), "z<U+200B>w<U+FEFF><U+E0041>");
  EXPECT_EQ(printable("\u202a\u202b\u202c\u202d"), "<U+202A><U+202B><U+202C><U+202D>");
  // Neighbours that are ordinary text stay.
  EXPECT_EQ(printable("\u2027\u2030\u2070x"), "\u2027\u2030\u2070x");
  // Overlong and surrogate encodings are invalid bytes, not code points.
  EXPECT_EQ(printable("\xe0\x80\xae"), "\\xe0\\x80\\xae");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
}

TEST(FormatTest, SaturatingByteSums) {
  EXPECT_EQ(saturating_add(UINT64_MAX, 4096), UINT64_MAX);
  EXPECT_EQ(saturating_add(UINT64_MAX - 1, 1), UINT64_MAX);
  EXPECT_EQ(saturating_add(4096, 8192), 12288u);
  EXPECT_EQ(saturating_delta(0, UINT64_MAX), INT64_MAX);
  EXPECT_EQ(saturating_delta(UINT64_MAX, 0), INT64_MIN);
  EXPECT_EQ(saturating_delta(10, 4), -6);
  EXPECT_EQ(magnitude(INT64_MIN), uint64_t{1} << 63);
  EXPECT_EQ(format_bytes(UINT64_MAX), ">= 16.0 EiB");
  EXPECT_EQ(format_bytes(UINT64_MAX - 1), "16.0 EiB");
}

TEST(FormatTest, MarkdownCodeSpansCannotBeBrokenOutOf) {
  EXPECT_EQ(markdown_code("plain", false), "`plain`");
  EXPECT_EQ(markdown_code("a`b``c", false), "```a`b``c```");
  EXPECT_EQ(markdown_code("`lead", false), "`` `lead ``");
  EXPECT_EQ(markdown_code(" both ", false), "`  both  `");
  EXPECT_EQ(markdown_code("<b>&amp;", false), "`<b>&amp;`");
  EXPECT_EQ(markdown_code("x|y", true), "`x\\|y`");
  EXPECT_EQ(markdown_code("x|y", false), "`x|y`");
  EXPECT_EQ(markdown_code("\u202eevil\n", true), "`<U+202E>evil\\x0a`");
  EXPECT_EQ(markdown_code("", true), "");
  EXPECT_EQ(xml_text("<a b='c'>&\x1b"), "&lt;a b=&apos;c&apos;&gt;&amp;\\x1b");
  EXPECT_EQ(display_cut("abcdef", 3), "abc\xe2\x80\xa6 (6 bytes)");
  EXPECT_EQ(display_cut("abc", 3), "abc");
}

TEST(FormatTest, DisplayWidthIgnoresAnsiAndCountsCodePoints) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("\x1b[1mabc\x1b[0m"), 3u);
  EXPECT_EQ(display_width("h\xc3\xa9"), 2u);
}

TEST(FormatTest, ShouldColor) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_TRUE(should_color(ColorMode::kAlways, fds[1]));
  EXPECT_FALSE(should_color(ColorMode::kNever, fds[1]));
  EXPECT_FALSE(should_color(ColorMode::kAuto, fds[1]));  // a pipe is not a terminal
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_TRUE(should_color(ColorMode::kAlways, fds[1]));  // an explicit flag wins
  ::unsetenv("NO_COLOR");
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(FormatTest, StyleIsANoOpWhenDisabled) {
  EXPECT_EQ(Style(false).bold("x"), "x");
  EXPECT_EQ(Style(true).bold("x"), "\x1b[1mx\x1b[0m");
}

TEST(FormatTest, TableAlignsColumns) {
  Table table;
  table.add_column("TYPE", Table::Align::kLeft);
  table.add_column("LIVE", Table::Align::kRight);
  table.add_row({"VkBuffer", "1,234"});
  table.add_row({"VkImageView", "7"});
  table.add_footer({"total", "1,241"});
  EXPECT_EQ(table.render(Style(false), 2),
            "  TYPE          LIVE\n"
            "  VkBuffer     1,234\n"
            "  VkImageView      7\n"
            "  ------------------\n"
            "  total        1,241\n");
  // Styling does not change the layout.
  const std::string styled = table.render(Style(true));
  EXPECT_NE(styled.find("\x1b[1mTYPE\x1b[0m"), std::string::npos);
  EXPECT_NE(styled.find("VkImageView      7\n"), std::string::npos);
}

TEST(HexTest, ParseAndFormat) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_hex_u64("0x0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_hex_u64("0xdeadBEEF", &v));
  EXPECT_EQ(v, 0xdeadbeefu);
  EXPECT_TRUE(parse_hex_u64("0xffffffffffffffff", &v));
  EXPECT_EQ(v, UINT64_MAX);
  for (const char* bad : {"", "0x", "0", "x1", "0x1g", "0x10000000000000000", "0X1", " 0x1"}) {
    EXPECT_FALSE(parse_hex_u64(bad, &v)) << bad;
  }
  EXPECT_EQ(format_hex(0), "0x0");
  EXPECT_EQ(format_hex(0x7f00dead), "0x7f00dead");
  EXPECT_EQ(format_hex(UINT64_MAX), "0xffffffffffffffff");
}

}  // namespace
}  // namespace vkleak
