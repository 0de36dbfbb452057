#include "core/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "core/hex.h"
#include "core/input_file.h"
#include "shared/elf_note.h"
#include "shared/text.h"

namespace vkleak {

namespace {
constexpr char kBuildIdMismatch[] = "build-id mismatch";
}  // namespace

std::string SymbolizedFrame::to_string() const {
  const std::string where =
      module >= 0 ? printable(module_name) + "+" + format_hex(offset) : format_hex(address);
  if (!function.empty()) {
    if (!file.empty()) {
      return printable(function) + " (" + printable(file) + ":" + std::to_string(line) + ")";
    }
    return printable(function) + " (" + where + ")";
  }
  // Only the mismatch is worth a word in text: a missing file or symbols are common and the
  // fallback form already shows them.
  return note == kBuildIdMismatch ? where + " (" + note + ")" : where;
}

namespace {

std::string demangle(const char* name) {
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string result(out);
  std::free(out);
  return result;
}

// A function's name from its DWARF entry: the demangled linkage name (qualified, with
// parameters, like the symbol table's), else the plain name.
std::string die_function_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, at, &attr) != nullptr) {
      if (const char* name = dwarf_formstring(&attr)) return demangle(name);
    }
  }
  const char* name = dwarf_diename(die);
  return name ? name : "";
}

struct CuIndex {
  struct Range {
    Dwarf_Addr start, end;
    size_t die;
  };
  std::vector<Range> ranges;  // sorted by start
  std::vector<Dwarf_Die> dies;
};

// One inlined subroutine pc is in: its function, and where the next frame out called it.
struct InlineScope {
  std::string function;
  std::string call_file;
  int call_line = 0;
};

// The inline scopes (inlined subroutines, lexical blocks) under parent that hold pc, outermost
// first; other code is pruned.
void code_path(Dwarf_Die* parent, Dwarf_Addr pc, std::vector<Dwarf_Die>* path, int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) {
      if (dwarf_haspc(&child, pc) == 1) {
        path->push_back(child);
        code_path(&child, pc, path, depth + 1);
        return;
      }
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

// Every subprogram of a compilation unit with code, nested ones included (a lambda's operator()
// may sit in its enclosing function's DIE, where dwarf_getscopes does not look), by address:
// built once per unit, so an address costs a search and a walk of its own function only.
void index_subprograms(Dwarf_Die* parent, CuIndex* index, int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;
  do {
    if (dwarf_tag(&child) == DW_TAG_subprogram) {
      Dwarf_Addr base = 0, start = 0, end = 0;
      ptrdiff_t offset = 0;
      while ((offset = dwarf_ranges(&child, offset, &base, &start, &end)) > 0) {
        if (start < end) index->ranges.push_back({start, end, index->dies.size()});
      }
      index->dies.push_back(child);
    }
    // Inlined subroutines hold no out-of-line function; anything else may.
    if (dwarf_tag(&child) != DW_TAG_inlined_subroutine && dwarf_haschildren(&child) == 1)
      index_subprograms(&child, index, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The inlined subroutines that hold pc, innermost first, and *host the subprogram's DWARF name.
// function_start: where the symbol table says pc's function starts (0: unknown). A subprogram
// range that starts before it is another function's DWARF: a function the linker discarded
// (COMDAT, --gc-sections) keeps its DWARF with addresses from 0, which then "cover" code such as
// crt1.o's _start, which has no DWARF of its own, and would give it that function's file:line.
std::vector<InlineScope> inline_scopes(Dwfl_Module* module, Dwarf_Addr pc,
                                       Dwarf_Addr function_start, std::string* host,
                                       std::unordered_map<Dwarf_Off, CuIndex>* cus) {
  std::vector<InlineScope> out;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(module, pc, &bias);
  if (cu == nullptr) return out;
  pc -= bias;
  if (function_start != 0) function_start -= bias;
  auto [it, added] = cus->try_emplace(dwarf_dieoffset(cu));
  CuIndex& index = it->second;
  if (added) {
    index_subprograms(cu, &index, 0);
    std::sort(index.ranges.begin(), index.ranges.end(),
              [](const CuIndex::Range& a, const CuIndex::Range& b) { return a.start < b.start; });
  }
  auto r = std::upper_bound(index.ranges.begin(), index.ranges.end(), pc,
                            [](Dwarf_Addr a, const CuIndex::Range& b) { return a < b.start; });
  if (r == index.ranges.begin() || pc >= std::prev(r)->end) return out;
  if (function_start != 0 && std::prev(r)->start < function_start) return out;
  Dwarf_Die subprogram = index.dies[std::prev(r)->die];
  *host = die_function_name(&subprogram);
  std::vector<Dwarf_Die> dies;  // outermost first
  code_path(&subprogram, pc, &dies, 0);
  std::reverse(dies.begin(), dies.end());
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (dwarf_getsrcfiles(cu, &files, &file_count) != 0) file_count = 0;
  Dwarf_Attribute attr;
  const char* comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
  for (Dwarf_Die& die : dies) {  // innermost first; lexical blocks in between are skipped
    if (dwarf_tag(&die) != DW_TAG_inlined_subroutine) continue;
    InlineScope scope;
    scope.function = die_function_name(&die);
    Dwarf_Word value = 0;
    if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &attr), &value) == 0 &&
        value < file_count) {
      if (const char* file = dwarf_filesrc(files, value, nullptr, nullptr))
        scope.call_file = absolute_source_path(file, comp_dir);
    }
    if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &attr), &value) == 0)
      scope.call_line = static_cast<int>(value);
    out.push_back(std::move(scope));
  }
  return out;
}

