// Hand-written hooks for the object graph: memory bindings, descriptor set layouts, writes,
// copies, update templates and push descriptors (which member is valid depends on the
// descriptor type: not mechanical), command buffer begin/reset, and the proofs of completion
// (fences, semaphores, idle waits).
#include <algorithm>
#include <new>

#include "base/passthrough.h"
#include "base/thread_box.h"
#include "graph/graph.h"
#include "graph_walkers.h"
#include "manual_hooks.h"
#include "snapshot/error_snapshot.h"
#include "tracking/command_refs.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {
namespace {

constexpr const char kDescriptor[] = "descriptor";
constexpr const char kDescriptorSampler[] = "descriptor.sampler";

uint64_t size_of(DeviceState& d, ObjectType type, uint64_t handle) {
  ObjectRecord r;
  return d.table.lookup(handle, type, &r) ? byte_size(r) : 0;
}

// The binding goes into the resource's record (its memory's directory slot and a 32-bit offset:
// no EdgeStore entry, ~56 bytes less per bound buffer). An offset past 4 GiB, or a resource or
// memory the layer does not know, goes to the EdgeStore as a "memory" edge instead.
void bind_memory(DeviceState& d, ObjectType type, uint64_t resource, uint64_t memory,
                 uint64_t offset) {
  if (!memory || passthrough()) return;  // no memory: e.g. swapchain-bound images
  uint32_t slot = 0;
  if (offset <= UINT32_MAX) {
    d.table.update(memory, ObjectType::kDeviceMemory, [&](ObjectRecord& m) {
      m.referenced = 1;  // remembered in the graveyard when freed: the snapshot names it
      if (!m.memory_slot) m.memory_slot = d.memories.add(memory, m.id);
      slot = m.memory_slot;
    });
  }
  if (slot) {
    bool had_edges = false;
    const bool live = d.table.update(resource, type, [&](ObjectRecord& r) {
      r.bound = 1;
      r.memory_slot = slot;
      r.memory_offset = static_cast<uint32_t>(offset);
      had_edges = r.has_edges;
    });
    if (live) {
      if (had_edges) d.edges.remove_slot(resource, type, "memory", 0);  // replaced
      return;
    }
  }
  add_slot_edge(d, type, resource, ObjectType::kDeviceMemory, memory, "memory", 0, offset,
                size_of(d, type, resource));
}

// Where descriptors go: (binding, element) -> a dense slot of the set's layout, following the
// spec's roll-over into the next binding when an update runs past a binding's end.
class SlotMap {
 public:
  // Marks the set as having edges: what is written next goes into its EdgeStore entry. This
  // map holds its own copy of the bindings (a copy between two sets needs two maps).
  SlotMap(DeviceState& d, uint64_t set) { load(d, set); }
  SlotMap() = default;
  SlotMap(const SlotMap&) = delete;
  SlotMap& operator=(const SlotMap&) = delete;
  // The map of `set` in this map's own storage.
  void load(DeviceState& d, uint64_t set) {
    bindings_ = &own_;
    own_.clear();
    const uint64_t layout = mark_set(d, set);
    std::lock_guard<std::mutex> lock(d.descriptors.mutex);
    auto it = d.descriptors.layouts.find(layout);
    if (it != d.descriptors.layouts.end()) own_ = it->second;
  }
  // The map of `set` in this thread's LayoutCache: valid until the thread's next
  // load_cached() (the caller uses one such map at a time).
  void load_cached(DeviceState& d, uint64_t set) {
    const uint64_t layout = mark_set(d, set);
    // Read before the copy: a layout added meanwhile leaves the entry stale, never wrong.
    const uint32_t generation = g_descriptor_layouts_generation.load(std::memory_order_acquire);
    EdgeCaches* caches = EdgeCachesBox::get();
    if (!caches) {
      bindings_ = &own_;
      own_.clear();
      copy_bindings(d, layout, &own_);
      return;
    }
    LayoutCache::Entry& c = caches->layouts.entries[LayoutCache::index(layout)];
    if (c.device != &d || c.layout != layout || c.generation != generation) {
      c.device = nullptr;  // empty until copied (the copy may throw)
      c.bindings.clear();
      copy_bindings(d, layout, &c.bindings);
      c.device = &d;
      c.layout = layout;
      c.generation = generation;
    }
    bindings_ = &c.bindings;
  }
  uint32_t slot(uint32_t binding, uint32_t element) const {
    const std::vector<DescriptorInfo::Binding>& bindings = *bindings_;
    // Bindings are sorted; most layouts number them 0, 1, 2, ...: then binding i is at i.
    auto it = binding < bindings.size() && bindings[binding].binding == binding
                  ? bindings.begin() + binding
                  : std::lower_bound(
                        bindings.begin(), bindings.end(), binding,
                        [](const DescriptorInfo::Binding& b, uint32_t v) { return b.binding < v; });
    if (it == bindings.end() || it->binding != binding) return binding * 65536u + element;
    while (it != bindings.end() && element >= it->count && it->count) {
      element -= it->count;
      ++it;
    }
    if (it == bindings.end()) return binding * 65536u + element;
    return it->first_slot + element;
  }

