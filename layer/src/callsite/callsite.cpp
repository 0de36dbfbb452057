#include "callsite/callsite.h"

#include "base/cache_aligned.h"
#include "base/passthrough.h"
#include "base/thread_box.h"
#include "callsite/stack_memo.h"

#include "shared/elf_note.h"        // the note walker the CLI tests use too
#include "shared/setting_ranges.h"  // the range the CLI checks too
#include "shared/vulkan_stack.h"    // the list the CLI uses too

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>
#include <unwind.h>
#define UNW_LOCAL_ONLY  // this process only: the fast local unwinder
#include <libunwind.h>

#include <cxxabi.h>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace vkleak {

// Read inline by every creating hook (tracker.h): 0 turns capture off.
std::atomic<uint32_t> g_callstack_depth{kDefaultCallstackDepth};
std::atomic<bool> g_destroy_callstacks{true};

namespace {

constexpr uint32_t kMaxDepth = kMaxCallstackDepth;
constexpr uint32_t kMaxSkipped = 16;  // layer-internal frames before the first kept one
// How many of the layer's own frames a capture usually finds above the app's (learned).
std::atomic<uint32_t> g_layer_frames{3};

// Address range of this layer's own text, to drop its frames.
struct SelfRange {
  uintptr_t begin = 0, end = 0;
};
SelfRange compute_self_range() {
  SelfRange r;
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&compute_self_range), &info) || !info.dli_fbase) return r;
  struct Ctx {
    void* base;
    SelfRange* out;
  } ctx{info.dli_fbase, &r};
  dl_iterate_phdr(
      [](dl_phdr_info* pi, size_t, void* data) -> int {
        auto* c = static_cast<Ctx*>(data);
        uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (int i = 0; i < pi->dlpi_phnum; ++i) {
          const auto& ph = pi->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          lo = std::min<uintptr_t>(lo, pi->dlpi_addr + ph.p_vaddr);
          hi = std::max<uintptr_t>(hi, pi->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        if (lo <= reinterpret_cast<uintptr_t>(c->base) &&
            reinterpret_cast<uintptr_t>(c->base) < hi) {
          c->out->begin = lo;
          c->out->end = hi;
          return 1;
        }
        return 0;
      },
      &ctx);
  return r;
}
const SelfRange& self_range() {
  static const SelfRange r = compute_self_range();
  return r;
}
bool in_self(uintptr_t a) {
  const SelfRange& self = self_range();
  return a >= self.begin && a < self.end;
}

// Address ranges of the Vulkan stack's modules (src/shared/vulkan_stack.h): the loader, other
// layers, drivers, libraries translating another API to Vulkan, and the user's
// vulkan_stack_modules. Loader and layer frames above the caller's are dropped like the layer's
// own; the other frames are kept but do not count toward callstack_depth, so that a call site
// reaches the program's own code. Classified once per module when the list is made; published
// as an immutable list sorted by address; an old list is never freed (hooks may be reading it).
struct StackModules {
  static constexpr int kMax = 64;
  uintptr_t begin[kMax], end[kMax];
  bool plumbing[kMax];  // the loader or a layer
  int count = 0;
  unsigned long long loads = 0;  // dl_iterate_phdr's count of loads when made
};
std::atomic<const StackModules*> g_stack{nullptr};
std::mutex g_stack_mutex;      // makes lists one at a time
std::string g_stack_patterns;  // the user's, comma-separated (under g_stack_mutex)

const StackModules* stack_modules() {
  const StackModules* f = g_stack.load(std::memory_order_acquire);
  if (f) return f;
  refresh_foreign_modules(nullptr);
  return g_stack.load(std::memory_order_acquire);
}

// Index of the stack module holding a, or -1.
int find_stack_module(const StackModules* f, uintptr_t a) {
  if (!f) return -1;
  int lo = 0, hi = f->count;  // binary search: the depth-1 path asks this per creation
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (f->begin[mid] <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && a < f->end[lo - 1] ? lo - 1 : -1;
}

// Loader or layer: dropped when above the caller's frames.
bool in_foreign(uintptr_t a) {
  const StackModules* f = stack_modules();
  const int i = find_stack_module(f, a);
  return i >= 0 && f->plumbing[i];
}
bool in_stack(const StackModules* f, uintptr_t a) {
  return find_stack_module(f, a) >= 0;
}

unsigned long long loaded_count() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* pi, size_t size, void* data) -> int {
        if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof(pi->dlpi_adds))
          *static_cast<unsigned long long*>(data) = pi->dlpi_adds;
        return 1;
      },
      &adds);
  return adds;
}

