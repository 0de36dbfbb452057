#include "tracking/submissions.h"

#include <algorithm>
#include <functional>

#include "base/thread_box.h"
#include "tracking/command_refs.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {
namespace {

// Which edges carry "in use": a submission using the source uses the target too. Pipelines do
// not pin their shader modules or layouts, nor sets their layouts (all legal to destroy while
// pending).
bool carries_use(ObjectType src, KindId kind) noexcept {
  static const KindId descriptor = intern_kind("descriptor"), image = intern_kind("image"),
                      buffer = intern_kind("buffer"), attachments = intern_kind("pAttachments"),
                      memory = intern_kind("memory");
  switch (src) {
    case ObjectType::kDescriptorSet:
      return kind_under(kind, descriptor);  // and descriptor.sampler
    case ObjectType::kImageView:
    case ObjectType::kBufferView:
      return kind == image || kind == buffer;
    case ObjectType::kFramebuffer:
      return kind == attachments;
    case ObjectType::kBuffer:
    case ObjectType::kImage:
    case ObjectType::kAccelerationStructureNV:
      return kind_under(kind, memory);  // and memory.sparse
    case ObjectType::kAccelerationStructureKHR:
      return kind == buffer;
    default:
      return false;
  }
}

constexpr int kMaxDepth = 4;  // set -> view -> image -> memory

}  // namespace

bool stamp_use(DeviceState& device, ObjectType type, uint64_t handle, uint64_t id, uint8_t queue,
               uint64_t serial, uint32_t frame, int depth) noexcept {
  bool fresh = false, has_edges = false;
  uint32_t memory_slot = 0;
  uint64_t inline_target = 0, inline_id = 0;
  bool live = device.table.update(handle, type, [&](ObjectRecord& r) {
    if (id && r.id != id) return;  // the handle now names another object
    fresh = !(r.use_queue == queue && r.use_serial == static_cast<uint32_t>(serial));
    r.use_queue = queue;
    r.use_serial = static_cast<uint32_t>(serial);
    r.use_frame = frame;
    has_edges = r.has_edges;
    if (r.bound) memory_slot = r.memory_slot;
    inline_target = inline_edge_target(r);
    inline_id = inline_edge_id(r);
  });
  if (!live || !fresh || depth >= kMaxDepth) return live;
  // The memory bound in its record (buffers, images, acceleration structures).
  if (const BoundMemory* m = device.memories.at(memory_slot))
    stamp_use(device, ObjectType::kDeviceMemory, m->handle, m->id, queue, serial, frame, depth + 1);
  // A view's image or buffer, kept in its record (every such edge carries use).
  if (inline_id)
    stamp_use(device, inline_edge_kind(type).dst_type, inline_target, inline_id, queue, serial,
              frame, depth + 1);
  if (!has_edges) return live;
  // Follow what this object reaches. Only types with use-carrying edges have any.
  switch (type) {
    case ObjectType::kDescriptorSet:
    case ObjectType::kImageView:
    case ObjectType::kBufferView:
    case ObjectType::kFramebuffer:
    case ObjectType::kBuffer:
    case ObjectType::kImage:
    case ObjectType::kAccelerationStructureKHR:
    case ObjectType::kAccelerationStructureNV:
      break;
    default:
      return live;
  }
  struct EdgeLists {
    std::vector<Edge> at[kMaxDepth];
  };
  EdgeLists* lists = ThreadBox<EdgeLists>::get();  // on the heap (thread_box.h)
  if (!lists) return live;
  std::vector<Edge>& list = lists->at[depth];
  try {
    device.edges.get(handle, type, &list);
  } catch (...) {
    return live;
  }
  for (const Edge& e : list) {
    if (e.dst_id && carries_use(type, e.kind_id))
      stamp_use(device, e.dst_type, e.dst_handle, e.dst_id, queue, serial, frame, depth + 1);
  }
  return live;
}

QueueState* SubmissionTracker::queue(VkQueue q) noexcept {
  const uint32_t n = count_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i)
    if (handles_[i].load(std::memory_order_acquire) == q) return queues_[i].get();
  try {
    std::lock_guard<std::mutex> lock(register_mutex_);
    const uint32_t m = count_.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < m; ++i)
      if (handles_[i].load(std::memory_order_relaxed) == q) return queues_[i].get();
    if (m == kMaxQueues) return nullptr;
    queues_[m] = std::make_unique<QueueState>();
    queues_[m]->handle = q;
    queues_[m]->index = static_cast<uint8_t>(m);
    handles_[m].store(q, std::memory_order_release);
    count_.store(m + 1, std::memory_order_release);
    return queues_[m].get();
  } catch (...) {
    return nullptr;
  }
}

QueueState* SubmissionTracker::queue_at(uint32_t index) noexcept {
  return index < count_.load(std::memory_order_acquire) ? queues_[index].get() : nullptr;
}