std::string to_hex(const unsigned char* bytes, int len) {
  std::string out(2 * static_cast<size_t>(len > 0 ? len : 0), '\0');
  elf::write_hex(bytes, out.size() / 2, out.data());
  return out;
}

// Whether the ELF file at fd carries this build-id (a separate debug file keeps its module's).
// libdw rather than shared/elf_note.h: a file on disk (often a separate debug file), whose note
// libelf finds through its sections; elf_note.h reads the notes of loaded modules.
bool has_build_id(int fd, const unsigned char* id, int len) {
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return false;
  const void* bits = nullptr;
  const ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
  const bool same = n == len && len > 0 && std::memcmp(bits, id, static_cast<size_t>(len)) == 0;
  elf_end(elf);
  return same;
}

}  // namespace

std::string absolute_source_path(const char* file, const char* comp_dir) {
  std::string path = file;
  if (path.empty() || path[0] == '/' || comp_dir == nullptr || comp_dir[0] != '/') return path;
  path = std::string(comp_dir) + "/" + path;
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(start, end - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  std::string out;
  for (const std::string& part : parts) out += "/" + part;
  return out.empty() ? "/" : out;
}

// One Dwfl session per module: a broken or missing file then affects only its own frames.
struct Symbolizer::OpenModule {
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  std::vector<std::string> debug_file_directories;
  Dwfl_Module* module = nullptr;  // null: fall back to module+offset
  std::string note;
  std::unordered_map<Dwarf_Off, CuIndex> cus;  // by compilation unit, built on first use

  ~OpenModule() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }
};

namespace {
std::vector<std::string>& debug_directories() {
  static std::vector<std::string> directories = {"/usr/lib/debug"};
  return directories;
}
}  // namespace

void set_debug_file_directories(std::vector<std::string> directories) {
  directories.erase(std::remove(directories.begin(), directories.end(), std::string()),
                    directories.end());
  debug_directories() = std::move(directories);
}

const std::vector<std::string>& debug_file_directories() {
  return debug_directories();
}

namespace {
bool& startup_frames_shown() {
  static bool shown = false;
  return shown;
}
}  // namespace

void set_show_startup_frames(bool show) {
  startup_frames_shown() = show;
}

bool show_startup_frames() {
  return startup_frames_shown();
}