// Return addresses, innermost first, and the stack address each was read from (`slots[i]`,
// 0 for the innermost frame, which was not returned to): libunwind's cursor (~0.6 us a frame:
// only to learn frame sizes, see FrameSizes) in normal builds; libgcc's unwinder under
// ThreadSanitizer, whose runtime libunwind cannot walk.
int walk_stack(uintptr_t* ips, uintptr_t* slots, int max) {
#if defined(__SANITIZE_THREAD__)
  struct State {
    uintptr_t *ips, *slots;
    uintptr_t prev_cfa;
    int n, max;
  } st{ips, slots, 0, 0, max};
  _Unwind_Backtrace(
      [](_Unwind_Context* ctx, void* arg) -> _Unwind_Reason_Code {
        auto* s = static_cast<State*>(arg);
        const uintptr_t ip = _Unwind_GetIP(ctx);
        if (ip == 0) return _URC_END_OF_STACK;
        // A frame's return address lies just below its callee's canonical frame address.
        s->slots[s->n] = s->prev_cfa ? s->prev_cfa - sizeof(uintptr_t) : 0;
        s->ips[s->n++] = ip;
        s->prev_cfa = _Unwind_GetCFA(ctx);
        return s->n >= s->max ? _URC_END_OF_STACK : _URC_NO_REASON;
      },
      &st);
  return st.n;
#else
  static const bool cache_set = [] {
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    return true;
  }();
  (void)cache_set;
  unw_context_t uc;
  unw_cursor_t cursor;
  if (unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0) return 0;
  int n = 0;
  do {
    unw_word_t ip = 0, sp = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
    if (unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0) break;
    // After a step, the stack pointer is the callee's canonical frame address: the return
    // address into this frame lies just below it.
    slots[n] = n == 0 ? 0 : static_cast<uintptr_t>(sp) - sizeof(uintptr_t);
    ips[n++] = static_cast<uintptr_t>(ip);
  } while (n < max && unw_step(&cursor) > 0);
  return n;
#endif
}

// Return addresses only, innermost first: the fast walk (libunwind's trace cache; libgcc's
// unwinder under ThreadSanitizer).
int backtrace_ips(uintptr_t* out, int max) {
#if defined(__SANITIZE_THREAD__)
  uintptr_t slots[kMaxDepth + kMaxSkipped];
  return walk_stack(out, slots, std::min(max, static_cast<int>(kMaxDepth + kMaxSkipped)));
#else
  static const bool cache_set = [] {
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    return true;
  }();
  (void)cache_set;
  return unw_backtrace(reinterpret_cast<void**>(out), max);
#endif
}

// Whether every return address still lies where the walk says it was read from (a walk through
// a signal frame, say, would not: such a walk is not memoized).
__attribute__((no_sanitize_address)) bool slots_hold(const uintptr_t* slots, const uintptr_t* ips,
                                                     int count) {
  for (int i = 0; i < count; ++i)
    if (slots[i] == 0 || *reinterpret_cast<const volatile uintptr_t*>(slots[i]) != ips[i])
      return false;
  return true;
}

