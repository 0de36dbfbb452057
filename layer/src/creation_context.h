// Creation contexts: where and when objects were made (call site, frame, time), shared by the
// objects made together.
//
// A record keeps one 32-bit ContextId instead of its call site, frame and creation time (12
// bytes). Creation times are read from the coarse clock (recent_ms: refreshed at frame
// boundaries and every 250 ms), so the objects one thread makes from one call site within a
// frame share a context. The 8 bytes saved hold a resource's memory binding in its 48-byte
// record, where an EdgeStore entry cost ~56 bytes more per bound buffer.
//
// Contexts are never freed: their number is bounded by threads x call sites x clock refreshes
// at which those threads created something. Ids are not unique per triple across threads
// (each thread caches its own), which costs a few duplicates and no lock on the hot path.
#pragma once

#include <cstdint>

namespace vkleak {

struct CreationContext {
  uint32_t callsite = 0;  // CallsiteId, 0 = none
  uint32_t frame = 0;     // owner's frame at creation
  uint32_t time_ms = 0;   // creation time since the layer was loaded
};

using ContextId = uint32_t;  // 0 = none (out of memory): reads as all zeros

// The context of this triple: this thread's cached one, or a new one.
ContextId intern_context(uint32_t callsite, uint32_t frame, uint32_t time_ms) noexcept;

// The triple of an id intern_context returned. The caller must have received the id through
// something that synchronizes with its creation (the table lock of the record holding it).
CreationContext context_of(ContextId id) noexcept;

// Contexts made so far (tests and budgets).
uint64_t context_count() noexcept;

}  // namespace vkleak
