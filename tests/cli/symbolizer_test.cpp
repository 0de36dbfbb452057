// The symbolizer against a real binary: this test program itself. It takes a return address
// inside one of its own functions and the module map of its own process (as the layer records
// it), and checks that the function, file and line come back.
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/symbolizer.h"
#include "shared/elf_note.h"
#include "test_support.h"

namespace vkleak_symbolizer_test {

__attribute__((noinline)) void* ReturnAddress() {
  return __builtin_return_address(0);
}

constexpr int kCallLine = __LINE__ + 3;  // the line of the call below
__attribute__((noinline)) void* KnownCallerFunction() {
  // The asm keeps the call from becoming a tail call, so the return address stays in here.
  void* address = ReturnAddress();
  asm volatile("" : : "r"(address) : "memory");
  return address;
}

// An inline chain two deep, as -O2 makes of small helpers: InlinedHelper into InlinedMiddle
// into OuterFunction. Each must come back as a frame, with the line of its call.
constexpr int kInlinedCallLine = __LINE__ + 2;
inline __attribute__((always_inline)) void* InlinedHelper() {
  void* address = ReturnAddress();
  asm volatile("" : : "r"(address) : "memory");
  return address;
}

constexpr int kMiddleCallLine = __LINE__ + 2;
static inline __attribute__((always_inline)) void* InlinedMiddle() {
  void* address = InlinedHelper();
  asm volatile("" : : "r"(address) : "memory");
  return address;
}

constexpr int kOuterCallLine = __LINE__ + 2;
__attribute__((noinline)) void* OuterFunction() {
  void* address = InlinedMiddle();
  asm volatile("" : : "r"(address) : "memory");
  return address;
}

}  // namespace vkleak_symbolizer_test

namespace vkleak {
namespace {

// The loaded modules of this process, as the layer writes them: base = lowest PT_LOAD address,
// size = span of the PT_LOAD segments, bias = dlpi_addr, build_id from PT_NOTE.
std::vector<Module> own_modules() {
  std::vector<Module> modules;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* out = static_cast<std::vector<Module>*>(data);
        Module m;
        m.bias = info->dlpi_addr;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD) {
            lo = std::min<uint64_t>(lo, info->dlpi_addr + ph.p_vaddr);
            hi = std::max<uint64_t>(hi, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
          }
        }
        if (const elf::BuildId id = elf::loaded_build_id(*info); id.size != 0) {
          m.build_id.resize(2 * id.size);
          elf::write_hex(id.bytes, id.size, m.build_id.data());
        }
        if (lo == UINT64_MAX) return 0;
        m.base = lo;
        m.size = hi - lo;
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          m.path = info->dlpi_name;
        } else if (out->empty()) {
          m.path = std::filesystem::read_symlink("/proc/self/exe").string();
        }
        if (!m.path.empty()) out->push_back(std::move(m));
        return 0;
      },
      &modules);
  return modules;
}

uint64_t known_return_address() {
  return reinterpret_cast<uint64_t>(vkleak_symbolizer_test::KnownCallerFunction());
}

