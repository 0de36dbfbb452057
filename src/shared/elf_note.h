// The GNU build-id of an ELF image from its raw notes: the one note walker of the layer and the
// CLI. Header-only and allocation-free (the layer reads its loaded modules with it). Files on
// disk are read through libdw instead (symbolizer.cpp): it finds the note through sections as
// well, in separate debug files and unloaded images, on the Elf it already has open.
#pragma once

#include <elf.h>
#include <link.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vkleak::elf {

struct BuildId {
  const unsigned char* bytes = nullptr;
  size_t size = 0;  // 0: no build-id
};

// The NT_GNU_BUILD_ID descriptor in the notes [notes, notes + size). align is the note area's
// alignment (p_align): descriptors and next notes start at multiples of 8 from a note's start in
// an 8-aligned area, of 4 otherwise (glibc's ELF_NOTE_DESC_OFFSET / ELF_NOTE_NEXT_OFFSET). Stops
// at the first note that runs past the end.
inline BuildId find_gnu_build_id(const void* notes, size_t size, size_t align = 4) noexcept {
  const size_t pad = align == 8 ? 7 : 3;
  const auto* base = static_cast<const unsigned char*>(notes);
  size_t off = 0;
  while (size - off >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) nh;
    std::memcpy(&nh, base + off, sizeof(nh));  // no alignment assumed of the caller's buffer
    const size_t desc = (sizeof(nh) + size_t{nh.n_namesz} + pad) & ~pad;  // from the note's start
    if (desc > size - off || nh.n_descsz > size - off - desc) break;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
        std::memcmp(base + off + sizeof(nh), "GNU", 4) == 0) {
      return {base + off + desc, nh.n_descsz};
    }
    const size_t next = (desc + size_t{nh.n_descsz} + pad) & ~pad;
    if (next > size - off) break;
    off += next;
  }
  return {};
}

// The build-id of a module loaded in this process (as dl_iterate_phdr gives it): from the first
// of its PT_NOTE segments that holds one.
inline BuildId loaded_build_id(const dl_phdr_info& info) noexcept {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const BuildId id = find_gnu_build_id(reinterpret_cast<const void*>(info.dlpi_addr + ph.p_vaddr),
                                         ph.p_memsz, ph.p_align);
    if (id.size != 0) return id;
  }
  return {};
}

// Writes the 2 * size lowercase hex digits of bytes to out (no terminator): the spelling of
// build-ids in snapshots, in .build-id/ paths and in `readelf -n`.
inline void write_hex(const unsigned char* bytes, size_t size, char* out) noexcept {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
}

}  // namespace vkleak::elf
