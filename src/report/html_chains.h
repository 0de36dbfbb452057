// The HTML page's retention chains: boxes and arrows, referrer -> referenced -> memory, drawn
// server-side as SVG; the findings' details link to them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/html_model.h"

namespace vkleak::report::html {

inline constexpr size_t kMaxChains = 12;        // rows in the chain diagram
inline constexpr size_t kChainsPerFinding = 3;  // the rest of a finding's chains look alike

// Box colour by role: "memory", "view", "resource", ...
const char* link_role(const std::string& type);
// "VkImageView “v” (id 4) 0 B → VkImage ...": a chain in one line.
std::string chain_text(const std::vector<ChainLink>& chain);
// How many of a finding's chains the diagram draws.
size_t drawn_chains(const Finding& f);
// The anchor of a finding's k-th chain in the diagram.
std::string chain_anchor(size_t rank, size_t k);
// The diagram of every finding's chains (the first drawn_chains of each).
std::string chains_chart(const Report& r);

}  // namespace vkleak::report::html