 private:
  // Marks the set as having edges; returns its layout (0: unknown).
  static uint64_t mark_set(DeviceState& d, uint64_t set) noexcept {
    uint64_t layout = 0;
    d.table.update(set, ObjectType::kDescriptorSet, [&](ObjectRecord& r) {
      layout = set_layout(r);
      r.has_edges = 1;
    });
    return layout;
  }
  static void copy_bindings(DeviceState& d, uint64_t layout,
                            std::vector<DescriptorInfo::Binding>* out) {
    std::lock_guard<std::mutex> lock(d.descriptors.mutex);
    auto it = d.descriptors.layouts.find(layout);
    if (it != d.descriptors.layouts.end()) *out = it->second;
  }

  std::vector<DescriptorInfo::Binding> own_;
  const std::vector<DescriptorInfo::Binding>* bindings_ = &own_;
};

// Calls f(type, handle, kind, offset, size) for each handle in descriptor i of a write.
template <typename F>
void for_each_descriptor(VkDescriptorType type, const VkDescriptorImageInfo* images,
                         const VkDescriptorBufferInfo* buffers, const VkBufferView* texels,
                         const VkAccelerationStructureKHR* structures, uint32_t i, F&& f) {
  switch (type) {
    case VK_DESCRIPTOR_TYPE_SAMPLER:
      if (images) f(ObjectType::kSampler, to_u64(images[i].sampler), kDescriptorSampler, 0, 0);
      break;
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
      if (images) {
        f(ObjectType::kSampler, to_u64(images[i].sampler), kDescriptorSampler, 0, 0);
        f(ObjectType::kImageView, to_u64(images[i].imageView), kDescriptor, 0, 0);
      }
      break;
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
    case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
      if (images) f(ObjectType::kImageView, to_u64(images[i].imageView), kDescriptor, 0, 0);
      break;
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
      if (texels) f(ObjectType::kBufferView, to_u64(texels[i]), kDescriptor, 0, 0);
      break;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
      if (buffers)
        f(ObjectType::kBuffer, to_u64(buffers[i].buffer), kDescriptor, buffers[i].offset,
          buffers[i].range);
      break;
    case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR:
      if (structures)
        f(ObjectType::kAccelerationStructureKHR, to_u64(structures[i]), kDescriptor, 0, 0);
      break;
    default:  // inline uniform blocks and mutable/unknown types hold no handles we know
      break;
  }
}

const VkAccelerationStructureKHR* write_structures(const VkWriteDescriptorSet& w) {
  for (auto* p = static_cast<const VkBaseInStructure*>(w.pNext); p; p = p->pNext)
    if (p->sType == VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR)
      return reinterpret_cast<const VkWriteDescriptorSetAccelerationStructureKHR*>(p)
          ->pAccelerationStructures;
  return nullptr;
}

// Template entries -> the handles in pData.
template <typename F>
void for_each_template_descriptor(const std::vector<DescriptorInfo::TemplateEntry>& entries,
                                  const void* data, F&& f) {
  auto* base = static_cast<const char*>(data);
  for (const auto& e : entries) {
    for (uint32_t i = 0; i < e.count; ++i) {
      const char* p = base + e.offset + i * e.stride;
      auto visit = [&](ObjectType t, uint64_t h, const char* kind, uint64_t off, uint64_t size) {
        f(e.binding, e.element + i, t, h, kind, off, size);
      };
      for_each_descriptor(e.type, reinterpret_cast<const VkDescriptorImageInfo*>(p),
                          reinterpret_cast<const VkDescriptorBufferInfo*>(p),
                          reinterpret_cast<const VkBufferView*>(p),
                          reinterpret_cast<const VkAccelerationStructureKHR*>(p), 0, visit);
    }
  }
}

std::vector<DescriptorInfo::TemplateEntry> template_entries(DeviceState& d, uint64_t tmpl) {
  std::lock_guard<std::mutex> lock(d.descriptors.mutex);
  auto it = d.descriptors.templates.find(tmpl);
  return it == d.descriptors.templates.end() ? std::vector<DescriptorInfo::TemplateEntry>{}
                                             : it->second;
}

// The descriptor writes of one vkUpdateDescriptorSets, stored a set at a time: edges gather while
// the writes go into the same set and reach the edge store in one add_packed() (one lock and lookup
// of the set's entry). A cleared descriptor (null handle) first stores what gathered, so that the
// slot's writes keep their order.
class WriteBatch {
 public:
  explicit WriteBatch(DeviceState& d) : d_(d) {}
  ~WriteBatch() = default;
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  // The slot map of `set`, which the next add()s write into.
  const SlotMap& set(uint64_t set) {
    if (loaded_ && set == set_) return slots_;
    flush();
    loaded_ = false;
    set_ = set;
    slots_.load_cached(d_, set);
    loaded_ = true;
    return slots_;
  }
  // Inline into each descriptor type's case: a call per descriptor was ~30 instructions of
  // register saves and argument moves (issue 28).
  __attribute__((always_inline)) void add(uint32_t slot, ObjectType type, uint64_t handle,
                                          const char* kind, uint64_t offset, uint64_t size) {
    if (handle == 0) {
      flush();
      d_.edges.remove_slot(set_, ObjectType::kDescriptorSet, kind, slot);
      return;
    }
    if (n_ == kMax) flush();
    // make_edge's edge, packed here rather than in the store: no Edge array written and read
    // back, and the target cache's hit inline (issue 28).
    uint64_t id = 0;
    uint32_t name = 0;
    targets_.resolve(d_, type, handle, &id, &name);  // descriptors are device objects
    Edge e = unresolved_edge(type, handle, kind, slot, true, offset, size);
    e.dst_id = id;
    e.dst_name = name;
    const KindId kind_id = kind == kDescriptor          ? kinds_.descriptor
                           : kind == kDescriptorSampler ? kinds_.sampler
                                                        : intern_kind(kind);
    edges_[n_] = EdgeStore::pack(e, kind_id);  // its name's reference is taken when stored
    n_++;
  }
  // Stores what gathered (throws std::bad_alloc, as EdgeStore::add).
  void flush() {
    if (n_ == 0) return;
    const uint32_t n = n_;
    n_ = 0;
    d_.edges.add_packed(set_, ObjectType::kDescriptorSet, edges_, n);
  }