// The index of the module holding address.
int module_of(const std::vector<Module>& modules, uint64_t address) {
  return ModuleMap(modules).find(address);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(SymbolizerTest, FindsItsOwnFunctionFileAndLine) {
  const std::vector<Module> modules = own_modules();
  const uint64_t address = known_return_address();
  const int index = module_of(modules, address);
  ASSERT_GE(index, 0) << "no module holds the test's own code";
  EXPECT_FALSE(modules[static_cast<size_t>(index)].build_id.empty()) << "expected a build-id";

  Symbolizer symbolizer(modules);
  const SymbolizedFrame& frame = symbolizer.symbolize(address).front();
  EXPECT_EQ(frame.module, index);
  EXPECT_EQ(frame.function, "vkleak_symbolizer_test::KnownCallerFunction()");
  EXPECT_TRUE(ends_with(frame.file, "tests/cli/symbolizer_test.cpp")) << frame.file;
  EXPECT_EQ(frame.line, vkleak_symbolizer_test::kCallLine);
  EXPECT_EQ(frame.note, "");
  EXPECT_FALSE(frame.inlined);
  EXPECT_EQ(symbolizer.symbolize(address).size(), 1u);
  EXPECT_EQ(frame.offset, address - modules[static_cast<size_t>(index)].bias);
  EXPECT_EQ(frame.to_string(), "vkleak_symbolizer_test::KnownCallerFunction() (" + frame.file +
                                   ":" + std::to_string(vkleak_symbolizer_test::kCallLine) + ")");
  // Cached: the same object comes back.
  EXPECT_EQ(&symbolizer.symbolize(address).front(), &frame);
}

TEST(SymbolizerTest, ExpandsTheInlineChainInnermostFirst) {
  const std::vector<Module> modules = own_modules();
  const auto address = reinterpret_cast<uint64_t>(vkleak_symbolizer_test::OuterFunction());
  Symbolizer symbolizer(modules);
  const std::vector<SymbolizedFrame>& chain = symbolizer.symbolize(address);
  ASSERT_EQ(chain.size(), 3u);
  const struct {
    const char* function;
    int line;
    bool inlined;
  } expected[] = {
      {"vkleak_symbolizer_test::InlinedHelper()", vkleak_symbolizer_test::kInlinedCallLine, true},
      // Internal linkage, no linkage name: DWARF's plain name, as addr2line prints it.
      {"InlinedMiddle", vkleak_symbolizer_test::kMiddleCallLine, true},
      {"vkleak_symbolizer_test::OuterFunction()", vkleak_symbolizer_test::kOuterCallLine, false}};
  for (size_t i = 0; i < chain.size(); ++i) {
    EXPECT_EQ(chain[i].function, expected[i].function) << i;
    EXPECT_EQ(chain[i].line, expected[i].line) << i;
    EXPECT_EQ(chain[i].inlined, expected[i].inlined) << i;
    EXPECT_TRUE(ends_with(chain[i].file, "tests/cli/symbolizer_test.cpp")) << chain[i].file;
    // One return address: every frame of the chain is that address.
    EXPECT_EQ(chain[i].address, address) << i;
  }
}

TEST(SymbolizerTest, BuildIdMismatchFallsBackToModuleOffset) {
  std::vector<Module> modules = own_modules();
  const uint64_t address = known_return_address();
  const int index = module_of(modules, address);
  ASSERT_GE(index, 0);
  Module& m = modules[static_cast<size_t>(index)];
  m.build_id = std::string(m.build_id.size() ? m.build_id.size() : 40, '0');
  Symbolizer symbolizer(modules);
  const SymbolizedFrame& frame = symbolizer.symbolize(address).front();
  EXPECT_EQ(frame.function, "");
  EXPECT_EQ(frame.file, "");
  EXPECT_EQ(frame.note, "build-id mismatch");
  const std::string expected = std::filesystem::path(m.path).filename().string() + "+0x";
  EXPECT_EQ(frame.to_string().rfind(expected, 0), 0u) << frame.to_string();
  EXPECT_TRUE(ends_with(frame.to_string(), " (build-id mismatch)")) << frame.to_string();
}

TEST(SymbolizerTest, MissingFileFallsBackToModuleOffset) {
  std::vector<Module> modules(1);
  modules[0] = {"/nonexistent/vkleak/libgone.so.1", 0x7f0000000000, 0x10000, 0x7f0000000000,
                "abcd"};
  Symbolizer symbolizer(modules);
  const SymbolizedFrame& frame = symbolizer.symbolize(0x7f0000001234).front();
  EXPECT_EQ(frame.module, 0);
  EXPECT_EQ(frame.offset, 0x1234u);
  EXPECT_EQ(frame.note, "file not found");
  EXPECT_EQ(frame.to_string(), "libgone.so.1+0x1234");
}

TEST(SymbolizerTest, ModulePathsThatAreNotElfFilesAreSkipped) {
  // Module paths come from snapshots: a FIFO (opening it would block), a device, a directory,
  // a large non-ELF file. Each loses its symbols, quickly.
  test::TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo.so").c_str(), 0600), 0);
  {
    std::FILE* f = std::fopen(dir.file("big.so").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    ASSERT_EQ(::truncate(dir.file("big.so").c_str(), off_t{1} << 30), 0);  // sparse
  }
  const std::pair<std::string, const char*> cases[] = {
      {dir.file("fifo.so"), "not a regular file"},
      {"/dev/zero", "not a regular file"},
      {dir.path(), "not a regular file"},
      {dir.file("big.so"), "not a usable ELF file"}};
  for (const auto& [path, note] : cases) {
    std::vector<Module> modules(1);
    modules[0] = {path, 0x7f0000000000, 0x10000, 0x7f0000000000, ""};
    Symbolizer symbolizer(modules);
    const SymbolizedFrame& frame = symbolizer.symbolize(0x7f0000001234).front();
    EXPECT_EQ(frame.note, note) << path;
    EXPECT_EQ(frame.function, "") << path;
    EXPECT_EQ(frame.offset, 0x1234u) << path;
  }
}

TEST(SymbolizerTest, OffsetIsRelativeToTheLoadBias) {
  // A fixed-address executable: mapped from 0x400000, bias 0; offsets are ELF addresses.
  std::vector<Module> modules(1);
  modules[0] = {"/nonexistent/app", 0x400000, 0x10000, 0, ""};
  Symbolizer symbolizer(modules);
  EXPECT_EQ(symbolizer.symbolize(0x401234).front().to_string(), "app+0x401234");
}

TEST(SymbolizerTest, AddressOutsideEveryModule) {
  Symbolizer symbolizer(own_modules());
  const SymbolizedFrame& frame = symbolizer.symbolize(0x10).front();
  EXPECT_EQ(frame.module, -1);
  EXPECT_EQ(frame.to_string(), "0x10");
}

TEST(SymbolizerTest, SymbolizingCanBeTurnedOff) {
  const std::vector<Module> modules = own_modules();
  const uint64_t address = known_return_address();
  const int index = module_of(modules, address);
  ASSERT_GE(index, 0);
  Symbolizer symbolizer(modules, SymbolizerOptions{false});
  const SymbolizedFrame& frame = symbolizer.symbolize(address).front();
  EXPECT_EQ(frame.function, "");
  EXPECT_EQ(
      frame.to_string(),
      std::filesystem::path(modules[static_cast<size_t>(index)].path).filename().string() + "+" +
          "0x" + [&] {
            char buf[32];
            std::snprintf(buf, sizeof(buf), "%llx",
                          static_cast<unsigned long long>(
                              address - modules[static_cast<size_t>(index)].bias));
            return std::string(buf);
          }());
}

TEST(SymbolizerTest, StrippedCopyHasNoSymbols) {
  if (std::system("command -v strip >/dev/null 2>&1") != 0) GTEST_SKIP() << "no strip";
  std::vector<Module> modules = own_modules();
  const uint64_t address = known_return_address();
  const int index = module_of(modules, address);
  ASSERT_GE(index, 0);
  test::TempDir dir;
  const std::string copy = dir.file("stripped");
  Module& m = modules[static_cast<size_t>(index)];
  std::filesystem::copy_file(m.path, copy);
  ASSERT_EQ(std::system(("strip --strip-all '" + copy + "'").c_str()), 0);
  m.path = copy;
  Symbolizer symbolizer(modules);
  const SymbolizedFrame& frame = symbolizer.symbolize(address).front();
  // The build-id survives stripping, so this is the same build without its symbols.
  EXPECT_EQ(frame.note, "no symbols");
  EXPECT_EQ(frame.function, "");
  EXPECT_EQ(frame.to_string().rfind("stripped+0x", 0), 0u) << frame.to_string();
}

// A stripped copy of this test program, and its debug info as a separate file.
struct SplitDebug {
  std::vector<Module> modules;
  uint64_t address = 0;
  std::string stripped, debug, build_id;
};
SplitDebug split_debug(const test::TempDir& dir) {
  SplitDebug s;
  s.modules = own_modules();
  s.address = known_return_address();
  const int index = module_of(s.modules, s.address);
  EXPECT_GE(index, 0);
  Module& m = s.modules[static_cast<size_t>(index)];
  s.build_id = m.build_id;
  std::filesystem::create_directories(dir.file("app"));
  s.stripped = dir.file("app/stripped");
  s.debug = dir.file("app.debug");
  EXPECT_EQ(std::system(("objcopy --only-keep-debug '" + m.path + "' '" + s.debug + "'").c_str()),
            0);
  EXPECT_EQ(std::system(("objcopy --strip-all '" + m.path + "' '" + s.stripped + "'").c_str()), 0);
  m.path = s.stripped;
  return s;
}

void expect_full_symbols(const SymbolizedFrame& frame) {
  EXPECT_EQ(frame.function, "vkleak_symbolizer_test::KnownCallerFunction()") << frame.note;
  EXPECT_TRUE(ends_with(frame.file, "tests/cli/symbolizer_test.cpp")) << frame.file;
  EXPECT_EQ(frame.line, vkleak_symbolizer_test::kCallLine);
}

TEST(SymbolizerTest, FindsSeparateDebugFileByBuildId) {
  if (std::system("command -v objcopy >/dev/null 2>&1") != 0) GTEST_SKIP() << "no objcopy";
  test::TempDir dir;
  const SplitDebug s = split_debug(dir);
  ASSERT_GT(s.build_id.size(), 2u);
  const std::string root = dir.file("debug");
  const std::string id_dir = root + "/.build-id/" + s.build_id.substr(0, 2);
  std::filesystem::create_directories(id_dir);
  const std::string by_id = id_dir + "/" + s.build_id.substr(2) + ".debug";
  {  // Not there yet: the stripped copy has no symbols.
    Symbolizer symbolizer(s.modules, SymbolizerOptions{true, {root}});
    EXPECT_EQ(symbolizer.symbolize(s.address).front().note, "no symbols");
  }
  std::filesystem::copy_file(s.debug, by_id);
  Symbolizer symbolizer(s.modules, SymbolizerOptions{true, {root}});
  expect_full_symbols(symbolizer.symbolize(s.address).front());
}

TEST(SymbolizerTest, FindsSeparateDebugFileByDebuglink) {
  if (std::system("command -v objcopy >/dev/null 2>&1") != 0) GTEST_SKIP() << "no objcopy";
  test::TempDir dir;
  const SplitDebug s = split_debug(dir);
  std::filesystem::create_directories(dir.file("app/.debug"));
  std::filesystem::copy_file(s.debug, dir.file("app/.debug/app.debug"));
  ASSERT_EQ(std::system(("cd '" + dir.path() + "' && objcopy --add-gnu-debuglink=app.debug '" +
                         s.stripped + "'")
                            .c_str()),
            0);
  Symbolizer symbolizer(s.modules, SymbolizerOptions{true, {dir.file("no-debug-root")}});
  expect_full_symbols(symbolizer.symbolize(s.address).front());
}

TEST(SymbolizerTest, SeparateDebugFileMustBeARegularFileOfTheSameBuild) {
  if (std::system("command -v objcopy >/dev/null 2>&1") != 0) GTEST_SKIP() << "no objcopy";
  test::TempDir dir;
  const SplitDebug s = split_debug(dir);
  const std::string root = dir.file("debug");
  const std::string id_dir = root + "/.build-id/" + s.build_id.substr(0, 2);
  std::filesystem::create_directories(id_dir);
  // A FIFO where the debug file would be: opening it for reading would block forever.
  ASSERT_EQ(::mkfifo((id_dir + "/" + s.build_id.substr(2) + ".debug").c_str(), 0600), 0);
  // A debuglink to another program's debug info (vkleak's, with symbols and lines): its build-id
  // differs, so it is not used.
  std::filesystem::create_directories(dir.file("app/.debug"));
  ASSERT_EQ(std::system(("objcopy --only-keep-debug '" + std::string(VKLEAK_BIN) + "' '" +
                         dir.file("app/.debug/app.debug") + "'")
                            .c_str()),
            0);
  ASSERT_EQ(std::system(("cd '" + dir.path() + "' && objcopy --add-gnu-debuglink=app.debug '" +
                         s.stripped + "'")
                            .c_str()),
            0);
  Symbolizer symbolizer(s.modules, SymbolizerOptions{true, {root}});
  const SymbolizedFrame& frame = symbolizer.symbolize(s.address).front();
  EXPECT_EQ(frame.note, "no symbols");
  EXPECT_EQ(frame.file, "");
}

}  // namespace
}  // namespace vkleak

namespace vkleak {
TEST(AbsoluteSourcePathTest, RelativeNamesJoinTheCompilationDirectory) {
  EXPECT_EQ(absolute_source_path("../../../tests/a.cpp", "/work/main/build/tests/scenarios"),
            "/work/main/tests/a.cpp");
  EXPECT_EQ(absolute_source_path("./src/./b.cpp", "/p"), "/p/src/b.cpp");
  EXPECT_EQ(absolute_source_path("/abs/c.cpp", "/p"), "/abs/c.cpp");
  EXPECT_EQ(absolute_source_path("d.cpp", nullptr), "d.cpp");
  EXPECT_EQ(absolute_source_path("d.cpp", "relative/dir"), "d.cpp");
  EXPECT_EQ(absolute_source_path("../../../../e.cpp", "/a"), "/e.cpp");
}
}  // namespace vkleak
