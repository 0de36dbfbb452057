#include "report/html_chains.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/html_charts.h"
#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::report::html {

// ---------------------------------------------------------------------------------------------
// Retention chains (boxes and arrows)
// ---------------------------------------------------------------------------------------------

// Box colour by role: what a reader scans for is the view that pins the memory.
const char* link_role(const std::string& type) {
  if (type == "VkDeviceMemory") return "memory";
  if (type.size() >= 4 && type.compare(type.size() - 4, 4, "View") == 0) return "view";
  if (type == "VkBuffer" || type == "VkImage" || type == "VkAccelerationStructureKHR") {
    return "resource";
  }
  return "other";
}

std::string chain_text(const std::vector<ChainLink>& chain) {
  std::string s;
  for (size_t i = 0; i < chain.size(); ++i) {
    const ChainLink& l = chain[i];
    if (i > 0) s += " \xe2\x86\x92 ";  // →
    s += l.type.empty() ? "?" : l.type;
    if (l.name && !l.name->empty()) s += " \xe2\x80\x9c" + display_cut(*l.name) + "\xe2\x80\x9d";
    s += " (id " + std::to_string(l.id) + ") " + format_bytes(l.bytes);
    if (destroyed(l)) {
      s += " [destroyed]";
    } else if (l.state != analysis::ChainState::kLive) {
      s += " [" + std::string(analysis::name(l.state)) + "]";
    }
  }
  return s;
}

size_t drawn_chains(const Finding& f) {
  return std::min(f.chains.size(), kChainsPerFinding);
}

// The anchor of a finding's k-th chain in the diagram.
std::string chain_anchor(size_t rank, size_t k) {
  return "chain-" + std::to_string(rank) + (k == 0 ? "" : "-" + std::to_string(k + 1));
}