uint64_t hash_frames(const uintptr_t* f, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ull ^ n;
  for (uint32_t i = 0; i < n; ++i) {
    h ^= f[i];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h ? h : 1;
}

// Interning: shards keyed by the frames' hash; the id -> frames list is append-only under its
// own mutex, touched only when a new call site appears or a snapshot copies the table.
constexpr uint32_t kInternShards = 32;
struct alignas(64) InternShard {
  std::mutex mutex;
  std::unordered_map<uint64_t, uint32_t> ids;  // hash -> id
};
struct CallsiteTable {
  InternShard shards[kInternShards];
  std::mutex list_mutex;
  std::vector<std::vector<uintptr_t>> frames{std::vector<uintptr_t>{}};  // id 0 unused
};
CallsiteTable& table() {
  static CallsiteTable* t = new CallsiteTable;  // never destroyed: used until the last hook
  return *t;
}

// A small per-thread cache in front of the shards: most creations repeat a recent call site.
struct ThreadCache {
  static constexpr uint32_t kSize = 64;
  uint64_t hash[kSize] = {};
  uint32_t id[kSize] = {};
};
using ThreadCacheBox = ThreadBox<ThreadCache>;  // 768 bytes: on the heap (thread_box.h)

// The stack-walk memo and frame sizes (stack_memo.h), allocated on a thread's first capture.
// The pointer is initial-exec TLS (read on every capture); the owner frees it when the thread
// exits.
struct alignas(kCacheLine) ThreadWalks {  // lines of its own: written on misses
  StackMemo memo;
  FrameSizes sizes;
  // This thread's stack: only addresses inside it are ever read (a frame size learned from a
  // frame of variable size could otherwise point past its end). Empty when unknown, and code
  // running on another stack (coroutines, signal stacks) is simply not memoized.
  uintptr_t stack_lo = 0, stack_hi = 0;
  bool on_stack(uintptr_t a) const noexcept {
    return a >= stack_lo && a + sizeof(uintptr_t) <= stack_hi;
  }
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadWalks* t_walks = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local bool t_walks_gone = false;
struct WalksOwner {
  ThreadWalks* walks = nullptr;
  ~WalksOwner() {
    t_walks = nullptr;
    t_walks_gone = true;  // a hook called later in this thread's exit walks without a memo
    delete walks;
  }
};
thread_local WalksOwner t_walks_owner;
ThreadWalks* thread_walks() noexcept {
  if (ThreadWalks* w = t_walks) return w;
  if (t_walks_gone) return nullptr;
  auto* w = new (std::nothrow) ThreadWalks;
  if (!w) return nullptr;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      w->stack_lo = reinterpret_cast<uintptr_t>(addr);
      w->stack_hi = w->stack_lo + size;
    }
    pthread_attr_destroy(&attr);
  }
  t_walks_owner.walks = w;
  t_walks = w;
  return w;
}

}  // namespace

