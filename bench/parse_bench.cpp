// vkleak_parse_bench MODE FILE [--no-digest]
//
// Reads one snapshot into the reader's model (core/snapshot.h) and prints how long it took and a
// digest of the model, so that bench/parse_bench.py can time the modes side by side (issue 17,
// item 4) and check that they built the same model:
//   reader     read_snapshot() as the CLI calls it (core/fast_json.h, nlohmann on any doubt)
//   reference  read_snapshot() with nlohmann's SAX parser only
//   simdjson   simdjson's On-Demand API walking every object and field into the same model
//              (the same interning of types, names and edge kinds; hex handles; call-site ids)
//   simdjson-dom  simdjson's DOM parse alone (no model): a lower bound for any simdjson reader
// The simdjson walker checks types but not everything the reader checks (duplicate keys,
// required keys, limits): it does less work than the reader, never more.
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/hex.h"
#include "core/snapshot.h"
#include "core/snapshot_reader.h"
#include "core/string_interner.h"
#include "format/snapshot_format.h"

namespace {

using simdjson::ondemand::array;
using simdjson::ondemand::object;
using simdjson::ondemand::value;
using vkleak::Snapshot;

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error(what);
}

uint64_t hex(value v) {
  uint64_t out = 0;
  if (!vkleak::parse_hex_u64(std::string_view(v.get_string()), &out)) bad("bad handle");
  return out;
}

template <typename T>
T saturate(uint64_t v) {
  return v > std::numeric_limits<T>::max() ? std::numeric_limits<T>::max() : static_cast<T>(v);
}

int64_t opt_i64(value v, int64_t null_value) {
  if (v.is_null()) return null_value;
  return v.get_int64();
}

int32_t callsite(value v) {
  if (v.is_null()) return vkleak::kNoCallsite;
  const uint64_t u = v.get_uint64();
  if (u > uint64_t{std::numeric_limits<int32_t>::max()}) bad("call site out of range");
  return static_cast<int32_t>(u);
}

std::optional<std::string> opt_string(value v) {
  if (v.is_null()) return std::nullopt;
  return std::string(std::string_view(v.get_string()));
}

class Walker {
 public:
  Walker(Snapshot* s, size_t file_bytes) : s_(*s), file_bytes_(file_bytes) {}