Symbolizer::Symbolizer(std::vector<Module> modules, SymbolizerOptions options)
    : modules_(std::move(modules)), map_(modules_), options_(options), open_(modules_.size()) {}

Symbolizer::~Symbolizer() = default;

// libdwfl's find_debuginfo: separate debug files by build-id, then by .gnu_debuglink, like
// dwfl_standard_find_debuginfo but opening regular files only, and taking a debug file only
// when its build-id is the module's (or, when the module has none, by its debuglink name).
int Symbolizer::find_debuginfo(Dwfl_Module* module, void** userdata, const char*, GElf_Addr,
                               const char* file_name, const char* debuglink_file, GElf_Word,
                               char** debuginfo_file_name) {
  const auto* m = static_cast<const OpenModule*>(*userdata);
  if (m == nullptr || m->debug_file_directories.empty()) return -1;
  const unsigned char* id = nullptr;
  GElf_Addr id_vaddr = 0;
  const int id_len = dwfl_module_build_id(module, &id, &id_vaddr);
  auto take = [&](const std::string& path) {
    const int fd = open_regular_file(path);
    if (fd < 0) return -1;
    if (id_len > 0 && !has_build_id(fd, id, id_len)) {
      ::close(fd);
      return -1;
    }
    *debuginfo_file_name = strdup(path.c_str());
    return fd;
  };
  if (id_len > 1) {
    const std::string hex = to_hex(id, id_len);
    for (const std::string& root : m->debug_file_directories) {
      const int fd = take(root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
      if (fd >= 0) return fd;
    }
  }
  if (debuglink_file == nullptr || *debuglink_file == '\0' || file_name == nullptr ||
      std::strchr(debuglink_file, '/') != nullptr)
    return -1;
  std::string dir(file_name);
  dir.resize(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));
  std::vector<std::string> candidates = {dir + "/" + debuglink_file,
                                         dir + "/.debug/" + debuglink_file};
  for (const std::string& root : m->debug_file_directories)
    candidates.push_back(root + dir + "/" + debuglink_file);
  for (const std::string& candidate : candidates) {
    // The module itself may name itself: that is not a separate file.
    if (candidate == file_name) continue;
    const int fd = take(candidate);
    if (fd >= 0) return fd;
  }
  return -1;
}

Symbolizer::OpenModule& Symbolizer::open_module(int index) {
  std::unique_ptr<OpenModule>& slot = open_[static_cast<size_t>(index)];
  if (slot) return *slot;
  slot = std::make_unique<OpenModule>();
  OpenModule& m = *slot;
  const Module& info = modules_[static_cast<size_t>(index)];

  // Module paths come from the snapshot: untrusted. Only a regular ELF file is handed to
  // libdwfl, by descriptor (given a path it would open a FIFO and block).
  const int fd = open_regular_file(info.path);
  if (fd < 0) {
    m.note = ::access(info.path.c_str(), F_OK) == 0 ? "not a regular file" : "file not found";
    return m;
  }
  unsigned char magic[4] = {};
  if (::pread(fd, magic, sizeof magic, 0) != static_cast<ssize_t>(sizeof magic) ||
      std::memcmp(magic, "\177ELF", 4) != 0) {
    ::close(fd);
    m.note = "not a usable ELF file";
    return m;
  }
  m.callbacks.find_elf = dwfl_build_id_find_elf;
  m.callbacks.find_debuginfo = &Symbolizer::find_debuginfo;
  m.callbacks.section_address = dwfl_offline_section_address;
  m.debug_file_directories = options_.debug_file_directories;
  m.dwfl = dwfl_begin(&m.callbacks);
  if (m.dwfl == nullptr) {
    ::close(fd);
    m.note = "libdwfl failed";
    return m;
  }
  dwfl_report_begin(m.dwfl);
  // With add_p_vaddr, the address given is the load bias itself, which is right for PIE, shared
  // libraries and fixed-address executables (bias 0) alike. On success libdwfl owns fd.
  Dwfl_Module* module = dwfl_report_elf(m.dwfl, std::string(base_name(info.path)).c_str(),
                                        info.path.c_str(), fd, info.bias, true);
  dwfl_report_end(m.dwfl, nullptr, nullptr);
  if (module == nullptr) {
    ::close(fd);
    m.note = "not a usable ELF file";
    return m;
  }
  void** userdata = nullptr;  // find_debuginfo's way back to this module's settings
  dwfl_module_info(module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (userdata != nullptr) *userdata = &m;
  if (!info.build_id.empty()) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int len = dwfl_module_build_id(module, &bits, &vaddr);
    // A different build maps addresses to the wrong functions: say so rather than guess.
    if (len > 0 && to_hex(bits, len) != info.build_id) {
      m.note = kBuildIdMismatch;
      return m;
    }
  }
  m.module = module;
  return m;
}