namespace {

bool matches_user_pattern(const std::string& patterns, const char* path) {
  size_t b = 0;
  while (b < patterns.size()) {
    size_t e = patterns.find(',', b);
    if (e == std::string::npos) e = patterns.size();
    std::string_view p(patterns.data() + b, e - b);
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
    if (!p.empty() && stack_module_matches(p, path)) return true;
    b = e + 1;
  }
  return false;
}

// Whether the module exports a loader entry point of its own: a layer (plumbing) or a driver.
// Found through dlopen(RTLD_NOLOAD), which loads nothing; the symbol must be the module's own,
// not one of its dependencies'.
void classify_by_exports(const char* path, uintptr_t lo, uintptr_t hi, bool* stack,
                         bool* plumbing) {
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return;
  auto own = [&](const char* name) {
    const auto a = reinterpret_cast<uintptr_t>(dlsym(handle, name));
    return a >= lo && a < hi;
  };
  if (own("vkNegotiateLoaderLayerInterfaceVersion"))
    *stack = *plumbing = true;
  else if (own("vk_icdNegotiateLoaderICDInterfaceVersion") || own("vk_icdGetInstanceProcAddr"))
    *stack = true;
  dlclose(handle);
}

struct LoadedModule {
  std::string path;
  uintptr_t lo, hi;
};

void make_stack_list() {
  std::vector<LoadedModule> mods;
  const unsigned long long loads = loaded_count();
  dl_iterate_phdr(
      [](dl_phdr_info* pi, size_t, void* data) -> int {
        // The main program (no name) is never part of the stack.
        if (!pi->dlpi_name || !*pi->dlpi_name) return 0;
        uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (int i = 0; i < pi->dlpi_phnum; ++i) {
          const auto& ph = pi->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          lo = std::min<uintptr_t>(lo, pi->dlpi_addr + ph.p_vaddr);
          hi = std::max<uintptr_t>(hi, pi->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        if (lo < hi && !in_self(lo))
          static_cast<std::vector<LoadedModule>*>(data)->push_back({pi->dlpi_name, lo, hi});
        return 0;
      },
      &mods);
  auto* f = new StackModules;
  f->loads = loads;
  std::sort(mods.begin(), mods.end(),
            [](const LoadedModule& a, const LoadedModule& b) { return a.lo < b.lo; });
  for (const LoadedModule& m : mods) {
    if (f->count == StackModules::kMax) break;
    bool plumbing = is_vulkan_loader_or_layer_module(m.path);
    bool stack = plumbing || is_builtin_vulkan_stack_module(m.path) ||
                 matches_user_pattern(g_stack_patterns, m.path.c_str());
    if (!plumbing) classify_by_exports(m.path.c_str(), m.lo, m.hi, &stack, &plumbing);
    if (!stack) continue;
    f->begin[f->count] = m.lo;
    f->end[f->count] = m.hi;
    f->plumbing[f->count] = plumbing;
    f->count++;
  }
  const StackModules* old = g_stack.load(std::memory_order_acquire);
  if (old && old->count == f->count && std::equal(f->begin, f->begin + f->count, old->begin) &&
      std::equal(f->end, f->end + f->count, old->end) &&
      std::equal(f->plumbing, f->plumbing + f->count, old->plumbing) && old->loads == f->loads) {
    delete f;  // unchanged (the usual case: another instance with the same layers)
    return;
  }
  g_stack.store(f, std::memory_order_release);  // the previous list stays allocated
}

// A module loaded since the list was made may belong to the stack: checked when a chain is
// walked (rare: once per new chain), never on a memoized one.
void refresh_if_loaded(const StackModules* f) noexcept {
  if (f && loaded_count() == f->loads) return;
  try {
    std::lock_guard<std::mutex> lock(g_stack_mutex);
    const StackModules* now = g_stack.load(std::memory_order_acquire);
    if (now && now != f && loaded_count() == now->loads) return;
    make_stack_list();
  } catch (...) {
  }
}

}  // namespace

void refresh_foreign_modules(const char* user_patterns) noexcept {
  try {
    std::lock_guard<std::mutex> lock(g_stack_mutex);
    if (user_patterns) g_stack_patterns = user_patterns;
    make_stack_list();
  } catch (...) {
  }
}

void set_callstack_depth(uint32_t depth) noexcept {
  g_callstack_depth.store(depth > kMaxDepth ? kMaxDepth : depth, std::memory_order_relaxed);
}
uint32_t callstack_depth() noexcept {
  return g_callstack_depth.load(std::memory_order_relaxed);
}

namespace {

uint32_t intern_frames(const uintptr_t* frames, uint32_t count) noexcept {
  const uint64_t h = hash_frames(frames, count);
  ThreadCache* cache = ThreadCacheBox::get();
  const uint32_t slot = static_cast<uint32_t>(h) % ThreadCache::kSize;
  if (cache && cache->hash[slot] == h) return cache->id[slot];
  try {
    CallsiteTable& t = table();
    InternShard& shard = t.shards[h % kInternShards];
    uint32_t id;
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      auto it = shard.ids.find(h);
      if (it != shard.ids.end()) {
        id = it->second;
      } else {
        std::lock_guard<std::mutex> list_lock(t.list_mutex);
        id = static_cast<uint32_t>(t.frames.size());
        t.frames.emplace_back(frames, frames + count);
        shard.ids.emplace(h, id);
      }
    }
    if (cache) {
      cache->hash[slot] = h;
      cache->id[slot] = id;
    }
    return id;
  } catch (...) {
    return 0;
  }
}

// Frames above the caller's: the layer's own, the loader's (trampolines that are not tail calls)
// and other layers' (above this one).
int skipped_frames(const uintptr_t* ips, int n) {
  int first = 0;
  while (first < n && (in_self(ips[first]) || in_foreign(ips[first]))) ++first;
  return first;
}

// The end of the call site that starts at ips[first]: `depth` frames outside the Vulkan stack,
// with the stack's frames among them, at most kMaxDepth in all. *counted: how many it found.
int callsite_end(const StackModules* f, const uintptr_t* ips, int first, int n, uint32_t depth,
                 uint32_t* counted) {
  uint32_t c = 0;
  int i = first;
  while (i < n && i - first < static_cast<int>(kMaxDepth) && c < depth) {
    if (!in_stack(f, ips[i])) ++c;
    ++i;
  }
  *counted = c;
  return i;
}

// Where ips[key..end) lie on the stack, given that ips[key] lies at key_slot: from the frame
// sizes learned so far, learning them with one slow walk when some are missing. False when
// they cannot be found (a frame the slow walk cannot place, such as a signal frame).
bool find_slots(const uintptr_t* ips, int key, int end, uintptr_t key_slot, ThreadWalks& walks,
                uintptr_t* slots) {
  FrameSizes& sizes = walks.sizes;
  if (!walks.on_stack(key_slot)) return false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    slots[key] = key_slot;
    int i = key;
    for (; i + 1 < end; ++i) {
      const int32_t size = sizes.find(ips[i]);
      if (size == FrameSizes::kUnknown) break;
      if (size <= 0) return false;  // learned as not placeable
      slots[i + 1] = slots[i] + static_cast<uintptr_t>(size);
      if (!walks.on_stack(slots[i + 1])) return false;  // never read past the stack
    }
    if (i + 1 >= end) return true;
    if (attempt == 1) return false;
    // Learn from a walk that reports stack addresses (slow: once per new return address).
    uintptr_t wips[kMaxDepth + kMaxSkipped], wslots[kMaxDepth + kMaxSkipped];
    const int n = walk_stack(wips, wslots, static_cast<int>(kMaxDepth + kMaxSkipped));
    for (int k = 1; k + 1 < n; ++k) {
      const intptr_t d = static_cast<intptr_t>(wslots[k + 1] - wslots[k]);
      sizes.set(wips[k], d > 0 && d < (1 << 30) ? static_cast<int32_t>(d) : 0);
    }
    if (sizes.find(ips[i]) == FrameSizes::kUnknown) sizes.set(ips[i], 0);  // walk never got there
  }
  return false;
}

// Walks the stack for the app's innermost `depth` frames outside the Vulkan stack, interns
// them, and memoizes the walk under the hook's return-address slot.
uint32_t walk_and_intern(uintptr_t key_slot, uintptr_t key_ret, uint32_t depth,
                         ThreadWalks* walks) noexcept {
  const StackModules* stack = stack_modules();
  refresh_if_loaded(stack);
  stack = g_stack.load(std::memory_order_acquire);
  // Every frame walked costs (~8 ns with libunwind's trace cache), so walk only the layer's own
  // frames (usually 3: the hook and two of ours) plus `depth`; walk again, as far as allowed, on
  // the rarer path with more of ours or with frames of the Vulkan stack (GL on zink, a layer).
  uintptr_t ips[kMaxDepth + kMaxSkipped];
  int max = static_cast<int>(depth + g_layer_frames.load(std::memory_order_relaxed));
  int n = backtrace_ips(ips, max);
  int first = skipped_frames(ips, n);
  uint32_t counted = 0;
  int end = callsite_end(stack, ips, first, n, depth, &counted);
  if (n == max && counted < depth && end - first < static_cast<int>(kMaxDepth)) {
    max = static_cast<int>(kMaxDepth + kMaxSkipped);
    n = backtrace_ips(ips, max);
    first = skipped_frames(ips, n);
    end = callsite_end(stack, ips, first, n, depth, &counted);
    if (first < static_cast<int>(kMaxSkipped)) {
      // Remember the longest path of ours seen, so that it is walked in one go next time.
      uint32_t seen = g_layer_frames.load(std::memory_order_relaxed);
      while (seen < static_cast<uint32_t>(first) &&
             !g_layer_frames.compare_exchange_weak(seen, static_cast<uint32_t>(first),
                                                   std::memory_order_relaxed)) {
      }
    }
  }
  const int count = end - first;
  if (count <= 0) return 0;
  const uint32_t id = intern_frames(ips + first, static_cast<uint32_t>(count));
  if (id == 0 || walks == nullptr) return id;
  // Memoize from the frame the hook returns to up to the outermost frame kept.
  int key = first;
  while (key >= 0 && ips[key] != key_ret) --key;
  uintptr_t slots[kMaxDepth + kMaxSkipped];
  if (key >= 0 && find_slots(ips, key, end, key_slot, *walks, slots) &&
      slots_hold(slots + key, ips + key, end - key))
    walks->memo.store(key_slot, key_ret, depth, slots + key, ips + key,
                      static_cast<uint32_t>(end - key), id);
  return id;
}

}  // namespace