std::string chains_chart(const Report& r) {
  constexpr size_t kMaxLinks = 6;
  constexpr int kBoxW = 200;
  constexpr int kBoxH = 58;
  constexpr int kGap = 56;
  constexpr int kRowH = kBoxH + 44;
  constexpr int kLeft = 16;
  constexpr int kTop = 44;

  struct Row {
    size_t finding;
    size_t chain;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    for (size_t k = 0; k < drawn_chains(*r.findings[i]) && rows.size() < kMaxChains; ++k) {
      rows.push_back({i, k});
    }
  }
  if (rows.empty()) return "";
  size_t widest = 1;
  for (const Row& row : rows) {
    widest = std::max(widest,
                      std::min(r.findings[row.finding]->chains[row.chain].links.size(), kMaxLinks));
  }
  const int width = std::max(960, kLeft * 2 + static_cast<int>(widest) * (kBoxW + kGap) - kGap);
  const int height = kTop + static_cast<int>(rows.size()) * kRowH;

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"vk-chart vk-chains\" id=\"chart-chains\" "
       "role=\"img\" aria-label=\"Retention chains: what keeps each leaked object alive\" "
       "aria-describedby=\"chart-chains-desc\" viewBox=\"0 0 " +
       std::to_string(width) + " " + std::to_string(height) + "\" width=\"" +
       std::to_string(width) + "\" height=\"" + std::to_string(height) +
       "\" preserveAspectRatio=\"xMinYMin meet\">\n";
  s += "<title>Retention chains</title>\n<desc id=\"chart-chains-desc\">";
  for (const Row& row : rows) {
    s += "Finding " + std::to_string(row.finding + 1) + ": " +
         html_text(chain_text(r.findings[row.finding]->chains[row.chain].links)) + ". ";
  }
  s += "</desc>\n";
  s += "<defs><marker id=\"vk-arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
       "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
       "<path d=\"M0 0 L10 5 L0 10 z\" class=\"vk-arrowhead\"/></marker></defs>\n";

  // Legend: box colours by role, and what an arrow means.
  s += "<g class=\"vk-legend\">\n";
  int lx = kLeft;
  for (const auto& [role, label] :
       std::vector<std::pair<const char*, const char*>>{{"view", "view"},
                                                        {"resource", "buffer / image"},
                                                        {"memory", "device memory"},
                                                        {"other", "other"}}) {
    s += "<g class=\"vk-legend-item\"><rect class=\"vk-box vk-role-" + std::string(role) +
         "\" x=\"" + std::to_string(lx) +
         "\" y=\"8\" width=\"16\" height=\"12\" rx=\"2\"/>"
         "<text x=\"" +
         std::to_string(lx + 22) + "\" y=\"18\">" + label + "</text></g>\n";
    lx += 44 + 7 * static_cast<int>(std::string(label).size());
  }
  s += "<g class=\"vk-legend-item\"><rect class=\"vk-box vk-role-other vk-destroyed\" x=\"" +
       std::to_string(lx) + "\" y=\"8\" width=\"16\" height=\"12\" rx=\"2\"/><text x=\"" +
       std::to_string(lx + 22) + "\" y=\"18\">destroyed</text></g>\n";
  lx += 44 + 7 * 9;
  s += "<g class=\"vk-legend-item\"><line class=\"vk-arrow\" x1=\"" + std::to_string(lx) +
       "\" x2=\"" + std::to_string(lx + 30) +
       "\" y1=\"14\" y2=\"14\" marker-end=\"url(#vk-arrowhead)\"/><text x=\"" +
       std::to_string(lx + 38) + "\" y=\"18\">keeps alive</text></g>\n";
  s += "</g>\n";

  for (size_t row = 0; row < rows.size(); ++row) {
    const Finding& f = *r.findings[rows[row].finding];
    const Chain& chain = f.chains[rows[row].chain];
    const size_t rank = rows[row].finding + 1;
    const int y = kTop + static_cast<int>(row) * kRowH;
    s += "<g class=\"vk-chain\" id=\"" + chain_anchor(rank, rows[row].chain) +
         "\" data-finding=\"" + std::to_string(rank) + "\">\n";
    std::string caption = "#" + std::to_string(rank) + " " + analysis::kind_info(f.kind).title;
    if (!f.object_type.empty()) caption += " \xc2\xb7 " + f.object_type;
    caption += " \xc2\xb7 " + format_count(f.count) + " objects";
    caption += " \xc2\xb7 holds " + format_bytes(chain.bytes);
    if (rows[row].chain + 1 == drawn_chains(f) && f.chains.size() > drawn_chains(f)) {
      caption += " (+" + std::to_string(f.chains.size() - drawn_chains(f)) + " more like it)";
    }
    s += "<text class=\"vk-chain-caption\" x=\"" + std::to_string(kLeft) + "\" y=\"" +
         std::to_string(y + 12) + "\">" + html_text(caption) + "</text>\n";
    const size_t shown = std::min(chain.links.size(), kMaxLinks);
    for (size_t k = 0; k < shown; ++k) {
      const int bx = kLeft + static_cast<int>(k) * (kBoxW + kGap);
      const int by = y + 22;
      // The last box stands for the rest when the chain is too long to draw.
      const bool elided = k + 1 == shown && chain.links.size() > shown;
      if (k > 0) {
        s += "<line class=\"vk-arrow\" x1=\"" + std::to_string(bx - kGap + 4) + "\" x2=\"" +
             std::to_string(bx - 4) + "\" y1=\"" + std::to_string(by + kBoxH / 2) + "\" y2=\"" +
             std::to_string(by + kBoxH / 2) + "\" marker-end=\"url(#vk-arrowhead)\"/>\n";
      }
      if (elided) {
        s += "<g class=\"vk-chain-link vk-chain-more\"><rect class=\"vk-box vk-role-other\" x=\"" +
             std::to_string(bx) + "\" y=\"" + std::to_string(by) + "\" width=\"" +
             std::to_string(kBoxW) + "\" height=\"" + std::to_string(kBoxH) +
             "\" rx=\"6\"/><text class=\"vk-box-type\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
             std::to_string(by + 34) + "\">\xe2\x80\xa6 " +
             std::to_string(chain.links.size() - shown + 1) + " more</text></g>\n";
        break;
      }
      const ChainLink& l = chain.links[k];
      std::string meta = "id " + std::to_string(l.id);
      if (l.bytes > 0) meta += " \xc2\xb7 " + format_bytes(l.bytes);
      const analysis::ChainState state = destroyed(l) ? analysis::ChainState::kDestroyed : l.state;
      if (state != analysis::ChainState::kLive) {
        meta += (meta.empty() ? "" : " \xc2\xb7 ") + std::string(analysis::name(state));
      }
      s += "<g class=\"vk-chain-link\" data-type=\"" + html_text(l.type) + "\"><title>" +
           html_text(chain_text({l})) + "</title>";
      s += "<rect class=\"vk-box vk-role-" + std::string(link_role(l.type)) +
           (destroyed(l) ? " vk-destroyed" : "") + "\" x=\"" + std::to_string(bx) + "\" y=\"" +
           std::to_string(by) + "\" width=\"" + std::to_string(kBoxW) + "\" height=\"" +
           std::to_string(kBoxH) + "\" rx=\"6\"/>";
      s += "<text class=\"vk-box-type\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
           std::to_string(by + 18) + "\">" +
           html_text(truncate(l.type.empty() ? "?" : l.type, 26)) + "</text>";
      s += "<text class=\"vk-box-name\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
           std::to_string(by + 34) + "\">" +
           html_text(truncate(l.name && !l.name->empty() ? *l.name : "(unnamed)", 28)) + "</text>";
      s += "<text class=\"vk-box-meta\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
           std::to_string(by + 50) + "\">" + html_text(meta) + "</text></g>\n";
    }
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace vkleak::report::html
