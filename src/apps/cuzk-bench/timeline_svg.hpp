// The pipeline waterfall as an SVG: one row per (job, partition) with its queue / synthesis /
// device-wait / backend / finalize spans, then one lane per worker showing what it ran when. Times
// come from the daemon's per-partition timestamps (AwaitProofResponse.partitions), so no log
// reconstruction is needed.
#pragma once

#include <string>
#include <vector>

#include "engine/types.hpp"

namespace cuzk::bench {

struct TimelineJob {
  std::string label;  // e.g. "#3"
  engine::JobResult result;
};

std::string render_timeline_svg(const std::vector<TimelineJob>& jobs, const std::string& title);

}  // namespace cuzk::bench