uint32_t capture_and_intern(uintptr_t hook_return_address, uintptr_t hook_cfa) noexcept {
  const uint32_t depth = g_callstack_depth.load(std::memory_order_relaxed);
  if (depth == 0 || passthrough()) return 0;
  if (depth == 1 && !in_self(hook_return_address) &&
      !in_stack(stack_modules(), hook_return_address)) {
    // The hook returns straight into the app: that is the one frame asked for.
    return intern_frames(&hook_return_address, 1);
  }
  // The hook's return address lies just below its canonical frame address.
  const uintptr_t key_slot = hook_cfa - sizeof(uintptr_t);
  ThreadWalks* walks = thread_walks();
  if (walks) {
    if (const uint32_t id = walks->memo.find(key_slot, hook_return_address, depth)) return id;
  }
  return walk_and_intern(key_slot, hook_return_address, depth, walks);
}

CallsiteId capture_stack_here() noexcept {
  const uint32_t depth = g_callstack_depth.load(std::memory_order_relaxed);
  if (depth == 0 || passthrough()) return 0;
  return walk_and_intern(0, 0, depth, nullptr);
}

std::string describe_callsite(CallsiteId id) {
  if (id == kNoCallsite) return {};
  std::vector<uintptr_t> frames;
  {
    CallsiteTable& t = table();
    std::lock_guard<std::mutex> lock(t.list_mutex);
    if (id >= t.frames.size()) return {};
    frames = t.frames[id];
  }
  if (frames.empty()) return {};
  const StackModules* stack = stack_modules();
  uintptr_t pc = frames.front();
  for (uintptr_t f : frames) {
    if (!in_stack(stack, f)) {
      pc = f;
      break;
    }
  }
  Dl_info info{};
  // A return address: the call is the byte before it.
  if (dladdr(reinterpret_cast<void*>(pc - 1), &info) == 0 || info.dli_fname == nullptr) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(pc));
    return hex;
  }
  std::string module = info.dli_fname;
  if (const size_t slash = module.rfind('/'); slash != std::string::npos)
    module.erase(0, slash + 1);
  char where[64];
  std::snprintf(where, sizeof where, "+0x%llx",
                static_cast<unsigned long long>(pc - reinterpret_cast<uintptr_t>(info.dli_fbase)));
  std::string place = module + where;
  if (info.dli_sname == nullptr) return place;
  int status = -1;
  char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
  std::string function = status == 0 && demangled ? demangled : info.dli_sname;
  std::free(demangled);
  return function + " (" + place + ")";
}

