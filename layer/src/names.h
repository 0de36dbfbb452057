// Debug names, interned process-wide. Naming is not a hot path; index 0 means "no name".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkleak {

uint32_t intern_name(const char* name) noexcept;
// Copies all names (index i -> name i) for a snapshot.
void copy_names(std::vector<std::string>* out);

}  // namespace vkleak