  void top(object doc) {
    bool format_ok = false;
    for (auto field : doc) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "format") {
        format_ok = std::string_view(v.get_string()) == vkleak::format::kFormatName;
        if (!format_ok) bad("not a vkleak snapshot");
      } else if (key == "version") {
        const int64_t version = v.get_int64();
        if (version < vkleak::format::kOldestVersion || version > vkleak::format::kVersion)
          bad("unsupported version");
        s_.version = static_cast<int>(version);
      } else if (key == "producer") {
        for (auto f : v.get_object()) {
          const std::string_view k = f.unescaped_key();
          if (k == "name") s_.producer_name = std::string_view(f.value().get_string());
          if (k == "version") s_.producer_version = std::string_view(f.value().get_string());
        }
      } else if (key == "pid") {
        s_.pid = v.get_uint64();
      } else if (key == "executable") {
        s_.executable = std::string_view(v.get_string());
      } else if (key == "sequence") {
        s_.sequence = v.get_uint64();
      } else if (key == "reason") {
        s_.reason = std::string_view(v.get_string());
      } else if (key == "scope") {
        if (!v.is_null()) {
          for (auto f : v.get_object()) {
            const std::string_view k = f.unescaped_key();
            if (k == "device") s_.scope_device = f.value().get_int64();
            if (k == "instance") s_.scope_instance = f.value().get_int64();
          }
        }
      } else if (key == "frame") {
        s_.frame = v.get_uint64();
      } else if (key == "frame_boundary") {
        s_.frame_boundary = std::string_view(v.get_string());
      } else if (key == "time_ms") {
        s_.time_ms = v.get_uint64();
      } else if (key == "degraded") {
        s_.degraded = v.get_bool();
      } else if (key == "label") {
        s_.label = opt_string(v);
      } else if (key == "events_dropped") {
        s_.events_dropped = v.get_uint64();
      } else if (key == "final") {
        s_.final_snapshot = bool(v.get_bool());
      } else if (key == "unwritten_count") {
        s_.unwritten_count = v.get_uint64();
      } else if (key == "coalesced_signals") {
        s_.coalesced_signals = v.get_uint64();
      } else if (key == "error_results") {
        for (auto f : v.get_object()) {
          const std::string_view k = f.unescaped_key();
          const uint64_t n = f.value().get_uint64();
          if (k == "out_of_device_memory") s_.error_results.out_of_device_memory = n;
          if (k == "out_of_host_memory") s_.error_results.out_of_host_memory = n;
          if (k == "device_lost") s_.error_results.device_lost = n;
        }
      } else if (key == "instances") {
        for (auto e : v.get_array()) instance(e.get_object());
      } else if (key == "devices") {
        for (auto e : v.get_array()) device(e.get_object());
      } else if (key == "unwritten") {
        for (auto e : v.get_array()) unwritten(e.get_object());
      } else if (key == "objects") {
        // As the reader reserves: no object takes less than 128 bytes of JSON.
        s_.objects.reserve(std::min<size_t>(file_bytes_ / 128, size_t{16} << 20));
        for (auto e : v.get_array()) record(e.get_object());
      } else if (key == "callsites") {
        for (auto e : v.get_array()) callsite_entry(e.get_object());
      } else if (key == "modules") {
        for (auto e : v.get_array()) module(e.get_object());
      } else if (key == "counts") {
        for (auto f : v.get_object()) {
          vkleak::TypeCount c;
          for (auto g : f.value().get_object()) {
            const std::string_view k = g.unescaped_key();
            if (k == "live") c.live = g.value().get_uint64();
            if (k == "bytes") c.bytes = g.value().get_uint64();
          }
          s_.counts[std::string(std::string_view(f.unescaped_key()))] = c;
        }
      } else if (key == "destroyed") {
        for (auto e : v.get_array()) destroyed(e.get_object());
      } else if (key == "events") {
        for (auto e : v.get_array()) event(e.get_object());
      }
    }
    if (!format_ok) bad("no \"format\" key");
    const size_t callsites = s_.callsites.size();
    for (const auto& o : s_.objects) {
      if (o.callsite != vkleak::kNoCallsite && static_cast<size_t>(o.callsite) >= callsites)
        bad("dangling call site");
    }
  }

 private:
  uint16_t intern_type(std::string_view type) {
    if (last_type_ >= 0 && s_.type_names[static_cast<size_t>(last_type_)] == type)
      return static_cast<uint16_t>(last_type_);
    // A few dozen types at most: a scan, no allocation for the lookup.
    size_t i = 0;
    while (i < s_.type_names.size() && s_.type_names[i] != type) ++i;
    if (i == s_.type_names.size()) {
      if (i > 0xffff) bad("too many types");
      s_.type_names.emplace_back(type);
    }
    last_type_ = static_cast<int>(i);
    return static_cast<uint16_t>(i);
  }

  uint16_t intern_edge_kind(std::string_view kind) {
    for (size_t i = 0; i < s_.edge_kinds.size(); ++i) {
      if (s_.edge_kinds[i] == kind) return static_cast<uint16_t>(i);
    }
    s_.edge_kinds.emplace_back(kind);
    return static_cast<uint16_t>(s_.edge_kinds.size() - 1);
  }

  int32_t opt_name(value v) {
    if (v.is_null()) return vkleak::kNoName;
    return names_.intern(std::string_view(v.get_string()));
  }

  void record(object obj) {
    vkleak::Object o;
    const auto index = static_cast<uint32_t>(s_.objects.size());
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "id") {
        o.id = v.get_uint64();
      } else if (key == "type") {
        o.type = intern_type(v.get_string());
      } else if (key == "handle") {
        o.handle = hex(v);
      } else if (key == "name") {
        o.name = opt_name(v);
      } else if (key == "owner") {
        o.owner = v.get_int64();
      } else if (key == "parent") {
        o.parent = opt_i64(v, vkleak::kNullId);
      } else if (key == "origin") {
        const std::string_view s = v.get_string();
        o.origin = s == "created"           ? vkleak::Origin::kCreated
                   : s == "allocated"       ? vkleak::Origin::kAllocated
                   : s == "retrieved"       ? vkleak::Origin::kRetrieved
                   : s == "swapchain_image" ? vkleak::Origin::kSwapchainImage
                                            : (bad("bad origin"), vkleak::Origin::kCreated);
      } else if (key == "frame") {
        o.frame = saturate<uint32_t>(v.get_uint64());
      } else if (key == "time_ms") {
        o.time_ms = saturate<uint32_t>(v.get_uint64());
      } else if (key == "size") {
        o.size = v.get_uint64();
      } else if (key == "callsite") {
        o.callsite = callsite(v);
      } else if (key == "refs") {
        o.refs = saturate<uint16_t>(v.get_uint64());
      } else if (key == "in_flight") {
        o.in_flight = v.get_bool();
      } else if (key == "last_use") {
        if (v.is_null()) continue;
        vkleak::LastUse u;
        u.object = index;
        for (auto f : v.get_object()) {
          const std::string_view k = f.unescaped_key();
          const uint64_t n = f.value().get_uint64();
          if (k == "frame") u.frame = n;
          if (k == "queue") u.queue = n;
          if (k == "serial") u.serial = n;
        }
        s_.last_uses.push_back(u);
      } else if (key == "memory") {
        vkleak::MemoryBinding m;
        m.object = index;
        for (auto f : v.get_object()) {
          const std::string_view k = f.unescaped_key();
          if (k == "id") m.memory = f.value().get_int64();
          if (k == "offset") m.offset = f.value().get_uint64();
          if (k == "size") m.size = f.value().get_uint64();
        }
        s_.memory_bindings.push_back(m);
      } else if (key == "edges") {
        for (auto e : v.get_array()) edge(e.get_object(), index);
      }
    }
    s_.objects.push_back(o);
  }

  void edge(object obj, uint32_t from) {
    vkleak::Edge e;
    e.from = from;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "kind") {
        e.kind = intern_edge_kind(v.get_string());
      } else if (key == "to") {
        e.to = opt_i64(v, vkleak::kNullId);
      } else if (key == "type") {
        e.type = intern_type(v.get_string());
      } else if (key == "handle") {
        e.handle = hex(v);
      } else if (key == "name") {
        e.name = names_.intern(std::string_view(v.get_string()));
      } else if (key == "slot") {
        e.slot = saturate<uint32_t>(v.get_uint64());
      } else if (key == "offset") {
        e.offset = v.get_uint64();
      } else if (key == "size") {
        e.size = v.get_uint64();
      }
    }
    s_.edges.push_back(e);
  }

  void instance(object obj) {
    vkleak::Instance in;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "id") in.id = v.get_int64();
      if (key == "handle") in.handle = hex(v);
      if (key == "application") in.application = opt_string(v);
      if (key == "engine") in.engine = opt_string(v);
      if (key == "api_version") in.api_version = std::string_view(v.get_string());
    }
    s_.instances.push_back(std::move(in));
  }

  void device(object obj) {
    vkleak::Device d;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "id") d.id = v.get_int64();
      if (key == "handle") d.handle = hex(v);
      if (key == "instance") d.instance = v.get_int64();
      if (key == "physical_device") d.physical_device = std::string_view(v.get_string());
      if (key == "frame") d.frame = v.get_uint64();
      if (key == "submits") d.submits = v.get_uint64();
      if (key == "presents") d.presents = v.get_uint64();
      if (key == "degraded") d.degraded = v.get_bool();
      if (key == "frame_boundary") d.frame_boundary = std::string_view(v.get_string());
      if (key == "frame_boundary_auto") d.frame_boundary_auto = v.get_bool();
      if (key == "queues") {
        for (auto e : v.get_array()) {
          vkleak::Queue q;
          for (auto f : e.get_object()) {
            const std::string_view k = f.unescaped_key();
            if (k == "index") q.index = f.value().get_int64();
            if (k == "handle") q.handle = hex(f.value());
            if (k == "submitted") q.submitted = f.value().get_uint64();
            if (k == "retired") q.retired = f.value().get_uint64();
          }
          d.queues.push_back(q);
        }
      }
    }
    s_.devices.push_back(std::move(d));
  }

  void unwritten(object obj) {
    vkleak::UnwrittenSnapshot u;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "sequence" && !v.is_null()) u.sequence = v.get_uint64();
      if (key == "reason") u.reason = std::string_view(v.get_string());
      if (key == "error") u.error = std::string_view(v.get_string());
    }
    if (s_.unwritten.size() < 1024) s_.unwritten.push_back(std::move(u));
  }

  void callsite_entry(object obj) {
    uint64_t id = 0;
    std::vector<uint64_t> frames;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      if (key == "id") id = field.value().get_uint64();
      if (key == "frames") {
        for (auto f : field.value().get_array()) frames.push_back(hex(f.value()));
      }
    }
    if (id != s_.callsites.size()) bad("call site id out of order");
    s_.callsites.push_back(std::move(frames));
  }

  void module(object obj) {
    vkleak::Module m;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "path") m.path = std::string_view(v.get_string());
      if (key == "base") m.base = hex(v);
      if (key == "size") m.size = v.get_uint64();
      if (key == "bias") m.bias = hex(v);
      if (key == "build_id") {
        m.build_id = opt_string(v).value_or("");
        for (char& c : m.build_id) c = c >= 'A' && c <= 'F' ? char(c - 'A' + 'a') : c;
      }
    }
    s_.modules.push_back(std::move(m));
  }

  void destroyed(object obj) {
    vkleak::DestroyedObject d;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "id") d.id = v.get_int64();
      if (key == "type") d.type = intern_type(v.get_string());
      if (key == "handle") d.handle = hex(v);
      if (key == "name") d.name = opt_name(v);
      if (key == "owner") d.owner = v.get_int64();
      if (key == "frame") d.frame = v.get_int64();
      if (key == "destroyed_frame") d.destroyed_frame = v.get_int64();
      if (key == "size") d.size = v.get_int64();
      if (key == "callsite") d.callsite = callsite(v);
      if (key == "destroy_callsite") d.destroy_callsite = callsite(v);
    }
    s_.destroyed.push_back(d);
  }

  void event(object obj) {
    vkleak::Event e;
    for (auto field : obj) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (key == "kind") e.kind = std::string_view(v.get_string());
      if (key == "owner") e.owner = v.get_int64();
      if (key == "type") e.type = std::string_view(v.get_string());
      if (key == "handle") e.handle = hex(v);
      if (key == "object") e.object = opt_i64(v, vkleak::kNullId);
      if (key == "name") e.name = opt_string(v);
      if (key == "frame") e.frame = v.get_int64();
      if (key == "time_ms") e.time_ms = v.get_int64();
      if (key == "message") e.message = std::string_view(v.get_string());
      if (key == "reason") e.reason = std::string_view(v.get_string());
      if (key == "callsite") e.callsite = callsite(v);
      if (key == "belongs_to") e.belongs_to = opt_i64(v, vkleak::kNullId);
      if (key == "submission" && !v.is_null()) {
        e.has_submission = true;
        for (auto f : v.get_object()) {
          const std::string_view k = f.unescaped_key();
          const int64_t n = f.value().get_int64();
          if (k == "queue") e.submission_queue = n;
          if (k == "serial") e.submission_serial = n;
          if (k == "frame") e.submission_frame = n;
        }
      }
      if ((key == "created" || key == "first_destroy") && !v.is_null()) {
        const bool created = key == "created";
        (created ? e.has_created : e.has_first_destroy) = true;
        for (auto f : v.get_object()) {
          const std::string_view k = f.unescaped_key();
          if (k == "frame")
            (created ? e.created_frame : e.first_destroy_frame) = f.value().get_int64();
          if (k == "callsite")
            (created ? e.created_callsite : e.first_destroy_callsite) = callsite(f.value());
        }
      }
      if (key == "path") {
        for (auto s : v.get_array()) {
          vkleak::EventPathStep step;
          for (auto f : s.get_object()) {
            const std::string_view k = f.unescaped_key();
            if (k == "id") step.id = f.value().get_int64();
            if (k == "type") step.type = std::string_view(f.value().get_string());
            if (k == "name") step.name = opt_string(f.value());
            if (k == "relation") step.relation = std::string_view(f.value().get_string());
          }
          e.path.push_back(std::move(step));
        }
      }
    }
    s_.events.push_back(std::move(e));
  }

  Snapshot& s_;
  size_t file_bytes_;
  int last_type_ = -1;
  vkleak::StringInterner names_{&s_.names};
};

