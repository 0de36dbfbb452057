// Turns return addresses recorded in a snapshot into "function (file:line)", offline, from the
// ELF files and their debug info (libdwfl). Falls back to "module+0xoffset" whenever the file is
// gone, has no symbols, or is not the build the snapshot saw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <elfutils/libdwfl.h>

#include "core/module_map.h"
#include "core/snapshot.h"

namespace vkleak {

struct SymbolizedFrame {
  uint64_t address = 0;
  int module = -1;          // index into the modules, -1 when no module holds the address
  std::string module_name;  // file name of the module
  uint64_t offset = 0;      // address - load bias: the ELF virtual address in the module
  std::string function;     // demangled; empty when unknown
  std::string file;         // source file; empty when unknown
  int line = 0;
  // Code of function was inlined into the next frame of the chain: no call of its own.
  bool inlined = false;
  std::string note;  // why there are no symbols when that is worth saying: "build-id mismatch"

  // "function (file:line)", "function (module+0x1f)", "module+0x1f (note)" or "0x7f0012".
  std::string to_string() const;
};

// Where separate debug files are looked up, in order: /usr/lib/debug unless set (the CLI's
// --debug-file-directory, as gdb's debug-file-directory: the list replaces the default). Set
// before any Symbolizer is made.
void set_debug_file_directories(std::vector<std::string> directories);
const std::vector<std::string>& debug_file_directories();

// The C runtime's start-up code that ends every stack of the main thread (_start,
// __libc_start_main, __libc_start_call_main): no part of the program's story. Hidden from what
// the CLI shows unless set_show_startup_frames(true) (the CLI's --startup-frames); call sites
// are still grouped and matched by all their addresses.
// Inline: the policy-file fuzzer (baseline.cpp, finding.cpp) is built without this file.
inline bool is_startup_frame(const std::string& function) {
  return function == "_start" || function.rfind("__libc_start", 0) == 0;
}
void set_show_startup_frames(bool show);
bool show_startup_frames();

// Drops the start-up frames that end a stack (outermost), unless they are all it has or
// show_startup_frames(). Frame is anything with a `function` string, innermost first.
template <typename Frames, typename FunctionOf>
void trim_startup_frames(Frames* frames, FunctionOf function_of) {
  if (show_startup_frames()) return;
  size_t end = frames->size();
  while (end > 0 && is_startup_frame(function_of((*frames)[end - 1]))) --end;
  if (end > 0) frames->erase(frames->begin() + static_cast<std::ptrdiff_t>(end), frames->end());
}

struct SymbolizerOptions {
  bool symbolize = true;  // false: module+offset only, no file is opened
  // Separate debug files, in each <dir>: <dir>/.build-id/xx/yyyy.debug by the module's
  // build-id, then the module's .gnu_debuglink name next to it, in its .debug/ and under
  // <dir>/<module's dir>.
  std::vector<std::string> debug_file_directories = vkleak::debug_file_directories();
};

// A line table's file name made absolute: builds that pass relative source paths to the
// compiler (Ninja, Meson, ccache's base_dir) record "../src/a.cpp" relative to the compilation
// directory. Lexically normalized ("/b/./c/../d" -> "/b/d"); left as it is when either is
// missing or comp_dir is not absolute.
std::string absolute_source_path(const char* file, const char* comp_dir);

class Symbolizer {
 public:
  explicit Symbolizer(std::vector<Module> modules, SymbolizerOptions options = {});
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // address is a return address: the call instruction is looked up (address - 1). Its inline
  // chain, innermost first, as `addr2line -i` prints it: every frame but the last is inlined
  // into the next, which it was called from at that frame's file:line. Never empty. The result
  // stays valid for the symbolizer's lifetime.
  const std::vector<SymbolizedFrame>& symbolize(uint64_t address);

  const ModuleMap& module_map() const { return map_; }

 private:
  struct OpenModule;
  OpenModule& open_module(int index);
  static int find_debuginfo(Dwfl_Module* module, void** userdata, const char* module_name,
                            GElf_Addr base, const char* file_name, const char* debuglink_file,
                            GElf_Word debuglink_crc, char** debuginfo_file_name);

  std::vector<Module> modules_;
  ModuleMap map_;
  SymbolizerOptions options_;
  std::vector<std::unique_ptr<OpenModule>> open_;  // by module index, opened on first use
  std::unordered_map<uint64_t, std::unique_ptr<std::vector<SymbolizedFrame>>> cache_;
};

}  // namespace vkleak
