// PartitionSizer: what the memory budget charges a partition before it runs (issue 40 item 4), kept
// apart from the pipeline's threads so that the rule reads and is tested as one piece.
//
// The rule, per sizing key ("<kind>/<circuit>"): the kind's model (JobKind's PartitionMemory) times
// EngineOptions::partition_memory_factor, raised to 1.1 x the largest peak-RSS growth measured for a
// partition of that key run alone (the pipeline measures one whenever no other partition is in flight:
// a model that is too small — a new circuit, a changed allocator — corrects itself after one solo
// partition); `after_start` never above `full`; a partition whose charge passes the whole budget is an
// error (it could never run). Plain data: the pipeline calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/result.hpp"
#include "engine/job_kind.hpp"
#include "engine/status.hpp"

namespace cuzk::engine {

class PartitionSizer {
 public:
  explicit PartitionSizer(double factor = 1.0) : factor_(factor > 0 ? factor : 1.0) {}

  // The charge of partition `index` of a job under `key`, whose kind models `model`; the model is
  // recorded for status. Error: the charge is above `budget_total`.
  Result<PartitionMemory> size(const std::string& key, std::uint32_t index, PartitionMemory model,
                               std::uint64_t budget_total);
  // A partition of `key` run alone grew the process's peak RSS by `grown` bytes.
  void measured(const std::string& key, std::uint64_t grown);
  // Per key: the largest model, the largest measurement and how many were taken (/status sizing).
  const std::map<std::string, PartitionSizing>& table() const { return table_; }

 private:
  double factor_;
  std::map<std::string, PartitionSizing> table_;
};

}  // namespace cuzk::engine