void SubmissionTracker::stamp_command_buffer(DeviceState& device, VkCommandBuffer cb, uint8_t queue,
                                             uint64_t serial, uint32_t frame, int depth) noexcept {
  stamp_use(device, ObjectType::kCommandBuffer, to_u64(cb), 0, queue, serial, frame, kMaxDepth);
  CommandRefs* refs = device.command_refs.find(to_u64(cb));
  if (!refs) return;
  for (const CommandRef& r : refs->refs())
    stamp_use(device, r.type, r.handle, r.id, queue, serial, frame, 0);
  if (depth < 2)
    for (VkCommandBuffer s : refs->secondaries())
      stamp_command_buffer(device, s, queue, serial, frame, depth + 1);
}

void SubmissionTracker::submit(DeviceState& device, QueueState& queue, const Batch* batches,
                               uint32_t count, uint64_t fence) noexcept {
  // Stamped like a creation (Scope::creation_frame): read as a submit count or frame 0 later.
  const uint32_t frame = device.creation_frame.load(std::memory_order_relaxed);
  try {
    std::lock_guard<std::mutex> qlock(queue.mutex);
    const uint64_t serial = queue.submitted.load(std::memory_order_relaxed) + 1;
    PendingSubmission p;
    p.serial = serial;
    p.frame = frame;
    for (uint32_t b = 0; b < count; ++b) {
      for (VkCommandBuffer cb : batches[b].command_buffers) {
        stamp_command_buffer(device, cb, queue.index, serial, frame, 0);
        p.command_buffers.push_back(cb);
      }
    }
    {
      std::lock_guard<std::mutex> lock(sync_mutex_);
      const QueueRef self{queue.index, serial};
      for (uint32_t b = 0; b < count; ++b) {
        for (auto [sem, value] : batches[b].waits) {
          if (timelines_.count(sem)) continue;  // a timeline wait proves nothing by itself
          auto it = binary_signals_.find(sem);
          if (it != binary_signals_.end()) {
            p.implies.push_back(it->second);
            binary_signals_.erase(it);
          }
        }
        for (auto [sem, value] : batches[b].signals) {
          if (timelines_.count(sem))
            timeline_signals_[sem].push_back({value, self});
          else
            binary_signals_[sem] = self;
        }
      }
      if (fence) fences_[fence] = self;
    }
    queue.pending.push_back(std::move(p));
    queue.submitted.store(serial, std::memory_order_release);
  } catch (...) {
    device.degraded.store(true, std::memory_order_relaxed);
  }
}

void SubmissionTracker::present(DeviceState& device, QueueState& queue, const uint64_t* images,
                                uint32_t count) noexcept {
  // Presentation is ordered after the queue's submissions: the images count as used by the
  // last one (proven complete with it).
  const uint64_t serial = queue.submitted.load(std::memory_order_acquire);
  // Stamped like a creation (Scope::creation_frame): read as a submit count or frame 0 later.
  const uint32_t frame = device.creation_frame.load(std::memory_order_relaxed);
  if (serial == 0) return;
  for (uint32_t i = 0; i < count; ++i)
    stamp_use(device, ObjectType::kImage, images[i], 0, queue.index, serial, frame, kMaxDepth);
}

void SubmissionTracker::retire(uint32_t queue_index, uint64_t serial) noexcept {
  // Iterative: a retired submission may prove others (binary semaphore waits) on any queue.
  std::vector<QueueRef> work{{static_cast<uint8_t>(queue_index), serial}};
  while (!work.empty()) {
    QueueRef ref = work.back();
    work.pop_back();
    QueueState* q = queue_at(ref.queue);
    if (!q) continue;
    std::lock_guard<std::mutex> lock(q->mutex);
    uint64_t done = std::min(ref.serial, q->submitted.load(std::memory_order_relaxed));
    if (done <= q->retired.load(std::memory_order_relaxed)) continue;
    while (!q->pending.empty() && q->pending.front().serial <= done) {
      for (const QueueRef& r : q->pending.front().implies) work.push_back(r);
      q->pending.pop_front();
    }
    q->retired.store(done, std::memory_order_release);
  }
}

void SubmissionTracker::fence_signaled(uint64_t fence) noexcept {
  QueueRef ref{};
  {
    std::lock_guard<std::mutex> lock(sync_mutex_);
    auto it = fences_.find(fence);
    if (it == fences_.end()) return;
    ref = it->second;
  }
  retire(ref.queue, ref.serial);  // a fence proves every earlier submission on its queue
}

void SubmissionTracker::fence_reset(uint64_t fence) noexcept {
  std::lock_guard<std::mutex> lock(sync_mutex_);
  fences_.erase(fence);
}

void SubmissionTracker::queue_idle(QueueState& queue) noexcept {
  retire(queue.index, queue.submitted.load(std::memory_order_acquire));
}

void SubmissionTracker::device_idle() noexcept {
  const uint32_t n = count_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) queue_idle(*queues_[i]);
}

