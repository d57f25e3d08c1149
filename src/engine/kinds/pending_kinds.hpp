// SnapDeals until its circuit lands (issue 25): the request's shape is validated (32-byte
// commitments, non-empty vanilla proofs, a published sector size), then the job fails with
// "not supported yet: snap-update", naming the field first when the request is malformed.
#pragma once

#include <memory>
#include <string>

#include "engine/job_kind.hpp"

namespace cuzk::engine::kinds {

std::shared_ptr<JobKind> make_pending_snap_kind(const std::string& name);

}  // namespace cuzk::engine::kinds
