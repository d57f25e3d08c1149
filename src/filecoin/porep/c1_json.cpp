// C1 JSON reading (c1_json.hpp): the strict reader of formats/json_reader.hpp driven by the field
// declarations (c1_fields.hpp), cut into one DOM per challenge proof by the outline scanner
// (formats/json_outline.hpp) on the fast path, and the Curio wrapper.
// The generic pieces (paths, syntax-error locator, base64, big buffers) live in formats/; writing is
// c1_json_write.cpp.
#include "filecoin/porep/c1_json.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "filecoin/porep/config.hpp"
#include "filecoin/common/merkle_proof_json.hpp"
#include "filecoin/porep/c1_fields.hpp"
#include "filecoin/porep/c1_limits.hpp"
#include "formats/base64.hpp"
#include "formats/json_reader.hpp"
#include "formats/json_outline.hpp"

namespace cuzk::filecoin::porep {

static_assert(kC1JsonPadding >= simdjson::SIMDJSON_PADDING);

using formats::JsonPath;

namespace {

namespace dom = simdjson::dom;

// simdjson reports only an error code for malformed text; the locator names the byte and the path.
std::string syntax_error(std::string_view text, simdjson::error_code code) {
  std::string located = formats::locate_json_syntax_error(text);
  if (!located.empty()) return located;
  return std::string("(document): invalid JSON: ") + simdjson::error_message(code);
}

// The byte ranges of the challenge-proof objects vanilla_proofs.<variant>[p][c], in document order;
// false when the outline is not that of a C1 document.
bool split_challenge_proofs(std::string_view json, std::vector<formats::JsonRange>& out) {
  formats::JsonOutline o(json);
  const bool ok = o.members([&](std::string_view key) {
    if (key != "vanilla_proofs" || !o.at('{')) return o.value();
    return o.members([&](std::string_view) {
      if (!o.at('[')) return o.value();
      return o.elements([&] {
        if (!o.at('[')) return o.value();
        return o.elements([&] {
          if (!o.at('{')) return o.value();
          formats::JsonRange r;
          r.begin = o.pos();
          if (!o.value()) return false;
          r.end = o.pos();
          out.push_back(r);
          return true;
        });
      });
    });
  });
  return ok && o.at_end();
}

// ------------------------------------------------------------------------------------------------
// Strict reader over the simdjson DOM.

constexpr std::array<std::string_view, 5> kVanillaKeys = {"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1",
                                                          "StackedDrg32GiBV1", "StackedDrg64GiBV1"};

// The top level of a C1 over the generic strict reader; the challenge proofs come from their field
// declarations (c1_fields.hpp), one DOM per challenge proof on the fast path.
class Reader : public formats::StrictJsonReader {
 public:

  // Chunked mode: the challenge proofs were cut out of the document and replaced by their index in
  // `ranges`; each is parsed on its own with one reused parser.
  struct Chunks {
    std::string_view doc;
    std::size_t readable = 0;  // bytes readable from doc.data() (simdjson reads up to 64 past the end)
    std::vector<formats::JsonRange> ranges;
    std::size_t next = 0;
    dom::parser parser;
    std::string copy;
  };
  Chunks* chunks = nullptr;

  bool challenge_entry(dom::element e, const JsonPath& p, ChallengeProof& out) {
    if (chunks == nullptr) return read(e, p, out);
    std::uint64_t idx;
    if (e.get_uint64().get(idx) != simdjson::SUCCESS || idx != chunks->next || idx >= chunks->ranges.size())
      return fail(p, "not a challenge proof cut out by the outline scan");
    const formats::JsonRange r = chunks->ranges[chunks->next++];
    const char* b = chunks->doc.data() + r.begin;
    const std::size_t len = r.end - r.begin;
    if (r.end + kC1JsonPadding > chunks->readable) {
      chunks->copy.assign(b, len);
      chunks->copy.append(kC1JsonPadding, ' ');
      b = chunks->copy.data();
    }
    dom::element root;
    if (chunks->parser.parse(b, len, false).get(root) != simdjson::SUCCESS) return fail(p, "syntax error");
    return read(root, p, out);
  }