 private:
  struct Kinds {  // interned once, not per edge
    KindId descriptor = intern_kind(kDescriptor);
    KindId sampler = intern_kind(kDescriptorSampler);
  };
  static const Kinds& kinds() noexcept {
    static const Kinds k;
    return k;
  }
  static constexpr uint32_t kMax = 32;
  DeviceState& d_;
  const Kinds& kinds_ = kinds();
  EdgeTargets targets_;
  SlotMap slots_;
  bool loaded_ = false;
  uint64_t set_ = 0;
  uint32_t n_ = 0;
  EdgeStore::PackedEdge edges_[kMax];
};

void write_descriptor(DeviceState& d, uint64_t set, uint32_t slot, ObjectType type, uint64_t handle,
                      const char* kind, uint64_t offset, uint64_t size) {
  add_slot_edge(d, ObjectType::kDescriptorSet, set, type, handle, kind, slot, offset, size,
                /*source_marked=*/true);  // by its SlotMap
}

}  // namespace

namespace manual {

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory(VkDevice device, VkBuffer buffer,
                                                VkDeviceMemory memory,
                                                VkDeviceSize memoryOffset) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.BindBufferMemory(device, buffer, memory, memoryOffset);
  check_result(result, "vkBindBufferMemory");
  if (result == VK_SUCCESS)
    bind_memory(*state, ObjectType::kBuffer, to_u64(buffer), to_u64(memory), memoryOffset);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2(
    VkDevice device, uint32_t bindInfoCount, const VkBindBufferMemoryInfo* pBindInfos) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.BindBufferMemory2(device, bindInfoCount, pBindInfos);
  check_result(result, "vkBindBufferMemory2");
  if (result == VK_SUCCESS)
    for (uint32_t i = 0; i < bindInfoCount; ++i)
      bind_memory(*state, ObjectType::kBuffer, to_u64(pBindInfos[i].buffer),
                  to_u64(pBindInfos[i].memory), pBindInfos[i].memoryOffset);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory(VkDevice device, VkImage image,
                                               VkDeviceMemory memory,
                                               VkDeviceSize memoryOffset) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.BindImageMemory(device, image, memory, memoryOffset);
  check_result(result, "vkBindImageMemory");
  if (result == VK_SUCCESS)
    bind_memory(*state, ObjectType::kImage, to_u64(image), to_u64(memory), memoryOffset);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory2(VkDevice device, uint32_t bindInfoCount,
                                                const VkBindImageMemoryInfo* pBindInfos) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.BindImageMemory2(device, bindInfoCount, pBindInfos);
  check_result(result, "vkBindImageMemory2");
  if (result == VK_SUCCESS)
    for (uint32_t i = 0; i < bindInfoCount; ++i)
      bind_memory(*state, ObjectType::kImage, to_u64(pBindInfos[i].image),
                  to_u64(pBindInfos[i].memory), pBindInfos[i].memoryOffset);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindAccelerationStructureMemoryNV(
    VkDevice device, uint32_t bindInfoCount,
    const VkBindAccelerationStructureMemoryInfoNV* pBindInfos) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result =
      state->dispatch.BindAccelerationStructureMemoryNV(device, bindInfoCount, pBindInfos);
  check_result(result, "vkBindAccelerationStructureMemoryNV");
  if (result == VK_SUCCESS)
    for (uint32_t i = 0; i < bindInfoCount; ++i)
      bind_memory(*state, ObjectType::kAccelerationStructureNV,
                  to_u64(pBindInfos[i].accelerationStructure), to_u64(pBindInfos[i].memory),
                  pBindInfos[i].memoryOffset);
  return result;
}

