// The Filecoin kind whose circuit has not landed (see pending_kinds.hpp).
#include "engine/kinds/pending_kinds.hpp"

namespace cuzk::engine::kinds {
namespace {

bool published_sector_size(std::uint64_t s) {
  return s == 2048 || s == (8ull << 20) || s == (512ull << 20) || s == (32ull << 30) || s == (64ull << 30);
}

Status check_32(const std::string& kind, const char* field, const std::string& v) {
  if (v.size() != 32) {
    return Error{kind + ": " + field + " must be 32 bytes, got " + std::to_string(v.size())};
  }
  return ok_status();
}

Status validate_snap(const ProofRequest& r, const std::string& k) {
  if (r.vanilla_proofs.empty()) return Error{k + ": vanilla_proofs is empty (expected one proof per partition)"};
  for (std::size_t i = 0; i < r.vanilla_proofs.size(); ++i) {
    if (r.vanilla_proofs[i].empty()) return Error{k + ": vanilla_proofs[" + std::to_string(i) + "] is empty"};
  }
  if (auto st = check_32(k, "comm_r_old", r.comm_r_old); !st) return st;
  if (auto st = check_32(k, "comm_r_new", r.comm_r_new); !st) return st;
  if (auto st = check_32(k, "comm_d_new", r.comm_d_new); !st) return st;
  if (r.sector_size != 0 && !published_sector_size(r.sector_size)) {
    return Error{k + ": sector_size " + std::to_string(r.sector_size) + " is not a Filecoin sector size"};
  }
  return ok_status();
}

class PendingKind final : public JobKind {
 public:
  PendingKind(std::string name, Status (*validate)(const ProofRequest&, const std::string&))
      : name_(std::move(name)), validate_(validate) {}
  std::string name() const override { return name_; }
  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext&) override {
    if (auto st = validate_(*req, name_); !st) return Error{st.error()};
    return Error{"not supported yet: " + name_ + " (its circuit is not implemented in this daemon)"};
  }

 private:
  std::string name_;
  Status (*validate_)(const ProofRequest&, const std::string&);
};

}  // namespace

std::shared_ptr<JobKind> make_pending_snap_kind(const std::string& name) {
  return std::make_shared<PendingKind>(name, &validate_snap);
}

}  // namespace cuzk::engine::kinds
