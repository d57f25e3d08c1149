#include "engine/partition_sizing.hpp"

#include <algorithm>

#include "engine/units.hpp"

namespace cuzk::engine {

Result<PartitionMemory> PartitionSizer::size(const std::string& key, std::uint32_t index, PartitionMemory model,
                                             std::uint64_t budget_total) {
  PartitionMemory m = model;
  m.full = std::uint64_t(double(m.full) * factor_);
  PartitionSizing& sz = table_[key];
  sz.model_bytes = std::max(sz.model_bytes, m.full);
  m.full = std::max(m.full, sz.measured_bytes + sz.measured_bytes / 10);
  m.after_start = std::min(m.full, m.after_start);
  if (m.full > budget_total) {
    return Error{"partition " + std::to_string(index) + " needs " + format_bytes(m.full) +
                 " but the whole memory budget is " + format_bytes(budget_total)};
  }
  return m;
}

void PartitionSizer::measured(const std::string& key, std::uint64_t grown) {
  PartitionSizing& sz = table_[key];
  sz.measured_bytes = std::max(sz.measured_bytes, grown);
  sz.samples++;
}

}  // namespace cuzk::engine