// Acquires are signalled by the presentation engine, not by a submission: nothing to prove.
VKAPI_ATTR VkResult VKAPI_CALL AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                   uint64_t timeout, VkSemaphore semaphore,
                                                   VkFence fence, uint32_t* pImageIndex) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  // A fence reused for an acquire no longer stands for its earlier submission.
  if (fence) state->submissions.fence_reset(to_u64(fence));
  VkResult result = state->dispatch.AcquireNextImageKHR(device, swapchain, timeout, semaphore,
                                                        fence, pImageIndex);
  check_result(result, "vkAcquireNextImageKHR");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AcquireNextImage2KHR(VkDevice device,
                                                    const VkAcquireNextImageInfoKHR* pAcquireInfo,
                                                    uint32_t* pImageIndex) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (pAcquireInfo && pAcquireInfo->fence)
    state->submissions.fence_reset(to_u64(pAcquireInfo->fence));
  VkResult result = state->dispatch.AcquireNextImage2KHR(device, pAcquireInfo, pImageIndex);
  check_result(result, "vkAcquireNextImage2KHR");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorSetLayout(
    VkDevice device, const VkDescriptorSetLayoutCreateInfo* pCreateInfo,
    const VkAllocationCallbacks* pAllocator, VkDescriptorSetLayout* pSetLayout) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result =
      state->dispatch.CreateDescriptorSetLayout(device, pCreateInfo, pAllocator, pSetLayout);
  check_result(result, "vkCreateDescriptorSetLayout");
  if (result != VK_SUCCESS) return result;
  on_create(*state, ObjectType::kDescriptorSetLayout, to_u64(*pSetLayout), Origin::kCreated,
            state->handle, ObjectType::kDevice, 0, capture_callsite());
  // Sets point at their layout from their records (set_layout()): remembered in the graveyard
  // when destroyed, so that the sets' edges still name it.
  state->table.update(to_u64(*pSetLayout), ObjectType::kDescriptorSetLayout,
                      [](ObjectRecord& r) { r.referenced = 1; });
  try {
    std::vector<DescriptorInfo::Binding> bindings;
    for (uint32_t i = 0; i < pCreateInfo->bindingCount; ++i) {
      const auto& b = pCreateInfo->pBindings[i];
      bindings.push_back({b.binding, b.descriptorCount, 0, b.descriptorType});
    }
    std::sort(bindings.begin(), bindings.end(),
              [](const auto& a, const auto& b) { return a.binding < b.binding; });
    uint32_t next = 0;
    for (auto& b : bindings) {
      b.first_slot = next;
      next += b.count;
    }
    std::lock_guard<std::mutex> lock(state->descriptors.mutex);
    state->descriptors.layouts[to_u64(*pSetLayout)] = std::move(bindings);
    // After the write: a thread that copied the old bindings under the old generation
    // copies again.
    g_descriptor_layouts_generation.fetch_add(1, std::memory_order_release);
  } catch (...) {
    state->degraded.store(true, std::memory_order_relaxed);
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorUpdateTemplate(
    VkDevice device, const VkDescriptorUpdateTemplateCreateInfo* pCreateInfo,
    const VkAllocationCallbacks* pAllocator,
    VkDescriptorUpdateTemplate* pDescriptorUpdateTemplate) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.CreateDescriptorUpdateTemplate(device, pCreateInfo, pAllocator,
                                                                   pDescriptorUpdateTemplate);
  check_result(result, "vkCreateDescriptorUpdateTemplate");
  if (result != VK_SUCCESS) return result;
  on_create(*state, ObjectType::kDescriptorUpdateTemplate, to_u64(*pDescriptorUpdateTemplate),
            Origin::kCreated, state->handle, ObjectType::kDevice, 0, capture_callsite());
  try {
    std::vector<DescriptorInfo::TemplateEntry> entries;
    for (uint32_t i = 0; i < pCreateInfo->descriptorUpdateEntryCount; ++i) {
      const auto& e = pCreateInfo->pDescriptorUpdateEntries[i];
      entries.push_back({e.dstBinding, e.dstArrayElement, e.descriptorCount, e.descriptorType,
                         e.offset, e.stride});
    }
    std::lock_guard<std::mutex> lock(state->descriptors.mutex);
    state->descriptors.templates[to_u64(*pDescriptorUpdateTemplate)] = std::move(entries);
  } catch (...) {
    state->degraded.store(true, std::memory_order_relaxed);
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSets(
    VkDevice device, uint32_t descriptorWriteCount, const VkWriteDescriptorSet* pDescriptorWrites,
    uint32_t descriptorCopyCount, const VkCopyDescriptorSet* pDescriptorCopies) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  if (!passthrough()) {
    try {
      // Consecutive writes into one set (the common case) share its layout's slot map and go
      // into its edge list at once: one lookup of the set, one of its layout and one edge-store
      // lock per run of writes, not per descriptor (issue 28).
      WriteBatch batch(*state);
      for (uint32_t w = 0; w < descriptorWriteCount; ++w) {
        const VkWriteDescriptorSet& write = pDescriptorWrites[w];
        const SlotMap& slots = batch.set(to_u64(write.dstSet));
        // Only acceleration structures come in a pNext struct: no chain walk for the others.
        const VkAccelerationStructureKHR* structures =
            write.descriptorType == VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR
                ? write_structures(write)
                : nullptr;
        for (uint32_t i = 0; i < write.descriptorCount; ++i) {
          const uint32_t slot = slots.slot(write.dstBinding, write.dstArrayElement + i);
          for_each_descriptor(
              write.descriptorType, write.pImageInfo, write.pBufferInfo, write.pTexelBufferView,
              structures, i,
              [&](ObjectType t, uint64_t h, const char* kind, uint64_t off, uint64_t size)
                  __attribute__((always_inline)) { batch.add(slot, t, h, kind, off, size); });
        }
      }
      batch.flush();
      static const KindId kDescriptorKind = intern_kind(kDescriptor);
      for (uint32_t c = 0; c < descriptorCopyCount; ++c) {
        const VkCopyDescriptorSet& copy = pDescriptorCopies[c];
        const uint64_t src = to_u64(copy.srcSet), dst = to_u64(copy.dstSet);
        SlotMap src_slots(*state, src), dst_slots(*state, dst);
        for (uint32_t i = 0; i < copy.descriptorCount; ++i) {
          const uint32_t from = src_slots.slot(copy.srcBinding, copy.srcArrayElement + i);
          const uint32_t to = dst_slots.slot(copy.dstBinding, copy.dstArrayElement + i);
          // A slot holds at most a descriptor and its sampler. Source and destination ranges
          // do not overlap (spec), so reading the source slot by slot sees it as it was.
          Edge in_slot[4];
          const size_t n = state->edges.get_slot(src, ObjectType::kDescriptorSet, kDescriptorKind,
                                                 from, in_slot, 4);
          state->edges.remove_slot(dst, ObjectType::kDescriptorSet, kDescriptor, to);
          for (size_t k = 0; k < n; ++k) {
            const Edge& e = in_slot[k];
            write_descriptor(*state, dst, to, e.dst_type, e.dst_handle, e.kind, e.offset, e.size);
          }
        }
      }
    } catch (...) {
      state->degraded.store(true, std::memory_order_relaxed);
    }
  }
  state->dispatch.UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites,
                                       descriptorCopyCount, pDescriptorCopies);
}

VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSetWithTemplate(
    VkDevice device, VkDescriptorSet descriptorSet,
    VkDescriptorUpdateTemplate descriptorUpdateTemplate, const void* pData) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  if (!passthrough() && pData) {
    try {
      const uint64_t set = to_u64(descriptorSet);
      SlotMap slots;
      slots.load_cached(*state, set);
      for_each_template_descriptor(
          template_entries(*state, to_u64(descriptorUpdateTemplate)), pData,
          [&](uint32_t binding, uint32_t element, ObjectType t, uint64_t h, const char* kind,
              uint64_t off, uint64_t size) {
            write_descriptor(*state, set, slots.slot(binding, element), t, h, kind, off, size);
          });
    } catch (...) {
      state->degraded.store(true, std::memory_order_relaxed);
    }
  }
  state->dispatch.UpdateDescriptorSetWithTemplate(device, descriptorSet, descriptorUpdateTemplate,
                                                  pData);
}

VKAPI_ATTR void VKAPI_CALL
CmdPushDescriptorSetKHR(VkCommandBuffer commandBuffer, VkPipelineBindPoint pipelineBindPoint,
                        VkPipelineLayout layout, uint32_t set, uint32_t descriptorWriteCount,
                        const VkWriteDescriptorSet* pDescriptorWrites) noexcept {
  DeviceState* state = get_device_state(commandBuffer);
  if (!state) return;
  if (CommandRefs* refs = command_refs(*state, commandBuffer)) {
    // Pushed descriptors live in the command buffer: their handles are its references.
    for (uint32_t w = 0; w < descriptorWriteCount; ++w) {
      const VkWriteDescriptorSet& write = pDescriptorWrites[w];
      const VkAccelerationStructureKHR* structures = write_structures(write);
      for (uint32_t i = 0; i < write.descriptorCount; ++i)
        for_each_descriptor(write.descriptorType, write.pImageInfo, write.pBufferInfo,
                            write.pTexelBufferView, structures, i,
                            [&](ObjectType t, uint64_t h, const char*, uint64_t, uint64_t) {
                              add_ref(refs, t, h);
                            });
    }
  }
  state->dispatch.CmdPushDescriptorSetKHR(commandBuffer, pipelineBindPoint, layout, set,
                                          descriptorWriteCount, pDescriptorWrites);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplateKHR(
    VkCommandBuffer commandBuffer, VkDescriptorUpdateTemplate descriptorUpdateTemplate,
    VkPipelineLayout layout, uint32_t set, const void* pData) noexcept {
  DeviceState* state = get_device_state(commandBuffer);
  if (!state) return;
  if (CommandRefs* refs = command_refs(*state, commandBuffer); refs && pData) {
    try {
      for_each_template_descriptor(template_entries(*state, to_u64(descriptorUpdateTemplate)),
                                   pData,
                                   [&](uint32_t, uint32_t, ObjectType t, uint64_t h, const char*,
                                       uint64_t, uint64_t) { add_ref(refs, t, h); });
    } catch (...) {
    }
  }
  state->dispatch.CmdPushDescriptorSetWithTemplateKHR(commandBuffer, descriptorUpdateTemplate,
                                                      layout, set, pData);
}

VKAPI_ATTR VkResult VKAPI_CALL BeginCommandBuffer(
    VkCommandBuffer commandBuffer, const VkCommandBufferBeginInfo* pBeginInfo) noexcept {
  DeviceState* state = get_device_state(commandBuffer);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (CommandRefs* refs = command_refs(*state, commandBuffer)) {
    // Begin implicitly resets: a pending command buffer must not be re-recorded.
    ObjectRecord r;
    if (state->table.lookup(to_u64(commandBuffer), ObjectType::kCommandBuffer, &r))
      check_in_flight(*state, r, "re-recorded");
    refs->clear();
    // Inheritance is read only where it is valid: a secondary continuing a render pass.
    if (refs->secondary() && pBeginInfo && pBeginInfo->pInheritanceInfo &&
        (pBeginInfo->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT)) {
      add_ref(refs, ObjectType::kRenderPass, to_u64(pBeginInfo->pInheritanceInfo->renderPass));
      add_ref(refs, ObjectType::kFramebuffer, to_u64(pBeginInfo->pInheritanceInfo->framebuffer));
    }
  }
  VkResult result = state->dispatch.BeginCommandBuffer(commandBuffer, pBeginInfo);
  check_result(result, "vkBeginCommandBuffer");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandBuffer(VkCommandBuffer commandBuffer,
                                                  VkCommandBufferResetFlags flags) noexcept {
  DeviceState* state = get_device_state(commandBuffer);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (CommandRefs* refs = command_refs(*state, commandBuffer)) {
    ObjectRecord r;
    if (state->table.lookup(to_u64(commandBuffer), ObjectType::kCommandBuffer, &r))
      check_in_flight(*state, r, "reset");
    refs->clear();
  }
  VkResult result = state->dispatch.ResetCommandBuffer(commandBuffer, flags);
  check_result(result, "vkResetCommandBuffer");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL ResetCommandPool(VkDevice device, VkCommandPool commandPool,
                                                VkCommandPoolResetFlags flags) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (!passthrough()) {
    try {
      // A pool reset frees nothing, but resets (and so forgets the references of) every
      // command buffer of the pool.
      for (uint64_t cb : state->children.children_of(to_u64(commandPool))) {
        ObjectRecord r;
        if (state->table.lookup(cb, ObjectType::kCommandBuffer, &r))
          check_in_flight(*state, r, "reset with its pool");
        if (CommandRefs* refs = state->command_refs.find(cb)) refs->clear();
      }
    } catch (...) {
      state->degraded.store(true, std::memory_order_relaxed);
    }
  }
  VkResult result = state->dispatch.ResetCommandPool(device, commandPool, flags);
  check_result(result, "vkResetCommandPool");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device,
                                               const VkSemaphoreCreateInfo* pCreateInfo,
                                               const VkAllocationCallbacks* pAllocator,
                                               VkSemaphore* pSemaphore) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.CreateSemaphore(device, pCreateInfo, pAllocator, pSemaphore);
  check_result(result, "vkCreateSemaphore");
  if (result != VK_SUCCESS) return result;
  on_create(*state, ObjectType::kSemaphore, to_u64(*pSemaphore), Origin::kCreated, state->handle,
            ObjectType::kDevice, 0, capture_callsite());
  bool timeline = false;
  for (auto* p = static_cast<const VkBaseInStructure*>(pCreateInfo->pNext); p; p = p->pNext)
    if (p->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO)
      timeline = reinterpret_cast<const VkSemaphoreTypeCreateInfo*>(p)->semaphoreType ==
                 VK_SEMAPHORE_TYPE_TIMELINE;
  state->submissions.set_timeline(to_u64(*pSemaphore), timeline);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t fenceCount,
                                             const VkFence* pFences, VkBool32 waitAll,
                                             uint64_t timeout) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.WaitForFences(device, fenceCount, pFences, waitAll, timeout);
  check_result(result, "vkWaitForFences");
  // With waitAll false, success says only that one of them signalled: which one is unknown
  // unless there is just one.
  if (result == VK_SUCCESS && (waitAll || fenceCount == 1))
    for (uint32_t i = 0; i < fenceCount; ++i) state->submissions.fence_signaled(to_u64(pFences[i]));
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.GetFenceStatus(device, fence);
  check_result(result, "vkGetFenceStatus");
  if (result == VK_SUCCESS) state->submissions.fence_signaled(to_u64(fence));
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL ResetFences(VkDevice device, uint32_t fenceCount,
                                           const VkFence* pFences) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  for (uint32_t i = 0; i < fenceCount; ++i) state->submissions.fence_reset(to_u64(pFences[i]));
  VkResult result = state->dispatch.ResetFences(device, fenceCount, pFences);
  check_result(result, "vkResetFences");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueueWaitIdle(queue);
  check_result(result, "vkQueueWaitIdle");
  if (result == VK_SUCCESS)
    if (QueueState* q = state->submissions.queue(queue)) state->submissions.queue_idle(*q);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.DeviceWaitIdle(device);
  check_result(result, "vkDeviceWaitIdle");
  if (result == VK_SUCCESS) state->submissions.device_idle();
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* pWaitInfo,
                                              uint64_t timeout) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.WaitSemaphores(device, pWaitInfo, timeout);
  check_result(result, "vkWaitSemaphores");
  if (result == VK_SUCCESS && pWaitInfo &&
      (!(pWaitInfo->flags & VK_SEMAPHORE_WAIT_ANY_BIT) || pWaitInfo->semaphoreCount == 1))
    for (uint32_t i = 0; i < pWaitInfo->semaphoreCount; ++i)
      state->submissions.timeline_reached(to_u64(pWaitInfo->pSemaphores[i]), pWaitInfo->pValues[i]);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore,
                                                        uint64_t* pValue) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.GetSemaphoreCounterValue(device, semaphore, pValue);
  check_result(result, "vkGetSemaphoreCounterValue");
  if (result == VK_SUCCESS && pValue)
    state->submissions.timeline_reached(to_u64(semaphore), *pValue);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL SignalSemaphore(VkDevice device,
                                               const VkSemaphoreSignalInfo* pSignalInfo) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  // A host signal sets the value; it proves no submission complete (a submission signalling a
  // lower value must already have been waited for, which its own proof covers).
  VkResult result = state->dispatch.SignalSemaphore(device, pSignalInfo);
  check_result(result, "vkSignalSemaphore");
  return result;
}

}  // namespace manual
}  // namespace vkleak