  bool c1(dom::element e, C1Output& out) {
    const JsonPath root = formats::root_path();
    static constexpr std::array<std::string_view, 7> kFields = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                                                "replica_id",       "seed",           "ticket"};
    return object(e, root, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      switch (i) {
        case 0: {
          std::string_view s;
          if (v.get_string().get(s) != simdjson::SUCCESS) return fail(c, "expected string, got " + describe(v));
          for (const auto& cfg : all_porep_configs())
            if (cfg.name == s) {
              out.registered_proof = cfg.name;
              return true;
            }
          return fail(c, "unknown registered proof '" + std::string(s.substr(0, 64)) + "'");
        }
        case 1:
          return variant(v, c, kVanillaKeys, "VanillaSealProof", [&](std::size_t k, dom::element pv, const JsonPath& pc) {
            out.vanilla_key = std::string(kVanillaKeys[k]);
            limits = C1Limits::for_vanilla_key(kVanillaKeys[k]);  // every count below: at most the size's
            return array_of(pv, pc, out.vanilla_proofs,
                            [&](dom::element part, const JsonPath& partc, std::vector<ChallengeProof>& proofs) {
                              return array_of(part, partc, proofs,
                                              [&](dom::element x, const JsonPath& xc, ChallengeProof& cp) {
                                                return challenge_entry(x, xc, cp);
                                              });
                            });
          });
        case 2: return bytes(v, c, out.comm_r);
        case 3: return bytes(v, c, out.comm_d);
        case 4: return bytes(v, c, out.replica_id);
        case 5: return bytes(v, c, out.seed);
        default: return bytes(v, c, out.ticket);
      }
    });
  }
};

// One DOM for the whole text (kC1JsonPadding readable bytes after it).
simdjson::error_code parse_dom(dom::parser& parser, std::string_view json, dom::element& root) {
  return parser.parse(json.data(), json.size(), false).get(root);
}

}  // namespace

// ------------------------------------------------------------------------------------------------

std::string vanilla_key_for(std::string_view registered_proof) {
  if (registered_proof.substr(0, 10) != "StackedDrg") return {};
  const std::size_t v = registered_proof.find("V1", 10);
  if (v == std::string_view::npos) return {};
  return std::string(registered_proof.substr(0, v + 2));
}


namespace {

// Fast path (see Outline); nullopt when it does not apply or the document is not accepted, in which
// case the caller parses the whole document (and reports its error).
std::optional<C1Output> parse_chunked(std::string_view json, std::size_t readable) {
  Reader::Chunks chunks;
  if (!split_challenge_proofs(json, chunks.ranges) || chunks.ranges.empty()) return std::nullopt;
  std::string skeleton;
  skeleton.reserve(json.size() / 64 + chunks.ranges.size() * 8 + 4096);
  std::size_t pos = 0;
  for (std::size_t i = 0; i < chunks.ranges.size(); ++i) {
    skeleton.append(json.substr(pos, chunks.ranges[i].begin - pos));
    skeleton += std::to_string(i);
    pos = chunks.ranges[i].end;
  }
  skeleton.append(json.substr(pos));
  skeleton.reserve(skeleton.size() + kC1JsonPadding);
  dom::parser parser;
  dom::element root;
  if (parser.parse(skeleton).get(root) != simdjson::SUCCESS) return std::nullopt;
  chunks.doc = json;
  chunks.readable = readable;
  Reader r;
  r.chunks = &chunks;
  C1Output out;
  if (!r.c1(root, out) || chunks.next != chunks.ranges.size()) return std::nullopt;
  return out;
}

// The reference path: one DOM for the whole document (kC1JsonPadding readable bytes after it).
Result<C1Output> parse_whole(std::string_view json) {
  dom::parser parser;
  dom::element root;
  if (auto code = parse_dom(parser, json, root); code != simdjson::SUCCESS) return Error{syntax_error(json, code)};
  Reader r;
  C1Output out;
  if (!r.c1(root, out)) return Error{std::move(r.err)};
  return out;
}

}  // namespace

Result<C1Output> parse_c1_json_padded(std::string_view json) {
  if (auto fast = parse_chunked(json, json.size() + kC1JsonPadding)) return std::move(*fast);
  return parse_whole(json);
}

Result<C1Output> parse_c1_json(std::string_view json) {
  if (auto fast = parse_chunked(json, json.size())) return std::move(*fast);
  return detail::parse_c1_json_unchunked(json);
}

Result<C1Output> detail::parse_c1_json_unchunked(std::string_view json) {
  formats::BigBuffer padded(json.size() + kC1JsonPadding);
  if (!json.empty()) std::memcpy(padded.data(), json.data(), json.size());
  return parse_whole(std::string_view(reinterpret_cast<const char*>(padded.data()), json.size()));
}

// ------------------------------------------------------------------------------------------------
// Curio wrapper

