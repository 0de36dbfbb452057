#include "synthetic_snapshot.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <vector>

namespace vkleak::test {

SyntheticTotals write_synthetic_snapshot(const std::string& path, const SyntheticSpec& spec) {
  static constexpr const char* kTypes[] = {
      "VkBuffer",  "VkDeviceMemory",  "VkImage", "VkImageView", "VkDescriptorSet",
      "VkSampler", "VkCommandBuffer", "VkFence", "VkSemaphore", "VkPipeline"};
  constexpr size_t kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);

  std::fprintf(f,
               "{\"format\":\"vkleak-snapshot\",\"version\":2,"
               "\"producer\":{\"name\":\"vkleak\",\"version\":\"0.1.0\"},\"pid\":31337,"
               "\"executable\":\"/opt/synthetic/bin/app\",\"sequence\":9,\"reason\":\"frame\","
               "\"scope\":null,\"frame\":100000,\"frame_boundary\":\"present\","
               "\"time_ms\":3600000,\"degraded\":false,\"settings\":{\"callstack_depth\":12},"
               "\n\"instances\":[{\"id\":1,\"handle\":\"0x55d0c0a10010\",\"application\":\"synth\","
               "\"engine\":null,\"api_version\":\"1.3.239\"}],"
               "\n\"devices\":[{\"id\":2,\"handle\":\"0x55d0c0a20020\",\"instance\":1,"
               "\"physical_device\":\"llvmpipe\",\"frame\":100000,\"submits\":200000,"
               "\"presents\":100000,\"degraded\":false,\"queues\":[{\"index\":0,"
               "\"handle\":\"0x55d0c0a30030\",\"submitted\":200000,\"retired\":199998}]}],"
               "\n\"objects\":[");
  SyntheticTotals totals;
  std::map<std::string, std::pair<uint64_t, uint64_t>> counts;
  for (size_t i = 0; i < spec.objects; ++i) {
    const uint64_t id = 3 + i;
    const char* type = kTypes[(i * 7 + i / 13) % kTypeCount];
    const uint64_t size = (i % 5 == 0) ? 0 : uint64_t{256} << (i % 12);
    const uint64_t callsite = spec.callsites > 1 ? 1 + (i * 31) % (spec.callsites - 1) : 0;
    char name[48] = "null";
    if (spec.named_every != 0 && i % spec.named_every == 0) {
      std::snprintf(name, sizeof(name), "\"res.%zu\"", i);
      ++totals.named;
    }
    std::fprintf(f,
                 "%s\n{\"id\":%" PRIu64 ",\"type\":\"%s\",\"handle\":\"0x%" PRIx64
                 "\",\"name\":%s,\"owner\":2,\"parent\":2,\"origin\":\"%s\",\"frame\":%zu,"
                 "\"time_ms\":%zu,\"size\":%" PRIu64 ",\"callsite\":",
                 i == 0 ? "" : ",", id, type, uint64_t{0x7f3a00000000} + 0x40 * i, name,
                 i % 3 == 0 ? "allocated" : "created", i / 10, i / 3, size);
    if (callsite == 0) {
      std::fputs("null", f);
    } else {
      std::fprintf(f, "%" PRIu64, callsite);
    }
    // As the layer writes them: a last use for a third of the objects, and for buffers the
    // bound memory and its edge.
    if (i % 3 == 1) {
      std::fprintf(f, ",\"last_use\":{\"frame\":%zu,\"queue\":0,\"serial\":%zu},\"in_flight\":%s",
                   i / 10 + 5, i + 1, i % 2 ? "true" : "false");
      ++totals.last_used;
    } else {
      std::fputs(",\"last_use\":null,\"in_flight\":false", f);
    }
    if (std::string(type) == "VkBuffer") {
      std::fprintf(f,
                   ",\"memory\":{\"id\":%" PRIu64 ",\"offset\":0,\"size\":%" PRIu64
                   "},\"edges\":[{\"kind\":\"memory\",\"to\":%" PRIu64
                   ",\"type\":\"VkDeviceMemory\",\"handle\":\"0x%" PRIx64
                   "\",\"slot\":0,\"offset\":0,\"size\":%" PRIu64 "}]",
                   id + 1, size, id + 1, uint64_t{0x7f3a00000000} + 0x40 * (i + 1), size);
      ++totals.edges;
    }
    std::fputc('}', f);
    ++totals.objects;
    totals.bytes += size;
    if (std::string(type) == "VkBuffer") ++totals.buffers;
    auto& c = counts[type];
    ++c.first;
    c.second += size;
  }
  std::fputs("],\n\"counts\":{", f);
  bool first = true;
  for (const auto& [type, c] : counts) {
    std::fprintf(f, "%s\"%s\":{\"live\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", first ? "" : ",",
                 type.c_str(), c.first, c.second);
    first = false;
  }
  std::fputs("},\n\"destroyed\":[],\n\"events\":[],\"events_dropped\":0,\n\"callsites\":[", f);
  for (size_t c = 0; c < spec.callsites; ++c) {
    std::fprintf(f, "%s\n{\"id\":%zu,\"frames\":[", c == 0 ? "" : ",", c);
    for (size_t k = 0; c != 0 && k < spec.frames_per_callsite; ++k) {
      std::fprintf(f, "%s\"0x%" PRIx64 "\"", k == 0 ? "" : ",",
                   uint64_t{0x555500001000} + 0x10 * (c * spec.frames_per_callsite + k));
    }
    std::fputs("]}", f);
  }
  std::fputs(
      "],\n\"modules\":[\n{\"path\":\"/opt/synthetic/bin/app\",\"base\":\"0x555500000000\","
      "\"size\":268435456,\"bias\":\"0x555500000000\",\"build_id\":null}]}\n",
      f);
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
  return totals;
}

}  // namespace vkleak::test
