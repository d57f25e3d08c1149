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
#include <functional>
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

// The byte ranges of the challenge-proof objects vanilla_proofs.<variant>[p][c], in document order, and
// the first variant name; false when the outline is not that of a JSON document.
bool split_challenge_proofs(std::string_view json, std::vector<formats::JsonRange>& out, std::string_view& variant) {
  formats::JsonOutline o(json);
  const bool ok = o.members([&](std::string_view key) {
    if (key != "vanilla_proofs" || !o.at('{')) return o.value();
    return o.members([&](std::string_view v) {
      if (variant.empty()) variant = v;
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

// For a piece of text too large for its shape (C1Limits::max_*_json_bytes): the first array, in
// document order, with more elements than its path allows, or an object with more than 64 fields —
// found with the outline scanner, so that the message names the array without building a DOM.
class LimitScan {
 public:
  LimitScan(std::string_view text, const C1Limits& limits) : o_(text), limits_(limits) {}
  std::string err;  // empty when nothing exceeds a limit

  void run(const JsonPath& p) { (void)value(p, 0); }

 private:
  formats::JsonOutline o_;
  const C1Limits& limits_;

  bool value(const JsonPath& p, int depth) {
    o_.ws();
    if (depth > 32) return o_.value();
    if (o_.at('{')) {
      std::uint64_t fields = 0;
      return o_.members([&](std::string_view key) {
        if (++fields > 64) {
          err = p.str() + ": more than 64 fields (a C1 object has at most 7)";
          return false;
        }
        const JsonPath c = p.child(key);
        return value(c, depth + 1);
      });
    }
    if (!o_.at('[')) return o_.value();
    const std::size_t start = o_.pos();
    std::uint64_t n = 0;
    if (!o_.elements([&] { return ++n, o_.value(); })) return false;
    const bool bytes = C1Limits::is_bytes32(p);
    const std::uint64_t max = bytes ? 32 : limits_.max_elements(p);
    if (n > max) {
      err = p.str() + ": " +
            (bytes ? "expected 32 bytes, got " + std::to_string(n)
                   : formats::too_many_elements(n, max, limits_.expected_for()));
      return false;
    }
    if (bytes) return true;
    const std::size_t end = o_.pos();
    o_.seek(start);
    std::uint64_t i = 0;
    if (!o_.elements([&] {
          const JsonPath c = p.child(i++);
          return value(c, depth + 1);
        }))
      return false;
    o_.seek(end);
    return true;
  }
};

// Why a piece of `text` at `p` is refused for its size: the array the limit scan names, else the size.
std::string oversized(std::string_view text, const JsonPath& p, const C1Limits& limits, std::uint64_t max,
                      const char* what) {
  LimitScan scan(text, limits);
  scan.run(p);
  if (!scan.err.empty()) return std::move(scan.err);
  return p.str() + ": " + std::to_string(text.size()) + " bytes of JSON " + what + ", at most " + std::to_string(max) +
         " expected for " + std::string(limits.expected_for());
}

// ------------------------------------------------------------------------------------------------
// Strict reader over the simdjson DOM.

constexpr std::array<std::string_view, 5> kVanillaKeys = {"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1",
                                                          "StackedDrg32GiBV1", "StackedDrg64GiBV1"};

// The top level of a C1 over the generic strict reader; the challenge proofs come from their field
// declarations (c1_fields.hpp), one DOM per challenge proof on the fast path.
class Reader : public formats::StrictJsonReader {
 public:
  // Chunked mode: the challenge proofs were cut out of the document and replaced by "{}" (every object
  // at vanilla_proofs.<variant>[p][c] is cut, so an object there is the next range); each is parsed on
  // its own with one reused parser, when it is within the size its shape allows.
  struct Chunks {
    std::string_view doc;
    std::size_t readable = 0;  // bytes readable from doc.data() (simdjson reads up to 64 past the end)
    std::vector<formats::JsonRange> ranges;
    std::size_t next = 0;
    dom::parser parser;
    std::string copy;
    bool syntax_error = false;  // a piece did not parse: the caller names the byte
  };
  Chunks* chunks = nullptr;

  bool challenge_entry(dom::element e, const JsonPath& p, ChallengeProof& out) {
    if (chunks == nullptr || !e.is_object()) return read(e, p, out);
    if (chunks->next >= chunks->ranges.size()) return fail(p, "not a challenge proof cut out by the outline scan");
    const formats::JsonRange r = chunks->ranges[chunks->next++];
    const char* b = chunks->doc.data() + r.begin;
    const std::size_t len = r.end - r.begin;
    const C1Limits& lim = limits != nullptr ? static_cast<const C1Limits&>(*limits) : any_limits();
    if (len > lim.max_challenge_json_bytes()) {
      err = oversized(std::string_view(b, len), p, lim, lim.max_challenge_json_bytes(), "in one challenge proof");
      return false;
    }
    if (r.end + kC1JsonPadding > chunks->readable) {
      chunks->copy.assign(b, len);
      chunks->copy.append(kC1JsonPadding, ' ');
      b = chunks->copy.data();
    }
    dom::element root;
    if (chunks->parser.parse(b, len, false).get(root) != simdjson::SUCCESS) {
      chunks->syntax_error = true;
      return fail(p, "syntax error");
    }
    return read(root, p, out);
  }

  static const C1Limits& any_limits() {
    static const C1Limits any;
    return any;
  }

  bool c1(dom::element e, C1Output& out) {
    const JsonPath root = formats::root_path();
    static constexpr std::array<std::string_view, 7> kFields = {
        "registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"};
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
          return variant(
              v, c, kVanillaKeys, "VanillaSealProof", [&](std::size_t k, dom::element pv, const JsonPath& pc) {
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

// The text of documents up to this size may be parsed as one DOM when the outline scan cannot cut it
// (the reference path; its DOM is ~12 bytes per input byte).
constexpr std::size_t kWholeDomMax = 1u << 20;

// The fast and bounded path: the challenge proofs are cut out with the outline scanner and parsed one
// at a time, each only when its size is within its shape's; the rest (the skeleton) likewise.
// nullopt when the outline scan cannot cut the text (the caller parses it whole or names the syntax
// error). Errors are the reference path's: a syntax error anywhere is reported before anything else.
std::optional<Result<C1Output>> parse_chunked(std::string_view json, std::size_t readable) {
  Reader::Chunks chunks;
  std::string_view variant;
  if (!split_challenge_proofs(json, chunks.ranges, variant)) return std::nullopt;
  const C1Limits* size_limits = C1Limits::for_vanilla_key(variant);
  const C1Limits& lim = size_limits != nullptr ? *size_limits : Reader::any_limits();
  auto error = [&](std::string e) -> Result<C1Output> {
    if (std::string located = formats::locate_json_syntax_error(json); !located.empty())
      return Error{std::move(located)};
    return Error{std::move(e)};
  };
  std::string skeleton;
  std::size_t cut = 0;
  for (const auto& r : chunks.ranges) cut += r.end - r.begin;
  skeleton.reserve(json.size() - cut + chunks.ranges.size() * 2 + kC1JsonPadding);
  std::size_t pos = 0;
  for (const auto& r : chunks.ranges) {
    skeleton.append(json.substr(pos, r.begin - pos));
    skeleton += "{}";
    pos = r.end;
  }
  skeleton.append(json.substr(pos));
  if (skeleton.size() > lim.max_skeleton_json_bytes())
    return error(
        oversized(skeleton, formats::root_path(), lim, lim.max_skeleton_json_bytes(), "outside the challenge proofs"));
  skeleton.reserve(skeleton.size() + kC1JsonPadding);
  dom::parser parser;
  dom::element root;
  if (auto code = parser.parse(skeleton).get(root); code != simdjson::SUCCESS) return error(syntax_error(json, code));
  chunks.doc = json;
  chunks.readable = readable;
  Reader r;
  r.chunks = &chunks;
  C1Output out;
  if (!r.c1(root, out)) {
    if (chunks.syntax_error) {
      if (std::string located = formats::locate_json_syntax_error(json); !located.empty())
        return Error{std::move(located)};
      return std::nullopt;  // simdjson refused a piece the locator accepts: let the reference path say why
    }
    return error(std::move(r.err));
  }
  if (chunks.next != chunks.ranges.size())
    return error("vanilla_proofs: " + std::to_string(chunks.ranges.size() - chunks.next) +
                 " challenge proofs were not read (more than one VanillaSealProof?)");
  return Result<C1Output>(std::move(out));
}

// When the outline scan cannot cut the text: the syntax error, else the reference path for a small text.
Result<C1Output> parse_uncut(std::string_view json, const std::function<Result<C1Output>()>& whole) {
  if (std::string located = formats::locate_json_syntax_error(json); !located.empty()) return Error{std::move(located)};
  if (json.size() <= kWholeDomMax) return whole();
  return Error{"(document): " + std::to_string(json.size()) +
               " bytes that the outline scan cannot cut into challenge proofs (not a C1 document)"};
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
  if (auto r = parse_chunked(json, json.size() + kC1JsonPadding)) return std::move(*r);
  return parse_uncut(json, [&] { return parse_whole(json); });
}

Result<C1Output> parse_c1_json(std::string_view json) {
  if (auto r = parse_chunked(json, json.size())) return std::move(*r);
  return parse_uncut(json, [&] { return detail::parse_c1_json_unchunked(json); });
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
    return Error{"SectorSize: " + std::to_string(out.sector_size) + " does not match registered_proof " + cfg.name +
                 " (" + std::to_string(cfg.sector_size) + " bytes)"};
  return out;
}

// Where the Phase1Out string's content is (the outline scan; nullopt when the text is not a JSON object
// with one Phase1Out string), whether it has escapes, and the longest string member of any name (what
// the size bound leaves out: a key may be escaped too).
struct Phase1OutRange {
  formats::JsonRange range;
  bool escaped = false;
  bool found = false;
  std::size_t longest_string = 0;
};
Phase1OutRange find_phase1out(std::string_view json) {
  formats::JsonOutline o(json);
  Phase1OutRange out;
  const bool ok = o.members([&](std::string_view key) {
    if (!o.at('"')) return o.value();
    std::string_view content;
    bool escaped = false;
    if (!o.string(content, escaped)) return false;
    out.longest_string = std::max(out.longest_string, content.size());
    if (key != "Phase1Out" || out.found) return true;
    out.range.begin = std::size_t(content.data() - json.data());
    out.range.end = out.range.begin + content.size();
    out.escaped = escaped;
    out.found = true;
    return true;
  });
  if (!ok || !o.at_end()) out.found = false;
  return out;
}

// Everything of a wrapper but the Phase1Out text is three small fields: more than this is refused
// before a DOM is built of it.
constexpr std::size_t kMaxWrapperBytes = 64u << 10;

std::optional<Error> oversized_wrapper(std::string_view json, const Phase1OutRange& p1) {
  const std::size_t outside = json.size() - p1.longest_string;
  if (outside <= kMaxWrapperBytes) return std::nullopt;
  if (std::string located = formats::locate_json_syntax_error(json); !located.empty()) return Error{std::move(located)};
  return Error{"(document): " + std::to_string(outside) +
               " bytes outside the Phase1Out string, a Curio C1 wrapper has at most " +
               std::to_string(kMaxWrapperBytes)};
}

// Fast path: the base64 text is decoded straight from the input instead of being copied into a DOM
// first, and the wrapper without it is padded for simdjson.
Result<CurioC1> parse_cut(std::string_view json, const Phase1OutRange& p1) {
  std::string skeleton;
  skeleton.reserve(json.size() - (p1.range.end - p1.range.begin) + kC1JsonPadding);
  skeleton.append(json.substr(0, p1.range.begin));
  skeleton.append(json.substr(p1.range.end));
  const std::size_t n = skeleton.size();
  skeleton.append(kC1JsonPadding, ' ');
  const std::string_view text = json.substr(p1.range.begin, p1.range.end - p1.range.begin);
  return parse_curio_impl(std::string_view(skeleton.data(), n), &text);
}

}  // namespace

Result<CurioC1> parse_curio_c1_padded(std::string_view json) {
  const auto p1 = find_phase1out(json);
  if (auto e = oversized_wrapper(json, p1)) return std::move(*e);
  if (p1.found && !p1.escaped) return parse_cut(json, p1);
  return parse_curio_impl(json, nullptr);
}

Result<CurioC1> parse_curio_c1(std::string_view json) {
  const auto p1 = find_phase1out(json);
  if (auto e = oversized_wrapper(json, p1)) return std::move(*e);
  if (p1.found && !p1.escaped) return parse_cut(json, p1);
  formats::BigBuffer padded(json.size() + kC1JsonPadding);
  if (!json.empty()) std::memcpy(padded.data(), json.data(), json.size());
  return parse_curio_impl(std::string_view(reinterpret_cast<const char*>(padded.data()), json.size()), nullptr);
}

}  // namespace cuzk::filecoin::porep
