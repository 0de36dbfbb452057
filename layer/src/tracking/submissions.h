// Frame-fenced lifetimes: every submission gets a serial on its queue; what its command buffers
// reference (and what that reaches: descriptor contents, view targets, attachments, bound
// memory) is stamped with (queue, serial, frame). Completion is proven by fence waits/status,
// timeline semaphore values reached, queue/device idle, and transitively by a completed
// submission that waited on a binary semaphore another one signalled. An object is in flight
// while its last use is not proven complete.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "store/object_table.h"

namespace vkleak {

struct DeviceState;
struct Scope;

inline constexpr uint32_t kMaxQueues = 64;

struct QueueRef {
  uint8_t queue;
  uint64_t serial;
};

struct PendingSubmission {
  uint64_t serial = 0;
  uint32_t frame = 0;
  std::vector<VkCommandBuffer> command_buffers;
  std::vector<QueueRef> implies;  // submissions proven complete when this one is
};

struct QueueState {
  VkQueue handle = VK_NULL_HANDLE;
  uint8_t index = 0;
  std::atomic<uint64_t> submitted{0};
  std::atomic<uint64_t> retired{0};
  std::mutex mutex;  // pending; queue operations are externally synchronized by the app anyway
  std::deque<PendingSubmission> pending;
};

class SubmissionTracker {
 public:
  // The queue's state, registered on first sight (vkGetDeviceQueue*). Null past kMaxQueues.
  QueueState* queue(VkQueue q) noexcept;
  QueueState* queue_at(uint32_t index) noexcept;
  uint32_t queue_count() const noexcept { return count_.load(std::memory_order_acquire); }

  // Records a vkQueueSubmit / vkQueueSubmit2 / vkQueueBindSparse batch after it succeeded.
  struct Batch {
    std::vector<VkCommandBuffer> command_buffers;
    std::vector<std::pair<uint64_t, uint64_t>> waits;    // (semaphore, value; 0 = binary)
    std::vector<std::pair<uint64_t, uint64_t>> signals;  // (semaphore, value; 0 = binary)
  };
  void submit(DeviceState& device, QueueState& queue, const Batch* batches, uint32_t count,
              uint64_t fence) noexcept;
  // A submission with nothing to record (no command buffers, semaphores or fence): it only
  // takes its serial. No lock, no pending entry (issue 28): a fence or wait that later retires
  // a serial at or past it retires it too, and it holds nothing in flight.
  static void submit_empty(QueueState& queue) noexcept {
    queue.submitted.fetch_add(1, std::memory_order_acq_rel);
  }
  // Present: references the presented images, ordered after the queue's last submission.
  void present(DeviceState& device, QueueState& queue, const uint64_t* images,
               uint32_t count) noexcept;

  // Proofs of completion.
  void fence_signaled(uint64_t fence) noexcept;
  void fence_reset(uint64_t fence) noexcept;
  void queue_idle(QueueState& queue) noexcept;
  void device_idle() noexcept;
  void timeline_reached(uint64_t semaphore, uint64_t value) noexcept;
  void set_timeline(uint64_t semaphore, bool timeline) noexcept;
  bool is_timeline(uint64_t semaphore) noexcept;

  bool in_flight(const ObjectRecord& r) noexcept;
  uint64_t retired(uint32_t queue) noexcept;

  // Explains why an in-flight object is in use: the chain from a command buffer of its last
  // submission to it. Empty when not found.
  struct PathStep {
    uint64_t id;
    ObjectType type;
    uint32_t name;
    const char* relation;  // how the next step holds it: "written in", "viewed by", ...
  };
  std::vector<PathStep> explain(DeviceState& device, const ObjectRecord& r);

 private:
  void retire(uint32_t queue, uint64_t serial) noexcept;
  void stamp_command_buffer(DeviceState& device, VkCommandBuffer cb, uint8_t queue, uint64_t serial,
                            uint32_t frame, int depth) noexcept;

  std::atomic<VkQueue> handles_[kMaxQueues] = {};
  std::unique_ptr<QueueState> queues_[kMaxQueues];
  std::atomic<uint32_t> count_{0};
  std::mutex register_mutex_;

  std::mutex sync_mutex_;  // fences and semaphores (touched once per submit and wait)
  std::unordered_map<uint64_t, QueueRef> fences_;
  std::unordered_map<uint64_t, QueueRef> binary_signals_;
  std::unordered_map<uint64_t, std::vector<std::pair<uint64_t, QueueRef>>> timeline_signals_;
  std::unordered_set<uint64_t> timelines_;
};

// Stamps one object (and what it reaches) as used by (queue, serial, frame). Returns false when
// the handle is not live or no longer the object `id` (0: any).
bool stamp_use(DeviceState& device, ObjectType type, uint64_t handle, uint64_t id, uint8_t queue,
               uint64_t serial, uint32_t frame, int depth) noexcept;

}  // namespace vkleak