void SubmissionTracker::timeline_reached(uint64_t semaphore, uint64_t value) noexcept {
  std::vector<QueueRef> done;
  {
    std::lock_guard<std::mutex> lock(sync_mutex_);
    auto it = timeline_signals_.find(semaphore);
    if (it == timeline_signals_.end()) return;
    auto& list = it->second;
    auto keep = std::remove_if(list.begin(), list.end(), [&](const auto& s) {
      if (s.first > value) return false;
      done.push_back(s.second);
      return true;
    });
    list.erase(keep, list.end());
  }
  for (const QueueRef& r : done) retire(r.queue, r.serial);
}

void SubmissionTracker::set_timeline(uint64_t semaphore, bool timeline) noexcept {
  try {
    std::lock_guard<std::mutex> lock(sync_mutex_);
    if (timeline)
      timelines_.insert(semaphore);
    else {
      timelines_.erase(semaphore);
      timeline_signals_.erase(semaphore);
      binary_signals_.erase(semaphore);
    }
  } catch (...) {
  }
}

bool SubmissionTracker::is_timeline(uint64_t semaphore) noexcept {
  std::lock_guard<std::mutex> lock(sync_mutex_);
  return timelines_.count(semaphore) != 0;
}

uint64_t SubmissionTracker::retired(uint32_t queue_index) noexcept {
  QueueState* q = queue_at(queue_index);
  return q ? q->retired.load(std::memory_order_acquire) : 0;
}

bool SubmissionTracker::in_flight(const ObjectRecord& r) noexcept {
  if (r.use_serial == 0) return false;
  QueueState* q = queue_at(r.use_queue);
  if (!q) return false;
  // Serials are stored in 32 bits in the record: compare within the window of the queue's
  // 64-bit counters.
  const uint64_t retired = q->retired.load(std::memory_order_acquire);
  return static_cast<uint32_t>(r.use_serial - static_cast<uint32_t>(retired)) - 1 <
         static_cast<uint32_t>(q->submitted.load(std::memory_order_acquire) - retired);
}

std::vector<SubmissionTracker::PathStep> SubmissionTracker::explain(DeviceState& device,
                                                                    const ObjectRecord& target) {
  std::vector<PathStep> path;
  QueueState* q = queue_at(target.use_queue);
  if (!q) return path;
  std::vector<VkCommandBuffer> cbs;
  {
    std::lock_guard<std::mutex> lock(q->mutex);
    for (const PendingSubmission& p : q->pending)
      if (static_cast<uint32_t>(p.serial) == target.use_serial) cbs = p.command_buffers;
  }
  // Depth-first from each command buffer's references to the target, over use-carrying edges.
  struct Node {
    uint64_t handle, id;
    ObjectType type;
  };
  std::vector<Node> stack;
  auto record_of = [&](ObjectType t, uint64_t h, ObjectRecord* r) {
    return device.table.lookup(h, t, r);
  };
  std::function<bool(const Node&, int)> search = [&](const Node& n, int depth) -> bool {
    if (n.id == target.id) return true;
    if (depth >= kMaxDepth) return false;
    std::vector<Edge> edges;
    device.edges.get(n.handle, n.type, &edges);
    ObjectRecord source{};  // its name for the path; its memory binding; its inline edge
    const bool source_live = record_of(n.type, n.handle, &source);
    if (source_live && has_inline_edge(source)) {
      Edge e{};
      e.kind_id = intern_kind(inline_edge_kind(n.type).kind);
      e.dst_type = inline_edge_kind(n.type).dst_type;
      e.dst_handle = inline_edge_target(source);
      e.dst_id = inline_edge_id(source);
      edges.insert(edges.begin(), e);  // first, as the create info's edge was in the store
    }
    if (source_live && source.bound) {
      if (const BoundMemory* m = device.memories.at(source.memory_slot)) {
        Edge e{};
        e.kind_id = intern_kind("memory");
        e.dst_type = ObjectType::kDeviceMemory;
        e.dst_handle = m->handle;
        e.dst_id = m->id;
        edges.push_back(e);
      }
    }
    for (const Edge& e : edges) {
      if (!e.dst_id || !carries_use(n.type, e.kind_id)) continue;
      if (search({e.dst_handle, e.dst_id, e.dst_type}, depth + 1)) {
        const char* rel = n.type == ObjectType::kDescriptorSet ? "written in"
                          : n.type == ObjectType::kFramebuffer ? "attached to"
                          : (n.type == ObjectType::kImageView || n.type == ObjectType::kBufferView)
                              ? "viewed by"
                              : "bound to";
        path.push_back({n.id, n.type, source.name, rel});
        return true;
      }
    }
    return false;
  };
  for (VkCommandBuffer cb : cbs) {
    CommandRefs* refs = device.command_refs.find(to_u64(cb));
    ObjectRecord cbr{};
    record_of(ObjectType::kCommandBuffer, to_u64(cb), &cbr);
    if (cbr.id == target.id) return path;  // the command buffer itself
    if (!refs) continue;
    for (const CommandRef& r : refs->refs()) {
      if (search({r.handle, r.id, r.type}, 0)) {
        path.push_back({cbr.id, ObjectType::kCommandBuffer, cbr.name, "bound in"});
        return path;
      }
    }
  }
  return path;
}

}  // namespace vkleak