namespace {

// Reads the wrapper. `phase1out`, when given, is the raw content of the Phase1Out string (found by the
// outline scan, free of escapes) and `json` is the wrapper with that content removed.
Result<CurioC1> parse_curio_impl(std::string_view json, const std::string_view* phase1out) {
  CurioC1 out;
  formats::BigBuffer inner;  // the decoded C1 JSON, followed by kC1JsonPadding zero bytes
  std::size_t inner_size = 0;
  {
    dom::parser parser;
    dom::element root;
    if (auto code = parse_dom(parser, json, root); code != simdjson::SUCCESS) return Error{syntax_error(json, code)};
    Reader r;
    static constexpr std::array<std::string_view, 3> kFields = {"SectorNum", "Phase1Out", "SectorSize"};
    const JsonPath top = formats::root_path();
    const bool ok = r.object(root, top, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      if (i == 0) {
        if (v.get_int64().get(out.sector_num) != simdjson::SUCCESS)
          return r.fail(c, "expected signed 64-bit integer, got " + Reader::describe(v));
        return true;
      }
      if (i == 2) return r.u64(v, c, out.sector_size);
      std::string_view text;
      if (v.get_string().get(text) != simdjson::SUCCESS)
        return r.fail(c, "expected base64 string, got " + Reader::describe(v));
      if (phase1out != nullptr) text = *phase1out;
      auto n = formats::base64_decoded_size(text);
      if (!n) return r.fail(c, n.error());
      formats::BigBuffer buf(*n + kC1JsonPadding);
      if (std::string e = formats::base64_decode_into(text, buf.data()); !e.empty()) return r.fail(c, e);
      inner = std::move(buf);
      inner_size = *n;
      return true;
    });
    if (!ok) return Error{std::move(r.err)};
  }
  auto c1 = parse_c1_json_padded(std::string_view(reinterpret_cast<const char*>(inner.data()), inner_size));
  if (!c1) return Error{"Phase1Out: " + c1.error()};
  out.c1 = std::move(c1.value());
  const PorepConfig& cfg = porep_config_by_name(out.c1.registered_proof);  // known: the parser checked
  if (out.sector_size != cfg.sector_size)
    return Error{"SectorSize: " + std::to_string(out.sector_size) + " does not match registered_proof " + cfg.name + " (" +
                 std::to_string(cfg.sector_size) + " bytes)"};
  return out;
}

// Fast path: the base64 text is decoded straight from the input instead of being copied into a DOM
// first. nullopt when the outline is unusual (escapes, no Phase1Out string, bad structure).
std::optional<std::pair<std::string, std::string_view>> cut_phase1out(std::string_view json) {
  formats::JsonOutline o(json);
  formats::JsonRange r;
  bool found = false, escaped = false;
  const bool ok = o.members([&](std::string_view key) {
    if (key != "Phase1Out" || found || !o.at('"')) return o.value();
    std::string_view content;
    if (!o.string(content, escaped)) return false;
    r.begin = std::size_t(content.data() - json.data());
    r.end = r.begin + content.size();
    found = true;
    return true;
  });
  if (!ok || !o.at_end() || !found || escaped) return std::nullopt;
  std::string skeleton;
  skeleton.reserve(json.size() - (r.end - r.begin) + kC1JsonPadding);
  skeleton.append(json.substr(0, r.begin));
  skeleton.append(json.substr(r.end));
  return std::make_pair(std::move(skeleton), json.substr(r.begin, r.end - r.begin));
}

}  // namespace

Result<CurioC1> parse_curio_c1_padded(std::string_view json) {
  if (auto cut = cut_phase1out(json)) {
    std::string& skeleton = cut->first;
    const std::size_t n = skeleton.size();
    skeleton.append(kC1JsonPadding, ' ');
    return parse_curio_impl(std::string_view(skeleton.data(), n), &cut->second);
  }
  return parse_curio_impl(json, nullptr);
}

Result<CurioC1> parse_curio_c1(std::string_view json) {
  if (auto cut = cut_phase1out(json)) {
    std::string& skeleton = cut->first;
    const std::size_t n = skeleton.size();
    skeleton.append(kC1JsonPadding, ' ');
    return parse_curio_impl(std::string_view(skeleton.data(), n), &cut->second);
  }
  formats::BigBuffer padded(json.size() + kC1JsonPadding);
  if (!json.empty()) std::memcpy(padded.data(), json.data(), json.size());
  return parse_curio_impl(std::string_view(reinterpret_cast<const char*>(padded.data()), json.size()), nullptr);
}

}  // namespace cuzk::filecoin::porep
