#include "engine/kind_registry.hpp"

#include <algorithm>
#include <cctype>

namespace cuzk::engine {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool answers_to(const KindRow& r, std::string_view n) {
  if (same_name(r.name, n) || (!r.wire_name.empty() && same_name(r.wire_name, n))) return true;
  return std::any_of(r.aliases.begin(), r.aliases.end(), [&](const std::string& a) { return same_name(a, n); });
}

}  // namespace

std::string KindRow::label() const {
  std::string l = name;
  std::replace(l.begin(), l.end(), '-', '_');
  return l;
}

Status KindRegistry::add(KindRow row) {
  if (row.name.empty()) return Error{"kind " + std::to_string(row.wire) + " has no name"};
  if (!row.kind) return Error{"kind " + row.name + " has no JobKind"};
  if (find(row.wire)) return Error{"kind " + std::to_string(row.wire) + " is registered twice"};
  for (const auto& n : row.aliases)
    if (find(std::string_view(n))) return Error{"kind name \"" + n + "\" is registered twice"};
  if (find(std::string_view(row.name))) return Error{"kind name \"" + row.name + "\" is registered twice"};
  put(std::move(row));
  return ok_status();
}

void KindRegistry::put(KindRow row) {
  auto it = std::find_if(rows_.begin(), rows_.end(), [&](const KindRow& r) { return r.wire == row.wire; });
  if (it != rows_.end()) {
    *it = std::move(row);
    return;
  }
  auto at = std::find_if(rows_.begin(), rows_.end(), [&](const KindRow& r) { return r.wire > row.wire; });
  rows_.insert(at, std::move(row));
}

const KindRow* KindRegistry::find(std::uint32_t wire) const {
  for (const auto& r : rows_)
    if (r.wire == wire) return &r;
  return nullptr;
}

const KindRow* KindRegistry::find(std::string_view name) const {
  for (const auto& r : rows_)
    if (answers_to(r, name)) return &r;
  return nullptr;
}

std::string KindRegistry::name(std::uint32_t wire) const {
  const KindRow* r = find(wire);
  return r ? r->name : "kind-" + std::to_string(wire);
}

std::string KindRegistry::label(std::uint32_t wire) const {
  const KindRow* r = find(wire);
  return r ? r->label() : "kind_" + std::to_string(wire);
}

Priority KindRegistry::priority(std::uint32_t wire_priority, std::uint32_t kind) const {
  switch (wire_priority) {
    case 0: {
      const KindRow* r = find(kind);
      return r ? r->default_priority : Priority::kNormal;
    }
    case 1: return Priority::kLow;
    case 3: return Priority::kHigh;
    case 4: return Priority::kCritical;
    default: return Priority::kNormal;
  }
}

std::string KindRegistry::unknown_kind_message(std::uint32_t wire) const {
  std::string m = "unknown proof_kind " + std::to_string(wire) + " (expected ";
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (i) m += i + 1 == rows_.size() ? " or " : ", ";
    m += std::to_string(rows_[i].wire) + " " + (rows_[i].wire_name.empty() ? rows_[i].name : rows_[i].wire_name);
  }
  return m + (rows_.empty() ? "a registered kind; none is)" : ")");
}

Result<std::vector<std::uint32_t>> KindRegistry::wires(const std::vector<std::string>& names) const {
  std::vector<std::uint32_t> out;
  for (const auto& n : names) {
    const KindRow* r = find(std::string_view(n));
    if (!r) {
      std::string known;
      for (const auto& row : rows_) known += (known.empty() ? "" : ", ") + row.name;
      return Error{"unknown proof kind \"" + n + "\" (known: " + known + ")", ErrorCode::kInvalidArgument};
    }
    if (std::find(out.begin(), out.end(), r->wire) == out.end()) out.push_back(r->wire);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> KindRegistry::deadline_bound() const {
  std::vector<std::uint32_t> out;
  for (const auto& r : rows_)
    if (r.deadline_bound) out.push_back(r.wire);
  return out;
}

std::vector<std::shared_ptr<const KeyLoader>> KindRegistry::loaders() const {
  std::vector<std::shared_ptr<const KeyLoader>> out;
  for (const auto& r : rows_)
    for (const auto& l : r.loaders)
      if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  return out;
}

}  // namespace cuzk::engine
