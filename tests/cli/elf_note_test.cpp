// The build-id note walker (shared/elf_note.h) the layer records modules with: read from the
// loaded modules of this test, compared with what `readelf -n` reads from their files.
#include "shared/elf_note.h"

#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace vkleak {
namespace {

std::string hex(elf::BuildId id) {
  std::string out(2 * id.size, '?');
  elf::write_hex(id.bytes, id.size, out.data());
  return out;
}

struct Loaded {
  std::string path;
  std::string build_id;  // by loaded_build_id()
};

std::vector<Loaded> loaded_modules() {
  std::vector<Loaded> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* mods = static_cast<std::vector<Loaded>*>(data);
        Loaded m;
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          m.path = info->dlpi_name;
        } else if (mods->empty()) {
          m.path = std::filesystem::read_symlink("/proc/self/exe").string();
        }
        m.build_id = hex(elf::loaded_build_id(*info));
        if (!m.path.empty() && std::filesystem::is_regular_file(m.path)) mods->push_back(m);
        return 0;
      },
      &out);
  return out;
}

// The "Build ID:" line of `readelf -n path` (empty when it shows none).
std::string readelf_build_id(const std::string& path) {
  const std::string command = "readelf -n '" + path + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  std::string id;
  char line[512];
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    const char* at = std::strstr(line, "Build ID: ");
    if (at != nullptr && id.empty()) {
      id = at + std::strlen("Build ID: ");
      while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    }
  }
  pclose(pipe);
  return id;
}

TEST(ElfNote, LoadedModulesMatchReadelf) {
  const std::vector<Loaded> modules = loaded_modules();
  ASSERT_GE(modules.size(), 2u) << "the test program and its libraries";
  // The test program itself is a binary of this build: the linker gives it a build-id.
  EXPECT_EQ(modules[0].path, std::filesystem::read_symlink("/proc/self/exe").string());
  EXPECT_EQ(modules[0].build_id.size(), 40u) << modules[0].build_id;
  size_t with_id = 0;
  for (const Loaded& m : modules) {
    EXPECT_EQ(m.build_id, readelf_build_id(m.path)) << m.path;
    with_id += m.build_id.empty() ? 0 : 1;
  }
  EXPECT_GE(with_id, 2u);
}

// A note area as the linker lays it out: 4-byte words, names and descriptors padded to align.
struct Notes {
  std::vector<uint32_t> words;
  void add(uint32_t type, const char* name, std::vector<uint8_t> desc, size_t align) {
    const auto namesz = static_cast<uint32_t>(std::strlen(name) + 1);
    words.insert(words.end(), {namesz, static_cast<uint32_t>(desc.size()), type});
    std::vector<uint8_t> bytes(name, name + namesz);
    while ((12 + bytes.size()) % align != 0) bytes.push_back(0);
    bytes.insert(bytes.end(), desc.begin(), desc.end());
    while ((12 + bytes.size()) % align != 0) bytes.push_back(0);
    const size_t at = words.size();
    words.resize(at + bytes.size() / 4);
    std::memcpy(&words[at], bytes.data(), bytes.size());
  }
  size_t size() const { return words.size() * 4; }
};

TEST(ElfNote, FindsTheGnuBuildIdAfterOtherNotes) {
  Notes n;
  n.add(NT_GNU_ABI_TAG, "GNU", {0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}, 4);
  n.add(NT_GNU_BUILD_ID, "Xen", {1, 2, 3, 4}, 4);  // the right type from another vendor
  n.add(NT_GNU_BUILD_ID, "GNU", {0xde, 0xad, 0xbe, 0xef, 0x01}, 4);
  EXPECT_EQ(hex(elf::find_gnu_build_id(n.words.data(), n.size(), 4)), "deadbeef01");
}

TEST(ElfNote, EightByteAlignedNotesPadFromTheNoteStart) {
  // A 12-byte property descriptor is padded to 16 in an 8-aligned area (PT_NOTE, p_align 8).
  Notes n;
  n.add(NT_GNU_PROPERTY_TYPE_0, "GNU", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 8);
  n.add(NT_GNU_BUILD_ID, "GNU", {0xab, 0xcd}, 8);
  EXPECT_EQ(hex(elf::find_gnu_build_id(n.words.data(), n.size(), 8)), "abcd");
}

TEST(ElfNote, StopsAtNotesThatRunPastTheEnd) {
  Notes n;
  n.add(NT_GNU_BUILD_ID, "GNU", {0x11, 0x22, 0x33, 0x44}, 4);
  for (size_t cut = 0; cut < n.size(); ++cut) {
    EXPECT_EQ(elf::find_gnu_build_id(n.words.data(), cut, 4).size, 0u) << cut;
  }
  EXPECT_EQ(hex(elf::find_gnu_build_id(n.words.data(), n.size(), 4)), "11223344");
  n.words[1] = 0xfffffff0u;  // descsz far past the end: no read beyond it
  EXPECT_EQ(elf::find_gnu_build_id(n.words.data(), n.size(), 4).size, 0u);
  n.words[1] = 4;
  n.words[0] = 0xfffffffdu;  // namesz likewise
  EXPECT_EQ(elf::find_gnu_build_id(n.words.data(), n.size(), 4).size, 0u);
}

}  // namespace
}  // namespace vkleak
