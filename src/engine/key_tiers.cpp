#include "engine/key_tiers.hpp"

#include <algorithm>
#include <map>

#include "engine/units.hpp"

namespace cuzk::engine {

const TierChoice* TierPlan::find(std::string_view id, std::uint32_t device) const {
  for (const auto& c : choices)
    if (c.id == id && c.device == device) return &c;
  return nullptr;
}

std::vector<std::string> TierPlan::key_order() const {
  std::vector<std::string> order;
  for (const auto& c : choices)
    if (std::find(order.begin(), order.end(), c.id) == order.end()) order.push_back(c.id);
  return order;
}

TierPlan plan_key_tiers(std::span<const TierDevice> devices, std::span<const TierKey> keys, std::uint64_t pinned_room) {
  std::vector<const TierKey*> order;
  for (const auto& k : keys) order.push_back(&k);
  std::stable_sort(order.begin(), order.end(), [](const TierKey* a, const TierKey* b) {
    if (a->deadline_bound != b->deadline_bound) return a->deadline_bound;
    if (a->cost.resident_bytes != b->cost.resident_bytes) return a->cost.resident_bytes < b->cost.resident_bytes;
    return a->id < b->id;
  });

  struct Room {
    std::uint64_t usable = 0, resident = 0, proof = 0;
  };
  std::map<std::uint32_t, Room> room;
  for (const auto& d : devices) room[d.device].usable = d.usable_bytes;
  // Every key's proofs run on its devices, whatever tier its copy takes: the largest proof is reserved.
  for (const auto& k : keys)
    for (std::uint32_t d : k.devices)
      if (auto it = room.find(d); it != room.end()) it->second.proof = std::max(it->second.proof, k.cost.proof_bytes);

  TierPlan plan;
  for (const TierKey* k : order) {
    const std::string first =
        k->deadline_bound ? "deadline-bound, planned first" : "planned after the deadline-bound keys";
    for (std::uint32_t d : k->devices) {
      auto it = room.find(d);
      if (it == room.end()) continue;
      Room& r = it->second;
      const CopyCost& c = k->cost;
      const std::uint64_t need = r.resident + c.resident_bytes + r.proof;
      const std::string sizes = format_bytes(c.resident_bytes) + " resident + " + format_bytes(r.resident) +
                                " of keys before it + " + format_bytes(r.proof) + " for the largest proof " +
                                (need <= r.usable ? "<= " : "> ") + format_bytes(r.usable) + " usable";
      TierChoice choice{k->id, d, groth16::CopyForm::kResident, {}};
      if (need <= r.usable) {
        r.resident += c.resident_bytes;
        choice.reason = "resident (" + first + "): " + sizes;
      } else if (c.pinned_bytes <= pinned_room) {
        pinned_room -= c.pinned_bytes;
        choice.form = groth16::CopyForm::kPinned;
        choice.reason = "streamed from pinned memory (" + first + "): " + sizes;
      } else if (c.file_pinned_bytes && c.file_pinned_bytes <= pinned_room) {
        pinned_room -= c.file_pinned_bytes;
        choice.form = groth16::CopyForm::kFile;
        choice.reason = "streamed from its file (" + first + "): " + sizes + "; its pinned copy " +
                        format_bytes(c.pinned_bytes) + " > " + format_bytes(pinned_room + c.file_pinned_bytes) +
                        " of host memory left for pinned copies";
      } else {
        choice.form = c.file_pinned_bytes ? groth16::CopyForm::kFile : groth16::CopyForm::kPinned;
        choice.reason = "no tier fits (" + first + "): " + sizes + "; " +
                        format_bytes(c.file_pinned_bytes ? c.file_pinned_bytes : c.pinned_bytes) + " pinned > " +
                        format_bytes(pinned_room) + " of host memory left for pinned copies";
      }
      plan.choices.push_back(std::move(choice));
    }
  }
  return plan;
}

}  // namespace cuzk::engine