double g_load_seconds = 0;  // simdjson: reading the file into memory, part of parse_s

Snapshot read_simdjson(const std::string& path) {
  Snapshot s;
  s.path = path;
  const auto start = std::chrono::steady_clock::now();
  simdjson::padded_string json = simdjson::padded_string::load(path);
  g_load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc = parser.iterate(json);
  Walker(&s, json.size()).top(doc.get_object());
  return s;
}

// FNV-1a over the model: equal digests mean the modes built the same model.
struct Digest {
  uint64_t h = 1469598103934665603ull;
  void add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (i * 8)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  void add(const std::string& s) {
    add(s.size());
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
};

uint64_t digest(const Snapshot& s) {
  Digest d;
  d.add(static_cast<uint64_t>(s.version));
  d.add(s.pid);
  d.add(s.sequence);
  d.add(s.reason);
  d.add(s.frame);
  for (const auto& o : s.objects) {
    for (uint64_t v :
         {o.id, o.handle, o.size, static_cast<uint64_t>(o.owner), static_cast<uint64_t>(o.parent),
          uint64_t{o.frame}, uint64_t{o.time_ms}, static_cast<uint64_t>(o.callsite),
          static_cast<uint64_t>(o.name), uint64_t{o.type}, uint64_t{o.refs},
          static_cast<uint64_t>(o.origin), uint64_t{o.in_flight}})
      d.add(v);
  }
  for (const auto& e : s.edges) {
    for (uint64_t v :
         {uint64_t{e.from}, uint64_t{e.kind}, uint64_t{e.type}, static_cast<uint64_t>(e.to),
          e.handle, static_cast<uint64_t>(e.name), uint64_t{e.slot}, e.offset, e.size})
      d.add(v);
  }
  for (const auto& u : s.last_uses) {
    for (uint64_t v : {uint64_t{u.object}, u.frame, u.queue, u.serial}) d.add(v);
  }
  for (const auto& m : s.memory_bindings) {
    for (uint64_t v : {uint64_t{m.object}, static_cast<uint64_t>(m.memory), m.offset, m.size})
      d.add(v);
  }
  for (const auto& c : s.callsites) {
    d.add(c.size());
    for (uint64_t a : c) d.add(a);
  }
  for (const auto& n : s.type_names) d.add(n);
  for (const auto& n : s.names) d.add(n);
  for (const auto& n : s.edge_kinds) d.add(n);
  for (const auto& [type, c] : s.counts) {
    d.add(type);
    d.add(c.live);
    d.add(c.bytes);
  }
  d.add(s.modules.size());
  d.add(s.destroyed.size());
  d.add(s.events.size());
  d.add(s.devices.size());
  d.add(s.instances.size());
  return d.h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s reader|reference|simdjson|simdjson-dom FILE [--no-digest]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const std::string path = argv[2];
  const bool want_digest = !(argc > 3 && std::strcmp(argv[3], "--no-digest") == 0);
  try {
    const auto start = std::chrono::steady_clock::now();
    Snapshot s;
    if (mode == "reader" || mode == "reference") {
      vkleak::ReadOptions options;
      if (mode == "reference") options.parser = vkleak::ParserChoice::kReference;
      s = vkleak::read_snapshot(path, options);
    } else if (mode == "simdjson") {
      s = read_simdjson(path);
    } else if (mode == "simdjson-dom") {
      // A lower bound for any simdjson reader: parse and validate into simdjson's own tape,
      // no model. The digest is of an empty model (objects only counted).
      simdjson::dom::parser parser;
      simdjson::dom::element doc = parser.load(path);
      const size_t n = simdjson::dom::array(doc["objects"]).size();
      std::printf("mode=%s objects=%zu edges=0 names=0 parse_s=%.4f load_s=0 digest=0\n",
                  mode.c_str(), n,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return 0;
    } else {
      std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
      return 2;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (mode == "simdjson")
      std::fprintf(stderr, "simdjson implementation: %s\n",
                   simdjson::get_active_implementation()->name().c_str());
    std::printf("mode=%s objects=%zu edges=%zu names=%zu parse_s=%.4f load_s=%.4f digest=%016llx\n",
                mode.c_str(), s.objects.size(), s.edges.size(), s.names.size(), seconds,
                g_load_seconds, want_digest ? static_cast<unsigned long long>(digest(s)) : 0ull);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
    return 1;
  }
  return 0;
}