const std::vector<SymbolizedFrame>& Symbolizer::symbolize(uint64_t address) {
  std::unique_ptr<std::vector<SymbolizedFrame>>& cached = cache_[address];
  if (cached) return *cached;
  cached = std::make_unique<std::vector<SymbolizedFrame>>(1);
  std::vector<SymbolizedFrame>& chain = *cached;
  SymbolizedFrame& frame = chain.front();
  frame.address = address;
  frame.module = map_.find(address);
  if (frame.module < 0) return chain;
  const Module& info = modules_[static_cast<size_t>(frame.module)];
  frame.module_name = std::string(base_name(info.path));
  // The ELF virtual address, what `addr2line -e <module>` takes.
  frame.offset = address - info.bias;
  if (!options_.symbolize) return chain;

  OpenModule& m = open_module(frame.module);
  frame.note = m.note;
  if (m.module == nullptr || address == 0) return chain;
  // A return address points after the call; the call itself may end a function or an inlined
  // range, so look up the byte before it.
  const Dwarf_Addr pc = address - 1;
  GElf_Off symbol_offset = 0;
  GElf_Sym symbol;
  bool have_symbol = false;
  std::string outer;  // the function the machine code belongs to
  if (const char* name =
          dwfl_module_addrinfo(m.module, pc, &symbol_offset, &symbol, nullptr, nullptr, nullptr)) {
    // Drop a symbol version ("__libc_start_main@@GLIBC_2.34"): noise in a stack.
    std::string plain(name);
    if (const size_t at = plain.find('@'); at != std::string::npos && at > 0) plain.resize(at);
    outer = demangle(plain.c_str());
    have_symbol = true;
  }
  std::string host;
  const std::vector<InlineScope> scopes =
      inline_scopes(m.module, pc, have_symbol ? pc - symbol_offset : 0, &host, &m.cus);
  if (outer.empty()) outer = std::move(host);
  if (Dwfl_Line* line = dwfl_module_getsrc(m.module, pc)) {
    int lineno = 0;
    Dwarf_Addr line_address = 0;
    const char* file = dwfl_lineinfo(line, &line_address, &lineno, nullptr, nullptr, nullptr);
    // Code without line info (like _start) gets the nearest earlier row, from another
    // function: a row that starts before the function does is not this function's.
    if (file != nullptr && !(have_symbol && line_address < pc - symbol_offset)) {
      frame.file = absolute_source_path(file, dwfl_line_comp_dir(line));
      frame.line = lineno;
    }
  }
  // The line table names the innermost inlined function's line; each inlined subroutine's
  // call site is the line in the frame out from it.
  const SymbolizedFrame base = frame;
  for (size_t i = 0; i < scopes.size(); ++i) {
    chain[i].function = scopes[i].function;
    chain[i].inlined = true;
    SymbolizedFrame next = base;
    next.file = scopes[i].call_file;
    next.line = scopes[i].call_line;
    chain.push_back(std::move(next));
  }
  chain.back().function = std::move(outer);
  for (SymbolizedFrame& f : chain) {
    if (f.function.empty() && f.file.empty() && f.note.empty()) f.note = "no symbols";
  }
  return chain;
}

}  // namespace vkleak