void copy_callsites(std::vector<std::vector<uintptr_t>>* out) {
  CallsiteTable& t = table();
  std::lock_guard<std::mutex> lock(t.list_mutex);
  *out = t.frames;
}

std::vector<ModuleInfo> loaded_modules() {
  std::vector<ModuleInfo> mods;
  dl_iterate_phdr(
      [](dl_phdr_info* pi, size_t, void* data) -> int {
        auto* out = static_cast<std::vector<ModuleInfo>*>(data);
        ModuleInfo m;
        m.bias = pi->dlpi_addr;
        uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (int i = 0; i < pi->dlpi_phnum; ++i) {
          const auto& ph = pi->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD) {
            lo = std::min<uintptr_t>(lo, pi->dlpi_addr + ph.p_vaddr);
            hi = std::max<uintptr_t>(hi, pi->dlpi_addr + ph.p_vaddr + ph.p_memsz);
          }
        }
        if (const elf::BuildId id = elf::loaded_build_id(*pi); id.size != 0) {
          m.build_id.resize(2 * id.size);
          elf::write_hex(id.bytes, id.size, m.build_id.data());
        }
        if (lo == UINTPTR_MAX) return 0;
        m.start = lo;
        m.size = hi - lo;
        if (pi->dlpi_name && *pi->dlpi_name) {
          m.path = pi->dlpi_name;
        } else if (out->empty()) {
          char buf[4096];
          ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
          if (n > 0) m.path.assign(buf, static_cast<size_t>(n));
        }
        if (m.path.empty()) return 0;  // vdso and friends
        out->push_back(std::move(m));
        return 0;
      },
      &mods);
  return mods;
}

}  // namespace vkleak
